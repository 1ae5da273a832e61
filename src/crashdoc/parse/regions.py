"""Attempts of a crash loop that repeat an earlier one, recognised on raw bytes before any line is judged.

A unit that restarts every few seconds prints the same start and the same tracebacks every attempt; only the
clock, the pids and the order in which the ranks' lines interleave change. The block scanner (parse/scan.py) cuts
a block at systemd's start records into *regions* and gives each whole region (both of its ends in the block) a
fingerprint: the lines of the region as a multiset (their order left out), every digit removed, leaving out the lines a level field marks
INFO or DEBUG (shared-memory handles, socket names and NCCL's communicator ids are random every start).

A region whose fingerprint an earlier region registered is a *copy*: of its lines only its skeleton (the first
line, systemd's records about the unit, the last line) is judged and parsed, so the attempt tracker still sees
its start, its exit status and its end; the rest is counted, not read. The analysis registers a region
(`RegionFold.register`) only once it has read it whole as exactly one attempt (it opened an attempt at its first
line and the next region opened the next one), and gives a copy's attempt the verdict of that attempt
(analyze/attempt_copies.py). The region that ends the input is never a copy.
"""

from __future__ import annotations

import bisect
import itertools
import re
from array import array
from collections.abc import Iterator

_START = re.compile(rb"systemd\[\d+\]: Start(?:ed|ing) ")
"""systemd's record of a unit's start: where an attempt of a journald text log begins."""
_MANAGER = re.compile(rb"systemd\[\d+\]: |\.service: ")
"""A line of systemd's own (as the attempt tracker reads one, analyze/attempts.py)."""
_MANAGER_WORDS = (b"systemd[", b".service: ")
"""What a line of systemd's own holds, found by `bytes.find`."""
_DIGITS = b"0123456789"
_QUIET = re.compile(rb"INFO|DEBUG")
KEEP = 256
"""Region starts remembered for the analysis at most (a start it never reads is dropped after as many more)."""


class Region:
    """A whole region of a block: data[lo:hi], its first line a start record."""

    __slots__ = ("lo", "hi", "fingerprint")

    def __init__(self, lo: int, hi: int, fingerprint: int | None) -> None:
        self.lo = lo
        self.hi = hi
        self.fingerprint = fingerprint
        """None for the region the block ends inside (its end is not read yet)."""


class RegionFold:
    """What the scanner and the analysis share about regions: fingerprints registered, and the regions begun."""

    def __init__(self) -> None:
        self.models: dict[int, int] = {}
        """Fingerprint -> the attempt that region was read as."""
        self.starts: dict[int, tuple[int | None, int | None]] = {}
        """Line number of a region's first line -> (its fingerprint, the model attempt when it is a copy)."""
        self.copies = 0
        """Regions skipped as copies."""

    def begin(self, lineno: int, region: Region) -> int | None:
        """Note a region starting at `lineno`; the model attempt when it is a copy."""
        model = self.models.get(region.fingerprint) if region.fingerprint is not None else None
        if len(self.starts) >= KEEP:
            for k in sorted(self.starts)[: KEEP // 2]:
                del self.starts[k]
        self.starts[lineno] = (region.fingerprint, model)
        self.copies += model is not None
        return model

    def register(self, fingerprint: int, attempt: int) -> None:
        """A region with this fingerprint was read whole as exactly attempt `attempt`."""
        self.models.setdefault(fingerprint, attempt)


def cut(data: bytes, lo: int, hi: int) -> Iterator[tuple[int, int, Region | None]]:
    """data[lo:hi] as consecutive parts (lo, hi, region): the part before the first start record (None), each
    whole region, and the region the block ends inside. A start record whose region so far holds only systemd's
    lines (`Starting`, then `Started`) does not begin another region."""
    starts: list[int] = []
    for m in _START.finditer(data, lo, hi):
        s = data.rfind(b"\n", lo, m.start()) + 1 or lo
        if starts and _only_manager(data, starts[-1], s):
            continue
        starts.append(max(s, lo))
    if not starts:
        yield lo, hi, None
        return
    if starts[0] > lo:
        yield lo, starts[0], None
    for a, b in zip(starts, starts[1:]):
        yield a, b, Region(a, b, fingerprint(data[a:b]))
    yield starts[-1], hi, Region(starts[-1], hi, None)


def _only_manager(data: bytes, a: int, b: int) -> bool:
    return b - a < 4096 and all(_MANAGER.search(ln) for ln in data[a:b].split(b"\n")[:-1])


def fingerprint(region: bytes) -> int:
    """The region's lines without digits, those at INFO or DEBUG left out, as a multiset."""
    lines = region.translate(None, _DIGITS).split(b"\n")
    # NOTE: a sum of the lines' hashes (SipHash, keyed per process) is blind to their order, as a sort is, at a
    # fraction of its cost
    kept = list(itertools.filterfalse(_QUIET.search, lines))
    return hash((len(kept), sum(map(hash, kept))))


def skeleton(data: bytes, lo: int, hi: int, hits: array[int]) -> tuple[list[tuple[int, int, int]], array[int]]:
    """(line index in the region, start, end) of the lines of data[lo:hi] a copy still reads (its first line,
    systemd's records and its last line), and the scanner's hits on them (`hits`: the region's, in order)."""
    first = {lo}
    for needle in _MANAGER_WORDS:  # (memchr-speed finds: a regex without a literal start is slow here)
        i = data.find(needle, lo, hi)
        while i >= 0:
            s = max(data.rfind(b"\n", lo, i) + 1, lo)
            first.add(s)
            e = data.find(b"\n", i, hi)
            i = data.find(needle, e, hi) if e >= 0 else -1
    first.add(max(data.rfind(b"\n", lo, hi - 1) + 1, lo))
    out: list[tuple[int, int, int]] = []
    idx, pos = 0, lo
    for s in sorted(first):
        idx += data.count(b"\n", pos, s)
        pos = s
        out.append((idx, s, data.find(b"\n", s, hi)))
    keep = array("q")
    for _, s, e in out:
        keep.extend(hits[bisect.bisect_left(hits, s << 16):bisect.bisect_left(hits, (e + 1) << 16)])
    return out, keep
