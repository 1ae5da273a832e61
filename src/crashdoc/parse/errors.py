"""THE test for "does this line report an error by itself" (outside a traceback), used by the analysis and by
the live tracker of `watch`/`run`."""

from __future__ import annotations

import re

from crashdoc.parse.exceptions import split_exception
from crashdoc.parse.lines import LogLine

ERROR_LEVELS = frozenset({"ERROR", "CRITICAL", "FATAL"})
QUIET_LEVELS = frozenset({"INFO", "DEBUG", "WARNING", "TRACE"})

_ERRORISH = re.compile(
    r"^(?:Error|ERROR|FATAL|Fatal|fatal|panic|Failed|FAILED)\b[:!\s]"
    r"|^(?:Killed|Segmentation fault|Illegal instruction|Bus error|Aborted)\b"
    r"|\b(?:fatal error|error|Error)(?:\[\w+\])?: "
    r"|\bwhat\(\): "
    r"|\bKilled\s+\S"
    r"|\bcore dumped\b"
    r"|code=(?:killed|dumped)"
    r"|Main process exited, code=exited, status=(?!0/)"
    r"|\bOut of memory: Killed process"
    r"|\binvalid opcode\b|\bsegfault at\b"
)
_CARETS = re.compile(r"\s*[~^]+\s*$")


def bare_exception(text: str) -> tuple[str | None, str]:
    """`Type: message` written on a line of its own -> (type, message); (None, text) otherwise."""
    exc, msg = split_exception(text)
    if exc is None or not msg:
        return None, text
    return exc, msg


def is_error_line(line: LogLine) -> bool:
    """True for a line outside a traceback that reports an error by itself."""
    if line.text.startswith(("  ", "\t")) or _CARETS.match(line.text):
        return False  # an indented continuation (traceback code, wrapped message), not an error by itself
    if line.level in ERROR_LEVELS:
        return True
    if line.level in QUIET_LEVELS:
        return False
    text = line.text.strip()
    if _ERRORISH.search(text):
        return True
    return bare_exception(text)[0] is not None
