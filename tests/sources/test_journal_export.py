"""journalctl's export format as entry lines (sources/journal_export.py): every record one line, whatever its
fields hold and wherever the stream is cut; a record with a length-framed field as the JSON line journalctl's
own JSON gives for it."""

from __future__ import annotations

import io
import json
import random
import struct
import subprocess
from collections.abc import Sequence

import pytest

from crashdoc.sources.journal_export import SEP, entry_lines, entry_record, is_entry_line
from crashdoc.transport import CommandResult, Runner
from crashdoc.transport.interface import Streamed


def _export(fields: list[tuple[str, bytes]]) -> bytes:
    """One record as `journalctl -o export` writes it (journald's rule: printable UTF-8 without newlines is text)."""
    out = b""
    for key, data in fields:
        try:
            text = data.decode("utf-8")
            plain = not any(c < " " and c != "\t" or "\x7f" <= c <= "\x9f" for c in text)
        except UnicodeDecodeError:
            plain = False
        if plain:
            out += key.encode() + b"=" + data + b"\n"
        else:
            out += key.encode() + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"
    return out + b"\n"


def _record(i: int, message: bytes, **extra: bytes) -> list[tuple[str, bytes]]:
    return [("__CURSOR", f"s=a;i={i:x};x=1".encode()), ("__REALTIME_TIMESTAMP", str(1_764_000_000_000_000 + i).encode()),
            ("_SYSTEMD_INVOCATION_ID", b"0f3c1b9a6e1d4d7cb9a3b7a2f1c0d9e8"), ("MESSAGE", message),
            *((k, v) for k, v in extra.items())]


MESSAGES = [
    b"(APIServer pid=7) INFO 11-30 09:12:05 [api_server.py:1] plain = text \"quoted\" \\ back\tslash",
    b"",
    "caf\u00e9 \u2500 \u00e9".encode(),
    b"Traceback (most recent call last):\n  File \"x.py\", line 1\n\nRuntimeError: two lines",  # several lines
    b"\x1b[31mERROR\x1b[0m colour codes",  # control characters
    b"\xff\xfe not UTF-8",
    b"\n\n\n",  # nothing but blank lines: the export format's entry end, inside a framed value
    b"x" * 2570,  # a length whose low byte is a newline (0x0a0a)
    b"\x00\x00\x00\x00 zeros",
]


def _stream(rng: random.Random, n: int) -> tuple[bytes, list[list[tuple[str, bytes]]]]:
    records = []
    for i in range(n):
        extra = {"UNIT": b"vllm.service"} if i % 7 == 0 else {}
        records.append(_record(i, rng.choice(MESSAGES), **extra))
    return b"".join(_export(r) for r in records), records


def _expected(rec: list[tuple[str, bytes]]) -> dict[str, object]:
    """What `journalctl -o json` gives for the record."""
    out: dict[str, object] = {}
    for key, data in rec:
        try:
            text = data.decode("utf-8")
            printable = not any(c < " " and c not in "\t\n" or "\x7f" <= c <= "\x9f" for c in text)
        except UnicodeDecodeError:
            printable = False
        out[key] = text if printable else list(data)
    return out


def _decode(line: bytes) -> dict[str, object]:
    return json.loads(line) if line.startswith(b"{") else entry_record(line)


@pytest.mark.parametrize("seed", range(8))
def test_every_record_is_one_line_wherever_the_stream_is_cut(seed: int) -> None:
    rng = random.Random(seed)
    data, records = _stream(rng, 60)
    out, count, rest = b"", 0, b""
    pos = 0
    while pos < len(data):  # pieces as a pipe gives them, down to single bytes
        step = rng.choice((1, 2, 7, 9, 64, 500, 4096))
        buf = rest + data[pos:pos + step]
        pos += step
        lines, n, used = entry_lines(buf)
        out, count, rest = out + lines, count + n, buf[used:]
    lines, n, used = entry_lines(rest, final=True)
    out, count = out + lines, count + n
    assert used == len(rest)
    got = out.split(b"\n")
    assert got[-1] == b"" and len(got) - 1 == count == len(records)
    assert [_decode(line) for line in got[:-1]] == [_expected(r) for r in records]


def test_plain_records_are_joined_fields() -> None:
    first = _export(_record(1, b"a=b \"c\""))
    data = first + _export(_record(2, b"second"))
    assert entry_lines(data)[1:] == (1, len(first))  # the last bytes wait for more: they may start a framed field
    lines, n, used = entry_lines(data, final=True)
    assert n == 2 and used == len(data)
    first, second, end = lines.split(b"\n")
    assert end == b"" and is_entry_line(first) and SEP + b"MESSAGE=a=b \"c\"" in first
    assert entry_record(first)["MESSAGE"] == 'a=b "c"' and entry_record(second)["MESSAGE"] == "second"


def test_a_record_still_arriving_is_left_for_the_next_read() -> None:
    whole = _export(_record(1, b"one"))
    framed = _export(_record(2, b"two\nlines"))
    lines, n, used = entry_lines(whole + framed[:-5])
    assert n == 1 and used == len(whole)
    lines, n, used = entry_lines(whole + framed)
    assert n == 2 and used == len(whole + framed)
    assert json.loads(lines.split(b"\n")[1])["MESSAGE"] == "two\nlines"


def test_a_field_given_twice_is_a_list_as_in_journalctl_json() -> None:
    line, n, _ = entry_lines(_export([*_record(1, b"m"), ("TAG", b"a"), ("TAG", b"b")]), final=True)
    assert n == 1 and entry_record(line.rstrip(b"\n"))["TAG"] == ["a", "b"]


def test_a_cut_stream_keeps_what_it_holds() -> None:
    data = _export(_record(1, b"one")) + b"__CURSOR=s=a;i=2\n__REALTIME_TIMESTAMP=5\nMESSAGE=cut he"
    lines, n, used = entry_lines(data, final=True)
    assert n == 2 and used == len(data)
    assert entry_record(lines.split(b"\n")[1])["MESSAGE"] == "cut he"


def test_a_crash_loop_read_as_entry_lines_is_diagnosed_as_from_json_lines() -> None:
    """The same records as journalctl's JSON and as its export format made entry lines: the same diagnosis (the
    scanner finds the same hot records in both, the decoder gives the same fields)."""
    from crashdoc.investigate import diagnose_stream
    from crashdoc.report.json import to_dict
    from crashdoc.sources.journald import ATTEMPT_FIELDS
    from tests.support.journal_files import JournalBuilder

    b = JournalBuilder()
    _, t = b.crash_loop(b.boot_usec + 3_600_000_000, 3)
    b.kernel(t + 5, "NVRM: Xid (PCI:0000:5d:00): 79, pid=4021, GPU has fallen off the bus.")
    b.unit_line(t + 9, b"Traceback (most recent call last):\n  File \"x.py\", line 1\nRuntimeError: one record", inv="f" * 32,
                pid=7)
    kept = {*ATTEMPT_FIELDS, "__REALTIME_TIMESTAMP", "__MONOTONIC_TIMESTAMP", "_BOOT_ID"}  # what the query asks for
    records = [[("__CURSOR", f"s=a;i={i:x}".encode()),
                *((k, v.encode() if isinstance(v, str) else bytes(v)) for k, v in rec.items() if k in kept)]
               for i, rec in enumerate(sorted(b.records, key=lambda r: int(r["__REALTIME_TIMESTAMP"])))]
    as_json = b"".join(json.dumps(_expected(r), ensure_ascii=False).encode() + b"\n" for r in records)
    as_entries, n, _ = entry_lines(b"".join(_export(r) for r in records), final=True)
    assert n == len(records) and any(line.startswith(b"{") for line in as_entries.split(b"\n"))
    got = [to_dict(diagnose_stream(io.BufferedReader(io.BytesIO(data)), "unit")) for data in (as_json, as_entries)]
    for d in got:
        d.pop("input", None)
        d.pop("crashdoc", None)
    assert got[0]["root_cause"] and got[0]["attempts"]
    assert got[0] == got[1]


class _Pieces(Runner):
    """journalctl's answer as a pipe gives it: in pieces of a fixed size."""

    def __init__(self, data: bytes, piece: int) -> None:
        self.data, self.piece = data, piece

    def run(self, argv: Sequence[str], *, timeout: float = 60.0, stdin: bytes | None = None) -> CommandResult:
        raise AssertionError("streamed only")

    def popen(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        raise AssertionError("streamed only")

    def stream(self, argv: Sequence[str]) -> Streamed:
        pieces = (self.data[i:i + self.piece] for i in range(0, len(self.data), self.piece))
        return Streamed(pieces, lambda: CommandResult(tuple(argv), 0, b"", b"", 0.0))


def test_a_record_longer_than_many_blocks_is_read_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A message of 8 MB arrives in 64 KiB pieces: the record is looked for again when the bytes held have doubled,
    not at each piece (which would copy the held bytes 128 times)."""
    import crashdoc.sources.journald as journald

    calls = []

    def counted(data: bytes, final: bool = False) -> tuple[bytes, int, int]:
        calls.append(len(data))
        return entry_lines(data, final)

    monkeypatch.setattr(journald, "entry_lines", counted)
    big = b"Traceback line\n" * (8 << 16)
    data = b"".join(_export(r) for r in (_record(1, b"before"), _record(2, big), _record(3, b"after")))
    journal = journald.Journal(_Pieces(data, 64 << 10), (), 252)
    out = b"".join(journal.stream_blocks(["X=1"], purpose="test", fields=["MESSAGE"], export=True))
    lines = out.split(b"\n")[:-1]
    assert [_decode(line)["MESSAGE"] for line in lines] == ["before", big.decode(), "after"]
    assert len(calls) < 20, calls
