"""The examined attempts as one byte stream of journal records, one a line, for the block scanner
(raw-scan-first): the attempts' records as entry lines (journalctl's export format, sources/journal_export.py) or
JSON lines, the kernel's records spliced in by time (as JSON lines), and each attempt's span
(first and last record time, record count) read from the raw bytes. No record is decoded here; the scanner
decodes only the hot ones, so a long attempt costs about what journalctl costs to write it."""

from __future__ import annotations

import json
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from crashdoc.regex import Regex
from crashdoc.sources.fields import USEC_MAX
from crashdoc.sources.journal_records import Record

#: _SYSTEMD_INVOCATION_ID, INVOCATION_ID, OBJECT_SYSTEMD_INVOCATION_ID as a JSON key or as an entry line's field
#: (sources/journal_export.py: a whole value, up to SEP or the line's end). A literal head: the regex engine skips
#: fast (a look-behind for the field's start would cost 15 times as much)
_INVOCATION = Regex(rb'INVOCATION_ID(?:" ?: ?"([0-9a-fA-F]{32})"|=([0-9a-fA-F]{32})(?=[\x1e\n]|\Z))')
_USEC = Regex(rb'(?:"__REALTIME_TIMESTAMP" ?: ?"|\x1e__REALTIME_TIMESTAMP=)([0-9]{1,19})(?=["\x1e\n]|\Z)')
#: bytes before a kernel record's place searched for the attempts' own copy of it (same time, same cursor)
DUPLICATE_WINDOW = 64 << 10


def line_usec(block: bytes, pos: int) -> int:
    """__REALTIME_TIMESTAMP of the JSON line of `block` holding offset `pos` (0 when it has none, as
    journal_records.usec)."""
    start = block.rfind(b"\n", 0, pos) + 1
    end = block.find(b"\n", pos)
    m = _USEC.search(block, start, len(block) if end < 0 else end)
    us = int(m.group(1)) if m else 0
    return us if us <= USEC_MAX else 0


@dataclass
class Span:
    """One attempt as its records stream past: first and last record time, record count."""

    first_usec: int = 0
    last_usec: int = 0
    records: int = 0


@dataclass
class Spans:
    """Each invocation's span, from the invocation-id fields of the raw lines (a record counts once for each
    such field naming an examined invocation: a record names one)."""

    ids: frozenset[bytes]
    spans: dict[str, Span] = field(default_factory=dict)

    def feed(self, block: bytes) -> None:
        """Count a block of whole JSON lines (one regex pass in C; a block holds one or two invocations)."""
        for inv, n in Counter(a or b for a, b in _INVOCATION.findall(block)).items():
            if inv not in self.ids:
                continue
            key = inv.decode()
            span = self.spans.get(key)
            if span is None:
                span = self.spans[key] = Span()
            span.records += n
            t0, t1 = line_usec(block, block.find(inv)), line_usec(block, block.rfind(inv))
            span.first_usec = min(span.first_usec or t0, t0, t1)
            span.last_usec = max(span.last_usec, t0, t1)


def kernel_line(rec: Record) -> bytes:
    """A kernel record as one JSON line (ASCII: nothing it holds can break the line)."""
    return json.dumps(rec.fields, separators=(",", ":")).encode() + b"\n"


class AttemptStream:
    """A read-only binary stream (read, peek) over the attempts' blocks with the kernel records spliced in.

    A kernel record goes before the first attempt record that is newer than it (the order heapq.merge gives,
    journal order first on equal times); a kernel record the attempts' query returned too is kept once.
    """

    def __init__(self, blocks: Iterable[bytes], kernel: Sequence[Record], spans: Spans) -> None:
        self._blocks: Iterator[bytes] = iter(blocks)
        self._kernel = deque((r.usec, r.cursor, kernel_line(r)) for r in kernel)
        self._spans = spans
        self._buf: deque[bytes] = deque()
        self._have = 0
        self._tail = b""
        self._done = False

    def _pull(self) -> bool:
        """Add the next block to the buffer; False at the end of the input."""
        if self._done:
            return False
        block = next(self._blocks, None)
        if block is None:
            self._done = True
            rest = b"".join(line for _, _, line in self._kernel)
            self._kernel.clear()
            if rest:
                self._push(rest)
            return bool(rest)
        if block:
            self._spans.feed(block)
            self._push(self._splice(block))
        return True

    def _push(self, data: bytes) -> None:
        self._buf.append(data)
        self._have += len(data)

    def _splice(self, block: bytes) -> bytes:
        if not self._kernel:
            return block
        parts: list[bytes] = []
        pos = 0
        while self._kernel:
            usec, cursor, line = self._kernel[0]
            # NOTE: journal order is time order, so the block's last record says whether the kernel's is due
            if line_usec(block, len(block) - 1) <= usec:
                break
            at = next((m for m in _USEC.finditer(block, pos) if int(m.group(1)) > usec), None)
            if at is None:
                break
            cut = block.rfind(b"\n", 0, at.start()) + 1
            parts.append(block[pos:cut])
            pos = cut
            self._kernel.popleft()
            before = (self._tail + block[max(cut - DUPLICATE_WINDOW, 0):cut])[-DUPLICATE_WINDOW:]
            if cursor is None or cursor.encode() not in before:
                parts.append(line)
        parts.append(block[pos:])
        self._tail = (self._tail + block[-DUPLICATE_WINDOW:])[-DUPLICATE_WINDOW:]
        return b"".join(parts)

    def peek(self, size: int = 1) -> bytes:
        """At least `size` bytes ahead (fewer at the end), not consumed."""
        while self._have < size and self._pull():
            pass
        data = b"".join(self._buf)
        self._buf = deque([data] if data else [])
        return data

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes (all that is left when negative); b"" at the end."""
        while (size < 0 or self._have < size) and self._pull():
            pass
        data = b"".join(self._buf)
        self._buf.clear()
        if 0 <= size < len(data):
            self._buf.append(data[size:])
            data = data[:size]
        self._have -= len(data)
        return data
