"""Untrusted log text made safe for a terminal or a Markdown page."""

from __future__ import annotations

from crashdoc.parse.text import INVISIBLE, strip_ansi, visible

MAX_SHOWN = 400


def safe(text: str | None, limit: int = MAX_SHOWN) -> str:
    """ANSI and invisible characters removed, control characters (newlines too: one field is one line) visible,
    cut to `limit`."""
    if not text:
        return ""
    s = visible(INVISIBLE.sub("", strip_ansi(text))).replace("\n", "\\n").replace("\t", " ")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def redacted_note(count: int) -> str:
    """`3 secrets redacted`: what a report says when the redactor replaced values."""
    return f"{count} secret{'' if count == 1 else 's'} redacted"
