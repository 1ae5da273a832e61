"""Incidents, not lines: an error line outside a traceback together with the lines that finish telling it.

One failure is often several lines: `DistBackendError: NCCL error ... unhandled system error`, then
`ncclSystemError: ...`, `Last error:` and the specific cause; a burst of `NCCL WARN` lines from one process; C++'s
`terminate called after throwing an instance of 'X'` and `  what():  ...`; a Rust panic whose message is on the
next line. An incident starts at an error line (errors.py) and takes the lines that follow it without a gap: lines
that go on with its message (indented, announced by a line ending in `:`, announcing the cause themselves:
`Last error:`, or, after a `Type: message`, any line of no prefix: its message goes on as in a traceback), and
the same process's error lines printed within about a second (a burst). A blank line, a
traceback, another process, any other line, or a gap in the input ends it. The first line stays a candidate of its own; the others are consumed, and the
whole incident comes out as one Trace (kind `incident`) that the analysis classifies as one text.
"""

from __future__ import annotations

from collections.abc import Iterator

from crashdoc.parse.errors import bare_exception, is_error_line
from crashdoc.parse.lines import GAP, LogLine
from crashdoc.parse.stacks import Stack, Trace
from crashdoc.regex import Regex

MAX_INCIDENT_LINES = 40
BURST_SECONDS = 1.0
_FRAME = Regex(r'\s*(?:> )?File "[^"]*", line \d+')
_CLOCK = Regex(r"(\d\d):(\d\d):(\d\d(?:[.,]\d+)?)")
#: a line that says the specific cause comes next (`Last error:`, `Caused by:`, a Rust panic's `... at f.rs:1:2:`,
#: CMake's `CMake Error at f.txt:65 (message):` or `CMake Error in f.txt:` before the message's lines)
_ANNOUNCES = Regex(
    r"(?:^|\b)(?:Last error|Caused by|Reason|Root cause|Details?|what\(\)):\s*$|panicked at \S+:\d+:\d+:$"
    r"|^terminate called after throwing an instance of '[^']*'$"
    r"|^CMake Error(?: at \S+:\d+ \([\w ]+\)| in \S+)?:$"
)
#: the cause written after a marker on the same line
_MARKED = Regex(r"(?:Last error|Caused by|Reason|Root cause|what\(\)):\s*\S")
def seconds(ts: str | None) -> float | None:
    """Seconds of the day of a timestamp's clock time (`...T13:17:07.3187Z`, `Dec 28 13:17:07`), or None."""
    m = _CLOCK.search(ts or "")
    if m is None:
        return None
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3).replace(",", "."))


def announces(text: str) -> bool:
    """Whether a line says that the next one holds the cause (C++'s `terminate called after throwing ...` before
    `what():`, `Last error:`, a Rust panic's location line)."""
    text = text.strip()
    # NOTE: every branch of _ANNOUNCES ends the line with `:` or `'`: most lines are settled without a search
    return text[-1:] in (":", "'") and _ANNOUNCES.search(text) is not None


def announced(lines: list[LogLine]) -> int | None:
    """Index of the line an incident says holds the cause: the line after one that announces it (`Last error:`,
    `Caused by:`, `what():`, a Rust panic's `panicked at f.rs:1:2:`), or a line that writes it after such a
    marker; None without one."""
    for i, ln in enumerate(lines[:-1]):
        if announces(ln.text) and lines[i + 1].text.strip():
            return i + 1
    return next((i for i, ln in enumerate(lines) if i and _MARKED.search(ln.text)), None)


class _Incident:
    """An incident being read (a plain class: a start defines no dataclass for it)."""

    __slots__ = ("head", "process", "clock", "exception", "lines")

    def __init__(self, head: LogLine, process: str | None, clock: float | None, exception: bool) -> None:
        self.head = head
        self.process = process
        self.clock = clock
        self.exception = exception
        """The first line is a `Type: message` of its own: its message may go on unindented, as in a traceback."""
        self.lines: list[LogLine] = []

    @property
    def last(self) -> LogLine:
        return self.lines[-1] if self.lines else self.head


class IncidentBuilder:
    """Feed the lines a traceback did not take, in input order; finished incidents come out as Traces."""

    def __init__(self, consumed: set[int]) -> None:
        self.consumed = consumed
        """Shared with the traceback builder: line numbers that are not candidates of their own."""
        self.open: _Incident | None = None

    def feed(self, line: LogLine, taken: bool) -> Iterator[Trace]:
        """One line; `taken` when a traceback consumed it (that ends an open incident)."""
        inc = self.open
        if inc is not None:
            if not taken and self._belongs(inc, line):
                inc.lines.append(line)
                if inc.process is None:
                    inc.process = line.process
                self.consumed.add(line.lineno)
                return
            yield from self.close()
        if not taken and line.text.strip() and GAP not in line.text and is_error_line(line):
            self.open = _Incident(line, line.process, seconds(line.ts), bare_exception(line.text.strip())[0] is not None)

    def _belongs(self, inc: _Incident, line: LogLine) -> bool:
        text = line.text
        if line.lineno not in (inc.last.lineno, inc.last.lineno + 1) or len(inc.lines) + 1 >= MAX_INCIDENT_LINES:
            return False  # a gap in what was read (a record's lines share its number), or long enough
        if line.stream != inc.head.stream or (line.process and inc.process and line.process != inc.process):
            return False  # another process
        if not text.strip() and not inc.lines and inc.head.text.startswith("Error: "):
            return True  # Rust's anyhow / eyre: `Error: ...`, a blank line, then `Caused by:` and the causes
        if len(inc.lines) == 1 and not inc.lines[0].text.strip():
            return announces(text)  # (after that blank line only `Caused by:` goes on)
        if not text.strip() or GAP in text or _FRAME.match(text) or "Traceback (most recent call last)" in text:
            return False
        clock = seconds(line.ts)
        if clock is not None and inc.clock is not None and abs(clock - inc.clock) > BURST_SECONDS:
            return False  # printed later: not the same burst
        if line.level is None and line.loc is None and (
            text[:1] in (" ", "\t") or inc.last.text.rstrip().endswith(":") or announces(text) or inc.exception
        ):
            return True  # the message goes on: indented, announced by the line before, announcing the next, or
            # the next line of an exception's message (`ValidationError: 1 validation error for X` / `field`)
        return is_error_line(line)  # the same process's burst of errors

    def close(self) -> Iterator[Trace]:
        """End the open incident; an incident of more than one line comes out."""
        inc, self.open = self.open, None
        if inc is not None and inc.lines and not inc.lines[-1].text.strip():
            inc.lines.pop()  # the blank line of an anyhow error that no `Caused by:` followed
        if inc is None or not inc.lines:
            return
        exc, msg = bare_exception(inc.head.text.strip())
        message = "\n".join([msg, *(ln.text.rstrip() for ln in inc.lines)])
        stack = Stack(exc, message, (), tuple(inc.lines), None, False, inc.head)
        yield Trace(inc.head.stream, (stack,), "", "incident")

    def first_lineno(self) -> int | None:
        """The first consumed line of the open incident (None when none is open or it has no follow-on yet)."""
        return self.open.lines[0].lineno if self.open is not None and self.open.lines else None
