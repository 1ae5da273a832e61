"""The container side of analyze/state.py (the unit side runs on real journal files: tests/systemd/test_state.py):
a container's present from the engine's state and its newest run's lines, against its last failure."""

from __future__ import annotations

from crashdoc.analyze.state import StartScan, clock, duration
from crashdoc.analyze.state_container import container_now
from crashdoc.model import Attempt

NOW = clock("2026-12-01T09:53:00Z") or 0.0
FAILED = Attempt(1, "2026-12-01T09:10:00Z", "2026-12-01T09:16:00Z", "failed (exit 1)", fingerprint="fp1",
                 root_message="RuntimeError: flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)")
RUNNING = Attempt(2, "2026-12-01T09:40:00Z", "2026-12-01T09:52:00Z", "running")


def _scan(*lines: tuple[str, str]) -> StartScan:
    scan = StartScan()
    for ts, text in lines:
        if scan.feed(text, clock(ts)):
            break
    return scan


def _now(**kw: object):  # type: ignore[no-untyped-def]
    base: dict[str, object] = dict(running=True, restarting=False, exit_code=0, started_at="2026-12-01T09:40:00.5Z",
                                   finished_at="2026-12-01T09:16:00Z", engine_health=None, attempts=(FAILED, RUNNING),
                                   current=2, scan=None, health=None, now=NOW)
    base.update(kw)
    return container_now(**base)  # type: ignore[arg-type]


def test_running_and_ready_from_the_engines_line_with_the_old_failure() -> None:
    scan = _scan(("2026-12-01T09:40:01Z", "vLLM API server version 0.11.2"),
                 ("2026-12-01T09:41:00.123456789Z", "INFO:     Application startup complete."),
                 ("2026-12-01T09:42:00Z", "this line is never read"))
    st = _now(scan=scan)
    assert st.now == "running" and st.ready is True and st.recovered
    assert st.since is not None and st.since.startswith("2026-12-01T09:41:00.1234") and scan.lines == 2
    assert st.detail.startswith("running and ready since 09:41 UTC (11 min ago)")
    assert "the last failure was attempt 1 at 09:16 UTC (37 min ago) — RuntimeError: flashinfer-cubin" in st.detail
    assert st.last_failure is not None and st.last_failure.fingerprint == "fp1"


def test_starting_looping_failed_stopped_and_the_engines_healthcheck() -> None:
    loading = _scan(("2026-12-01T09:40:01Z", "vLLM API server version 0.11.2"),
                    ("2026-12-01T09:41:00Z", "Loading safetensors checkpoint shards:  50% Completed | 32/64"))
    st = _now(scan=loading)
    assert st.now == "starting" and st.phase == "loading weights" and not st.recovered
    assert "loading weights for 12 min" in st.detail
    assert _now(restarting=True, running=True, scan=None).now == "looping"
    failed = _now(running=False, exit_code=1, attempts=(FAILED,), current=1)
    assert failed.now == "failed" and failed.last_failure is not None
    assert _now(running=False, exit_code=0, attempts=(), current=None).now == "stopped"
    up = _now(scan=loading, engine_health="healthy")
    assert up.now == "running" and up.ready is True and "healthcheck" in up.detail
    probed = _now(scan=loading, health=(False, "HTTP 503"))
    assert probed.now == "starting" and "HTTP 503" in probed.detail
    unknown = _now(scan=_scan(("2026-12-01T09:40:01Z", "my own server listening")))
    assert unknown.now == "running" and unknown.ready is None and not unknown.recovered


def test_duration_words() -> None:
    assert [duration(s) for s in (5, 61, 3700, 3 * 86400)] == ["5 s", "1 min", "1 h 01 min", "3 days"]


def test_a_recovered_container_through_diagnose_container_reads_its_log_once() -> None:
    """docker: a container that failed twice (the same cubin error) and now runs and is ready: running, recovered,
    no advice to freeze, and `docker logs` read once (the newest run's lines scanned as they pass)."""
    from crashdoc.investigate.container import diagnose_container
    from crashdoc.kb import KnowledgeBase
    from tests.sources.conftest import RecordingRunner, validate
    from tests.sources.test_container_commands import INSPECT, LOGS, _inspect

    error = ("(Worker_TP0 pid=41) ERROR 11-30 09:{m}:01 [multiproc_executor.py:671] RuntimeError: flashinfer-cubin "
             "version (0.6.3) does not match flashinfer version (0.6.4). Please install the same version of both "
             "packages.")
    out = b""
    for minute in ("10", "12"):
        out += (f"2025-11-30T09:{minute}:00.000000001Z (APIServer pid=1) INFO 11-30 09:{minute}:00 "
                "[api_server.py:1839] vLLM API server version 0.11.2\n").encode()
        out += f"2025-11-30T09:{minute}:01.000000001Z {error.format(m=minute)}\n".encode()
    out += (b"2025-11-30T09:14:02.5Z (APIServer pid=1) INFO 11-30 09:14:02 [api_server.py:1839] vLLM API server "
            b"version 0.11.2\n2025-11-30T09:14:40.25Z (APIServer pid=1) INFO:     Application startup complete.\n")
    running = _inspect(State__Status="running", State__Running=True, State__Restarting=False, State__OOMKilled=False,
                       State__ExitCode=0, State__StartedAt="2025-11-30T09:14:02.118232456Z", RestartCount=2,
                       HostConfig__RestartPolicy={"Name": "on-failure", "MaximumRetryCount": 0})
    runner = RecordingRunner({INSPECT: (0, running, b""), LOGS: (0, out, b"")})
    diag = diagnose_container(runner, "docker", "vllm", kb=KnowledgeBase.load())
    st = diag.state
    assert st is not None and st.now == "running" and st.ready is True and st.recovered, st
    assert st.since is not None and st.since.startswith("2025-11-30T09:14:40.25")
    assert st.last_failure is not None and "flashinfer-cubin version (0.6.3)" in st.last_failure.message
    doc = validate(diag)
    assert doc["state"]["recovered"] is True
    assert not any("--freeze" in line for line in doc["container"]["lines"])
    assert [c for c in runner.calls if c[:2] == ("docker", "logs")] == [LOGS]
