"""Real journal files written by systemd-journal-remote, read with the real journalctl.

Cases a live container cannot make quickly: a month of healthy history before the failure, rotated files, an
attempt whose start was vacuumed away, messages stored as byte arrays, fields over 4 KiB, lines split at 48 KiB.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crashdoc.investigate.unit import diagnose_unit
from crashdoc.transport import LocalRunner
from tests.support.journal_files import JournalBuilder, journalctl_json, split_line, standin_attempt_lines

pytestmark = pytest.mark.host

ROOT_ERROR = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"
FIX = "pip install flashinfer-cubin==0.6.4"
SECOND = 1_000_000


def _assert_verdict(diag, attempts: int | None = None) -> None:  # type: ignore[no-untyped-def]
    root = diag.root_cause
    assert root is not None, diag.summary
    assert root.exception == "RuntimeError" and ROOT_ERROR in root.message
    assert root.where.process == "Worker_TP2"
    python = diag.unit.python if diag.unit is not None else None  # the unit's interpreter, when it is known
    assert root.fix.command == (f"{python} -m {FIX}" if python else FIX)
    if attempts is not None:
        assert len(diag.attempts) == attempts
        assert len({a.fingerprint for a in diag.attempts}) == 1
        assert diag.summary == f"all {attempts} attempts failed with the same error"


def _unit(diag):  # type: ignore[no-untyped-def]
    return next(s for s in diag.sections if s.key == "unit")


def _diagnose(*journal_args: str, **kw: object):  # type: ignore[no-untyped-def]
    return diagnose_unit(LocalRunner(), "vllm-kimi-k25", journal_args=tuple(journal_args), announce=lambda _: None, **kw)


@pytest.fixture(scope="module")
def month(journal_remote: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[JournalBuilder, Path, list[str]]:
    """30 days of a healthy unit (and other services), a manual stop for an upgrade, then 8 failed attempts."""
    b = JournalBuilder()
    inv, t = b.healthy_month(b.boot_usec + 5 * SECOND)
    t = b.stop_by_hand(t + 60 * SECOND, inv)
    ids, _ = b.crash_loop(t + 30 * SECOND, 8)
    path = b.write(tmp_path_factory.mktemp("month") / "system.journal")
    return b, path, ids


def test_month_of_history_reads_only_the_failing_attempts(month: tuple[JournalBuilder, Path, list[str]]) -> None:
    b, path, ids = month
    diag = _diagnose("--file", str(path))
    # the loop's first attempt and the newest 5, all the same error
    _assert_verdict(diag, attempts=6)
    assert [a.invocation_id for a in diag.attempts] == [ids[0], *ids[-5:]]
    unit = _unit(diag)
    size = path.stat().st_size
    read = unit.data["journal_bytes"]
    attempt_queries = [q for q in unit.data["journal_queries"] if "by invocation id" in q["purpose"]]
    margin = read - sum(q["bytes"] for q in attempt_queries)
    # exactly the 6 attempts' records came back ...
    expected = sum(1 for r in b.records if r.get("_SYSTEMD_INVOCATION_ID") in set(a.invocation_id for a in diag.attempts)
                   or r.get("INVOCATION_ID") in set(a.invocation_id for a in diag.attempts))
    assert sum(q["records"] for q in attempt_queries) == expected
    # ... plus a bounded margin (systemd's records, the kernel window), never the 30 days
    assert margin < 64 * 1024, unit.data["journal_queries"]
    assert read < size / 50, (read, size)
    print(f"\njournal file {size:,} bytes ({len(b.records):,} records); read {read:,} bytes "
          f"({read / size:.2%}), of which margin {margin:,}")
    assert unit.lines[0] == "auto-restart loop when the journal ends, 8 restarts, last exit status 1"
    assert unit.data["python"] == "/opt/venv/bin/python3"


def test_rotated_files_give_the_same_verdict(month: tuple[JournalBuilder, Path, list[str]], tmp_path: Path) -> None:
    b, _, ids = month
    # cut inside attempts 3 and 7, so attempts span files
    cuts = [int(r["__REALTIME_TIMESTAMP"]) for r in b.records if r.get("_SYSTEMD_INVOCATION_ID") in (ids[2], ids[6])]
    files = b.write_rotated(tmp_path, [b.boot_usec + 10 * 86400 * SECOND, cuts[len(cuts) // 4], cuts[-len(cuts) // 4]])
    assert len(files) == 4
    diag = _diagnose("--directory", str(tmp_path))
    _assert_verdict(diag, attempts=6)
    assert [a.invocation_id for a in diag.attempts] == [ids[0], *ids[-5:]]
    assert not [s for s in diag.skipped if s.what.startswith("start of attempt")]


def test_attempt_whose_start_was_vacuumed(journal_remote: str, tmp_path: Path) -> None:
    b = JournalBuilder()
    t = b.boot_usec + 86400 * SECOND
    ids, _ = b.crash_loop(t, 3)
    first = [r for r in b.records if r.get("_SYSTEMD_INVOCATION_ID") == ids[0]]
    cut = int(first[10]["__REALTIME_TIMESTAMP"])  # the Started record and the first 10 lines go
    files = b.write_rotated(tmp_path, [cut])
    files[0].unlink()  # journalctl --vacuum-files / --vacuum-time removed the oldest file
    diag = _diagnose("--directory", str(tmp_path))
    _assert_verdict(diag, attempts=3)
    notes = [s.reason for s in diag.skipped if s.what.startswith("start of attempt")]
    assert len(notes) == 1
    assert "rotated or vacuumed away" in notes[0] and "diagnosing the" in notes[0] and "records that are left" in notes[0]
    assert any("rotated or vacuumed away" in line for line in _unit(diag).lines)


def test_messages_stored_as_bytes_and_long_fields(journal_remote: str, tmp_path: Path) -> None:
    b = JournalBuilder()
    config = ("(EngineCore_DP0 pid=4021) INFO 11-30 09:12:05 [core.py:93] Initializing a V1 LLM engine with config: "
              + ", ".join(f"layer_{i}=MLAAttention(heads=64)" for i in range(4000))).encode()
    assert len(config) > 2 * 48 * 1024
    extra = [
        b"(APIServer pid=4011) Loading weights from /models/Kimi-K2.5-\xe9\xe8 (latin-1 path)",
        b"(APIServer pid=4011) Fetching 64 files:   0%|          | 0/64\rFetching 64 files: 100%|##########| 64/64",
        *split_line(config),
        b"(APIServer pid=4011) INFO 11-30 09:12:05 [utils.py:233] non-default args: " + b"x" * 5000,
    ]
    ids, _ = b.crash_loop(b.boot_usec + 3600 * SECOND, 2, extra_lines=extra)
    path = b.write(tmp_path / "system.journal")
    # the quirks are real: without --all, fields over 4 KiB come back null; non-UTF-8 and \r come back as bytes
    plain = list(journalctl_json("--file", str(path), f"_SYSTEMD_INVOCATION_ID={ids[0]}"))
    assert any(r["MESSAGE"] is None for r in plain)
    assert any(isinstance(r["MESSAGE"], list) for r in plain)
    diag = _diagnose("--file", str(path))
    _assert_verdict(diag, attempts=2)
    assert not [s for s in diag.skipped if s.what == "journal fields"]  # crashdoc asked with --all
    assert diag.lines_read >= 2 * (len(standin_attempt_lines()) + len(extra))


def test_kernel_records_in_the_window_only(journal_remote: str, tmp_path: Path) -> None:
    b = JournalBuilder()
    t0 = b.boot_usec + 86400 * SECOND
    b.kernel(t0 - 7 * 86400 * SECOND + SECOND, "NVRM: Xid (PCI:0000:41:00): 79, GPU has fallen off the bus. (last week)")
    ids, end = b.crash_loop(t0, 2)
    b.kernel(t0 + 2 * SECOND, "python3[4021]: segfault at 0 ip 00007f1d2c0b4f5a sp 00007ffd4c1b8e10 error 4 in libcuda.so.1")
    b.records.sort(key=lambda r: int(r["__REALTIME_TIMESTAMP"]))
    path = b.write(tmp_path / "system.journal")
    from crashdoc.parse.runs import runs_from_records, windows
    from crashdoc.sources.journald import Journal

    j = Journal(LocalRunner(), ("--file", str(path)))
    runs = runs_from_records(j.unit_records("vllm-kimi-k25.service", since=None, limit=200))
    assert [r.invocation_id for r in runs] == ids

    kernel = j.kernel_records("vllm-kimi-k25.service", windows(runs))
    messages = [r.get("MESSAGE") for r in kernel]
    assert any("segfault" in (m or "") for m in messages)
    assert not any("last week" in (m or "") for m in messages)
    assert runs_from_records([]) == []


def test_no_records_of_the_unit(journal_remote: str, tmp_path: Path) -> None:
    b = JournalBuilder()
    b.other(b.boot_usec + SECOND, "nothing to see")
    path = b.write(tmp_path / "system.journal")
    diag = _diagnose("--file", str(path))
    assert diag.root_cause is None
    assert diag.summary == "the journal has no records of vllm-kimi-k25.service"


def test_since_limits_which_attempts_are_looked_for(month: tuple[JournalBuilder, Path, list[str]]) -> None:
    _, path, ids = month
    diag = _diagnose("--file", str(path), since="2037-01-01")
    assert diag.root_cause is None and "since 2037-01-01" in diag.summary
    diag = _diagnose("--file", str(path), attempts=2)
    assert [a.invocation_id for a in diag.attempts] == [ids[0], *ids[-2:]]


def test_json_report_carries_the_unit_section(month: tuple[JournalBuilder, Path, list[str]]) -> None:
    from crashdoc.report.json import to_dict

    _, path, _ = month
    data = json.loads(json.dumps(to_dict(_diagnose("--file", str(path))), default=str))
    unit = data["unit"]
    assert unit["title"].startswith("Unit vllm-kimi-k25.service in ")
    assert unit["journal_bytes"] > 0 and unit["state_source"] == "journal"
    assert [a["outcome"] for a in unit["attempts_examined"]] == ["failed"] * 6
    assert all(a["exit_status"] == "exit status 1" and a["invocation_id"] for a in data["attempts"])


def _report(diag) -> dict:  # type: ignore[no-untyped-def]
    """The JSON report without what says how it was read (queries, bytes)."""
    from crashdoc.report.json import to_dict

    data = json.loads(json.dumps(to_dict(diag), default=str))
    for key in ("journal_queries", "journal_bytes"):
        data["unit"].pop(key, None)
    data["unit"]["lines"] = [ln for ln in data["unit"].get("lines", []) if not ln.startswith("read ")]
    data.pop("bytes_read", None)
    return data


def test_attempts_read_in_slices_give_the_same_report(journal_remote: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from crashdoc.sources import journald

    b = JournalBuilder()
    t = b.boot_usec + 3600 * SECOND
    b.other(t - SECOND, "before the unit")
    b.systemd(t - 1000, f"Starting {b.unit} - vLLM Kimi-K2.5...", inv=None, JOB_TYPE="start")
    ids, end = b.crash_loop(t, 4)
    b.kernel(end - 3 * SECOND, "NVRM: Xid (PCI:0000:41:00): 79, pid=4051, GPU has fallen off the bus.")
    path = b.write(tmp_path / "system.journal")
    whole = _diagnose("--file", str(path))
    monkeypatch.setattr(journald, "SLICE_RECORDS", 7)
    monkeypatch.setattr(journald, "SLICE_MIN", 5)
    monkeypatch.setattr(journald, "SLICE_BYTES", 3000)
    sliced = _diagnose("--file", str(path))
    _assert_verdict(sliced, attempts=4)
    assert _report(sliced) == _report(whole)
    queries = [q for q in _unit(sliced).data["journal_queries"] if "by invocation id" in q["purpose"]]
    assert len(queries) > 3 and "--until=" in queries[0]["command"]  # up to systemd's first record, then ...
    assert all("--after-cursor=" in q["command"] and "--lines=" in q["command"] for q in queries[1:])
    expected = sum(1 for r in b.records if r.get("_SYSTEMD_INVOCATION_ID") in ids or r.get("INVOCATION_ID") in ids)
    assert sum(q["records"] for q in queries) == expected  # each record once, none lost between slices
    assert sliced.lines_read == whole.lines_read == expected + 1  # and the kernel's record, spliced in


def test_output_before_the_started_record_is_read(journal_remote: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A Type=notify service prints while it starts and systemd logs `Started` only once it is ready: the
    attempt is read from systemd's record ahead of its first one, not from its first one."""
    from crashdoc.sources import journald
    from crashdoc.sources.journal_records import iso

    b = JournalBuilder()
    t = b.boot_usec + 3600 * SECOND
    b.systemd(t - 1000, f"Starting {b.unit} - vLLM Kimi-K2.5...", inv=None, JOB_TYPE="start")
    ids, t = b.crash_loop(t, 1)
    inv, t = b.failed_attempt(t + SECOND, index=2, restart_counter=2, start_record=False)
    first = min(int(r["__REALTIME_TIMESTAMP"]) for r in b.records if r.get("_SYSTEMD_INVOCATION_ID") == inv)
    b.systemd(first + 30_000, f"Started {b.unit} - vLLM Kimi-K2.5.", inv=inv, JOB_TYPE="start", JOB_RESULT="done",
              MESSAGE_ID="39f53479d3a045ac8e11786248231fbf")
    path = b.write(tmp_path / "system.journal")
    monkeypatch.setattr(journald, "SLICE_RECORDS", 4)
    monkeypatch.setattr(journald, "SLICE_MIN", 3)
    diag = _diagnose("--file", str(path))
    _assert_verdict(diag, attempts=2)
    own = sum(1 for r in b.records if inv in (r.get("_SYSTEMD_INVOCATION_ID"), r.get("INVOCATION_ID")))
    queries = [q for q in _unit(diag).data["journal_queries"] if "by invocation id" in q["purpose"]]
    assert sum(q["records"] for q in queries) == own + sum(
        1 for r in b.records if ids[0] in (r.get("_SYSTEMD_INVOCATION_ID"), r.get("INVOCATION_ID")))
    assert any("--after-cursor=" in q["command"] for q in queries)
    examined = {a["invocation_id"]: a for a in _unit(diag).data["attempts_examined"]}
    assert examined[inv]["started"] == iso(first)  # its first line, ahead of its first record from systemd


def test_the_queries_in_the_report_are_not_redacted(journal_remote: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's journal_queries are crashdoc's own commands: the invocation ids they match and the cursors
    they continue from stay readable (the redactor took some 32-hex-digit ids for secrets), so a reader can run
    them again."""
    from crashdoc.sources import journald
    from tests.support.cli import run_cli

    b = JournalBuilder()
    ids, _ = b.crash_loop(b.boot_usec + 3600 * SECOND, 6)
    path = b.write(tmp_path / "system.journal")
    monkeypatch.setattr(journald, "SLICE_RECORDS", 7)
    monkeypatch.setattr(journald, "SLICE_MIN", 5)
    monkeypatch.setattr(journald, "SLICE_BYTES", 3000)
    r = run_cli("diagnose", "vllm-kimi-k25", "--file", str(path), "--format", "json")
    assert r.status in (0, 3), r.stderr
    commands = [q["command"] for q in r.json["unit"]["journal_queries"]]
    assert not [c for c in commands if "<redacted" in c]
    examined = [a["invocation_id"] for a in r.json["unit"]["attempts_examined"]]
    sliced = [c for c in commands if "--after-cursor=" in c]
    assert examined and sliced
    assert all(f"_SYSTEMD_INVOCATION_ID={i}" in c for i in examined for c in sliced)
