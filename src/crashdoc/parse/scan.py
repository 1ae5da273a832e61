"""Block scanner: reads the input in large blocks, finds hot lines with one multi-pattern pass
(hyperscan when available, Python `re` otherwise) and yields only the lines inside hot windows.

Everything else is counted (bytes, lines) but never decoded or parsed, which is what keeps crashdoc within a
small factor of `grep` on gigabyte logs while memory stays bounded by the block size.
"""

from __future__ import annotations

import bisect
import functools
import queue
import re
import sys
import threading
from array import array
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, BinaryIO

from crashdoc.parse.blocks import (
    MAX_LINE,
    Hot,
    HotLine,
    Scanned,
    State,
    back_lines,
    count_lines,
    produce,
    skip_lines,
    tail,
)
from crashdoc.parse.literal_plan import plan_key, prefilter_patterns
from crashdoc.parse.markers import CLASSES, DEBUG_LEVELS, LOGGED, MarkerClass, line_level, opens_message, passes
from crashdoc.parse.matcher import Matcher, ScanStats
from crashdoc.parse.regions import Parts, RegionFold, read_copy
from crashdoc.parse.repair import repair
from crashdoc.parse.windows import windows

if TYPE_CHECKING:
    from concurrent.futures import Future

BLOCK = 8 << 20
"""Bytes read per block."""
SWITCH_INTERVAL = 0.0002
"""Seconds between GIL hand-overs while scanning (Python's default is 0.005)."""
MAX_BEFORE = 3
"""Lines kept from the end of a block for before-context of a hit at the start of the next one."""
SHORT_SPAN = 512
"""Bytes between two hit lines counted with one `bytes.count` call (a call to count_lines costs more there)."""


class Scanner:
    """Selects the lines worth parsing from a binary stream."""

    def __init__(
        self,
        extra_patterns: Sequence[str] = (),
        block_size: int = BLOCK,
        extra_classes: Sequence[MarkerClass] = (),
        use_hyperscan: bool = True,
        fold_attempts: bool = True,
    ) -> None:
        """`extra_patterns` (knowledge-base regexes) are hot with a short after-context."""
        self.stats = ScanStats()
        classes = list(CLASSES)
        classes.extend(c for c in extra_classes if c.patterns)
        self._rule: MarkerClass | None = None
        self.use_hyperscan = use_hyperscan
        self.rule_index = -1
        markers = list(classes)
        literals: list[tuple[str, int, bool]] = []  # (pattern, class index, prefilter) of the rule literals
        self.literal_rules: list[tuple[str, ...]] = []
        """For each rule literal of the block pass (class index rule_index + i), the rule patterns that contain it."""
        self.literal_needles: list[tuple[tuple[tuple[bytes, bool], ...], ...]] = []
        """For each of those patterns, the literals one of which a line must hold for it to be tried (none: any line;
        parse/literal_plan.py merges a literal into a shorter one it contains)."""
        if extra_patterns:
            rule = MarkerClass("rule", tuple(extra_patterns), before=1, after=6, drop_levels=DEBUG_LEVELS, drop_quoted=LOGGED)
            self.rule_index = len(classes)
            self._rule = rule
            plan = prefilter_patterns(extra_patterns)
            first = self.rule_index
            literals = [(lit, first + i, whole) for i, (lit, _, whole, _) in enumerate(plan)]
            self.literal_rules = [pats for _, pats, _, _ in plan]
            self.literal_needles = [needles for _, _, _, needles in plan]
            classes.append(rule)
        self.classes = classes
        if len(markers) + len(literals) >= 1 << 16:
            raise ValueError(f"{len(markers) + len(literals)} scanner classes: a packed hit holds 16 bits of class")
        self.quiet_classes = {i: c.drop_levels for i, c in enumerate(markers) if c.drop_levels and not c.strict}
        """Marker classes whose hits a level field refuses (a hit after it, on a line at one of these levels)."""
        self.relayed = frozenset(i for i, c in enumerate(markers) if c.relayed)
        """Of those, the classes whose hit still counts when it opens the message (parse/markers.py)."""
        self.matcher = Matcher(
            markers, self.stats, use_hyperscan, extra=literals, extra_key=plan_key(extra_patterns) if literals else ""
        )
        """The block pass: the marker classes, then one class index per rule literal."""
        self.block_size = block_size
        self.regions: RegionFold | None = RegionFold(use_hyperscan) if fold_attempts else None
        """Attempts that repeat an earlier one (parse/regions.py); None: every attempt is read."""

    @functools.cached_property
    def rule_matcher(self) -> Matcher | None:
        """The knowledge base's regexes as one matcher for lines met one at a time (`mask`), built when first used
        (the block pass runs their necessary literals, parse/literals.py: the regexes cost ten times as much)."""
        return Matcher([self._rule], self.stats, self.use_hyperscan) if self._rule is not None else None

    def lines(self, stream: BinaryIO) -> Iterator[HotLine]:
        """Yield the hot lines and their context windows, in input order, repaired (parse/repair.py: flattened
        and escaped tracebacks split, hard-wrapped lines joined, quote markers and line numbers removed)."""
        yield from repair(self._hot(stream))

    def _hot(self, stream: BinaryIO) -> Iterator[HotLine]:
        """The hot lines and their context windows, in input order.

        A producer thread reads the blocks and runs hyperscan over them (both release the GIL) while this
        thread counts lines and cuts out the windows, so the two halves of the work use both cores.
        """
        st = State()
        q: queue.Queue[tuple[bytes, int, int, Future[array[int]] | Scanned, Parts] | BaseException | None]
        q = queue.Queue(maxsize=4)
        stop = threading.Event()
        producer = threading.Thread(target=produce, args=(stream, self.block_size, self.stats, self.matcher, q, stop, self.regions),
                                    name="crashdoc-scan", daemon=True)
        # NOTE: the producer needs the GIL only briefly between blocks; a short switch interval, with the line
        # count done in small pieces, keeps it from waiting 5 ms behind the count each time.
        interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        producer.start()
        try:
            while True:
                item = q.get()
                if item is None:
                    break
                if isinstance(item, BaseException):
                    raise item
                data, lo, hi, hits, parts = item
                yield from self._segment(data, lo, hi, hits.result(), parts, st)
        finally:
            sys.setswitchinterval(interval)
            stop.set()
            while producer.is_alive():
                try:
                    q.get_nowait()
                except queue.Empty:
                    producer.join(0.05)
        self.stats.lines = st.lineno

    def _segment(self, data: bytes, lo: int, hi: int, hits: array[int], parts: Parts, st: State) -> Iterator[HotLine]:
        if (fold := self.regions) is None or parts is None:
            yield from self._part(data, lo, hi, hits, st)
            return
        for part in parts:  # attempts that repeat an earlier one: parse/regions.py
            a, b = part.lo, part.hi
            sub = hits if a == lo and b == hi else hits[bisect.bisect_left(hits, a << 16):bisect.bisect_left(hits, b << 16)]
            if part.region is None or fold.begin(st.lineno + 1, part.region) is None:
                if not part.whole:  # planned as a copy, and it is none: scanned whole now
                    with memoryview(data)[a:b] as view:
                        sub = self.matcher.packed_hits(view, a)
                yield from self._part(data, a, b, sub, st)
                continue
            lines, hot, st.pending = read_copy(data, part, sub, self._judge, fold.matcher)
            for idx, line, mask in lines:
                self.stats.selected += 1
                yield HotLine(st.lineno + idx + 1, line, mask)
            st.lineno = st.last_emitted = st.lineno + hot.lines
            st.tail = []

    def _part(self, data: bytes, lo: int, hi: int, hits: array[int], st: State) -> Iterator[HotLine]:
        # NOTE: a context line a rule knows already carries the rule bit: the block pass ran every rule's literals
        # over every line of the block and confirmed them (`_judge`)
        hot = self._judge(data, lo, hi, hits)
        for item in self._emit(data, lo, hi, hot, st):
            self.stats.selected += 1
            st.last_emitted = item.lineno
            yield item
        st.lineno += hot.lines
        st.tail = [t for t in (st.tail + tail(data, lo, hi, st.lineno, MAX_BEFORE))[-MAX_BEFORE:] if t.lineno > st.last_emitted]

    def mask(self, data: bytes) -> int:
        """Marker classes matching one line (for inputs parsed record by record, like journal JSON)."""
        m = 0
        for _, ci in self.matcher.hits(data):
            if ci < self.rule_index or self.rule_index < 0:  # a rule literal is no class: the rules decide below
                m |= 1 << ci
        if self.rule_matcher is not None and self.rule_matcher.hits(data):
            m |= 1 << self.rule_index
        return m

    def _literal_confirms(self, i: int, line: bytes, level: tuple[str | None, int]) -> bool:
        """Whether a rule pattern containing rule literal i matches the line and passes the rule class's check."""
        cls = self.classes[self.rule_index]
        lower: bytes | None = None
        for p, needles in zip(self.literal_rules[i], self.literal_needles[i]):
            if needles:
                if lower is None:
                    lower = line.lower()
                if not any(n in (lower if caseless else line) for n, caseless in needles):
                    continue  # the literal this pattern stood behind is not on the line
            m = _compiled_rule(p).search(line)
            if m is not None and passes(cls, line, max(m.end() - 1, 0), level):
                return True
        return False

    def class_bit(self, name: str) -> int:
        """The mask bit of a marker class (0 when there is no such class)."""
        for i, c in enumerate(self.classes):
            if c.name == name:
                return 1 << i
        return 0

    def _judge(self, block: bytes, lo: int, hi: int, hits: array[int]) -> Hot:
        """The hits of block[lo:hi] that make their lines hot (the strict checks), and its line count: counted
        between the hit lines as they are met, so each byte is counted once whatever the density."""
        starts: list[int] = []  # offsets of the lines with an accepted hit, in order; their indexes in `index`
        index: list[int] = []
        masks: dict[int, int] = {}  # line index -> mask
        events: list[tuple[int, int, int]] = []  # (line index, before, after) of each accepted hit
        tried: dict[int, int] = {}
        tried_literals: set[tuple[int, int]] = set()
        last_line_start = line_end = idx = -1
        level: tuple[str | None, int] | None = None
        line: bytes | None = None
        for packed in hits:
            pos, ci = packed >> 16, packed & 0xFFFF
            if not last_line_start <= pos < line_end:
                start = max(block.rfind(b"\n", lo, pos) + 1, lo)
                end = block.find(b"\n", pos, hi)
                end = hi if end < 0 else end
                if start != last_line_start:  # (a hit on a line's newline is still that line's)
                    # NOTE: counted from the last hit's line only: a dense block costs one short count per line
                    # (a short span between hit lines, as in a dense block, is counted inline: no call)
                    idx = (count_lines(block, lo, start) if idx < 0 else idx + 1 + (
                        block.count(b"\n", line_end + 1, start) if start - line_end < SHORT_SPAN
                        else count_lines(block, line_end + 1, start)))
                    level, line = None, None
                last_line_start, line_end = start, end
            start = last_line_start
            if (level is not None and level[0] in self.quiet_classes.get(ci, ()) and pos - start >= level[1]
                    and (ci not in self.relayed or line is None or not opens_message(line, level[1], pos - start))):
                continue  # a hit after a level field its class refuses (what `passes` says, without the call)
            if ci >= self.rule_index >= 0:  # a rule's literal: the rules that contain it decide, on this line only
                if masks.get(idx, 0) >> self.rule_index & 1 or (start, ci) in tried_literals:
                    continue
                tried_literals.add((start, ci))
                hit = ci
                if line is None:
                    line = block[start:min(line_end, start + MAX_LINE)]
                if level is None:
                    level = line_level(line)
                ci = self.rule_index
                cls = self.classes[ci]
                # NOTE: a match ends at or after its literal, and the check only gets stricter further right: a
                # literal that fails it (a quoted prompt in an INFO line) cannot give a match that passes
                if not passes(cls, line, pos - start, level) or not self._literal_confirms(hit - ci, line, level):
                    continue
            else:
                bit = 1 << ci
                seen = tried.get(start, 0)
                if seen & bit:
                    continue  # this class already opened its window on this line (or was refused on it)
                tried[start] = seen | bit
                cls = self.classes[ci]
                if cls.drop_levels or cls.drop_quoted or cls.strict:  # the strict check, before anything is decoded (parse/markers.py)
                    if line is None:
                        line = block[start:min(line_end, start + MAX_LINE)]
                    if level is None:
                        level = line_level(line)
                    if not passes(cls, line, pos - start, level):
                        continue
            if idx not in masks:
                starts.append(start)
                index.append(idx)
            masks[idx] = masks.get(idx, 0) | 1 << ci
            events.append((idx, cls.before, cls.after))
        lines = (idx + 1 + count_lines(block, line_end + 1, hi)) if idx >= 0 else count_lines(block, lo, hi)
        return Hot(starts, index, masks, events, lines)

    def _emit(self, block: bytes, lo: int, hi: int, hot: Hot, st: State) -> Iterator[HotLine]:
        """The hot windows of block[lo:hi] (whole lines); leaves the context still owed in `st.pending`."""
        starts, index, masks, lines = hot.starts, hot.index, hot.masks, hot.lines
        win = windows(hot.events, lines, st.pending)
        if win.want_prev and not st.pending:
            yield from st.tail[-win.want_prev:]
        for ws, we in win.ranges:
            first = bisect.bisect_left(index, ws)  # the first hot line at or after the window's start
            if first < len(index) and index[first] < we:
                wstart = back_lines(block, starts[first], index[first] - ws, lo)[0]
            else:  # only the context owed by the previous block
                wstart = lo
            last = bisect.bisect_left(index, we) - 1  # the last hot line inside the window
            if we >= lines:
                wend = hi
            elif last >= 0 and index[last] >= ws:
                wend = skip_lines(block, starts[last], we - index[last], hi)[0]
            else:
                wend = skip_lines(block, lo, we, hi)[0]
            lineno = st.lineno + ws
            for data in block[wstart:wend].split(b"\n")[:-1]:
                yield HotLine(lineno + 1, data[:MAX_LINE], masks.get(lineno - st.lineno, 0))
                lineno += 1
        st.pending = win.owed


@functools.cache
def _compiled_rule(pattern: str) -> re.Pattern[bytes]:
    """A rule's scanner pattern for Python: on bytes, where `\\w`, `\\b` and `(?i)` are ASCII as in hyperscan."""
    return re.compile(pattern.encode())

