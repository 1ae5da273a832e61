"""Attempts of a crash loop that repeat an earlier one, recognised on raw bytes before any line is judged.

A unit that restarts every few seconds prints the same start and the same tracebacks every attempt; only the
clock, the pids and the order in which the ranks' lines interleave change. Before the block pass, the reading
thread cuts the input into *regions* at systemd's start records (journald's text, journalctl's JSON or export
entries) and at an engine's start banner after an error (a container's restart loop); a region a block's end cuts
waits, up to TAIL bytes, for the part of the next block that ends it. Each whole region gets a fingerprint: its
lines as a multiset (their order left out), every digit and every letter a-f removed (clocks, pids and ranks
change every start; shared-memory handles, socket names, addresses, cursors and invocation ids are random hex).

A region whose fingerprint an earlier region registered is a *copy*: of its lines only its skeleton (the first
line, systemd's records about the unit, the last line) is judged and parsed, so the attempt tracker still sees
its start, its exit status and its end; the rest is counted, not read. The analysis registers a region
(`RegionFold.register`) only once it has read it whole as exactly one attempt (it opened an attempt at its first
line and the next region opened the next one), and gives a copy's attempt the verdict of that attempt
(analyze/attempt_copies.py). The region that ends the input is never a copy. A region that two earlier ones had the
fingerprint of is scanned only in its skeleton (`RegionFold.plan`); if it is no copy after all, the scanner scans
the rest when it reaches it.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable, Iterable, Iterator

from crashdoc.parse.blocks import MAX_LINE, Hot
from crashdoc.parse.markers import MarkerClass
from crashdoc.parse.matcher import Matcher, ScanStats

BANNERS = (b"non-default args:", b"vLLM API server version", b"Starting vLLM API server", b"server_args=ServerArgs(",
           b"text_generation_launcher: Args {", b"Initializing an LLM engine")
"""What an engine prints once as it starts (vLLM, SGLang, TGI): where an attempt begins when no service manager
says so, if the attempt before it failed (analyze/attempts.py opens one there)."""
_MANAGER_WORDS = (b"systemd[", b".service: ", b"SYSLOG_IDENTIFIER=systemd\x1e", b'"SYSLOG_IDENTIFIER":"systemd"')
"""What a line of systemd's own holds (as the attempt tracker reads one, analyze/attempts.py): journald's text, a
journal export's entry line, journalctl's JSON."""
START_CLASSES = (MarkerClass("record", (r"systemd\[\d+\]: Start(?:ed|ing) ",
                                         r"\x1eMESSAGE=Start(?:ed|ing) [^\x1e\n]{1,200}\.service",
                                         r'"MESSAGE" ?: ?"Start(?:ed|ing) [^"\n]{1,200}\.service'), 0, 0),
                 MarkerClass("banner", tuple(re.escape(b.decode()) for b in BANNERS), 0, 0),
                 MarkerClass("manager", tuple(re.escape(w.decode()) for w in _MANAGER_WORDS), 0, 0))
"""What the reading thread's own small hyperscan pass finds: systemd's record of a unit's start (class 0:
journald's text, a journal export's entry line, journalctl's JSON) and an engine's start banner (class 1), which
begin regions, and the words of a line of systemd's own (class 2, `_MANAGER_WORDS`), which a copy's skeleton keeps."""
MANAGER = 2
"""START_CLASSES' index of the words of systemd's own lines."""
_FAILED = (b"Traceback (most recent call last)", b"ERROR", b"Error", b"error:", b"FATAL", b"Killed")
"""Words of a failure, any of which before a banner makes it begin a region (a cheap stand-in for the tracker's
`error_seen`: where they disagree, the region is not one attempt and is never registered)."""
_VOLATILE = b"0123456789abcdef"
"""What changes from one start to the next: clocks, pids, ranks, and the hex of random handles and addresses."""
KEEP = 256
"""Region starts remembered for the analysis at most (a start it never reads is dropped after as many more)."""
TAIL = 4 << 20
"""Longest region carried from one segment to the next (a longer one is read whole)."""
KEEP_FINGERPRINTS = 4096
"""Distinct fingerprints remembered (a log of more distinct attempts starts over)."""


class Region:
    """A region of a segment (its bytes are its Part's): its first line a start record."""

    __slots__ = ("fingerprint", "lines", "skeleton")

    def __init__(self, fingerprint: int | None, lines: int = 0) -> None:
        self.fingerprint = fingerprint
        """None for the region the segment ends inside (its end is not read yet)."""
        self.lines = lines
        """Its newline count (when it has a fingerprint)."""
        self.skeleton: list[tuple[int, int, int]] | None = None
        """Its skeleton's lines (`skeleton`), once found."""


class Part:
    """A piece of a block as the scanner reads it: a region, or the lines before the block's first region."""

    __slots__ = ("lo", "hi", "region", "whole")

    def __init__(self, lo: int, hi: int, region: Region | None, whole: bool) -> None:
        self.lo = lo
        self.hi = hi
        self.region = region
        self.whole = whole
        """Scanned whole; else only its skeleton was (a region that two earlier ones had the fingerprint of)."""

    def spans(self) -> list[tuple[int, int]]:
        """The bytes the block pass scans of it."""
        if self.whole or self.region is None or self.region.skeleton is None:
            return [(self.lo, self.hi)]
        return [(s, e + 1) for _, s, e in self.region.skeleton]


Parts = list[Part] | None
"""A segment's parts, or None when it is not cut into regions."""


class RegionFold:
    """What the scanner and the analysis share about regions: fingerprints registered, and the regions begun."""

    def __init__(self, use_hyperscan: bool = True) -> None:
        self.use_hyperscan = use_hyperscan
        self._matcher: Matcher | None = None
        """START_CLASSES, built when the reading thread first needs it."""
        self.models: dict[int, int] = {}
        """Fingerprint -> the attempt that region was read as."""
        self.starts: dict[int, tuple[int | None, int | None]] = {}
        """Line number of a region's first line -> (its fingerprint, the model attempt when it is a copy)."""
        self.copies = 0
        """Regions skipped as copies."""
        self._seen: dict[int, int] = {}
        """Fingerprint -> regions planned with it (the reading thread's own, as is `_tail`)."""
        self._tail = b""
        """The region the last segment ended inside, waiting for the start that ends it."""

    @property
    def matcher(self) -> Matcher:
        """START_CLASSES' matcher (built by the reading thread as it plans the first segment)."""
        if self._matcher is None:
            self._matcher = Matcher(START_CLASSES, ScanStats(), self.use_hyperscan)
        return self._matcher

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
        if len(self.models) >= KEEP_FINGERPRINTS:
            self.models.clear()
        self.models.setdefault(fingerprint, attempt)

    def plan(self, data: bytes, lo: int, hi: int) -> list[tuple[bytes, int, int, list[Part]]]:
        """The segments to scan for segment data[lo:hi] of the input, in order, each cut into parts, on the reading
        thread before the block pass. The region the segment ends inside waits for the next segment (up to TAIL
        bytes), and is scanned with the part of it that ends it: no region is cut by a block's end.

        A region whose fingerprint two earlier regions had is most likely a copy: only its skeleton is scanned (if
        the analysis has not registered its fingerprint after all, the scanner scans the rest when it reaches it)."""
        out: list[tuple[bytes, int, int, list[Part]]] = []
        with memoryview(data)[lo:hi] as view:
            hits = self.matcher.packed_hits(view, lo)
        begins = starts(data, lo, hi, hits)
        if self._tail:
            if not begins and len(self._tail) + hi - lo <= TAIL:
                self._tail += data[lo:hi]
                return out
            tail, self._tail = self._tail, b""
            if begins:  # the region waiting is whole now
                tail += data[lo:begins[0]]
                lo = begins[0]
            out.append((tail, 0, len(tail), self._parts(tail, 0, len(tail), [0], bool(begins), None)))
        ends_whole = bool(begins) and hi - begins[-1] <= TAIL
        if ends_whole:
            self._tail, hi = data[begins[-1]:hi], begins.pop()
        if lo < hi:
            out.append((data, lo, hi, self._parts(data, lo, hi, begins, ends_whole, hits)))
        return out

    def end(self) -> list[tuple[bytes, int, int, list[Part]]]:
        """The region the input ended inside (never a copy: the last attempt is read whole)."""
        tail, self._tail = self._tail, b""
        return [(tail, 0, len(tail), self._parts(tail, 0, len(tail), [0], False, None))] if tail else []

    def _parts(self, data: bytes, lo: int, hi: int, begins: list[int], ends_whole: bool, hits: array[int] | None,
               ) -> list[Part]:
        """`hits`: START_CLASSES' packed hits in data[lo:hi] (None: not found yet; found there once a copy needs them)."""
        parts = []
        seen = self._seen
        for a, b, region in cut(data, lo, hi, begins, ends_whole):
            whole = True
            if region is not None and region.fingerprint is not None:
                n = seen.get(region.fingerprint, 0)
                if n >= 2:
                    if hits is None:
                        with memoryview(data)[lo:hi] as view:
                            hits = self.matcher.packed_hits(view, lo)
                    whole, region.skeleton = False, skeleton(data, a, b, region.lines, hits)
                elif len(seen) >= KEEP_FINGERPRINTS:
                    seen.clear()
                seen[region.fingerprint] = n + 1
            parts.append(Part(a, b, region, whole))
        return parts


def starts(data: bytes, lo: int, hi: int, hits: Iterable[int]) -> list[int]:
    """Where the regions of data[lo:hi] begin (`hits`: the START_CLASSES' packed hits there, in order): systemd's
    start records, and an engine's start banner after an error (as the attempt tracker opens an attempt at one,
    analyze/attempts.py). A start record whose region so far holds only systemd's lines (`Starting`, then
    `Started`) begins none, nor does a banner in a region with no error so far (the second banner of one start)."""
    out: list[int] = []
    for packed in hits:
        pos, ci = packed >> 16, packed & 0xFFFF
        if ci == MANAGER:
            continue
        record = ci == 0
        s = max(data.rfind(b"\n", lo, pos) + 1, lo)
        prev = out[-1] if out else lo
        if out and s == prev:
            continue
        if (record and out and _only_manager(data, prev, s)) or (not record and not _failed(data, prev, s)):
            continue
        out.append(s)
    return out


def _failed(data: bytes, lo: int, hi: int) -> bool:
    return any(data.find(word, lo, hi) >= 0 for word in _FAILED)


def cut(data: bytes, lo: int, hi: int, begins: list[int], ends_whole: bool) -> Iterator[tuple[int, int, Region | None]]:
    """data[lo:hi] as consecutive parts (lo, hi, region): the part before the first region (None), then each
    region (`begins`: where they start); the last one is whole only when `ends_whole` (its end is the next start)."""
    if not begins:
        yield lo, hi, None
        return
    if begins[0] > lo:
        yield lo, begins[0], None
    for a, b in zip(begins, [*begins[1:], hi]):
        yield a, b, Region(*fingerprint(data[a:b])) if b < hi or ends_whole else Region(None)


def _only_manager(data: bytes, a: int, b: int) -> bool:
    return b - a < 4096 and all(any(w in ln for w in _MANAGER_WORDS) for ln in data[a:b].split(b"\n")[:-1])


def fingerprint(region: bytes) -> tuple[int, int]:
    """The region's lines as a multiset, every digit and every letter a-f removed; and its newline count."""
    lines = region.translate(None, _VOLATILE).split(b"\n")
    # NOTE: a sum of the lines' hashes (SipHash, keyed per process) is blind to their order, as a sort is, at a
    # fraction of its cost
    return hash((len(lines), sum(map(hash, lines)))), len(lines) - 1


def skeleton(data: bytes, lo: int, hi: int, lines: int, hits: array[int]) -> list[tuple[int, int, int]]:
    """(line index in the region, start, end) of the lines of data[lo:hi] a copy still reads: its first line,
    systemd's records (`hits`: START_CLASSES' packed hits, of which the MANAGER ones find them) and its last line.
    `lines`: its newline count; a line's index is counted from the nearer end (systemd's records of an attempt
    are at its start and its end)."""
    first = {lo, max(data.rfind(b"\n", lo, hi - 1) + 1, lo)}
    last = -1
    for packed in hits[bisect.bisect_left(hits, lo << 16):bisect.bisect_left(hits, hi << 16)]:
        pos = packed >> 16
        if packed & 0xFFFF == MANAGER and pos > last:
            s = max(data.rfind(b"\n", lo, pos) + 1, lo)
            first.add(s)
            last = data.find(b"\n", pos, hi)
    out: list[tuple[int, int, int]] = []
    for s in sorted(first):
        idx = data.count(b"\n", lo, s) if s - lo <= hi - s else lines - data.count(b"\n", s, hi)
        out.append((idx, s, data.find(b"\n", s, hi)))
    return out


def read_copy(data: bytes, part: Part, hits: array[int], judge: Callable[[bytes, int, int, array[int]], Hot],
              matcher: Matcher) -> tuple[list[tuple[int, bytes, int]], Hot, int]:
    """A copy's skeleton as (line index, line, marker mask), what the judge found in the part (`lines`: its line
    count), and the lines of after-context its last records owe the next part. `matcher`: START_CLASSES, to find
    the skeleton of a part read whole (on the thread that calls: its own scratch)."""
    region = part.region
    assert region is not None
    lines = region.skeleton
    if lines is None:
        with memoryview(data)[part.lo:part.hi] as view:
            found = matcher.packed_hits(view, part.lo, matcher.new_scratch())
        lines = skeleton(data, part.lo, part.hi, region.lines, found)
    if part.whole:  # only the skeleton's hits are judged
        keep = array("q")
        for _, s, e in lines:
            keep.extend(hits[bisect.bisect_left(hits, s << 16):bisect.bisect_left(hits, (e + 1) << 16)])
        hits = keep
    hot = judge(data, part.lo, part.hi, hits)
    owed = max([i + after + 1 - hot.lines for i, _, after in hot.events if i + after + 1 > hot.lines] or [0])
    return [(idx, data[s:e][:MAX_LINE], hot.masks.get(idx, 0)) for idx, s, e in lines], hot, owed
