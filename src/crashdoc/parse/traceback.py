"""Python tracebacks rebuilt from text, one state machine per process stream.

Handles logged tracebacks (every line carries the logger header) and raw ones, chains ("The above exception was
the direct cause ...", "During handling of the above exception ..."), 3.11+ caret lines, `...<N lines>...`,
exception groups (`+ Exception Group Traceback`, `| ` lines), multi-line messages and tracebacks cut off by
truncation. Unprefixed lines (SGLang prints only the first traceback line with its rank tag) are routed to the
traceback that is waiting for them.
"""

from __future__ import annotations

from collections.abc import Iterator

from crashdoc.parse.exceptions import is_exception_name
from crashdoc.parse.incidents import IncidentBuilder
from crashdoc.parse.lines import GAP, LogLine
from crashdoc.parse.richbox import RichBox, opens
from crashdoc.parse.stacks import Frame, Stack, Trace, starts_new_error, text_before_header
from crashdoc.regex import Regex

__all__ = ["Frame", "Stack", "Trace", "TracebackBuilder", "is_frame_line", "text_before_header"]

_FRAME = Regex(r'\s*(?:> )?File "(?P<path>[^"]*)", line (?P<line>\d+)(?:, in (?P<func>.+))?$')
"""A frame line; loguru marks the frame that caught the exception with `> ` instead of the indentation."""
_EXC = Regex(r"(?P<type>[A-Za-z_][\w.]*(?:\[[\w.]+\]|\([\w.]+\))?)(?::(?: (?P<msg>.*))?)?$")
_GROUP_BAR = Regex(r"\s*(?:\| ?)+")
_GROUP_SEP = Regex(r"\s*\+[-+ ]*(?:\d+ -|----|\.\.\. and \d+ more exceptions)")
_STATEMENT = Regex(r"(?:raise|return|yield|await|assert|del) |[A-Za-z_][\w.]*(?:\[[^\]\n]{0,80}\])?(?:, *[A-Za-z_][\w.]*)* *=[^=]|[A-Za-z_][\w.]*\(")
"""A line of Python source (a statement, an assignment, a call): a frame's code line in a copy that lost its
indentation, never the exception line (`Name: message`)."""
_NOISE = Regex(r"\s*[~^][~^\s]*$|\s*\.\.\.<\d+ lines>\.\.\.$|\s*\[Previous line repeated \d+ more times?\]$")
_CAUSE = "The above exception was the direct cause of the following exception"
_CONTEXT = "During handling of the above exception, another exception occurred"
MAX_MESSAGE_LINES = 40
MAX_FRAMES = 400


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))


class _Open:
    """A traceback being read on one stream (a plain class: compared by identity, and a start defines no
    dataclass for it)."""

    __slots__ = ("stream", "intro", "loc", "stacks", "frames", "header", "exc_lines", "state", "outer", "first_lineno",
                 "link", "idle", "box", "margin")

    def __init__(self, stream: str, intro: str, loc: str | None, header: LogLine | None = None, outer: str = "main",
                 first_lineno: int = 0, box: RichBox | None = None) -> None:
        self.stream = stream
        self.intro = intro
        self.loc = loc
        self.stacks: list[Stack] = []
        self.frames: list[Frame] = []
        self.header = header
        self.exc_lines: list[LogLine] = []
        self.state = "frames"  # frames | message | between
        self.outer = outer
        self.first_lineno = first_lineno
        self.link: str | None = None
        self.idle = 0
        self.box = box
        """A rich box traceback being read (parse/richbox.py)."""
        self.margin = _indent(header.text) if header is not None else 0
        """The traceback's own left margin: its frame lines 2 columns in, the exception line on it (a child's
        traceback that pip or a launcher prints indented keeps its shape)."""


def _shifted_exception(cur: _Open, text: str) -> bool:
    """An exception line a copy indented (` ValueError: ...` after a frame's code): `Type: message` of an
    exception's name, after the last frame's code, less indented than that code (margin + 4)."""
    if not cur.frames or cur.frames[-1].code is None or _indent(text) > cur.margin + 2:
        return False
    m = _EXC.match(text.strip())
    return m is not None and m.group("msg") is not None and is_exception_name(m.group("type"))


class TracebackBuilder:
    """Feed LogLines in input order; finished Traces come out of `feed` and `close`."""

    def __init__(self) -> None:
        self._open: dict[str, _Open] = {}
        self._last_opened: str | None = None
        self.consumed: set[int] = set()
        """Line numbers that belong to a traceback or an incident (not separate error lines)."""
        self.incidents = IncidentBuilder(self.consumed)

    def feed(self, line: LogLine) -> Iterator[Trace]:
        """Consume one line; yields any traces (and incidents, parse/incidents.py) it completes."""
        yield from self._feed(line)
        yield from self.incidents.feed(line, line.lineno in self.consumed)

    def _feed(self, line: LogLine) -> Iterator[Trace]:
        text = line.text
        key = line.stream
        cur = self._open.get(key)
        if cur is None and not line.engine_prefixed and self._last_opened in self._open:
            waiting = self._open[self._last_opened]
            same_wrapper = waiting.outer in (line.outer, "main") or line.outer == "main"
            if same_wrapper and waiting.state == "frames" and (_FRAME.match(_strip_group(text)) or waiting.frames):
                key, cur = self._last_opened, waiting
        if GAP in text:
            yield from self._close_key(key)
            return
        if "Traceback (most recent call last)" in text:
            if cur is not None and cur.state in ("between",) and cur.link is not None:
                self._start_stack(cur, line)
                self.consumed.add(line.lineno)
                return
            if cur is not None:
                yield from self._close_key(key)
            self.consumed.add(line.lineno)
            box = RichBox() if opens(text) else None
            intro = "" if box else text.split("Traceback (most recent call last)")[0].strip(" +|:")
            cur = _Open(stream=key, intro=intro, loc=line.loc, header=line, outer=line.outer, first_lineno=line.lineno,
                        box=box)
            self._open[key] = cur
            self._last_opened = key
            return
        if cur is None:
            if not _FRAME.match(text):
                return
            # an excerpt that starts inside a traceback: open one without its header
            cur = _Open(stream=key, intro="", loc=line.loc, outer=line.outer, first_lineno=line.lineno)
            self._open[key] = cur
            self._last_opened = key
        if cur.intro.startswith("Exception Group") or text.lstrip().startswith(("|", "+")):
            text = _strip_group(text)
        yield from self._step(cur, key, line, text)
        if self._open.get(key) is cur:
            self.consumed.add(line.lineno)

    def _step(self, cur: _Open, key: str, line: LogLine, text: str) -> Iterator[Trace]:
        if cur.state == "frames" and cur.box is not None and cur.box.feed(text, line, cur.frames):
            return
        if cur.state == "frames":
            m = _FRAME.match(text)
            if m:
                if not cur.frames:
                    cur.margin = max(0, text.find('File "') - 2)  # (an excerpt's header may have lost its indent)
                if len(cur.frames) < MAX_FRAMES:
                    cur.frames.append(Frame(m.group("path"), int(m.group("line")), (m.group("func") or "").strip(), None, line))
                self.consumed.add(line.lineno)
                return
            if not text.strip() or _NOISE.match(text) or _GROUP_SEP.match(text):
                return
            last = cur.frames[-1] if cur.frames else None
            if last is not None and last.lineno == 0 and last.line and (m := _FRAME.match(last.line.text + text)):
                cur.frames[-1] = Frame(m.group("path"), int(m.group("line")), (m.group("func") or "").strip(), None, last.line)
                return  # the rest of a frame's line that a terminal or a paste wrapped (below)
            if text.lstrip().startswith('File "') and '", line ' not in text and len(cur.frames) < MAX_FRAMES:
                cur.frames.append(Frame(text.strip().removeprefix('File "'), 0, "", None, line))  # a frame's line cut inside its path
                return
            code_shaped = cur.frames and cur.frames[-1].code is None and _STATEMENT.match(text.lstrip()) is not None
            if (_indent(text) > cur.margin or code_shaped) and not _shifted_exception(cur, text):
                if cur.frames and cur.frames[-1].code is None:
                    f = cur.frames[-1]
                    cur.frames[-1] = Frame(f.path, f.lineno, f.func, text.strip(), f.line, line)
                return
            if line.level in ("INFO", "DEBUG", "WARNING") and line.loc != cur.loc and cur.loc is not None:
                yield from self._close_key(key)  # a new log record: the traceback was cut off
                return
            if cur.loc is None and line.loc is not None and _EXC.match(text.strip()) is None:
                return  # another logger's record amid a bare traceback (two processes on one terminal): its own line
            cur.exc_lines = [line]
            self.consumed.add(line.lineno)
            cur.state = "message"
            return
        if cur.state == "message":
            stripped = text.strip()
            if _CAUSE in text or _CONTEXT in text:
                self._finish_stack(cur)
                cur.link = "cause" if _CAUSE in text else "context"
                cur.state = "between"
                return
            if _GROUP_SEP.match(text):
                self._finish_stack(cur)
                cur.link, cur.state = "group", "frames"
                return
            if not stripped:
                self._finish_stack(cur)
                cur.state, cur.link = "between", None
                return
            same_record = line.loc == cur.loc and (line.level is None or line.level in ("ERROR", "CRITICAL"))
            first = cur.exc_lines[0]  # a header of its own where the message had none (a level, an engine's prefix)
            new_record = (line.level is not None and first.level is None) or (line.engine_prefixed and not first.engine_prefixed)
            if same_record and line.loc is None and (new_record or starts_new_error(text, cur.exc_lines[-1].text)):
                yield from self._close_key(key)  # a bare traceback's message ends where the next error begins
                return
            if same_record and len(cur.exc_lines) < MAX_MESSAGE_LINES and not _FRAME.match(text):
                cur.exc_lines.append(line)
                self.consumed.add(line.lineno)
                return
            yield from self._close_key(key)
            return
        # between stacks: wait a few lines for a chain sentence or the next Traceback
        if _CAUSE in text or _CONTEXT in text:
            cur.link = "cause" if _CAUSE in text else "context"
            return
        if not text.strip() or _GROUP_SEP.match(text):
            return
        if cur.link == "group" or (_EXC.match(text.strip()) and cur.link is not None):
            cur.exc_lines = [line]
            self.consumed.add(line.lineno)
            cur.state = "message"
            return
        cur.idle += 1
        if cur.link is None or cur.idle > 3:
            yield from self._close_key(key)

    def _start_stack(self, cur: _Open, line: LogLine) -> None:
        cur.header, cur.state, cur.idle = line, "frames", 0
        cur.box = RichBox() if opens(line.text) else None  # a chained exception's own box

    def _finish_stack(self, cur: _Open) -> None:
        if cur.exc_lines:
            first = cur.exc_lines[0].text.strip()
            first = _strip_group(first).strip() if first.startswith("|") else first
            m = _EXC.match(first)
            if m and (m.group("msg") is not None or is_exception_name(m.group("type"))):
                exc_type, msg0 = m.group("type"), m.group("msg") or ""
            else:
                exc_type, msg0 = None, first
            rest = [_strip_group(ln.text).rstrip() for ln in cur.exc_lines[1:]]
            message = "\n".join([msg0, *rest]).strip("\n")
            cur.stacks.append(Stack(exc_type, message, tuple(cur.frames), tuple(cur.exc_lines), cur.link, False, cur.header))
        elif cur.frames:
            cur.stacks.append(Stack(None, "", tuple(cur.frames), (), cur.link, True, cur.header))
        cur.frames, cur.exc_lines, cur.header = [], [], None

    def _close_key(self, key: str) -> Iterator[Trace]:
        cur = self._open.pop(key, None)
        if cur is None:
            return
        self._finish_stack(cur)
        if cur.stacks:
            yield Trace(cur.stream, tuple(cur.stacks), cur.intro)

    # -- for the fold of repeated tracebacks (analyze/fold.py): the per-stream state, seen from outside --

    @property
    def last_opened(self) -> str | None:
        """The stream whose traceback opened last (lines of no engine prefix may be routed to it)."""
        return self._last_opened

    def opened(self, stream: str) -> None:
        """A traceback opened on `stream` outside the builder (a folded copy): it is the last opened."""
        self._last_opened = stream

    def open_state(self, stream: str) -> object | None:
        """The traceback open on `stream` (an opaque object, compared by identity), or None."""
        return self._open.get(stream)

    def route_code(self, stream: str) -> int:
        """What a line of no engine prefix would find on `stream`: 2 frames read (any such line joins), 1 waiting
        for frames (a frame line joins), 0 nothing it could join."""
        cur = self._open.get(stream)
        if cur is None or cur.state != "frames":
            return 0
        return 2 if cur.frames else 1

    def chain_waiting(self, stream: str) -> bool:
        """A traceback on `stream` waits for the next link of its chain (a header continues it)."""
        cur = self._open.get(stream)
        return cur is not None and cur.state == "between" and cur.link is not None

    def close_stream(self, stream: str) -> Iterator[Trace]:
        """Close the traceback open on `stream`, as its next header would."""
        yield from self._close_key(stream)

    def replay(self, lines: list[LogLine]) -> list[Trace]:
        """Feed one stream's lines that were held back (a folded copy that turned out to differ), as they were
        fed at their time: the first one opened a traceback of its own stream, and the lines that arrived since
        from other streams did not change this stream's state."""
        last, self._last_opened = self._last_opened, None
        out = [t for ln in lines for t in self._feed(ln)]
        self._last_opened = last if last is not None else self._last_opened
        self.consumed.difference_update(ln.lineno for ln in lines)
        return out

    def has_open(self) -> bool:
        """True while some stream is inside a traceback or an incident."""
        return bool(self._open) or self.incidents.open is not None

    def oldest_open(self) -> int | None:
        """First line number of the oldest traceback or incident still open, or None."""
        firsts = [o.first_lineno for o in self._open.values()]
        inc = self.incidents.first_lineno()
        return min([*firsts, inc] if inc is not None else firsts, default=None)

    def close(self) -> Iterator[Trace]:
        """Flush every open traceback and incident (end of input); a traceback without its exception is
        `truncated`."""
        for key in list(self._open):
            yield from self._close_key(key)
        yield from self.incidents.close()


def is_frame_line(text: str) -> bool:
    """A traceback frame line (`  File "x.py", line 3, in f`)."""
    return _FRAME.match(text) is not None


def _strip_group(text: str) -> str:
    m = _GROUP_BAR.match(text)
    if m and "|" in m.group(0):
        return text[m.end():]
    return text
