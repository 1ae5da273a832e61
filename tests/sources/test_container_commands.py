"""The container source without a container engine: the exact command lines crashdoc gives docker (and podman),
answered by a recording runner from recorded `inspect` JSON and `logs --timestamps` output (the recordings of
flashinfer-tp2.* and nccl-shm.* are real podman output; docker prints the same format), name checks, the time
merge of the two streams, and what the state adds to the verdict (OOM kill, SIGKILL under a limit, /dev/shm)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crashdoc.errors import InputError, UnsafeArgumentError
from crashdoc.investigate.container import container_summary, diagnose_container, human_bytes
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.sources.container import (
    ContainerLogs,
    ContainerNotFoundError,
    container_target,
    inspect_argv,
    logs_argv,
    mask_args,
    parse_inspect,
    time_key,
)
from crashdoc.transport import SshRunner, parse_target
from tests.sources.conftest import RecordingRunner, validate

ASSETS = Path(__file__).resolve().parent / "assets"
INSPECT = ("docker", "inspect", "--type", "container", "vllm")
LOGS = ("docker", "logs", "--timestamps", "vllm")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _inspect(**changes: Any) -> bytes:
    """The recorded docker inspect of a restarting, OOM-killed vLLM container, with State/HostConfig changes."""
    doc = json.loads((ASSETS / "docker-inspect-vllm-oom.json").read_text())
    for key, value in changes.items():
        part, _, field = key.partition("__")
        if field:
            doc[0][part][field] = value
        else:
            doc[0][part] = value
    return json.dumps(doc).encode()


def _logs(stem: str) -> tuple[int, bytes, bytes]:
    return 0, (ASSETS / f"{stem}.stdout").read_bytes(), (ASSETS / f"{stem}.stderr").read_bytes()


def test_docker_command_lines_are_exact(kb: KnowledgeBase) -> None:
    runner = RecordingRunner({INSPECT: (0, _inspect(), b""), LOGS: _logs("vllm-oom")})
    diagnose_container(runner, "docker", "vllm", kb=kb)
    assert runner.calls == [INSPECT, LOGS]
    since = RecordingRunner({INSPECT: (0, _inspect(), b""),
                             ("docker", "logs", "--timestamps", "--since", "2025-11-30T09:00:00Z", "vllm"): _logs("vllm-oom")})
    diagnose_container(since, "docker", "vllm", kb=kb, since="2025-11-30T09:00:00Z")
    assert since.calls[-1] == ("docker", "logs", "--timestamps", "--since", "2025-11-30T09:00:00Z", "vllm")


def test_podman_speaks_the_same_verbs() -> None:
    assert inspect_argv("podman", "vllm") == ["podman", "inspect", "--type", "container", "vllm"]
    assert logs_argv("podman", "vllm") == ["podman", "logs", "--timestamps", "vllm"]


def test_host_runs_the_same_argv_through_ssh() -> None:
    ssh = SshRunner(parse_target("root@gpu7:2222"))
    argv = ssh.ssh_argv(inspect_argv("docker", "vllm"))
    assert argv[-3:] == ["--", "root@gpu7", "docker inspect --type container vllm"]
    assert argv[argv.index("-p"):argv.index("-p") + 2] == ["-p", "2222"]


def test_freeze_clears_the_policy_then_stops_announcing_each_first(kb: KnowledgeBase) -> None:
    stopped = _inspect(State__Status="exited", State__Running=False, State__Restarting=False)
    update, stop = ("docker", "update", "--restart=no", "vllm"), ("docker", "stop", "vllm")
    runner = RecordingRunner({INSPECT: [(0, _inspect(), b""), (0, stopped, b"")],
                              update: (0, b"vllm\n", b""), stop: (0, b"vllm\n", b""), LOGS: _logs("vllm-oom")})
    said: list[str] = []

    def announce(text: str) -> None:
        said.append(f"{text} (calls so far: {len(runner.calls)})")

    diag = diagnose_container(runner, "docker", "vllm", kb=kb, freeze=True, announce=announce)
    assert runner.calls == [INSPECT, update, stop, INSPECT, LOGS]
    assert "docker update --restart=no vllm (calls so far: 1)" in said[0]
    assert "docker stop vllm (calls so far: 2)" in said[1]
    sec = validate(diag)["container"]
    assert sec["frozen"] is True and sec["still_looping"] is False
    assert sec["freeze_commands"] == ["docker update --restart=no vllm", "docker stop vllm"]
    assert sec["lines"][0].startswith("stopped by crashdoc --freeze (was: restarting, 14 restarts, last exit 137")
    assert sec["state_before_freeze"]["oom_killed"] is True
    assert diag.root_cause is not None and diag.root_cause.rule == "oom-killer"  # the state found, not the stop's


def test_a_tool_without_update_restart_still_stops(kb: KnowledgeBase) -> None:
    update, stop = ("podman", "update", "--restart=no", "vllm"), ("podman", "stop", "vllm")
    inspect = ("podman", "inspect", "--type", "container", "vllm")
    stopped = _inspect(State__Status="exited", State__Running=False, State__Restarting=False)
    runner = RecordingRunner({inspect: [(0, _inspect(), b""), (0, stopped, b"")],
                              update: (125, b"", b"Error: unknown flag: --restart\nSee 'podman update --help'\n"),
                              stop: (0, b"vllm\n", b""), ("podman", "logs", "--timestamps", "vllm"): _logs("vllm-oom")})
    diag = diagnose_container(runner, "podman", "vllm", kb=kb, freeze=True, announce=lambda _: None)
    assert runner.calls == [inspect, update, stop, inspect, ("podman", "logs", "--timestamps", "vllm")]
    (skip,) = [s for s in diag.skipped if s.what == "freeze"]
    assert "Error: unknown flag: --restart" in skip.reason and "has no `update --restart`" in skip.reason
    assert validate(diag)["container"]["frozen"] is True


def test_a_restart_that_races_the_stop_is_stopped_again(kb: KnowledgeBase) -> None:
    stopped = _inspect(State__Status="exited", State__Running=False, State__Restarting=False)
    running = _inspect(State__Status="running", State__Running=True, State__Restarting=False)
    update, stop = ("docker", "update", "--restart=no", "vllm"), ("docker", "stop", "vllm")
    runner = RecordingRunner({INSPECT: [(0, _inspect(), b""), (0, running, b""), (0, stopped, b"")],
                              update: (0, b"", b""), stop: (0, b"", b""), LOGS: _logs("vllm-oom")})
    said: list[str] = []
    diag = diagnose_container(runner, "docker", "vllm", kb=kb, freeze=True, announce=said.append)
    assert runner.calls == [INSPECT, update, stop, INSPECT, stop, INSPECT, LOGS]
    assert "again" in said[2] and validate(diag)["container"]["frozen"] is True


@pytest.mark.parametrize("name", ["vllm; rm -rf /", "-rm", "$(id)", "a b", "vllm`x`", "", "../x", "a|b"])
def test_names_with_shell_syntax_are_refused_before_anything_runs(name: str, kb: KnowledgeBase) -> None:
    runner = RecordingRunner({})
    with pytest.raises(UnsafeArgumentError):
        diagnose_container(runner, "docker", name, kb=kb)
    assert runner.calls == []


def test_cli_targets() -> None:
    assert container_target("docker:vllm") == ("docker", "vllm")
    assert container_target("podman:vllm-0.11_a") == ("podman", "vllm-0.11_a")
    assert container_target("vllm.service") is None and container_target("logs/docker.log") is None
    with pytest.raises(UnsafeArgumentError):
        container_target("docker:$(reboot)")


def test_other_tools_and_since_values_are_refused(kb: KnowledgeBase) -> None:
    with pytest.raises(UnsafeArgumentError):
        diagnose_container(RecordingRunner({}), "kubectl", "vllm", kb=kb)
    with pytest.raises(UnsafeArgumentError):
        logs_argv("docker", "vllm", since="10m; reboot")


@pytest.mark.parametrize(("err", "kind", "words"), [
    (b"Error: No such container: vllm\n", ContainerNotFoundError, "knows no container 'vllm'"),
    (b"Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n",
     InputError, "Is the docker daemon running?"),
    (b"permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock\n",
     InputError, "run as root"),
])
def test_the_tools_own_errors_are_one_line(err: bytes, kind: type[Exception], words: str, kb: KnowledgeBase) -> None:
    runner = RecordingRunner({INSPECT: (1, b"", err)}, host="gpu7")
    with pytest.raises(kind) as caught:
        diagnose_container(runner, "docker", "vllm", kb=kb)
    assert words in str(caught.value) and "gpu7" in str(caught.value) and "\n" not in str(caught.value)


def test_oom_killed_restart_loop_opens_like_a_unit(kb: KnowledgeBase) -> None:
    runner = RecordingRunner({INSPECT: (0, _inspect(), b""), LOGS: _logs("vllm-oom")}, host="gpu7")
    diag = diagnose_container(runner, "docker", "vllm", kb=kb)
    doc = validate(diag)
    sec = doc["container"]
    assert sec["lines"][0] == "restarting, 14 restarts, last exit 137, OOMKilled by the container's 16 GiB limit"
    assert sec["title"] == "Container vllm (docker) on gpu7"
    assert "GPUs: all; memory limit: 16 GiB; /dev/shm: 64 MiB (the default)" in sec["lines"]
    assert any(ln.startswith("still restarting: run with --freeze") for ln in sec["lines"])
    assert sec["gpus"] == "all" and sec["memory_limit"] == 16 << 30 and sec["restart_count"] == 14
    rc = diag.root_cause
    assert rc is not None and rc.category == "host_resources" and rc.rule == "oom-killer"
    assert "16 GiB" in rc.message and "16 GiB" in rc.fix.text and rc.confidence == "high"
    assert rc.where.host == "gpu7"
    last = diag.attempts[-1]
    assert last.outcome == "killed (OOM)" and last.exit_status == "exit 137 (OOMKilled)"
    text = json.dumps(doc)
    assert "sk-do-not-print-me" not in text and "hf_do_not_print_me" not in text
    assert "--api-key" in sec["command"] and "HF_TOKEN=***" in sec["env"]


def test_a_stronger_cause_in_the_log_stays_the_root(kb: KnowledgeBase) -> None:
    runner = RecordingRunner({INSPECT: (0, _inspect(), b""), LOGS: _logs("flashinfer-tp2")})
    diag = diagnose_container(runner, "docker", "vllm", kb=kb)
    assert diag.root_cause is not None and diag.root_cause.rule == "flashinfer-cubin-version-mismatch"
    assert diag.findings[1].rule == "oom-killer"  # listed right after the log's cause
    assert validate(diag)["container"]["state_cause"] == "oom-killer"


def test_sigkill_under_a_limit_without_oomkilled_is_a_low_guess(kb: KnowledgeBase) -> None:
    runner = RecordingRunner({INSPECT: (0, _inspect(State__OOMKilled=False, HostConfig__Memory=8 << 30), b""),
                              LOGS: _logs("vllm-oom")})
    diag = diagnose_container(runner, "docker", "vllm", kb=kb)
    rc = diag.root_cause
    assert rc is not None and rc.rule == "process-killed-sigkill" and rc.confidence == "low"
    assert "8 GiB" in rc.message and rc.category == "host_resources"
    runner = RecordingRunner({INSPECT: (0, _inspect(State__OOMKilled=False), b""), LOGS: _logs("flashinfer-tp2")})
    diag = diagnose_container(runner, "docker", "vllm", kb=kb)
    assert diag.root_cause is not None and diag.root_cause.rule == "flashinfer-cubin-version-mismatch"


def test_default_shm_with_an_nccl_shm_error_names_shm_size_and_ipc_host(kb: KnowledgeBase) -> None:
    runner = RecordingRunner({INSPECT: (0, _inspect(State__OOMKilled=False, State__ExitCode=1), b""),
                              LOGS: _logs("nccl-shm")})
    diag = diagnose_container(runner, "docker", "vllm", kb=kb)
    rc = diag.root_cause
    assert rc is not None and rc.category == "host_resources"
    assert "This container's /dev/shm is 64 MiB" in rc.fix.text
    assert "--shm-size=16g" in rc.fix.text and "--ipc=host" in rc.fix.text
    assert rc.fix.command is None  # docker keeps no create command to give back
    validate(diag)
    host_ipc = RecordingRunner({INSPECT: (0, _inspect(State__OOMKilled=False, State__ExitCode=1,
                                                      HostConfig__IpcMode="host"), b""), LOGS: _logs("nccl-shm")})
    rc = diagnose_container(host_ipc, "docker", "vllm", kb=kb).root_cause
    assert rc is not None and "This container's /dev/shm" not in rc.fix.text


def test_streams_merge_in_time_order(tmp_path: Path) -> None:
    out = (b"2025-01-01T00:00:01.000000000Z a\n2025-01-01T00:00:03.5Z c\n"
           b"2025-01-01T00:00:05.000000000Z e\ncontinued without a stamp\n")
    err = b"2025-01-01T01:00:02.000000000+01:00 b\n2025-01-01T00:00:04.000000001Z d\n2025-01-01T00:00:05Z f"
    runner = RecordingRunner({LOGS: (0, out, err)})
    source = ContainerLogs(runner, "docker", "vllm")
    with source.open() as stream:
        lines = stream.read().decode().splitlines()
    assert [ln.rsplit(" ", 1)[-1] for ln in lines] == ["a", "b", "c", "d", "e", "stamp", "f"]
    assert source.stream_bytes == {"stdout": len(out), "stderr": len(err)}
    assert time_key(b"2025-01-01T01:00:02+01:00 x") == time_key(b"2025-01-01T00:00:02.000Z x")


def test_a_failing_logs_command_is_one_line() -> None:
    runner = RecordingRunner({LOGS: (1, b"", b"2025-01-01T00:00:01Z container line\nError response from daemon: "
                                              b"configured logging driver does not support reading\n")})
    with pytest.raises(InputError, match="logging driver does not support reading"), \
            ContainerLogs(runner, "docker", "vllm").open():
        pass


def test_inspect_facts_and_masking() -> None:
    facts = parse_inspect("docker", "vllm", None, _inspect())
    assert facts.name == "vllm" and facts.image == "vllm/vllm-openai:v0.11.2" and facts.looping
    assert facts.command[:3] == ("python3", "-m", "vllm.entrypoints.openai.api_server")
    assert facts.restart_policy == "always" and facts.small_shm and facts.shm_size == 64 << 20
    assert mask_args(["--api-key", "sk-1", "--hf-token=abc", "HF_TOKEN=x", "--model", "m"]) == (
        "--api-key", "***", "--hf-token=***", "HF_TOKEN=***", "--model", "m")
    assert human_bytes(65536000) == "62.5 MiB" and human_bytes(16 << 30) == "16 GiB" and human_bytes(512) == "512 B"
    gave_up = parse_inspect("podman", "x", None, _inspect(
        RestartCount=3, State__Status="exited", State__Running=False, State__Restarting=False,
        State__OOMKilled=False, State__ExitCode=1, HostConfig__RestartPolicy={"Name": "on-failure", "MaximumRetryCount": 3}))
    assert container_summary(gave_up) == "exited, 3 restarts, last exit 1, restart policy on-failure:3 gave up"
    assert not gave_up.looping


def test_a_container_that_never_ran_and_a_healthy_one(kb: KnowledgeBase) -> None:
    created = _inspect(State__Status="created", State__Running=False, State__Restarting=False, State__OOMKilled=False,
                       State__ExitCode=0, State__StartedAt="0001-01-01T00:00:00Z", RestartCount=0,
                       HostConfig__RestartPolicy={"Name": "no", "MaximumRetryCount": 0})
    diag = diagnose_container(RecordingRunner({INSPECT: (0, created, b""), LOGS: (0, b"", b"")}), "docker", "vllm", kb=kb)
    sec = validate(diag)["container"]
    assert diag.root_cause is None and sec["lines"][0] == "created" and sec["started_at"] is None
    healthy = _inspect(State__Status="running", State__Running=True, State__Restarting=False, State__OOMKilled=False,
                       State__ExitCode=0, RestartCount=0, State__Health={"Status": "healthy", "FailingStreak": 0,
                                                                        "Log": [{"ExitCode": 0, "Output": "ok"}]})
    out = (b"2025-11-30T09:14:04.620098817Z (APIServer pid=1) INFO 11-30 09:14:04 [api_server.py:1912] Starting vLLM"
           b" API server 0 on http://0.0.0.0:8000\n")
    diag = diagnose_container(RecordingRunner({INSPECT: (0, healthy, b""), LOGS: (0, out, b"")}), "docker", "vllm", kb=kb)
    sec = validate(diag)["container"]
    assert diag.root_cause is None and sec["lines"][0] == "running, 0 restarts, health healthy"
    assert diag.attempts[-1].outcome == "running" and not any("still restarting" in ln for ln in sec["lines"])
