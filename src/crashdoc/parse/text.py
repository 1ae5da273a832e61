"""Making untrusted log text safe: ANSI sequences out, control characters made visible."""

from __future__ import annotations

from crashdoc.regex import Regex

# CSI/OSC escape sequences, the "[0;36m" remnants GitHub leaves after stripping ESC (or a U+FFFD where a copy lost
# it), rsyslog's "#033[0m" escape.
_ANSI = Regex(r"(?:\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\^\[\[[0-9;]*m|#033\[[0-9;]*m|\ufffd\[[0-9;]*m|(?<![\w\]])\[[0-9;]{1,12}m)")
_ANSI_HINT = Regex(r"\[[0-9;]{1,12}m")
_CONTROL = Regex(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


INVISIBLE = Regex("[\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")
"""Invisible characters removed from every report: zero-width spaces/joiners, word joiners, BOM, soft hyphen,
bidi marks, embeddings, overrides and isolates (a look-alike package name in a fix must not pass)."""


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences (colours, cursor moves, titles)."""
    return _ANSI.sub("", text) if ("\x1b" in text or _ANSI_HINT.search(text)) else text


def visible(text: str) -> str:
    """Replace every control character (and bidi override) with a visible `\\xNN`/`\\uNNNN` escape."""
    if text.isprintable():  # NOTE: every character _CONTROL names is unprintable: one C pass, nothing compiled
        return text
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text)


_ERRORISH = Regex(r"\b(?:\w*(?:Error|Exception)\b|Traceback|FATAL|CRITICAL|ERROR|[Ff]ailed|[Ee]rror|panic)")


def clean(text: str) -> str:
    """ANSI removed, carriage-return progress redraws reduced to their last state, controls made visible.

    A terminal shows only what follows the last carriage return, but what came before it was written too: when
    that earlier text states an error (`RuntimeError: boom\rnothing to see`), the whole line is kept, the
    carriage return shown as `\x0d`, so no error hides behind a redraw."""
    text = strip_ansi(text)
    if "\r" in text:
        parts = [p for p in text.split("\r") if p.strip()]
        if any(_ERRORISH.search(p) for p in parts[:-1]) and not _ERRORISH.search(parts[-1]):
            return visible("\r".join(parts))
        text = parts[-1] if parts else ""
    return visible(text)
