"""Blocks of lines as the block scanner (parse/scan.py) handles them: a stream cut into newline-terminated
segments, the lines it selects (HotLine), and the line arithmetic on a block that finds their windows without
decoding anything."""

from __future__ import annotations

import queue
import threading
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

from crashdoc.parse.matcher import Matcher, ScanStats

MAX_LINE = 64 << 10
"""Longest line kept for parsing; the rest of a longer line is counted, not kept."""
COUNT_PIECE = 1 << 16
"""Bytes per newline-count call."""
SCAN_THREADS = 2
"""Threads running the hyperscan pass over blocks at once (it releases the GIL: one per core of a small host)."""


@dataclass(frozen=True, slots=True)
class HotLine:
    """A line selected for parsing."""

    lineno: int
    """1-based line number in the input."""
    data: bytes
    """The line without its newline, cut at MAX_LINE bytes."""
    mask: int = 0
    """Bit i set when marker class i matched on this line (0 for context lines)."""


class State:
    """Line counting and context carried from one segment to the next."""

    def __init__(self) -> None:
        self.lineno = 0
        self.pending = 0
        self.last_emitted = 0
        self.tail: list[HotLine] = []


def segments(
    stream: BinaryIO, block_size: int, stats: ScanStats, put: Callable[[bytes, int, int], None], stop: threading.Event
) -> None:
    """Cut the input into newline-terminated segments, each handed to `put(data, lo, hi)` (the bytes read counted
    in `stats`); only a line straddling two reads is copied."""
    carry = b""
    long_line = False  # inside a line longer than MAX_LINE, discarding until its newline
    while not stop.is_set():
        chunk = stream.read(block_size)
        stats.bytes += len(chunk)
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


class Planned(Protocol):
    """A piece of a segment that a plan (parse/regions.py) scans only in part."""

    def spans(self) -> list[tuple[int, int]]:
        """The bytes to scan of it."""
        ...


class Planner(Protocol):
    """Re-cuts the input's segments before they are scanned (parse/regions.py RegionFold)."""

    def plan(self, data: bytes, lo: int, hi: int) -> list[tuple[bytes, int, int, list[Any]]]:
        """The segments to scan instead of data[lo:hi], each with its parts (`Planned`)."""
        ...

    def end(self) -> list[tuple[bytes, int, int, list[Any]]]:
        """The segments still held back when the input ends."""
        ...


def produce(stream: BinaryIO, block_size: int, stats: ScanStats, matcher: Matcher, q: queue.Queue[Any],
            stop: threading.Event, planner: Planner | None = None) -> None:
    """Read blocks, split them at newlines and hand each to a scan thread; put (data, lo, hi, future hits, parts)
    segments on q, in input order, then None (or the exception that stopped the reading). `planner`: re-cuts the
    segments, each into parts (`Planned`) of which only the spans are scanned; without one the parts are None.

    The first segment is scanned on this thread (its hits a `Scanned`): an input of one block, as most are,
    starts no pool (and a start does not import concurrent.futures)."""
    scratches: queue.SimpleQueue[object] = queue.SimpleQueue()
    pool: list[Any] = []  # [None] after the first segment, then [the ThreadPoolExecutor] from the second

    def scan(data: bytes, lo: int, hi: int, parts: list[Planned] | None) -> array[int]:
        try:  # one scratch per scan in flight (hyperscan's rule), made when a scan first needs it
            scratch = scratches.get_nowait()
        except queue.Empty:
            scratch = matcher.new_scratch()
        try:
            with memoryview(data) as view:
                if parts is None:
                    return matcher.packed_hits(view[lo:hi], lo, scratch)
                out = array("q")
                for part in parts:
                    for a, b in part.spans():
                        out.extend(matcher.packed_hits(view[a:b], a, scratch))
                return out
        finally:
            scratches.put(scratch)

    def put(data: bytes, lo: int, hi: int) -> None:
        if planner is None:
            submit(data, lo, hi, None)
            return
        for piece in planner.plan(data, lo, hi):
            submit(*piece)

    def submit(data: bytes, lo: int, hi: int, parts: list[Planned] | None) -> None:
        if not pool:
            pool.append(None)
            hits: Any = Scanned(scan(data, lo, hi, parts))
        else:
            if pool[0] is None:
                from concurrent.futures import ThreadPoolExecutor

                pool[0] = ThreadPoolExecutor(SCAN_THREADS, thread_name_prefix="crashdoc-hs")
            hits = pool[0].submit(scan, data, lo, hi, parts)
        while not stop.is_set():
            try:
                q.put((data, lo, hi, hits, parts), timeout=0.1)
                return
            except queue.Full:
                continue

    try:
        segments(stream, block_size, stats, put, stop)
        for piece in planner.end() if planner is not None else ():
            submit(*piece)
        q.put(None)
    except BaseException as exc:
        q.put(exc)
    finally:
        if pool and pool[0] is not None:
            pool[0].shutdown()


class Scanned:
    """The hits of a segment scanned at once (what a done `Future` of them would give)."""

    def __init__(self, hits: array[int]) -> None:
        self.hits = hits

    def result(self) -> array[int]:
        """The hits."""
        return self.hits


def count_lines(data: bytes, lo: int, hi: int) -> int:
    """Newlines in data[lo:hi], counted in pieces so other threads get the GIL in between.

    NOTE: a piece's length less its length without newlines: `bytes.replace` finds them with memchr, about
    three times as fast as `bytes.count` does for one byte (0.28 against 0.82 s a GB, measured on engine logs
    and on an error-dense crash loop); the short spans between the hot lines of a dense block the scanner counts
    inline (parse/scan.py SHORT_SPAN)."""
    n = 0
    for i in range(lo, hi, COUNT_PIECE):
        piece = data[i:min(i + COUNT_PIECE, hi)]
        n += len(piece) - len(piece.replace(b"\n", b""))
    return n


def back_lines(block: bytes, start: int, n: int, lo: int) -> tuple[int, int]:
    """(offset of the line `n` lines before the line starting at `start`, lines wanted before `lo`)."""
    for i in range(n):
        if start <= lo:
            return lo, n - i
        start = max(block.rfind(b"\n", lo, start - 1) + 1, lo)
    return start, 0


def skip_lines(block: bytes, start: int, n: int, hi: int) -> tuple[int, int]:
    """(offset just after `n` lines starting at `start`, lines still wanted past `hi`)."""
    pos = start
    for i in range(n):
        nxt = block.find(b"\n", pos, hi)
        if nxt < 0:
            return hi, n - i
        pos = nxt + 1
    return pos, 0


def tail(block: bytes, lo: int, hi: int, end_lineno: int, n: int) -> list[HotLine]:
    """The last `n` lines of block[lo:hi] (newline-terminated), with their line numbers."""
    out: list[HotLine] = []
    end = hi - 1
    while len(out) < n and end >= lo:  # (end == lo: an empty first line, block[lo] its newline)
        start = max(block.rfind(b"\n", lo, end) + 1, lo)
        out.append(HotLine(end_lineno - len(out), block[start:end][:MAX_LINE]))
        end = start - 1
    return out[::-1]


class Hot:
    """What `Scanner._judge` (parse/scan.py) found in a block (a plain class: a start defines no dataclass for it)."""

    __slots__ = ("starts", "index", "masks", "events", "lines")

    def __init__(self, starts: list[int], index: list[int], masks: dict[int, int], events: list[tuple[int, int, int]],
                 lines: int) -> None:
        self.starts = starts
        """Offsets of the lines with an accepted hit, in order."""
        self.index = index
        """Their line indexes in the block."""
        self.masks = masks
        """Line index -> the classes that made it hot."""
        self.events = events
        """(line index, lines before, lines after) of each accepted hit, in hit order."""
        self.lines = lines
