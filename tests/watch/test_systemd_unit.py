"""`crashdoc watch UNIT --host` against a real systemd: a Debian 12 container booted with systemd-nspawn
(tests/support/container.py), reached over ssh, running the vLLM stand-in server as a transient unit
(`systemd-run`). Real `journalctl -f`, real `systemctl show`, a real restart loop, a real `--freeze-on-crash`.

crashdoc runs on this machine and reaches the container over ssh. The watches that follow a live unit run it as
a real process (they say so); the one-line error runs it in-process (tests/support/cli.py)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import vllm_standin
from tests.support.net import free_port
from tests.watch.helpers import crashdoc, crashdoc_process, start_crashdoc, stop

pytestmark = [pytest.mark.host, pytest.mark.slow]

FLASHINFER = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from tests.support.container import Container, build_rootfs, missing_tools

    missing = missing_tools()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install mmdebstrap systemd-container openssh-client)")
    if os.geteuid() != 0:
        pytest.skip("booting a container needs root")
    rootfs = build_rootfs(log=tmp_path_factory.mktemp("rootfs") / "mmdebstrap.log")
    c = Container(tmp_path_factory.mktemp("watchbox"), name="crashdoc-watch")
    try:
        c.prepare(rootfs)
        # the fixture's own crash-looping unit is not needed here
        (c.root / "etc/systemd/system/multi-user.target.wants/vllm-kimi-k25.service").unlink(missing_ok=True)
        shutil.copy(vllm_standin.PATH, c.root / "opt/vllm_standin.py")
        c.boot()
        yield c
    finally:
        c.stop()


def _ssh_env(box: object) -> dict[str, str]:
    return {"CRASHDOC_SSH_OPTIONS": box.ssh_options_env}  # type: ignore[attr-defined]


def test_crash_loop_is_diagnosed_and_frozen(box: object, tmp_path: Path) -> None:
    port = free_port()
    box.ssh("systemd-run", "--unit=fake-llm", "--property=Restart=on-failure", "--property=RestartSec=3",  # type: ignore[attr-defined]
            "/usr/bin/python3", "/opt/vllm_standin.py", "--port", str(port), "--step", "0.2")
    report = tmp_path / "r.json"
    # a real process: it follows the live unit's start, its crash and the freeze
    res = crashdoc_process("watch", "fake-llm", "--host", box.target(), "--freeze-on-crash",  # type: ignore[attr-defined]
                   "--health", f"http://127.0.0.1:{port}/health", "--health-interval", "0.3",
                   "--report", str(report), "--width", "110", extra_env=_ssh_env(box), timeout=120)
    assert res.status == 4, res.stderr
    assert "crashed: its main process exited with status 1" in res.stderr
    assert "loading weights" in res.stderr and "not up yet (connection refused)" in res.stderr
    assert "stopping fake-llm.service so its restart loop stops: ssh " in res.stderr
    assert FLASHINFER in res.out and "Worker_TP2" in res.out
    data = json.loads(report.read_text())
    assert data["watch"]["frozen"] is True and FLASHINFER in data["root_cause"]["message"]
    time.sleep(5)  # longer than RestartSec: a loop that was not stopped would have started again
    starts = box.ssh("journalctl", "-u", "fake-llm", "-o", "cat", "--no-pager", check=False).stdout  # type: ignore[attr-defined]
    assert starts.count("vLLM API server version") == 1, starts[-2000:]
    assert box.ssh("systemctl", "is-active", "fake-llm", check=False).stdout.strip() in ("inactive", "failed")  # type: ignore[attr-defined]


def test_healthy_unit_over_ssh(box: object) -> None:
    port = free_port()
    box.ssh("systemd-run", "--unit=fake-ok", "/usr/bin/python3", "/opt/vllm_standin.py",  # type: ignore[attr-defined]
            "--mode", "healthy", "--port", str(port), "--step", "0.1")
    try:  # a real process: it follows the live unit until its health endpoint answers
        res = crashdoc_process("watch", "fake-ok.service", "--host", box.target(),  # type: ignore[attr-defined]
                       "--health", f"http://127.0.0.1:{port}/health", "--health-interval", "0.3",
                       extra_env=_ssh_env(box), timeout=120)
    finally:
        box.ssh("systemctl", "stop", "fake-ok", check=False)  # type: ignore[attr-defined]
    assert res.status == 0, res.stderr
    assert "is up: health" in res.stderr and "importing modules" in res.stderr


def test_unknown_unit_is_one_line(box: object) -> None:
    res = crashdoc("watch", "no-such-llm", "--host", box.target(), extra_env=_ssh_env(box))  # type: ignore[attr-defined]
    assert res.status == 2 and "is not known to systemd" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_watch_begun_during_a_restart_loop_reports_the_failure(box: object) -> None:
    port = free_port()
    box.ssh("systemd-run", "--unit=fake-loop", "--property=Restart=always", "--property=RestartSec=4",  # type: ignore[attr-defined]
            "/usr/bin/python3", "/opt/vllm_standin.py", "--port", str(port), "--step", "0")
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            sub = box.ssh("systemctl", "show", "-p", "SubState", "--value", "fake-loop", check=False).stdout.strip()  # type: ignore[attr-defined]
            if sub == "auto-restart":
                break
            time.sleep(0.2)
        # a real process: it follows the live restart loop
        res = crashdoc_process("watch", "fake-loop", "--host", box.target(), "--format", "json",  # type: ignore[attr-defined]
                       extra_env=_ssh_env(box), timeout=120)
    finally:
        box.ssh("systemctl", "stop", "fake-loop", check=False)  # type: ignore[attr-defined]
    assert res.status == 4, res.stderr
    assert FLASHINFER in json.loads(res.stdout)["root_cause"]["message"]


def test_failed_unit_is_waited_for_and_its_next_start_watched(box: object) -> None:
    port = free_port()
    box.ssh("systemd-run", "--unit=fake-once", "--property=Restart=no", "--property=RemainAfterExit=no",  # type: ignore[attr-defined]
            "/usr/bin/python3", "/opt/vllm_standin.py", "--port", str(port), "--step", "0")
    deadline = time.time() + 30
    while time.time() < deadline:
        if box.ssh("systemctl", "is-failed", "fake-once", check=False).stdout.strip() == "failed":  # type: ignore[attr-defined]
            break
        time.sleep(0.2)
    # a real process: it waits for the unit's next start, which the test makes, and follows it
    live = start_crashdoc("watch", "fake-once", "--host", box.target(), extra_env=_ssh_env(box))  # type: ignore[attr-defined]
    try:
        live.err.wait_for("waiting for its next start", timeout=60)
        box.ssh("systemctl", "restart", "fake-once")  # type: ignore[attr-defined]
        rc = live.wait(60)
    finally:
        stop(live.proc)
        box.ssh("systemctl", "reset-failed", "fake-once", check=False)  # type: ignore[attr-defined]
    assert rc == 4, live.err.text()
    err = live.err.text()
    assert "waiting for its next start" in err and "crashed: its main process exited with status 1" in err
    assert FLASHINFER in live.out.text()
