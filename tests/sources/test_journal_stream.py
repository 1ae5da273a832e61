"""The attempts' raw JSON lines with the kernel's records spliced in (sources/journal_stream.py): the same order
as merging decoded records by time, each record once, each attempt's span counted without decoding."""

from __future__ import annotations

import heapq
import json
import random

import pytest

from crashdoc.sources.journal_records import Record
from crashdoc.sources.journal_stream import AttemptStream, Spans, line_usec

INV = ["0f3c1b9a6e1d4d7cb9a3b7a2f1c0d9e8", "1a2b3c4d5e6f40718293a4b5c6d7e8f9", "ffffffffffffffffffffffffffffffff"]


def _attempts(rng: random.Random, n: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    t = 1_764_000_000_000_000
    for i in range(n):
        t += rng.choice((0, 0, 1, 7, 1000))  # equal times happen: journald stamps in microseconds
        inv = INV[min(i * 2 // n, 1)]
        rec: dict[str, object] = {"__CURSOR": f"s=a;i={i:x}", "__REALTIME_TIMESTAMP": str(t),
                                  "MESSAGE": f"line {i} \u00e9 \"quoted\" INVOCATION_ID={INV[2]}"}
        if i % 50 == 0:  # one of systemd's records about the unit (no underscore)
            rec.update(INVOCATION_ID=inv, UNIT="vllm.service")
        else:
            rec.update(_SYSTEMD_INVOCATION_ID=inv, _SYSTEMD_UNIT="vllm.service")
        out.append(rec)
    return out


def _blocks(records: list[dict[str, object]], rng: random.Random, spaced: bool) -> list[bytes]:
    sep = (", ", ": ") if spaced else (",", ":")
    lines = [json.dumps(r, separators=sep).encode() + b"\n" for r in records]
    blocks, i = [], 0
    while i < len(lines):
        k = rng.randint(1, 40)
        blocks.append(b"".join(lines[i:i + k]))
        i += k
    return blocks


def _expected(attempts: list[dict[str, object]], kernel: list[Record]) -> list[dict[str, object]]:
    """What decoding every record and merging by time gave (attempts first on equal times, each cursor once)."""
    merged = heapq.merge((Record(r) for r in attempts), kernel, key=lambda r: r.usec)
    kernel_cursors = {r.cursor for r in kernel}
    out, seen = [], set()
    for rec in merged:
        if rec.cursor in kernel_cursors:
            if rec.cursor in seen:
                continue
            seen.add(rec.cursor)
        out.append(rec.fields)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_kernel_records_land_where_a_time_merge_puts_them(seed: int) -> None:
    rng = random.Random(seed)
    attempts = _attempts(rng, rng.randint(1, 400))
    times = [int(str(r["__REALTIME_TIMESTAMP"])) for r in attempts]
    kernel = []
    for j in range(rng.randint(0, 12)):
        t = rng.choice(times) + rng.choice((-5, 0, 0, 3))  # before, between and on the attempts' own times
        kernel.append(Record({"__CURSOR": f"s=k;i={j:x}", "__REALTIME_TIMESTAMP": str(t), "_TRANSPORT": "kernel",
                              "MESSAGE": f"NVRM: Xid (PCI:0000:41:00): 79 #{j}"}))
    for r in rng.sample(attempts, min(2, len(attempts))):  # a record both queries returned (a core dump's)
        kernel.append(Record(dict(r)))
    kernel.sort(key=lambda r: r.usec)
    if rng.random() < 0.3:
        kernel.append(Record({"__CURSOR": "s=k;i=end", "__REALTIME_TIMESTAMP": str(times[-1] + 10**7), "MESSAGE": "late"}))
    spans = Spans(frozenset(i.encode() for i in INV[:2]))
    stream = AttemptStream(_blocks(attempts, rng, spaced=bool(seed % 2)), kernel, spans)
    assert stream.peek(1)[:1] == b"{"
    data = b""
    while chunk := stream.read(rng.randint(1, 5000)):
        data += chunk
    assert stream.read() == b""
    got = [json.loads(line) for line in data.splitlines()]
    assert got == _expected(attempts, kernel)
    # spans: each attempt's records, first and last time
    for inv in INV[:2]:
        own = [r for r in attempts if inv in (r.get("_SYSTEMD_INVOCATION_ID"), r.get("INVOCATION_ID"))]
        span = spans.spans.get(inv)
        if not own:
            assert span is None
            continue
        assert span is not None and span.records == len(own)
        assert span.first_usec == int(str(own[0]["__REALTIME_TIMESTAMP"]))
        assert span.last_usec == int(str(own[-1]["__REALTIME_TIMESTAMP"]))
    assert INV[2] not in spans.spans  # named only inside a message, and not an examined attempt


def test_nothing_streamed_gives_the_kernel_records_alone() -> None:
    kernel = [Record({"__REALTIME_TIMESTAMP": "5", "MESSAGE": "Out of memory: Killed process 4021 (python3)"})]
    stream = AttemptStream([], kernel, Spans(frozenset()))
    assert json.loads(stream.read()) == kernel[0].fields
    assert AttemptStream([], [], Spans(frozenset())).read(10) == b""


def test_line_usec_reads_the_line_at_an_offset() -> None:
    block = b'{"__REALTIME_TIMESTAMP":"12","MESSAGE":"a"}\n{"MESSAGE":"no time"}\n{"__REALTIME_TIMESTAMP" : "34"}\n'
    assert line_usec(block, 3) == 12
    assert line_usec(block, block.index(b"no time")) == 0
    assert line_usec(block, len(block) - 1) == 34


def test_json_lines_keeps_the_records_and_counts_them() -> None:
    from crashdoc.sources.journal_records import json_lines

    records = b'{"MESSAGE":"a"}\n{"MESSAGE":"b\\n{c"}\n'
    block, n = json_lines(records)
    assert block is records and n == 2  # the common case: handed on as it is
    assert json_lines(b"-- No entries --\n") == (b"", 0)
    assert json_lines(b'-- cut --\n' + records + b"\n") == (records, 2)
