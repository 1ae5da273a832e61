"""The incident memory on a real SQLite file: seen before across hosts, episodes, fixes and verdicts, a
damaged file set aside, a newer schema left alone, where the file lives."""

from __future__ import annotations

import calendar
import sqlite3
from pathlib import Path

import pytest

from crashdoc.history import EPISODE_GAP, SCHEMA_VERSION, HistoryError, Memory, default_path, host_name
from crashdoc.model import Diagnosis, Finding, Fix

T0 = float(calendar.timegm((2026, 11, 12, 9, 41, 0)))
FIX = "pip install flashinfer-cubin==0.6.4"


class Clock:
    """A settable clock for the memory's timestamps."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def diagnosis(fingerprint: str = "b6b91c9222e8", message: str = "flashinfer-cubin version (0.6.3) does not match "
              "flashinfer version (0.6.4)") -> Diagnosis:
    rc = Finding(line=f"RuntimeError: {message}", lineno=7, exception="RuntimeError", message=message,
                 category="dependency_version_mismatch", fix=Fix("match them", FIX), rule="flashinfer-cubin",
                 fingerprint=fingerprint)
    return Diagnosis("unit vllm-kimi-k25.service", rc, (rc,))


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def memory(tmp_path: Path, clock: Clock) -> Memory:
    with Memory(tmp_path / "history.db", clock=clock) as m:
        yield m


def test_the_same_root_cause_on_two_hosts_is_seen_before(memory: Memory, clock: Clock) -> None:
    first = memory.record_diagnosis(diagnosis(), host="node-03", unit="vllm-kimi-k25.service")
    assert first is not None and first.summary == "" and first.seen_before == ()
    clock.now += 86400
    second = memory.record_diagnosis(diagnosis(), host="node-07", unit="vllm-kimi-k25.service")
    assert second is not None and second.incident != first.incident
    assert second.summary == "seen before on node-03 (vllm-kimi-k25.service) at 2026-11-12 09:41 UTC"
    [past] = second.seen_before
    assert (past.host, past.at, past.fix_command, past.verdict) == ("node-03", "2026-11-12T09:41:00Z", None, None)


def test_a_verified_fix_is_named(memory: Memory, clock: Clock) -> None:
    first = memory.record_diagnosis(diagnosis(), host="node-03", unit="vllm.service")
    assert first is not None and first.incident is not None
    fix = memory.start_fix(first.incident, FIX)
    memory.log_command(fix, f"/venv/bin/python -m {FIX}", 0)
    memory.log_command(fix, "systemctl restart vllm.service", 0)
    memory.record_verdict(fix, "fixed", "ready at attempt 9")
    clock.now += 3 * 86400
    again = memory.record_diagnosis(diagnosis(), host="node-11", unit="vllm.service")
    assert again is not None
    assert again.summary == f"seen before: node-03 (vllm.service), 2026-11-12 09:41 UTC, fixed by `{FIX}` (verified)"
    [incident, _] = memory.incidents(host="node-03") + memory.incidents(host="node-11")
    [f] = incident.fixes
    assert f.verdict == "fixed" and f.commands == (f"/venv/bin/python -m {FIX}", "systemctl restart vllm.service")


def test_a_fix_that_did_not_help_is_said_and_a_verified_one_ranks_first(memory: Memory, clock: Clock) -> None:
    a = memory.record_diagnosis(diagnosis(), host="node-01", unit="vllm.service")
    assert a is not None and a.incident is not None
    memory.record_verdict(memory.start_fix(a.incident, FIX), "fixed")
    clock.now += 86400
    b = memory.record_diagnosis(diagnosis(), host="node-02", unit="vllm.service")
    assert b is not None and b.incident is not None
    memory.record_verdict(memory.start_fix(b.incident, "pip install flashinfer-cubin"), "not_fixed")
    clock.now += 86400
    c = memory.record_diagnosis(diagnosis(), host="node-05", unit="vllm.service")
    assert c is not None and c.total == 2
    assert [p.host for p in c.seen_before] == ["node-01", "node-02"]
    assert c.summary.startswith("seen before: node-01 (vllm.service), 2026-11-12 09:41 UTC, fixed by")
    assert c.summary.endswith("(2 earlier incidents on 2 hosts)")
    with pytest.raises(ValueError):
        memory.record_verdict(1, "maybe")  # type: ignore[arg-type]


def test_diagnosing_the_same_loop_again_is_the_same_incident_until_fixed(memory: Memory, clock: Clock) -> None:
    one = memory.record_diagnosis(diagnosis(), host="node-03", unit="vllm.service")
    clock.now += 600
    two = memory.record_diagnosis(diagnosis(), host="node-03", unit="vllm.service")
    assert one is not None and two is not None and one.incident == two.incident and two.summary == ""
    [incident] = memory.incidents("vllm")
    assert incident.diagnoses == 2 and incident.last_seen > incident.first_seen
    assert two.incident is not None
    memory.record_verdict(memory.start_fix(two.incident, FIX), "fixed")
    clock.now += 600
    three = memory.record_diagnosis(diagnosis(), host="node-03", unit="vllm.service")
    assert three is not None and three.incident != one.incident
    assert three.summary.startswith("seen before: node-03 (vllm.service), ")
    clock.now += EPISODE_GAP + 1
    four = memory.record_diagnosis(diagnosis(), host="node-03", unit="vllm.service")
    assert four is not None and four.incident != three.incident


def test_no_root_cause_records_nothing_and_other_causes_stay_apart(memory: Memory) -> None:
    assert memory.record_diagnosis(Diagnosis("unit x.service", None), host="h", unit="x.service") is None
    memory.record_diagnosis(diagnosis("aaaa"), host="h1", unit="x.service")
    other = memory.record_diagnosis(diagnosis("bbbb"), host="h2", unit="x.service")
    assert other is not None and other.seen_before == ()


def test_stored_text_is_scrubbed(memory: Memory) -> None:
    diag = diagnosis(message="401 for token hf_SECRETSECRETSECRETSECRET")
    memory.record_diagnosis(diag, host="h", unit="u.service", scrub=lambda s: s.replace("hf_SECRETSECRETSECRETSECRET",
                                                                                        "<redacted>"))
    [incident] = memory.incidents()
    assert incident.message == "401 for token <redacted>"
    assert b"hf_SECRET" not in (memory.store.path.read_bytes()
                                + Path(f"{memory.store.path}-wal").read_bytes())


def test_a_damaged_file_is_set_aside_and_a_new_one_started(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    path.write_bytes(b"this is not an SQLite database, a disk error or someone's editor wrote it\n" * 50)
    with Memory(path) as memory:
        history = memory.record_diagnosis(diagnosis(), host="node-03", unit="vllm.service")
        [note] = memory.notes
    assert history is not None and history.incident == 1
    assert "was damaged" in note and "moved aside" in note
    [aside] = tmp_path.glob("history.db.corrupt-*")
    assert aside.read_bytes().startswith(b"this is not an SQLite database")
    with Memory(path) as memory:
        assert [i.host for i in memory.incidents()] == ["node-03"] and memory.notes == []


def test_damage_inside_a_valid_file_is_found_too(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    with Memory(path) as memory:
        for i in range(200):
            memory.record_diagnosis(diagnosis(f"fp{i}", message="x" * 300), host=f"h{i}", unit="u.service")
    data = bytearray(path.read_bytes())
    for offset in range(4096, len(data), 4096):  # every b-tree page's header, the file header left intact
        data[offset:offset + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))
    with Memory(path) as memory:
        history = memory.record_diagnosis(diagnosis(), host="node-03", unit="vllm.service")
        assert history is not None
        assert any("damaged" in n for n in memory.notes)
    assert list(tmp_path.glob("history.db.corrupt-*"))


def test_a_newer_schema_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with Memory(path) as memory, pytest.raises(HistoryError, match="newer crashdoc"):
        memory.record_diagnosis(diagnosis(), host="h", unit="u.service")
    assert not list(tmp_path.glob("history.db.corrupt-*"))


def test_file_is_wal_versioned_and_private(memory: Memory) -> None:
    memory.record_diagnosis(diagnosis(), host="h", unit="u.service")
    conn = memory.store.connection()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert memory.store.path.stat().st_mode & 0o077 == 0


def test_where_the_file_lives(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CRASHDOC_STATE_DIR", str(tmp_path / "s"))
    assert default_path() == tmp_path / "s" / "history.db"
    monkeypatch.delenv("CRASHDOC_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert default_path() == tmp_path / "xdg" / "crashdoc" / "history.db"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / ".local" / "state" / "crashdoc" / "history.db"


def test_an_unwritable_place_is_a_history_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with Memory(blocker / "sub" / "history.db") as memory, pytest.raises(HistoryError, match="cannot create"):
        memory.record_diagnosis(diagnosis(), host="h", unit="u.service")


def test_host_names() -> None:
    assert host_name("root@node-03:2222") == "node-03"
    assert host_name("node-03") == "node-03"
    assert host_name("admin@[fe80::1]:22") == "fe80::1"
    assert host_name(None)
