"""Making untrusted log text safe: ANSI sequences out, control characters made visible."""

from __future__ import annotations

import re

# CSI/OSC escape sequences, the "[0;36m" remnants GitHub leaves after stripping ESC, rsyslog's "#033[0m" escape.
_ANSI = re.compile(r"(?:\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\^\[\[[0-9;]*m|#033\[[0-9;]*m|(?<![\w\]])\[[0-9;]{1,12}m)")
_ANSI_HINT = re.compile(r"\[[0-9;]{1,12}m")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences (colours, cursor moves, titles)."""
    return _ANSI.sub("", text) if ("\x1b" in text or _ANSI_HINT.search(text)) else text


def visible(text: str) -> str:
    """Replace every control character (and bidi override) with a visible `\\xNN`/`\\uNNNN` escape."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text)


def clean(text: str) -> str:
    """ANSI removed, carriage-return progress redraws reduced to their last state, controls made visible."""
    text = strip_ansi(text)
    if "\r" in text:
        parts = [p for p in text.split("\r") if p.strip()]
        text = parts[-1] if parts else ""
    return visible(text)
