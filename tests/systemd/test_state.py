"""The present of a unit against its last failure (analyze/state.py), on real journal files written by
systemd-journal-remote and read with the real journalctl: a recovered unit, a starting one, a looping one."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from crashdoc.investigate.unit import diagnose_unit
from crashdoc.report.json import schema_text, to_dict
from crashdoc.transport import LocalRunner
from tests.support.journal_files import MSG_STARTED, JournalBuilder
from tests.systemd.helpers import crashdoc

pytestmark = pytest.mark.host

SECOND = 1_000_000
ROOT_ERROR = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"


def _banner(pid: int) -> list[str]:
    return [
        f"(APIServer pid={pid}) INFO 11-30 09:41:00 [api_server.py:1839] vLLM API server version 0.11.2",
        f"(APIServer pid={pid}) INFO 11-30 09:41:01 [utils.py:233] non-default args: {{'model': 'moonshotai/Kimi-K2.5'}}",
        f"(EngineCore_DP0 pid={pid + 1}) INFO 11-30 09:41:05 [core.py:93] Initializing a V1 LLM engine (v0.11.2)",
        f"(Worker_TP0 pid={pid + 2}) INFO 11-30 09:41:09 [gpu_model_runner.py:2843] Starting to load model "
        "moonshotai/Kimi-K2.5...",
        f"(Worker_TP0 pid={pid + 2}) INFO 11-30 09:41:20 [default_loader.py:267] Loading safetensors checkpoint "
        "shards:  50% Completed | 32/64 [01:10<01:10, 2.1s/it]",
    ]


def _ready_tail(pid: int) -> list[str]:
    return [
        f"(APIServer pid={pid}) INFO 11-30 09:43:10 [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000",
        f"(APIServer pid={pid}) INFO:     Started server process [{pid}]",
        f"(APIServer pid={pid}) INFO:     Application startup complete.",
        *(f"(APIServer pid={pid}) INFO:     10.4.0.{i}:40000 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"
          for i in range(200)),
    ]


def _running_attempt(b: JournalBuilder, t: int, lines: list[str], pid: int = 7001) -> tuple[str, int]:
    """An attempt that started and is still running when the journal ends (no exit record)."""
    inv = f"{t:032x}"[-32:]
    b.systemd(t, f"Started {b.unit} - vLLM Kimi-K2.5.", inv=inv, JOB_TYPE="start", JOB_RESULT="done",
              MESSAGE_ID=MSG_STARTED)
    for i, line in enumerate(lines):
        b.unit_line(t + (i + 1) * 50_000, line, inv=inv, pid=pid)
    return inv, t + (len(lines) + 1) * 50_000


def _diagnose(path: Path):  # type: ignore[no-untyped-def]
    return diagnose_unit(LocalRunner(), "vllm-kimi-k25", journal_args=("--file", str(path)), announce=lambda _: None)


def _valid(diag) -> dict:  # type: ignore[no-untyped-def]
    doc = to_dict(diag)
    jsonschema.validate(doc, json.loads(schema_text()))
    return doc


def test_recovered_unit_is_running_and_ready_with_the_old_failure(journal_remote: str, tmp_path: Path) -> None:
    b = JournalBuilder()
    ids, t = b.crash_loop(b.boot_usec + 3600 * SECOND, 3)
    _, _ = _running_attempt(b, t + 2 * SECOND, _banner(7001) + _ready_tail(7001))
    diag = _diagnose(b.write(tmp_path / "system.journal"))
    st = diag.state
    assert st is not None and st.now == "running" and st.ready is True and st.recovered
    assert st.last_failure is not None and st.last_failure.invocation_id == ids[-1]
    assert st.last_failure.attempt == 3 and ROOT_ERROR in st.last_failure.message
    assert st.detail.startswith("running and ready since ") and "Application startup complete" in st.detail
    assert "the last failure was attempt 3 at" in st.detail and st.detail.endswith("(resolved since?)")
    # the ready time is the ready line's, not the attempt's start
    ready_line = next(r for r in b.records if "Application startup complete" in str(r.get("MESSAGE")))
    assert st.since is not None and st.since.startswith("2025-11-01T01:")
    assert int(ready_line["__REALTIME_TIMESTAMP"]) // SECOND == int(
        __import__("datetime").datetime.fromisoformat(st.since).timestamp())
    # the old failure is still the diagnosis' root cause; the report opens with the present
    assert diag.root_cause is not None and ROOT_ERROR in diag.root_cause.message
    doc = _valid(diag)
    assert doc["state"]["now"] == "running" and doc["state"]["recovered"] is True
    assert doc["state"]["last_failure"]["fingerprint"] == diag.root_cause.fingerprint
    unit = next(s for s in diag.sections if s.key == "unit")
    assert not any("--freeze" in line for line in unit.lines) and unit.data["still_looping"] is False


def test_recovered_unit_through_the_cli_exits_6(journal_remote: str, tmp_path: Path) -> None:
    b = JournalBuilder()
    _, t = b.crash_loop(b.boot_usec + 3600 * SECOND, 2)
    _running_attempt(b, t + 2 * SECOND, _banner(7001) + _ready_tail(7001))
    path = b.write(tmp_path / "system.journal")
    run = crashdoc("diagnose", "vllm-kimi-k25", "--file", str(path), "--no-history")
    assert run.status == 6, run.stderr
    lines = run.stdout.splitlines()
    now = next(i for i, ln in enumerate(lines) if ln.startswith("Now"))
    assert "running and ready since" in lines[now]
    assert now < next(i for i, ln in enumerate(lines) if ln.startswith("Unit "))  # the report opens with it
    assert "--freeze" not in run.stdout


def test_starting_unit_names_its_phase(journal_remote: str, tmp_path: Path) -> None:
    b = JournalBuilder()
    _, t = b.failed_attempt(b.boot_usec + 3600 * SECOND, index=1, restart_counter=None)  # failed, not restarted
    _running_attempt(b, t + 60 * SECOND, _banner(7001))  # started again by hand, still loading
    diag = _diagnose(b.write(tmp_path / "system.journal"))
    st = diag.state
    assert st is not None and st.now == "starting" and st.ready is False and not st.recovered
    assert st.phase == "loading weights"
    assert st.detail.startswith("starting since ") and ": loading weights" in st.detail
    assert st.last_failure is not None and ROOT_ERROR in st.last_failure.message
    assert _valid(diag)["state"]["phase"] == "loading weights"
    run = crashdoc("diagnose", "vllm-kimi-k25", "--file", str(b.write(tmp_path / "again.journal")), "--no-history")
    assert run.status == 0, run.stderr  # broken until it is up: not "recovered"


def test_looping_unit_between_attempts_and_while_one_starts(journal_remote: str, tmp_path: Path) -> None:
    b = JournalBuilder()
    ids, t = b.crash_loop(b.boot_usec + 3600 * SECOND, 4)
    diag = _diagnose(b.write(tmp_path / "between.journal"))
    st = diag.state
    assert st is not None and st.now == "looping" and not st.recovered
    assert st.last_failure is not None and st.last_failure.invocation_id == ids[-1]
    assert st.detail.startswith("looping since ") and "systemd restarts it" in st.detail
    _valid(diag)
    # the automatic restart after the 4th failure is starting: still a loop, not a recovery
    _running_attempt(b, t + SECOND, _banner(7001)[:3])
    diag = _diagnose(b.write(tmp_path / "starting.journal"))
    st = diag.state
    assert st is not None and st.now == "looping" and st.ready is False
    assert "a new attempt (an automatic restart) is" in st.detail and "the last failure was attempt 4" in st.detail
    _valid(diag)


def test_health_url_decides_readiness(journal_remote: str, tmp_path: Path) -> None:
    """--health: one answer of the endpoint decides; refused means not up (exit 0: broken now), 200 means up."""
    import http.server
    import threading

    from tests.support.net import free_port

    b = JournalBuilder()
    _, t = b.crash_loop(b.boot_usec + 3600 * SECOND, 2)
    _running_attempt(b, t + 2 * SECOND, _banner(7001) + _ready_tail(7001))
    path = str(b.write(tmp_path / "system.journal"))
    down = crashdoc("diagnose", "vllm-kimi-k25", "--file", path, "--no-history", "-f", "json",
                    "--health", f"http://127.0.0.1:{free_port()}/health")
    assert down.status == 0, down.stderr
    assert down.json["state"]["now"] == "looping" and "connection refused" in down.json["state"]["detail"]

    class Ok(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Ok)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        up = crashdoc("diagnose", "vllm-kimi-k25", "--file", path, "--no-history", "-f", "json",
                      "--health", f"http://127.0.0.1:{srv.server_address[1]}/health")
    finally:
        srv.shutdown()
    assert up.status == 6, up.stderr
    assert "its health endpoint answered HTTP 200" in up.json["state"]["detail"]
