"""THE test for "does this line report an error by itself" (outside a traceback), used by the analysis and by
the live tracker of `watch`/`run`: the level its logger header gave it, else a line row of the error-format
table (parse/formats.py: panics, terminate, signals, CUDA status strings, ggml asserts, error words ...), else
a `Type: message` of its own."""

from __future__ import annotations

from crashdoc.parse.exceptions import split_exception
from crashdoc.parse.formats import line_format
from crashdoc.parse.lines import LogLine
from crashdoc.regex import Regex

ERROR_LEVELS = frozenset({"ERROR", "CRITICAL", "FATAL"})
QUIET_LEVELS = frozenset({"INFO", "DEBUG", "WARNING", "TRACE"})

_CARETS = Regex(r"\s*[~^]+\s*$")
_RELAYED = Regex(r"^[^:\n]{1,160}: (?:[A-Za-z_][\w]*\.){0,6}[A-Z]\w{0,60}(?:Error|Exception): \S")
"""A message that relays an exception after its own words (`Process exited before becoming ready: RuntimeError:
Failed to load the default metallib.`, `Error in iterating prediction stream: RuntimeError: ...`)."""


def bare_exception(text: str) -> tuple[str | None, str]:
    """`Type: message` written on a line of its own -> (type, message); (None, text) otherwise."""
    exc, msg = split_exception(text)
    if exc is None or not msg:
        return None, text
    return exc, msg


def is_error_line(line: LogLine) -> bool:
    """True for a line outside a traceback that reports an error by itself."""
    if line.text.startswith(("  ", "\t")) or _CARETS.match(line.text):
        # an indented continuation (traceback code, wrapped message), not an error by itself, unless a row of the
        # format table says its lines are errors however indented (TVM's `  Check failed: ...`)
        # (an indented `Type: message` stands for itself: a pasted excerpt, a build's indented subprocess output)
        if line.level in QUIET_LEVELS:
            return False
        fmt = line_format(line.text.strip())
        return (fmt is not None and fmt.indented and fmt.level in ERROR_LEVELS) or bare_exception(line.text.strip())[0] is not None
    if not line.text.strip():
        return False  # an ERROR record without text (a JSON log whose message is empty or not a string)
    if line.level in ERROR_LEVELS:
        return True
    if line.level in QUIET_LEVELS:
        return False
    text = line.text.strip()
    if bare_exception(text)[0] is not None:  # (first: cached, and cheaper than the table's rows)
        return True
    if _RELAYED.search(text) is not None:
        return True
    fmt = line_format(text)
    return fmt is not None and fmt.level in ERROR_LEVELS
