"""Block scanner: reads the input in large blocks, finds hot lines with one multi-pattern pass
(hyperscan when available, Python `re` otherwise) and yields only the lines inside hot windows.

Everything else is counted (bytes, lines) but never decoded or parsed, which is what keeps crashdoc within a
small factor of `grep` on gigabyte logs while memory stays bounded by the block size.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import queue
import re
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from crashdoc.parse.literals import necessary_literals
from crashdoc.parse.markers import CLASSES, DEBUG_LEVELS, LOGGED, MarkerClass, line_level, passes
from crashdoc.parse.matcher import Matcher, ScanStats, cache_dir
from crashdoc.parse.repair import repair

BLOCK = 8 << 20
"""Bytes read per block."""
MAX_LINE = 64 << 10
"""Longest line kept for parsing; the rest of a longer line is counted, not kept."""
SWITCH_INTERVAL = 0.0002
"""Seconds between GIL hand-overs while scanning (Python's default is 0.005)."""
COUNT_PIECE = 1 << 16
"""Bytes per newline-count call."""
MAX_BEFORE = 3
"""Lines kept from the end of a block for before-context of a hit at the start of the next one."""


@dataclass(frozen=True, slots=True)
class HotLine:
    """A line selected for parsing."""

    lineno: int
    """1-based line number in the input."""
    data: bytes
    """The line without its newline, cut at MAX_LINE bytes."""
    mask: int = 0
    """Bit i set when marker class i matched on this line (0 for context lines)."""


class Scanner:
    """Selects the lines worth parsing from a binary stream."""

    def __init__(
        self,
        extra_patterns: Sequence[str] = (),
        block_size: int = BLOCK,
        extra_classes: Sequence[MarkerClass] = (),
        use_hyperscan: bool = True,
    ) -> None:
        """`extra_patterns` (knowledge-base regexes) are hot with a short after-context."""
        self.stats = ScanStats()
        classes = list(CLASSES)
        classes.extend(c for c in extra_classes if c.patterns)
        self.rule_matcher: Matcher | None = None
        """The knowledge base's regexes, run only on the lines where one of their necessary literals occurs
        (parse/literals.py): hundreds of regexes over every byte cost ten times the markers' pass."""
        self.rule_index = -1
        block = list(classes)
        self.literal_rules: list[tuple[str, ...]] = []
        """For each rule literal of the block pass (block class rule_index + i), the rule patterns that contain it."""
        if extra_patterns:
            rule = MarkerClass("rule", tuple(extra_patterns), before=1, after=6, drop_levels=DEBUG_LEVELS, drop_quoted=LOGGED)
            self.rule_index = len(classes)
            self.rule_matcher = Matcher([rule], self.stats, use_hyperscan)
            for lit, pats in prefilter_patterns(extra_patterns):
                block.append(MarkerClass("rule", (lit,), before=1, after=6))
                self.literal_rules.append(tuple(pats))
            classes.append(rule)
        self.classes = classes
        self.block_classes = block
        markers = len(block) - len(self.literal_rules)
        self.quiet_classes = {i: c.drop_levels for i, c in enumerate(block[:markers]) if c.drop_levels and not c.strict}
        """Block classes whose hits a level field refuses (a hit after it, on a line at one of these levels)."""
        self.matcher = Matcher(block, self.stats, use_hyperscan)
        """The block pass: the marker classes, then one class per rule literal."""
        self.block_size = block_size

    def lines(self, stream: BinaryIO) -> Iterator[HotLine]:
        """Yield the hot lines and their context windows, in input order, repaired (parse/repair.py: flattened
        and escaped tracebacks split, hard-wrapped lines joined, quote markers and line numbers removed)."""
        yield from repair(self._hot(stream))

    def _hot(self, stream: BinaryIO) -> Iterator[HotLine]:
        """The hot lines and their context windows, in input order.

        A producer thread reads the blocks and runs hyperscan over them (both release the GIL) while this
        thread counts lines and cuts out the windows, so the two halves of the work use both cores.
        """
        st = _State()
        q: queue.Queue[tuple[bytes, int, int, list[tuple[int, int]]] | BaseException | None] = queue.Queue(maxsize=4)
        stop = threading.Event()
        producer = threading.Thread(target=self._produce, args=(stream, q, stop), name="crashdoc-scan", daemon=True)
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
                data, lo, hi, hits = item
                yield from self._segment(data, lo, hi, hits, st)
        finally:
            sys.setswitchinterval(interval)
            stop.set()
            while producer.is_alive():
                try:
                    q.get_nowait()
                except queue.Empty:
                    producer.join(0.05)
        self.stats.lines = st.lineno

    def _produce(self, stream: BinaryIO, q: queue.Queue[Any], stop: threading.Event) -> None:
        """Read blocks, split them at newlines, find the hits; put (data, lo, hi, hits) segments on q."""
        scratch = self.matcher.new_scratch()

        def put(data: bytes, lo: int, hi: int) -> None:
            view = memoryview(data)[lo:hi]
            hits = [(pos + lo, ci) for pos, ci in self.matcher.hits(view, scratch)]
            view.release()
            while not stop.is_set():
                try:
                    q.put((data, lo, hi, hits), timeout=0.1)
                    return
                except queue.Full:
                    continue

        try:
            self._segments(stream, put, stop)
            q.put(None)
        except BaseException as exc:
            q.put(exc)

    def _segments(self, stream: BinaryIO, put: Callable[[bytes, int, int], None], stop: threading.Event) -> None:
        """Cut the input into newline-terminated segments; only a line straddling two reads is copied."""
        carry = b""
        long_line = False  # inside a line longer than MAX_LINE, discarding until its newline
        while not stop.is_set():
            chunk = stream.read(self.block_size)
            self.stats.bytes += len(chunk)
            if not chunk:
                if carry:
                    piece = carry if carry.endswith(b"\n") else carry + b"\n"
                    put(piece, 0, len(piece))
                return
            if carry or long_line:
                nl = chunk.find(b"\n")
                if nl < 0:  # still inside one line
                    if len(carry) < MAX_LINE:
                        carry += chunk[: MAX_LINE - len(carry)]
                    long_line = True
                    continue
                head = carry + chunk[: nl + 1]
                if len(head) > MAX_LINE + 1:
                    head = head[:MAX_LINE] + b"\n"
                put(head, 0, len(head))
                lo = nl + 1
                carry, long_line = b"", False
            else:
                lo = 0
            hi = chunk.rfind(b"\n", lo) + 1
            if hi <= lo:
                carry = chunk[lo : lo + MAX_LINE]
                long_line = len(chunk) - lo > MAX_LINE
                continue
            put(chunk, lo, hi)
            carry = chunk[hi : hi + MAX_LINE]
            long_line = len(chunk) - hi > MAX_LINE

    def _segment(self, data: bytes, lo: int, hi: int, hits: list[tuple[int, int]], st: _State) -> Iterator[HotLine]:
        for item in self._block_lines(data, lo, hi, hits, st):
            self.stats.selected += 1
            st.last_emitted = item.lineno
            if self.rule_index < 0 or item.mask >> self.rule_index & 1:
                yield item
                continue
            rule = self._rule_bit(item.data)  # a context line a rule knows
            yield HotLine(item.lineno, item.data, item.mask | rule) if rule else item
        st.lineno += _count_lines(data, lo, hi)
        st.tail = [t for t in (st.tail + _tail(data, lo, hi, st.lineno, MAX_BEFORE))[-MAX_BEFORE:] if t.lineno > st.last_emitted]

    def mask(self, data: bytes) -> int:
        """Marker classes matching one line (for inputs parsed record by record, like journal JSON)."""
        m = 0
        for _, ci in self.matcher.hits(data):
            m |= 1 << ci
        if self.rule_matcher is not None and self.rule_matcher.hits(data):
            m |= 1 << self.rule_index
        return m

    def _literal_confirms(self, i: int, line: bytes, level: tuple[str | None, int]) -> bool:
        """Whether a rule pattern containing rule literal i matches the line and passes the rule class's check."""
        cls = self.classes[self.rule_index]
        for p in self.literal_rules[i]:
            m = _compiled_rule(p).search(line)
            if m is not None and passes(cls, line, max(m.end() - 1, 0), level):
                return True
        return False

    def _rule_bit(self, line: bytes) -> int:
        """The rule class's bit when a knowledge-base regex matches the selected line (and passes its check)."""
        if self.rule_matcher is None:
            return 0
        found = self.rule_matcher.hits(line)
        if not found:
            return 0
        cls = self.classes[self.rule_index]
        level = line_level(line)
        if any(passes(cls, line, pos, level) for pos, _ in found):
            return 1 << self.rule_index
        return 0

    def class_bit(self, name: str) -> int:
        """The mask bit of a marker class (0 when there is no such class)."""
        for i, c in enumerate(self.classes):
            if c.name == name:
                return 1 << i
        return 0

    def _block_lines(
        self, block: bytes, lo: int, hi: int, hits: list[tuple[int, int]], st: _State
    ) -> Iterator[HotLine]:
        """Hot windows of block[lo:hi] (whole lines); leaves the context still owed in `st.pending`."""
        windows: list[tuple[int, int]] = []  # (start offset, end offset) of line ranges, end exclusive
        want_prev = 0
        owed = 0
        pending = st.pending
        if pending:
            end, owed = _skip_lines(block, lo, pending, hi)
            windows.append((lo, end))
        last_line_start, line_end = -1, -1
        masks: dict[int, int] = {}
        tried: dict[int, int] = {}
        tried_literals: set[tuple[int, int]] = set()
        level: tuple[str | None, int] | None = None
        line: bytes | None = None
        for pos, ci in hits:
            if last_line_start <= pos < line_end:
                start = last_line_start
            else:
                start = block.rfind(b"\n", lo, pos) + 1 or lo
                start = max(start, lo)
                line_end = block.find(b"\n", pos, hi)
                line_end = hi if line_end < 0 else line_end
                last_line_start, level, line = start, None, None
            if level is not None and level[0] in self.quiet_classes.get(ci, ()) and pos - start >= level[1]:
                continue  # a hit after a level field its class refuses (what `passes` says, without the call)
            if ci >= self.rule_index >= 0:  # a rule's literal: the rules that contain it decide, on this line only
                if masks.get(start, 0) >> self.rule_index & 1 or (start, ci) in tried_literals:
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
                bit = 1 << ci
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
            masks[start] = masks.get(start, 0) | bit
            wstart, short = _back_lines(block, start, cls.before, lo)
            if not windows and wstart == lo:
                want_prev = max(want_prev, short)
            if windows and wstart <= windows[-1][1]:
                cur = windows[-1][1]
                # NOTE: extend from the current end, so a run of hot lines costs one pass, not one per hit
                have = block.count(b"\n", start, cur) if cur > start else 0
                if have < cls.after + 1:
                    wend, short = _skip_lines(block, max(cur, start), cls.after + 1 - have, hi)
                    owed = max(owed, short)
                    if wend > cur:
                        windows[-1] = (windows[-1][0], wend)
            else:
                wend, short = _skip_lines(block, start, cls.after + 1, hi)
                owed = max(owed, short)
                windows.append((wstart, wend))
        if want_prev and not pending:
            yield from st.tail[-want_prev:]
        counted_to, lineno = lo, st.lineno
        for wstart, wend in windows:
            lineno += block.count(b"\n", counted_to, wstart)
            offset = wstart
            for data in block[wstart:wend].split(b"\n")[:-1]:
                lineno += 1
                yield HotLine(lineno, data[:MAX_LINE], masks.get(offset, 0))
                offset += len(data) + 1
            counted_to = wend
        st.pending = owed if windows and windows[-1][1] >= hi else 0


def prefilter_patterns(patterns: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The block pass's stand-ins for `patterns`, each with the patterns it stands for: their necessary literals
    (`(?i)` for a caseless set), and a pattern itself where it has no literal of MIN_LEN characters
    (parse/literals.py). Kept on disk beside the hyperscan databases (the analysis costs a few hundred ms)."""
    key = hashlib.sha256(repr((LITERALS_VERSION, tuple(patterns))).encode()).hexdigest()[:24]
    d = cache_dir()
    path = d / f"literals-{key}.json" if d is not None else None
    if path is not None:
        try:
            return [(lit, pats) for lit, pats in json.loads(path.read_text())]
        except (OSError, ValueError, TypeError):
            pass
    out = _prefilter_patterns(patterns)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(out))
            os.replace(tmp, path)
            for old in sorted(path.parent.glob("literals-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[8:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only home: analysed at every start
    return out


LITERALS_VERSION = 1
"""Bump when parse/literals.py changes what it finds (the cache key)."""


def _prefilter_patterns(patterns: Sequence[str]) -> list[tuple[str, list[str]]]:
    out: dict[str, list[str]] = {}
    for p in patterns:
        lits = necessary_literals(p)
        if lits is None:
            out.setdefault(p, []).append(p)
            continue
        for s in sorted(lits.strings):
            out.setdefault(("(?i)" if lits.caseless else "") + _hs_literal(s), []).append(p)
    return list(out.items())


@functools.cache
def _compiled_rule(pattern: str) -> re.Pattern[bytes]:
    """A rule's scanner pattern for Python: on bytes, where `\\w`, `\\b` and `(?i)` are ASCII as in hyperscan."""
    return re.compile(pattern.encode())


def _hs_literal(s: str) -> str:
    """A literal string as a pattern both hyperscan and Python read the same way (bytes outside [A-Za-z0-9_]
    as \\xHH)."""
    return "".join(chr(b) if chr(b).isalnum() and b < 128 or b == 95 else f"\\x{b:02x}" for b in s.encode())


class _State:
    """Line counting and context carried from one segment to the next."""

    def __init__(self) -> None:
        self.lineno = 0
        self.pending = 0
        self.last_emitted = 0
        self.tail: list[HotLine] = []


def _count_lines(data: bytes, lo: int, hi: int) -> int:
    """Newlines in data[lo:hi], counted in pieces so other threads get the GIL in between."""
    n = 0
    for i in range(lo, hi, COUNT_PIECE):
        n += data.count(b"\n", i, min(i + COUNT_PIECE, hi))
    return n


def _back_lines(block: bytes, start: int, n: int, lo: int) -> tuple[int, int]:
    """(offset of the line `n` lines before the line starting at `start`, lines wanted before `lo`)."""
    for i in range(n):
        if start <= lo:
            return lo, n - i
        start = max(block.rfind(b"\n", lo, start - 1) + 1, lo)
    return start, 0


def _skip_lines(block: bytes, start: int, n: int, hi: int) -> tuple[int, int]:
    """(offset just after `n` lines starting at `start`, lines still wanted past `hi`)."""
    pos = start
    for i in range(n):
        nxt = block.find(b"\n", pos, hi)
        if nxt < 0:
            return hi, n - i
        pos = nxt + 1
    return pos, 0


def _tail(block: bytes, lo: int, hi: int, end_lineno: int, n: int) -> list[HotLine]:
    """The last `n` lines of block[lo:hi] (newline-terminated), with their line numbers."""
    out: list[HotLine] = []
    end = hi - 1
    while len(out) < n and end > lo:
        start = max(block.rfind(b"\n", lo, end) + 1, lo)
        out.append(HotLine(end_lineno - len(out), block[start:end][:MAX_LINE]))
        end = start - 1
    return out[::-1]
