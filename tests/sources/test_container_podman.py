"""`diagnose podman:NAME` on real podman containers (runc, cgroupfs) made from the Debian root filesystem: a
restart loop of the vLLM stand-in, an OOM kill under `-m 64m`, NCCL's shared-memory failure on the default
/dev/shm, --freeze of a looping container, and the same diagnosis through a real sshd (--host).

Every wait is for an event (`podman wait` on the container's exits, then `podman inspect`), never a sleep."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crashdoc.investigate.container import diagnose_container
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.sources.container import ContainerLogs, time_key
from crashdoc.transport import LocalRunner, SshRunner, parse_target
from tests.sources.conftest import validate
from tests.support.podman import PREFIX, Podman
from tests.support.sshd import SSHD, _wait_port, start_sshd

pytestmark = pytest.mark.host

VLLM = ("/opt/venv/bin/vllm", "serve", "moonshotai/Kimi-K2.5", "--tensor-parallel-size", "4", "--trust-remote-code")
STANDIN_ENV = ("-e", "STANDIN_TP=4", "-e", "STANDIN_FAIL_RANK=2", "-e", "HF_TOKEN=hf_not_a_real_token")
LOOP = f"{PREFIX}loop"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


@pytest.fixture(scope="module")
def restart_loop(podman: Podman) -> Iterator[dict[str, Any]]:
    """The stand-in under --restart=on-failure:3, run until podman gave up (4 starts, every one failing)."""
    podman.create(LOOP, "--restart=on-failure:3", *STANDIN_ENV, command=VLLM)
    podman.start(LOOP)
    yield podman.wait_exit(LOOP, restarts=3)
    podman("rm", "-f", LOOP, check=False)


def test_restart_loop_root_cause_and_attempts(restart_loop: dict[str, Any], kb: KnowledgeBase) -> None:
    assert restart_loop["RestartCount"] == 3 and restart_loop["State"]["ExitCode"] == 1
    diag = diagnose_container(LocalRunner(), "podman", LOOP, kb=kb)
    doc = validate(diag)
    rc = diag.root_cause
    assert rc is not None and rc.rule == "flashinfer-cubin-version-mismatch"
    assert rc.category == "dependency_version_mismatch" and rc.fix.command == "pip install flashinfer-cubin==0.6.4"
    assert rc.where.process == "Worker_TP2" and rc.where.rank == 2
    assert len(diag.attempts) == 4 and {a.fingerprint for a in diag.attempts} == {rc.fingerprint}
    assert diag.summary == "all 4 attempts failed with the same error"
    last = diag.attempts[-1]
    assert last.outcome == "failed (exit 1)" and last.exit_status == "exit 1"
    started = restart_loop["State"]["StartedAt"]
    assert last.started is not None and time_key(f"{last.started} ".encode()) >= time_key(f"{started} ".encode())
    assert all(a.outcome == "failed" for a in diag.attempts[:3])
    sec = doc["container"]
    assert sec["lines"][0] == "exited, 3 restarts, last exit 1, restart policy on-failure:3 gave up"
    assert sec["lines"][1] == "4 attempts in the log for 4 starts (restart policy on-failure:3)"
    assert sec["restart_count"] == 3 and sec["starts"] == 4 and sec["attempts_in_log"] == 4
    assert sec["command"] == list(VLLM) and "HF_TOKEN=***" in sec["env"] and "hf_not_a_real_token" not in str(doc)
    assert sec["still_looping"] is False and sec["small_shm"] is True


def test_both_streams_are_merged_in_time_order(podman: Podman, restart_loop: dict[str, Any]) -> None:
    source = ContainerLogs(LocalRunner(), "podman", LOOP)
    with source.open() as stream:
        lines = stream.read().split(b"\n")[:-1]  # (not splitlines: the progress bars hold \r)
    keys = [time_key(ln) for ln in lines]
    assert keys == sorted(keys)
    apart = subprocess.run(["podman", "logs", "--timestamps", LOOP], capture_output=True, env={**os.environ, **podman.env},
                           check=True)
    assert len(lines) == apart.stdout.count(b"\n") + apart.stderr.count(b"\n")
    assert source.stream_bytes == {"stdout": len(apart.stdout), "stderr": len(apart.stderr)} and apart.stderr
    assert b"(EngineCore_DP0" in apart.stderr and b"(Worker_TP2" in apart.stdout  # the two tracebacks' streams


def _oom_container(podman: Podman, name: str, from_bundle: bool) -> dict[str, Any]:
    podman.create(name, "-m", "64m", "--memory-swap", "64m", command=("python3", "/opt/standins/oom_loader.py"))
    podman.start(name, from_bundle=from_bundle)
    return podman.wait_exit(name)


def test_oom_kill_is_host_resources_naming_the_limit(podman: Podman, kb: KnowledgeBase) -> None:
    name = f"{PREFIX}oom"
    info = _oom_container(podman, name, from_bundle=True)
    assert info["State"]["ExitCode"] == 137 and info["State"]["OOMKilled"] is True
    diag = diagnose_container(LocalRunner(), "podman", name, kb=kb)
    sec = validate(diag)["container"]
    assert sec["lines"][0] == "exited, last exit 137, OOMKilled by the container's 64 MiB limit"
    assert "memory limit: 64 MiB" in sec["lines"][3]
    rc = diag.root_cause
    assert rc is not None and rc.category == "host_resources" and rc.rule == "oom-killer" and rc.confidence == "high"
    assert "64 MiB" in rc.message and "64 MiB" in rc.fix.text
    assert diag.attempts[-1].outcome == "killed (OOM)" and diag.attempts[-1].exit_status == "exit 137 (OOMKilled)"
    assert rc.where.attempt == diag.attempts[-1].index
    podman("rm", "-f", name, check=False)


def test_oom_kill_that_podman_did_not_record(podman: Podman, kb: KnowledgeBase) -> None:
    """Started the usual way, podman before 5.0 leaves OOMKilled false (containers/podman#13102): exit 137
    under a memory limit is then a low-confidence host_resources verdict that still names the limit."""
    name = f"{PREFIX}oom-unrecorded"
    info = _oom_container(podman, name, from_bundle=False)
    assert info["State"]["ExitCode"] == 137
    diag = diagnose_container(LocalRunner(), "podman", name, kb=kb)
    validate(diag)
    rc = diag.root_cause
    assert rc is not None and rc.category == "host_resources" and "64 MiB" in rc.message
    if info["State"]["OOMKilled"]:  # a podman that records it
        assert rc.rule == "oom-killer"
    else:
        assert rc.rule == "process-killed-sigkill" and rc.confidence == "low"
        assert "podman before 5.0" in rc.confidence_reason
    podman("rm", "-f", name, check=False)


def test_nccl_shm_error_on_the_default_dev_shm_names_shm_size(podman: Podman, kb: KnowledgeBase) -> None:
    name = f"{PREFIX}shm"
    podman.create(name, command=("python3", "/opt/standins/nccl_shm.py"))
    podman.start(name)
    assert podman.wait_exit(name)["State"]["ExitCode"] == 1
    diag = diagnose_container(LocalRunner(), "podman", name, kb=kb)
    sec = validate(diag)["container"]
    assert "/dev/shm: 62.5 MiB (the default)" in sec["lines"][3]
    rc = diag.root_cause
    assert rc is not None and rc.category == "host_resources"
    assert "No space left on device" in rc.message or "No space left on device" in rc.line
    assert "This container's /dev/shm is 62.5 MiB" in rc.fix.text and "--ipc=host" in rc.fix.text
    assert rc.fix.command is not None
    assert rc.fix.command.startswith(f"podman rm {name} && podman create --shm-size=16g --name {name}")
    # the same program with room in /dev/shm: no error at all
    roomy = f"{PREFIX}shm-roomy"
    podman.create(roomy, "--shm-size=256m", command=("python3", "/opt/standins/nccl_shm.py"))
    podman.start(roomy)
    assert podman.wait_exit(roomy)["State"]["ExitCode"] == 0
    assert diagnose_container(LocalRunner(), "podman", roomy, kb=kb).root_cause is None
    podman("rm", "-f", name, roomy, check=False)


def test_freeze_stops_a_looping_container(podman: Podman, kb: KnowledgeBase) -> None:
    name = f"{PREFIX}freeze"
    # python is PID 1 in the container: a SIGTERM that lands while the next attempt is still starting (before
    # it installs its handler) is ignored, and `stop` waits its timeout (10 s by default) before SIGKILL
    podman.create(name, "--restart=always", "--stop-timeout=2", *STANDIN_ENV, command=VLLM)
    podman.start(name)
    podman.wait_restarts(name, 2)
    said: list[str] = []
    diag = diagnose_container(LocalRunner(), "podman", name, kb=kb, freeze=True, announce=said.append)
    assert f"podman update --restart=no {name}" in said[0] and f"podman stop {name}" in said[1]
    sec = validate(diag)["container"]
    assert sec["frozen"] is True and sec["still_looping"] is False
    assert sec["lines"][0].startswith("stopped by crashdoc --freeze (was: ")
    assert diag.root_cause is not None and diag.root_cause.rule == "flashinfer-cubin-version-mismatch"
    after = podman.inspect(name)
    assert after["State"]["Status"] in ("exited", "stopped")
    podman("wait", name)  # returns at once: nothing starts it again
    again = podman.inspect(name)
    assert again["RestartCount"] == after["RestartCount"] and again["State"]["Status"] == after["State"]["Status"]
    podman("rm", "-f", name, check=False)


@pytest.fixture(scope="module")
def sshd_with_podman_env(tmp_path_factory: pytest.TempPathFactory, podman: Podman) -> Iterator[tuple[str, tuple[str, ...]]]:
    """A real sshd on 127.0.0.1 that accepts the podman configuration's environment (ssh SetEnv)."""
    if not Path(SSHD).exists():
        pytest.skip("OpenSSH server not installed (apt-get install openssh-server)")
    workdir = tmp_path_factory.mktemp("sshd-podman")
    server, first = start_sshd(workdir)
    first.terminate()
    first.wait(timeout=10)
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(workdir / "sshd_config"), "-o",
                             "AcceptEnv=CONTAINERS_CONF CONTAINERS_STORAGE_CONF"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _wait_port(server.port, proc)
    setenv = " ".join(f"{k}={v}" for k, v in sorted(podman.env.items()))
    yield server.target, (*server.options, "-o", f"SetEnv={setenv}")
    proc.terminate()
    proc.wait(timeout=10)


def test_the_same_diagnosis_over_ssh(restart_loop: dict[str, Any], sshd_with_podman_env: tuple[str, tuple[str, ...]],
                                     kb: KnowledgeBase) -> None:
    target, options = sshd_with_podman_env
    local = diagnose_container(LocalRunner(), "podman", LOOP, kb=kb)
    remote = diagnose_container(SshRunner(parse_target(target), extra_options=options), "podman", LOOP, kb=kb)
    sec = validate(remote)["container"]
    assert sec["host"] == target and sec["title"] == f"Container {LOOP} (podman) on {target}"
    assert remote.root_cause is not None and local.root_cause is not None
    assert remote.root_cause.fingerprint == local.root_cause.fingerprint
    assert [a.outcome for a in remote.attempts] == [a.outcome for a in local.attempts]
    assert remote.lines_read == local.lines_read


def test_crashdoc_diagnose_podman_target(restart_loop: dict[str, Any]) -> None:
    """The command a user types: `crashdoc diagnose podman:NAME`, the same report as the function's."""
    from tests.support.cli import run_cli

    r = run_cli("diagnose", f"podman:{LOOP}", "--format", "json")
    assert r.status == 0, r.stderr
    rc = r.json["root_cause"]
    assert rc["rule"] == "flashinfer-cubin-version-mismatch" and rc["where"]["process"] == "Worker_TP2"
    assert r.json["container"]["lines"][0].startswith("exited, 3 restarts, last exit 1")


def test_unknown_container_and_unsafe_names_are_one_line_errors() -> None:
    from tests.support.cli import run_cli

    r = run_cli("diagnose", "podman:crashdoc-no-such-container")
    assert r.status == 2 and r.stderr.count("\n") == 1 and "crashdoc-no-such-container" in r.stderr
    r = run_cli("diagnose", "docker:$(reboot)")
    assert r.status == 2 and "refusing container name" in r.stderr
