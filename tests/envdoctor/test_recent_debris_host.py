"""Recent changes against the first failure, debris in the working directory, host facts and the port."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime, timedelta, timezone

from crashdoc.envdoctor import check_environment
from crashdoc.transport import LocalRunner
from tests.envdoctor.builders import Pkg, site_packages


def _installed_at(python, dist_info: str, epoch: float) -> None:
    record = site_packages(python) / dist_info / "RECORD"
    os.utime(record, (epoch, epoch))


def test_recent_upgrade_set_against_the_first_failure(make_env):
    python = make_env(Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.3"),
                      Pkg("numpy", "2.1.0"))
    now = time.time()
    failure = now - 300
    _installed_at(python, "flashinfer_python-0.6.4.dist-info", failure - 11 * 60)
    _installed_at(python, "flashinfer_cubin-0.6.3.dist-info", now - 3 * 86400 - 60)
    _installed_at(python, "numpy-2.1.0.dist-info", now - 30 * 86400)
    since = datetime.fromtimestamp(failure, tz=timezone.utc)
    report = check_environment(LocalRunner(), str(python), checks=["recent"], since=since)
    lines = [ln for ln in report.section.lines if ln.startswith("flashinfer")]
    assert lines[0].startswith("flashinfer-python 0.6.4 installed 11 minutes before the first failure (")
    assert lines[0].endswith("; flashinfer-cubin 0.6.3 unchanged for 3 days")
    assert not any("numpy" in ln for ln in report.section.lines)
    assert report.findings == ()
    [recent] = [p for p in report.facts["checks"]["recent"]["packages"] if p["name"] == "flashinfer-python"]
    assert 655 <= recent["seconds_before_failure"] <= 665


def test_change_after_the_failure_is_reported(make_env):
    python = make_env(Pkg("flashinfer-cubin", "0.6.4"))
    since = datetime.now(timezone.utc) - timedelta(minutes=20)
    report = check_environment(LocalRunner(), str(python), checks=["recent"], since=since)
    [after] = report.findings
    assert after.message.startswith("the environment changed after the first failure: flashinfer-cubin 0.6.4 (installed")
    assert after.role == "unknown"


def test_naive_since_is_the_hosts_local_time(make_env):
    python = make_env(Pkg("flashinfer-cubin", "0.6.4"))
    since = datetime.now() - timedelta(minutes=20)          # naive: local time of the (same) host
    report = check_environment(LocalRunner(), str(python), checks=["recent"], since=since)
    assert "20 minutes after the first failure" in report.findings[0].message or \
        "19 minutes after the first failure" in report.findings[0].message


def test_core_files_and_dumps_in_the_working_directory(make_env, tmp_path):
    python = make_env(Pkg("vllm", "0.16.0"))
    work = tmp_path / "work"
    (work / "dumps").mkdir(parents=True)
    core = work / "core.59619"
    core.write_bytes(b"\x7fELF" + b"\0" * 100)
    with open(work / "dumps" / "hidden_states.pt", "wb") as f:
        f.truncate(3 << 30)                                  # sparse: 3 GiB by size, nothing on disk
    (work / "tiny.pt").write_bytes(b"x" * 10)
    report = check_environment(LocalRunner(), str(python), checks=["debris"], workdir=str(work),
                               since=datetime.now(timezone.utc) - timedelta(minutes=5))
    by_key = {f.fingerprint: f for f in report.findings}
    cores = by_key["env:debris:cores"]
    assert str(core) in cores.message and "after the first failure" in cores.message
    assert cores.fix.command == f"gdb -batch -ex bt {python} {core}"
    dumps = by_key["env:debris:dumps"]
    assert dumps.category == "host_resources" and "3.0 GiB" in dumps.message and "tiny.pt" not in dumps.message


def test_host_facts_and_a_taken_port(make_env):
    python = make_env(Pkg("vllm", "0.16.0"))
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        port = srv.getsockname()[1]
        report = check_environment(LocalRunner(), str(python), checks=["host"], port=port)
    [taken] = report.findings
    assert taken.category == "port_in_use"
    assert taken.message.startswith(f"port {port} is in use by pid {os.getpid()} (")
    assert any(ln.startswith("/dev/shm: ") for ln in report.section.lines)
    assert any(ln.startswith("disk: ") and "python " in ln for ln in report.section.lines)
    free = check_environment(LocalRunner(), str(python), checks=["host"], port=port)
    assert free.findings == () and f"port {port}: nobody listens" in free.section.lines
