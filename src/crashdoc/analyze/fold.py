"""Fold repeated tracebacks: a traceback whose lines say what an earlier one said is rebuilt from that one,
not read again.

An error-dense log repeats itself: every rank prints the same traceback, and a crash loop prints them again on
every attempt, with other timestamps and pids in the prefixes. The first traceback that starts with a given
header line (text, level, logger location) is read by the traceback builder as usual and kept as a *template*:
the keys (text, level, location) of its stream's lines from the header to the last line it took, and the Trace
it became. A later header with the same key on another stream (or later on the same one) starts a *copy*: that
stream's next lines are only compared with the template's keys, and when all of them matched and the traceback
is closed (its next line is the line that closed the template, a new attempt, the end) the template's Trace
comes out with the copy's own lines in it (every line number, prefix and process is the copy's). The analysis
then classifies it as it would have (the classification is remembered per distinct text anyway).

Nothing is guessed: a copy whose next line differs from the template, or a line of no engine prefix that the
builder could have routed into it, makes the copy's lines go through the builder after all (`replay`), in the
state they would have met. A template is kept only when its Trace is made of its own stream's lines alone.
"""

from __future__ import annotations

from collections.abc import Callable

from crashdoc.parse.lines import LogLine
from crashdoc.parse.traceback import Frame, Stack, Trace, TracebackBuilder, is_frame_line, text_before_header

HEADER = "Traceback (most recent call last)"
MAX_RUN = 4000
"""Longest traceback (lines) kept as a template."""
MAX_TEMPLATES = 512
"""Header keys with templates."""
PER_HEADER = 8
"""Templates kept per header key (a worker's and the API server's tracebacks both start with a bare header)."""

Key = tuple[str, str | None, str | None]


def key(line: LogLine) -> Key:
    """What the traceback builder reads of a line of its stream: its text, level and logger location."""
    return (line.text, line.level, line.loc)


class FoldStats:
    """What the fold did. (The fold's records are plain classes with slots: a start defines no dataclass here.)"""

    __slots__ = ("templates", "copies", "lines", "replayed")

    def __init__(self) -> None:
        self.templates = 0
        self.copies = 0
        """Tracebacks rebuilt from a template."""
        self.lines = 0
        """Lines taken by copies (not read by the traceback builder)."""
        self.replayed = 0
        """Copies that differed from their template (read by the builder after all)."""


class _Template:
    __slots__ = ("keys", "routes", "trace", "plan", "closer")

    def __init__(self, keys: tuple[Key, ...], routes: bytes, trace: Trace, plan: tuple[_StackPlan, ...],
                 closer: Key | None) -> None:
        self.keys = keys
        self.routes = routes
        """The builder's route_code after each line of the run."""
        self.trace = trace
        self.plan = plan
        """Where each stack's lines are in the run: a copy's Trace takes its own lines from the same positions."""
        self.closer = closer


_Pos = int | None


class _StackPlan:
    __slots__ = ("frames", "lines", "header")

    def __init__(self, frames: tuple[tuple[_Pos, _Pos], ...], lines: tuple[int, ...], header: _Pos) -> None:
        self.frames = frames
        """Positions of each frame's line and code line."""
        self.lines = lines
        self.header = header


class _Recording:
    __slots__ = ("stream", "state", "lines", "routes", "valid", "trace", "closer")

    def __init__(self, stream: str, state: object, lines: list[LogLine], routes: bytearray) -> None:
        self.stream = stream
        self.state = state
        self.lines = lines
        self.routes = routes
        self.valid = True
        self.trace: Trace | None = None
        self.closer: Key | None = None


class _Copy:
    __slots__ = ("templates", "lines", "attempt")

    def __init__(self, templates: list[_Template], lines: list[LogLine], attempt: int) -> None:
        self.templates = templates
        """The templates whose first lines the copy's lines are (their builder states are the same so far)."""
        self.lines = lines
        self.attempt = attempt


class Folder:
    """Templates, the copies being read, and the recordings of tracebacks that may become templates.

    `emit(trace, attempt)` hands a finished Trace to the analysis (attempt None: the analysis looks it up)."""

    def __init__(self, builder: TracebackBuilder, emit: Callable[[Trace, int | None], None],
                 attempt_of: dict[int, int]) -> None:
        self.builder = builder
        self.emit = emit
        self.attempt_of = attempt_of
        self.templates: dict[Key, list[_Template]] = {}
        self.copies: dict[str, _Copy] = {}
        self.recordings: dict[str, _Recording] = {}
        self.stats = FoldStats()

    # -- copies -----------------------------------------------------------------------------------------

    def take(self, line: LogLine, attempt: int) -> bool:
        """True when `line` belongs to a copy (the analysis then only counts it); before False, whatever a copy
        owes the builder has been settled, so the line can be fed as usual."""
        stream = line.stream
        cp = self.copies.get(stream)
        if cp is not None:
            n, k, templates = len(cp.lines), key(line), cp.templates
            if len(templates) == 1:  # (the usual case: no list built per line)
                keys = templates[0].keys
                alive = templates if n < len(keys) and keys[n] == k else []
            else:
                alive = [t for t in templates if n < len(t.keys) and t.keys[n] == k]
            if alive:
                cp.templates = alive
                cp.lines.append(line)
                return True
            del self.copies[stream]
            done = next((t for t in cp.templates if n == len(t.keys) and k == t.closer), None)
            if done is not None and line.engine_prefixed and not is_frame_line(line.text):
                self._finish(cp, done)  # closed by the line that closed its template: it closes this one so too
            else:
                self._replay(cp)
        elif not line.engine_prefixed and self.copies:
            last = self.builder.last_opened
            cp = self.copies.get(last) if last is not None else None
            if cp is not None and cp.templates[0].routes[len(cp.lines) - 1]:
                del self.copies[last]  # type: ignore[arg-type]
                self._replay(cp)  # the builder may route this line into it: let it see the real state
        if HEADER not in line.text:
            return False
        found = self.templates.get(key(line))
        if not found or self.builder.chain_waiting(stream):
            return False
        if not line.engine_prefixed:
            last = self.builder.last_opened
            if last is not None and last != stream and self.builder.route_code(last):
                return False  # the builder could route this header into another stream's traceback
        for trace in self.builder.close_stream(stream):
            self.closed(trace, line)
            self.emit(trace, None)
        self.builder.opened(stream)
        self.copies[stream] = _Copy(list(found), [line], attempt)
        return True

    def flush(self) -> None:
        """A new attempt or the end of the input: every copy is closed (rebuilt, or replayed into the builder
        so that the builder closes it)."""
        copies, self.copies = self.copies, {}
        for cp in copies.values():
            done = next((t for t in cp.templates if len(cp.lines) == len(t.keys)), None)
            if done is not None:
                self._finish(cp, done)
            else:
                self._replay(cp)

    def _finish(self, cp: _Copy, t: _Template) -> None:
        self.stats.copies += 1
        self.stats.lines += len(cp.lines)
        self.emit(_remap(t, cp.lines), cp.attempt)

    def _replay(self, cp: _Copy) -> None:
        """The builder reads the copy's lines after all; they are recorded as a template of their own."""
        self.stats.replayed += 1
        for ln in cp.lines:
            self.attempt_of[ln.lineno] = cp.attempt
        stream = cp.lines[0].stream
        for trace in self.builder.replay(cp.lines):
            self.emit(trace, None)
        state = self.builder.open_state(stream)
        if state is not None and stream not in self.recordings:
            routes = bytearray(cp.templates[0].routes[: len(cp.lines)])
            self.recordings[stream] = _Recording(stream, state, list(cp.lines), routes)

    # -- recording templates ----------------------------------------------------------------------------

    def closed(self, trace: Trace, line: LogLine | None) -> None:
        """The builder closed `trace`, while reading `line` (None: at a new attempt or the end)."""
        rec = self.recordings.get(trace.stream)
        if rec is None or trace.kind != "traceback" or self.builder.open_state(rec.stream) is rec.state:
            return
        del self.recordings[rec.stream]
        if line is not None and line.stream != rec.stream:
            return  # closed by a line of another stream (routed into it)
        rec.trace, rec.closer = trace, (key(line) if line is not None else None)
        self._keep(rec)

    def observe(self, line: LogLine) -> None:
        """After the builder read `line` as usual."""
        stream, b = line.stream, self.builder
        rec = self.recordings.get(stream)
        if rec is not None:
            if b.open_state(stream) is rec.state:
                rec.lines.append(line)
                rec.routes.append(b.route_code(stream))
                if len(rec.lines) > MAX_RUN:
                    del self.recordings[stream]
            else:
                del self.recordings[stream]  # closed with nothing to show, or already kept
        last = b.last_opened
        if not line.engine_prefixed and last != stream and last in self.recordings and line.lineno in b.consumed:
            self.recordings[last].valid = False  # a line routed into it
        if HEADER in line.text and stream not in self.recordings and len(self.templates) < MAX_TEMPLATES:
            state = b.open_state(stream)
            if state is not None and state is not getattr(rec, "state", None) and key(line) not in self.templates:
                # (a header with templates that was not a copy of one is recorded when it is replayed)
                self.recordings[stream] = _Recording(stream, state, [line], bytearray([b.route_code(stream)]))

    def _keep(self, rec: _Recording) -> None:
        trace = rec.trace
        if not rec.valid or trace is None or trace.stream != rec.stream:
            return
        at = {id(ln): i for i, ln in enumerate(rec.lines)}
        refs = [ln for s in trace.stacks for ln in (s.header, *s.lines, *(x for f in s.frames for x in (f.line, f.code_line)))]
        if any(ln is not None and id(ln) not in at for ln in refs):
            return  # a line the builder made or took from elsewhere: not a function of this stream's lines

        def pos(ln: LogLine | None) -> _Pos:
            return None if ln is None else at[id(ln)]

        plan = tuple(_StackPlan(tuple((pos(f.line), pos(f.code_line)) for f in s.frames), tuple(at[id(ln)] for ln in s.lines),
                                pos(s.header)) for s in trace.stacks)
        if any(text_before_header(ln) is not None for ln in rec.lines):
            return  # a message before the header is a line of its own to the analysis
        keys = tuple(key(ln) for ln in rec.lines)
        same = self.templates.setdefault(keys[0], [])
        if len(same) < PER_HEADER and all(t.keys != keys for t in same):
            same.append(_Template(keys, bytes(rec.routes), trace, plan, rec.closer))
            self.stats.templates += 1


def _remap(t: _Template, lines: list[LogLine]) -> Trace:
    """The template's Trace with the copy's lines in place of its own."""
    stacks = []
    for s, plan in zip(t.trace.stacks, t.plan):
        frames = tuple(Frame(f.path, f.lineno, f.func, f.code, None if a is None else lines[a], None if b is None else lines[b])
                       for f, (a, b) in zip(s.frames, plan.frames))
        header = None if plan.header is None else lines[plan.header]
        stacks.append(Stack(s.exc_type, s.message, frames, tuple(map(lines.__getitem__, plan.lines)), s.link, s.truncated, header))
    return Trace(lines[0].stream, tuple(stacks), t.trace.intro, t.trace.kind)
