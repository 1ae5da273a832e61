"""What the traceback builder and the incident builder produce: frames, stacks, traces (a Python traceback or
an incident of error lines), and the small tests they share about where one error's text ends."""

from __future__ import annotations

from dataclasses import dataclass, replace

from crashdoc.parse.exceptions import split_exception
from crashdoc.parse.lines import LogLine


@dataclass(frozen=True)
class Frame:
    """One frame: file, line, function and the code line when printed."""

    path: str
    lineno: int
    func: str
    code: str | None = None
    line: LogLine | None = None
    """The input line that printed the frame."""
    code_line: LogLine | None = None
    """The input line that printed the code."""


@dataclass(frozen=True)
class Stack:
    """One exception in a chain: its frames, type and message."""

    exc_type: str | None
    message: str
    frames: tuple[Frame, ...]
    lines: tuple[LogLine, ...]
    """The exception line and its message continuation lines (empty when truncated)."""
    link: str | None = None
    """How this stack follows the previous one: `cause`, `context`, `group` or None."""
    truncated: bool = False
    header: LogLine | None = None
    """The `Traceback (most recent call last):` line, when seen."""


@dataclass(frozen=True)
class Trace:
    """A whole printed traceback (one or more chained stacks) from one process stream."""

    stream: str
    stacks: tuple[Stack, ...]
    intro: str = ""
    """Text before `Traceback` on the header line (`EngineCore hit an exception:`)."""
    kind: str = "traceback"
    """`traceback` (Python's, or a rich box rebuilt as one) or `incident` (an error line with its follow-on lines
    and the same process's burst: one Stack whose `header` is the first error line, `lines` the rest)."""


def starts_new_error(text: str, previous: str) -> bool:
    """Whether `text`, printed right after `previous` (a line of an exception's message), is a new error of its
    own rather than the message's next line: a non-indented `Type: message` whose type is a Python class name
    (CapWords: `RuntimeError`, `pkg.mod.ShardCannotStart`; not a C status name such as `ncclSystemError`), after
    a line that did not announce more (`... raised:`, `the following errors:`)."""
    if not text[:1].isalpha() or previous.rstrip().endswith(":"):
        return False
    exc, msg = split_exception(text)
    return exc is not None and bool(msg) and exc.split("(", 1)[0].rsplit(".", 1)[-1][:1].isupper()


_HEADER = "Traceback (most recent call last):"


def text_before_header(line: LogLine) -> LogLine | None:
    """The message printed on the same line before `Traceback (most recent call last):` (a logger that joined
    its message and the traceback), as a line of its own; None when the header starts the line."""
    at = line.text.find(_HEADER)
    if at <= 0:
        return None
    head = line.text[:at].rstrip(" ,:;")
    return replace(line, text=head) if head.strip() else None
