"""Block scanner: reads the input in large blocks, finds hot lines with one multi-pattern pass
(hyperscan when available, Python `re` otherwise) and yields only the lines inside hot windows.

Everything else is counted (bytes, lines) but never decoded or parsed, which is what keeps crashdoc within a
small factor of `grep` on gigabyte logs while memory stays bounded by the block size.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator, Sequence

from crashdoc.ingest.markers import CLASSES, MarkerClass

try:  # NOTE: hyperscan is an accelerator; the Python fallback gives the same lines, slower.
    import hyperscan as _hs
except ImportError:  # pragma: no cover - exercised on platforms without the wheel
    _hs = None

BLOCK = 8 << 20
"""Bytes read per block."""
MAX_LINE = 64 << 10
"""Longest line kept for parsing; the rest of a longer line is counted, not kept."""
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


@dataclass
class ScanStats:
    """What the scan read."""

    bytes: int = 0
    lines: int = 0
    selected: int = 0
    engine: str = "python"
    skipped_patterns: list[str] = field(default_factory=list)


class _Matcher:
    """One compiled multi-pattern matcher returning (end offset, class index) hits for a block."""

    def __init__(self, classes: Sequence[MarkerClass], stats: ScanStats, use_hyperscan: bool = True) -> None:
        self.classes = classes
        exprs: list[tuple[str, int]] = [(p, ci) for ci, c in enumerate(classes) for p in c.patterns]
        self.hs_db = None
        if _hs is not None and use_hyperscan:
            self.hs_db = _compiled(tuple(exprs), stats)
            stats.engine = "hyperscan"
        else:
            self.py = [(re.compile(p.encode()), ci) for p, ci in exprs]


    def hits(self, block: bytes) -> list[tuple[int, int]]:
        """(offset inside the matching line, class index) for every match in block."""
        found: list[tuple[int, int]] = []
        if self.hs_db is not None:

            def on_match(ident: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
                found.append((end - 1 if end else 0, ident))

            self.hs_db.scan(block, match_event_handler=on_match)
        else:
            for rx, ci in self.py:
                found.extend((m.start(), ci) for m in rx.finditer(block))
        found.sort()
        return found


def _hs_compile(exprs: Sequence[tuple[str, int]]) -> object:
    db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
    db.compile(
        expressions=[p.encode() for p, _ in exprs], ids=[ci for _, ci in exprs],
        elements=len(exprs), flags=[0] * len(exprs),
    )
    return db


_CACHE: dict[tuple[tuple[str, int], ...], tuple[object, list[str]]] = {}


def _compiled(exprs: tuple[tuple[str, int], ...], stats: ScanStats) -> object:
    """A hyperscan database for exprs; patterns hyperscan cannot compile are left out (and listed).

    Compiled once per process and kept on disk (hyperscan's serialised form, keyed by the patterns), since
    compiling a few hundred rule patterns costs about half a second at every start.
    """
    if exprs in _CACHE:
        db, skipped = _CACHE[exprs]
        stats.skipped_patterns.extend(skipped)
        return db
    key = hashlib.sha256(repr((exprs, getattr(_hs, "__version__", ""))).encode()).hexdigest()[:24]
    path = _cache_dir() / f"scan-{key}.hsdb"
    skipped: list[str] = []
    db = None
    try:
        blob = path.read_bytes()
        db = _hs.loadb(blob[4 + int.from_bytes(blob[:4], "big"):], _hs.HS_MODE_BLOCK)
        db.scratch = _hs.Scratch(db)
        skipped = json.loads(blob[4 : 4 + int.from_bytes(blob[:4], "big")])
    except Exception:  # noqa: BLE001 - a missing or stale cache file is simply rebuilt
        db = None
    if db is None:
        try:
            db = _hs_compile(exprs)
        except Exception:  # noqa: BLE001 - find the patterns hyperscan rejects, keep the rest
            keep = []
            for e in exprs:
                try:
                    _hs_compile([e])
                    keep.append(e)
                except Exception:  # noqa: BLE001
                    skipped.append(e[0])
            db = _hs_compile(keep)
        try:
            meta = json.dumps(skipped).encode()
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(len(meta).to_bytes(4, "big") + meta + _hs.dumpb(db))
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home: compile at every start
    _CACHE[exprs] = (db, skipped)
    stats.skipped_patterns.extend(skipped)
    return db


def _cache_dir() -> Path:
    base = os.environ.get("CRASHDOC_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "crashdoc"
    )
    return Path(base)


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
        if extra_patterns:
            classes.append(MarkerClass("rule", tuple(extra_patterns), before=1, after=6))
        classes.extend(c for c in extra_classes if c.patterns)
        self.classes = classes
        self.matcher = _Matcher(classes, self.stats, use_hyperscan)
        self.block_size = block_size

    def lines(self, stream: BinaryIO) -> Iterator[HotLine]:
        """Yield the hot lines and their context windows, in input order."""
        lineno = 0  # lines completed before the current buffer
        pending_after = 0  # context lines still owed from the previous block
        carry = b""
        long_line = False  # inside a line longer than MAX_LINE, discarding until its newline
        eof = False
        tail: list[HotLine] = []  # last lines of the previous block, for before-context across blocks
        last_emitted = 0
        while not eof:
            chunk = stream.read(self.block_size)
            eof = not chunk
            self.stats.bytes += len(chunk)
            buf = carry + chunk
            if eof:
                if not buf:
                    break
                if not buf.endswith(b"\n"):
                    buf += b"\n"
                cut = len(buf)
            else:
                cut = buf.rfind(b"\n") + 1
                if cut == 0:  # no newline in a whole block: one very long line
                    if not long_line:
                        carry = buf[:MAX_LINE]
                        long_line = True
                    continue
            block, carry = buf[:cut], buf[cut:]
            if long_line:
                nl = block.find(b"\n")
                head = (block[: nl] if len(block) <= MAX_LINE else block[:MAX_LINE])
                lineno += 1
                if pending_after or self._is_hot(head):
                    yield HotLine(lineno, head[:MAX_LINE], self.mask(head))
                    self.stats.selected += 1
                    pending_after = max(pending_after - 1, 0)
                block = block[nl + 1 :]
                long_line = False
            for item in self._block_lines(block, lineno, pending_after, tail):
                if isinstance(item, int):
                    pending_after = item
                else:
                    self.stats.selected += 1
                    last_emitted = item.lineno
                    yield item
            lineno += block.count(b"\n")
            tail = [t for t in (tail + _tail(block, lineno, MAX_BEFORE))[-MAX_BEFORE:] if t.lineno > last_emitted]
        self.stats.lines = lineno

    def _is_hot(self, data: bytes) -> bool:
        return bool(self.matcher.hits(data))

    def mask(self, data: bytes) -> int:
        """Marker classes matching one line (for inputs parsed record by record, like journal JSON)."""
        m = 0
        for _, ci in self.matcher.hits(data):
            m |= 1 << ci
        return m

    def class_bit(self, name: str) -> int:
        """The mask bit of a marker class (0 when there is no such class)."""
        for i, c in enumerate(self.classes):
            if c.name == name:
                return 1 << i
        return 0

    def _block_lines(self, block: bytes, base: int, pending: int, tail: list[HotLine]) -> Iterator[HotLine | int]:
        """Hot windows of one newline-terminated block; yields the context still owed at the end as an int."""
        windows: list[tuple[int, int]] = []  # (start offset, end offset) of line ranges, end exclusive
        want_prev = 0
        owed = 0
        if pending:
            end, owed = _skip_lines(block, 0, pending)
            windows.append((0, end))
        last_line_start, line_end = -1, -1
        masks: dict[int, int] = {}
        for pos, ci in self.matcher.hits(block):
            if last_line_start <= pos < line_end:
                start = last_line_start
            else:
                start = block.rfind(b"\n", 0, pos) + 1
                line_end = block.find(b"\n", pos)
                last_line_start = start
            seen = masks.get(start, 0)
            if seen & (1 << ci):
                continue  # this class already opened its window on this line
            masks[start] = seen | (1 << ci)
            cls = self.classes[ci]
            wstart, short = _back_lines(block, start, cls.before)
            if not windows and wstart == 0:
                want_prev = max(want_prev, short)
            wend, short = _skip_lines(block, start, cls.after + 1)
            owed = max(owed, short)
            if windows and wstart <= windows[-1][1]:
                if wend > windows[-1][1]:
                    windows[-1] = (windows[-1][0], wend)
            else:
                windows.append((wstart, wend))
        if want_prev and not pending:
            yield from tail[-want_prev:]
        counted_to, lineno = 0, base
        for wstart, wend in windows:
            lineno += block.count(b"\n", counted_to, wstart)
            offset = wstart
            for data in block[wstart:wend].split(b"\n")[:-1]:
                lineno += 1
                yield HotLine(lineno, data[:MAX_LINE], masks.get(offset, 0))
                offset += len(data) + 1
            counted_to = wend
        yield owed if windows and windows[-1][1] >= len(block) else 0


def _back_lines(block: bytes, start: int, n: int) -> tuple[int, int]:
    """(offset of the line `n` lines before the line starting at `start`, lines wanted before the block)."""
    for i in range(n):
        if start == 0:
            return 0, n - i
        start = block.rfind(b"\n", 0, start - 1) + 1
    return start, 0


def _tail(block: bytes, end_lineno: int, n: int) -> list[HotLine]:
    """The last `n` lines of a newline-terminated block, with their line numbers."""
    out: list[HotLine] = []
    end = len(block) - 1
    while len(out) < n and end > 0:
        start = block.rfind(b"\n", 0, end) + 1
        out.append(HotLine(end_lineno - len(out), block[start:end][:MAX_LINE]))
        end = start - 1
    return out[::-1]


def _skip_lines(block: bytes, start: int, n: int) -> tuple[int, int]:
    """(offset just after `n` lines starting at `start`, lines still wanted past the block end)."""
    pos = start
    for i in range(n):
        nxt = block.find(b"\n", pos)
        if nxt < 0:
            return len(block), n - i
        pos = nxt + 1
    return pos, 0
