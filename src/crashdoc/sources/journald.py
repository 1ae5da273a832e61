"""Read only what a diagnosis needs from a journal with `journalctl -o json`: systemd's records about the unit,
the failing attempts whole (by invocation id), and the kernel's records in the same time window."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from crashdoc.sources.journal_access import raise_for, unknown_option
from crashdoc.sources.journal_export import entry_lines
from crashdoc.sources.journal_records import Record, at, json_lines, last_cursor, parse_records, record_of
from crashdoc.transport import CommandResult, Runner

#: fields kept when scanning systemd's records (needs journalctl --output-fields, systemd >= 236)
SCAN_FIELDS = (
    "MESSAGE", "MESSAGE_ID", "INVOCATION_ID", "UNIT", "EXIT_CODE", "EXIT_STATUS", "UNIT_RESULT", "N_RESTARTS",
    "JOB_TYPE", "JOB_RESULT", "_HOSTNAME", "_PID", "SYSLOG_IDENTIFIER", "PRIORITY",
)
#: fields kept for the attempts and the kernel records: what the log pipeline reads, and no core dumps
RECORD_FIELDS = (
    "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "_PID", "_COMM", "_EXE", "_HOSTNAME", "_TRANSPORT",
    "_SYSTEMD_UNIT", "_SYSTEMD_INVOCATION_ID", "INVOCATION_ID", "OBJECT_SYSTEMD_INVOCATION_ID", "UNIT",
    "MESSAGE_ID", "EXIT_CODE", "EXIT_STATUS", "UNIT_RESULT", "N_RESTARTS", "JOB_TYPE", "JOB_RESULT",
    "_KERNEL_SUBSYSTEM", "_KERNEL_DEVICE", "COREDUMP_UNIT", "COREDUMP_PID", "COREDUMP_SIGNAL",
    "COREDUMP_SIGNAL_NAME", "COREDUMP_EXE", "COREDUMP_COMM",
)

#: systemd's records scanned per attempt asked for (a failed attempt makes 5 to 8 of them)
RECORDS_PER_ATTEMPT = 40
#: at most this many kernel records per time window
KERNEL_MAX = 2000
#: bytes per block of a streamed answer (the block scanner reads 8 MB at a time)
BLOCK = 1 << 20
#: fields kept for the attempts' records: RECORD_FIELDS but those a service's own record never needs (journalctl's
#: cost grows with the fields it writes; the kernel's records come from their own query)
ATTEMPT_FIELDS = tuple(f for f in RECORD_FIELDS if f not in ("_EXE", "_TRANSPORT", "_KERNEL_SUBSYSTEM", "_KERNEL_DEVICE"))

#: records per journalctl call when an attempt is read in slices (the first slice; then sized to SLICE_BYTES)
SLICE_RECORDS = 50_000
SLICE_MIN = 1000
#: bytes of JSON per slice: journalctl's own memory follows the journal it walks, about as much again
SLICE_BYTES = 48 << 20
#: journalctl's stderr lines kept as warnings
MAX_WARNINGS = 20


@dataclass
class QueryLog:
    """One journalctl call: what was run and what it returned."""

    command: str
    purpose: str
    bytes: int
    records: int
    seconds: float


@dataclass
class Journal:
    """journalctl over a runner, on the host's journal or on copied files (journal_args)."""

    runner: Runner
    journal_args: tuple[str, ...] = ()
    version: int | None = None
    queries: list[QueryLog] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """What journalctl said on stderr while it answered (a truncated file it ignored ...), each line once."""
    _output_fields: bool | None = None

    @property
    def bytes_read(self) -> int:
        """Bytes journalctl wrote to us, over all queries."""
        return sum(q.bytes for q in self.queries)

    @property
    def where(self) -> str:
        """`host`, `this machine` or the copied journal."""
        if self.journal_args:
            return "journal copy " + " ".join(a for a in self.journal_args if not a.startswith("-"))
        return self.runner.host or "this machine"

    def _use_output_fields(self) -> bool:
        if self._output_fields is None:
            self._output_fields = self.version is None or self.version >= 236
        return self._output_fields

    def _argv(self, matches: Sequence[str], fields: Sequence[str] | None, output: str = "json") -> tuple[list[str], bool]:
        """`journalctl -o OUTPUT --all [--output-fields=...] MATCHES`, and whether --output-fields was used."""
        extra = [f"--output-fields={','.join(fields)}"] if fields and self._use_output_fields() else []
        return ["journalctl", *self.journal_args, "--no-pager", "-o", output, "--all", *extra, *matches], bool(extra)

    def query(self, matches: Sequence[str], *, purpose: str, fields: Sequence[str] | None = None,
              timeout: float = 300.0) -> list[Record]:
        """Run `journalctl -o json --all ... MATCHES` and parse its records."""
        argv, extra = self._argv(matches, fields)
        res = self.runner.run(argv, timeout=timeout)
        if not res.ok and extra and unknown_option(res):
            self._output_fields = False
            return self.query(matches, purpose=purpose, fields=None, timeout=timeout)
        raise_for(res, self.runner, self.version, self.where if self.journal_args else None)
        self._warnings(res)
        records = list(parse_records(res.stdout))
        self.queries.append(QueryLog(self.runner.describe(argv), purpose, len(res.stdout), len(records), res.seconds))
        return records

    def stream(self, matches: Sequence[str], *, purpose: str, fields: Sequence[str] | None = None) -> Iterator[Record]:
        """Like `query`, but the records flow as journalctl writes them: nothing holds the whole answer.

        The query is logged (bytes, records, seconds) and journalctl's complaints raised when the stream ends.
        """
        blocks = self.stream_blocks(matches, purpose=purpose, fields=fields)
        try:
            for block in blocks:
                for line in block.split(b"\n"):
                    rec = record_of(line)
                    if rec is not None:
                        yield rec
        finally:
            blocks.close()  # stopped early (a ready line found): journalctl ends on the closed pipe

    def stream_blocks(self, matches: Sequence[str], *, purpose: str, fields: Sequence[str] | None = None,
                      size: int = BLOCK, export: bool = False) -> Generator[bytes, None, None]:
        """journalctl's output as it is written, in blocks of whole lines of about `size` bytes, undecoded: for the
        block scanner, which decodes only the records it selects (raw-scan-first). The lines are journalctl's JSON,
        or with `export` (when `fields` can be kept to: journalctl writes its export format at about a third of
        the cost of JSON) entry lines (sources/journal_export.py: one line per record, those with a field that is
        not plain text as JSON lines).

        The query is logged (bytes, records, seconds) and journalctl's complaints raised when the stream ends.
        """
        export = export and bool(fields) and self._use_output_fields()
        argv, extra = self._argv(matches, fields, "export" if export else "json")
        run = self.runner.stream(argv)
        # NOTE: a pipe (LocalRunner, SshRunner) is read in chunks: a loop over 500k lines costs more than the rest
        read = getattr(run.lines, "read1", None)
        pieces: Iterator[bytes] = iter(lambda: read(size), b"") if read is not None else run.lines
        cut_at = entry_lines if export else _json_lines
        total = count = have = 0
        want = size
        buf: list[bytes] = []
        try:
            for piece in pieces:
                total += len(piece)
                buf.append(piece)
                have += len(piece)
                if have >= want:
                    data = b"".join(buf)
                    block, n, used = cut_at(data, False)
                    buf, have = ([data[used:]], len(data) - used) if used < len(data) else ([], 0)
                    # NOTE: a record longer than a block (a huge message) is looked at again once the bytes held
                    # have doubled, not at every read: linear time whatever its length
                    want = size if used else 2 * have
                    if block:
                        count += n
                        yield block
            block, n, _ = cut_at(b"".join(buf), True)
            buf = []
            if block:
                count += n
                yield block
        finally:
            res = run.result()
        if not res.ok and extra and unknown_option(res) and count == 0:
            self._output_fields = False
            yield from self.stream_blocks(matches, purpose=purpose, fields=None, size=size)
            return
        raise_for(res, self.runner, self.version, self.where if self.journal_args else None)
        self._warnings(res)
        self.queries.append(QueryLog(self.runner.describe(argv), purpose, total, count, res.seconds))

    def _warnings(self, res: CommandResult) -> None:
        for line in res.stderr.decode("utf-8", "replace").splitlines():
            line = line.strip()[:300]
            if line and line not in self.warnings and len(self.warnings) < MAX_WARNINGS:
                self.warnings.append(line)

    # --- the queries -----------------------------------------------------------------------------------

    def unit_records(self, unit: str, *, since: str | None, limit: int) -> list[Record]:
        """systemd's own records about the unit (`UNIT=`), the newest `limit`, oldest first."""
        matches = [f"UNIT={unit}", "--reverse", f"--lines={limit}"]
        if since:
            matches.append(f"--since={since}")
        records = self.query(matches, purpose="systemd's records about the unit", fields=SCAN_FIELDS)
        records.reverse()
        return records

    def output_invocations(self, unit: str, *, since: str | None, limit: int) -> list[Record]:
        """The invocation ids on the unit's own output, newest `limit` records, oldest first (when systemd's
        records are missing)."""
        matches = [f"_SYSTEMD_UNIT={unit}", "--reverse", f"--lines={limit}"]
        if since:
            matches.append(f"--since={since}")
        records = self.query(matches, purpose="invocation ids of the unit's output", fields=["_SYSTEMD_INVOCATION_ID"])
        records.reverse()
        return records

    def loop_start_records(self, unit: str) -> list[Record]:
        """systemd's records about the attempt after which the restart counter was 1 (the loop's first failure)."""
        records = self.query(
            [f"UNIT={unit}", "N_RESTARTS=1", "--reverse", "--lines=1"],
            purpose="the first failed attempt of the loop",
            fields=["INVOCATION_ID"],
        )
        inv = records[0].get("INVOCATION_ID") if records else None
        if not inv:
            return []
        return self.query([f"UNIT={unit}", f"INVOCATION_ID={inv}"],
                          purpose="systemd's records about the first failed attempt", fields=SCAN_FIELDS)

    def attempt_blocks(self, ids: Sequence[str], firsts: Mapping[str, int] | None = None) -> Iterator[bytes]:
        """Every record of the given invocations (oldest first) as entry lines (journalctl's export format, see
        stream_blocks), streamed in journal order and in blocks: the service's own (from its first line) and
        systemd's about it.

        `firsts`: the time of systemd's first record about an invocation; from there on the answer is read in
        slices (`sliced_blocks`), so that no journalctl call maps the whole journal.
        """
        if not ids:
            return
        firsts = firsts or {}
        if self.version is not None and self.version >= 257:
            for inv in ids:  # the runs are oldest first, so the answers follow each other in time
                yield from self.sliced_blocks([f"--invocation={inv}"], firsts.get(inv), purpose=f"attempt {inv}",
                                              fields=ATTEMPT_FIELDS, export=True)
            return
        matches: list[str] = []
        for key in ("_SYSTEMD_INVOCATION_ID", "INVOCATION_ID", "OBJECT_SYSTEMD_INVOCATION_ID"):
            if matches:
                matches.append("+")
            matches += [f"{key}={inv}" for inv in ids]
        yield from self.sliced_blocks(matches, firsts.get(ids[0]), purpose=f"{len(ids)} attempt(s) by invocation id",
                                      fields=ATTEMPT_FIELDS, export=True)

    def sliced_blocks(self, matches: Sequence[str], first_usec: int | None, *, purpose: str,
                      fields: Sequence[str] | None = None, export: bool = False) -> Iterator[bytes]:
        """stream_blocks of a long answer in slices: the records up to `first_usec` (`--until`: systemd's first
        record about the attempt, and whatever the service printed before it), then `--after-cursor=LAST
        --lines=N` from the last record of each slice until one comes back short (`first_usec` None: one call).

        journalctl maps the journal files it walks and keeps them mapped until it exits, so one call over a long
        attempt holds hundreds of MB; a slice holds about SLICE_BYTES. (`--lines=N` after a cursor is the next N
        records in every systemd version; `--since` with `--lines` is the oldest N before 255, the newest after.)
        """
        if not first_usec:
            yield from self.stream_blocks(matches, purpose=purpose, fields=fields, export=export)
            return
        where, n = [f"--until={at(first_usec)}"], SLICE_RECORDS
        last: str | None = None
        while True:
            previous = last
            before = len(self.queries)
            for block in self.stream_blocks([*matches, *where], purpose=purpose, fields=fields, export=export):
                last = last_cursor(block) or last
                yield block
            done = self.queries[before:]
            got = sum(q.records for q in done)
            if last is None:  # nothing up to the first record: read it all in one call
                yield from self.stream_blocks(matches, purpose=purpose, fields=fields, export=export)
                return
            if (where[0].startswith("--after-cursor=") and got < n) or last == previous:
                return
            if where[0].startswith("--after-cursor="):
                n = max(SLICE_MIN, min(SLICE_RECORDS * 4, SLICE_BYTES * got // max(sum(q.bytes for q in done), 1)))
            where = [f"--after-cursor={last}", f"--lines={n}"]

    def kernel_records(self, unit: str, spans: Iterable[tuple[int, int]]) -> list[Record]:
        """Kernel records (OOM killer, NVRM Xid, segfaults) and the unit's core dumps within the windows."""
        out: list[Record] = []
        for start, end in spans:
            out += self.query(
                ["_TRANSPORT=kernel", "+", f"COREDUMP_UNIT={unit}", f"--since={at(start)}", f"--until={at(end)}",
                 f"--lines={KERNEL_MAX}"],
                purpose="kernel records in the attempts' time window",
                fields=RECORD_FIELDS,
            )
        return out

    def anything_before(self, us: int) -> bool:
        """True when the journal holds any record older than `us` (False: the journal begins after it)."""
        records = self.query(
            ["--lines=1", f"--until={at(us - 1)}"], purpose="does the journal reach back to the attempt's start",
            fields=["MESSAGE_ID"],
        )
        return bool(records)

    def cmdline_of(self, invocation_id: str) -> tuple[str | None, str | None]:
        """(_CMDLINE, _EXE) of one record of the attempt's own output: what the unit ran, from the journal alone."""
        records = self.query(
            [f"_SYSTEMD_INVOCATION_ID={invocation_id}", "--lines=1"], purpose="the command line the unit ran",
            fields=["_CMDLINE", "_EXE"],
        )
        if not records:
            return None, None
        return records[0].get("_CMDLINE"), records[0].get("_EXE")


def _json_lines(data: bytes, final: bool) -> tuple[bytes, int, int]:
    """The whole JSON lines at the start of `data` (all of it when `final`), how many, the bytes they took."""
    if final:
        block, n = json_lines(data if data.endswith(b"\n") or not data else data + b"\n")
        return block, n, len(data)
    cut = data.rfind(b"\n") + 1
    block, n = json_lines(data[:cut])
    return block, n, cut
