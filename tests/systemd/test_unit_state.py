"""Unit state from `systemctl show`, the one-line summary, the interpreter the unit runs, unit-name detection."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crashdoc.errors import UnsafeArgumentError
from crashdoc.sources.errors import NoSystemdError, UnitNotFoundError
from crashdoc.sources.interpreter import unit_python
from crashdoc.sources.unit import UnitState, looks_like_unit, normalize_unit, read_unit_state
from crashdoc.sources.unit_show import parse_exec
from crashdoc.transport import LocalRunner
from tests.support.runners import FakeRunner

SHOW_LOOP = """\
Id=vllm.service
Description=vLLM
LoadState=loaded
ActiveState=activating
SubState=auto-restart
Result=exit-code
ExecMainStatus=1
ExecMainCode=1
NRestarts=14
InvocationID=0f3c1b9a6e1d4d7cb9a3b7a2f1c0d9e8
ExecMainStartTimestamp=Sun 2025-11-30 09:12:04 UTC
FragmentPath=/etc/systemd/system/vllm.service
ExecStart={ path=/opt/venv/bin/python ; argv[]=/opt/venv/bin/python -m vllm.entrypoints.openai.api_server --model x ; ignore_errors=no ; start_time=[Sun 2025-11-30 09:12:04 UTC] ; stop_time=[Sun 2025-11-30 09:12:05 UTC] ; pid=4242 ; code=exited ; status=1 }
Environment=CUDA_VISIBLE_DEVICES=0,1 HF_TOKEN=hf_secret "NOTE=two words"
User=vllm
WorkingDirectory=/srv/vllm
Restart=on-failure
"""


def _runner(show: str, version: int = 252, **more: tuple[int, str, str]) -> FakeRunner:
    answers = {("systemctl", "--version"): (0, f"systemd {version} (252.39-1~deb12u2)\n+PAM +AUDIT\n", ""),
               ("systemctl", "show"): (0, show, "")}
    answers.update({tuple(k.split("_")): v for k, v in more.items()})
    return FakeRunner(answers)


def test_auto_restart_loop_summary_and_fields() -> None:
    state = read_unit_state(_runner(SHOW_LOOP), "vllm", resolve_python=False)
    assert state.unit == "vllm.service"
    assert state.summary() == "auto-restart loop, 14 restarts, last exit status 1"
    assert state.looping and state.n_restarts == 14 and state.exit_code == "exited" and state.exit_status == 1
    assert state.exec_start[0].path == "/opt/venv/bin/python"
    assert state.environment == ("CUDA_VISIBLE_DEVICES=0,1", "HF_TOKEN=***", "NOTE=two words")
    assert "hf_secret" not in str(state.data())
    assert unit_python(state, _runner(SHOW_LOOP)) == "/opt/venv/bin/python"


@pytest.mark.parametrize(
    ("changes", "summary"),
    [
        ({"ActiveState": "failed", "SubState": "failed", "Result": "start-limit-hit", "NRestarts": "5"},
         "failed: systemd gave up after 5 restarts (start limit hit), last exit status 1"),
        # sampled during a fast loop: briefly "running"
        ({"ActiveState": "active", "SubState": "running", "Result": "success"},
         "restart loop, 14 restarts, last exit status 1; attempt 15 is running now"),
        ({"ExecMainCode": "3", "ExecMainStatus": "11"}, "auto-restart loop, 14 restarts, last signal 11/SEGV (core dumped)"),
        ({"ExecMainCode": "2", "ExecMainStatus": "9", "Result": "oom-kill"}, "auto-restart loop, 14 restarts, last signal 9/KILL"),
        ({"ActiveState": "active", "SubState": "running", "NRestarts": "0", "ExecMainCode": "0", "ExecMainStatus": "0"},
         "active (running)"),
        ({"ActiveState": "inactive", "SubState": "dead"}, "stopped (inactive), after 14 restarts, last exit status 1"),
    ],
)
def test_summaries(changes: dict[str, str], summary: str) -> None:
    lines = [ln for ln in SHOW_LOOP.splitlines() if ln.split("=", 1)[0] not in changes]
    show = "\n".join(lines + [f"{k}={v}" for k, v in changes.items()]) + "\n"
    state = read_unit_state(_runner(show), "vllm.service", resolve_python=False)
    assert state.summary() == summary


def test_unknown_unit_is_one_line_with_a_suggestion() -> None:
    runner = _runner("Id=vlm.service\nLoadState=not-found\nActiveState=inactive\n",
                     **{"systemctl_list-unit-files": (0, "vllm.service enabled enabled\nssh.service enabled enabled\n", ""),
                        "systemctl_list-units": (0, "", "")})
    with pytest.raises(UnitNotFoundError, match=r"unit vlm.service is not known to systemd on gpu1: did you mean vllm.service\?"):
        read_unit_state(runner, "vlm")


def test_host_without_systemd() -> None:
    runner = FakeRunner({("systemctl", "show"): (1, "", "System has not been booted with systemd as init system (PID 1). Can't operate.\n")})
    with pytest.raises(NoSystemdError, match="does not run systemd as PID 1"):
        read_unit_state(runner, "vllm")


def test_shell_syntax_in_a_unit_name_is_refused() -> None:
    with pytest.raises(UnsafeArgumentError):
        normalize_unit("vllm;reboot")
    with pytest.raises(UnsafeArgumentError):
        read_unit_state(FakeRunner({}), "$(reboot)")


def test_looks_like_unit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vllm").write_text("a log named like a unit\n")
    assert looks_like_unit("vllm-kimi-k25") and looks_like_unit("vllm.service") and looks_like_unit("vllm@0.service")
    assert not looks_like_unit("vllm")  # an existing file
    assert not looks_like_unit("-") and not looks_like_unit("logs/vllm.log") and not looks_like_unit("crash.log")
    assert not looks_like_unit("a;b")


def test_parse_exec_several_commands() -> None:
    cmds = parse_exec([
        "{ path=/usr/bin/bash ; argv[]=/usr/bin/bash -c exec /opt/venv/bin/vllm serve m ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }",
        "{ path=/usr/bin/docker ; argv[]=/usr/bin/docker run vllm/vllm-openai ; flags= ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }",
    ])
    assert [c.path for c in cmds] == ["/usr/bin/bash", "/usr/bin/docker"]
    assert cmds[0].argv[:3] == ("/usr/bin/bash", "-c", "exec")


# --- unit_python on real files, resolved over a real (local) runner ---------------------------------------


def _state(path: str, argv: str, env: tuple[str, ...] = ()) -> UnitState:
    return UnitState(unit="vllm.service", host=None, exec_start=parse_exec([f"{{ path={path} ; argv[]={argv} ; ignore_errors=no ; start_time=[n/a] }}"]),
                     environment=env)


def _script(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_unit_python_console_script_shebang(tmp_path: Path) -> None:
    vllm = _script(tmp_path / "venv/bin/vllm", f"#!{tmp_path}/venv/bin/python3.12\nimport sys\n")
    assert unit_python(_state(str(vllm), f"{vllm} serve m"), LocalRunner()) == f"{tmp_path}/venv/bin/python3.12"


def test_unit_python_pip_long_path_shim(tmp_path: Path) -> None:
    long = tmp_path / ("x" * 100) / "bin/python3"
    vllm = _script(tmp_path / "venv/bin/vllm", f"#!/bin/sh\n'''exec' \"{long}\" \"$0\" \"$@\"\n' '''\nimport sys\n")
    assert unit_python(_state(str(vllm), f"{vllm} serve m"), LocalRunner()) == str(long)


def test_unit_python_env_and_path(tmp_path: Path) -> None:
    _script(tmp_path / "bin/python3", "#!/bin/sh\n")
    env = (f"PATH={tmp_path}/bin:/usr/bin:/bin",)
    assert unit_python(_state("/usr/bin/env", "/usr/bin/env python3 -m vllm serve m", env), LocalRunner()) == f"{tmp_path}/bin/python3"
    state = _state("/usr/bin/env", "/usr/bin/env PYTHONUNBUFFERED=1 python3 -m vllm")
    assert unit_python(state, LocalRunner()) == shutil.which("python3")


def test_unit_python_shell_wrappers(tmp_path: Path) -> None:
    vllm = _script(tmp_path / "venv/bin/vllm", f"#!{tmp_path}/venv/bin/python\n")
    assert unit_python(_state("/bin/bash", f"/bin/bash -c cd /srv && exec {vllm} serve m"), LocalRunner()) == f"{tmp_path}/venv/bin/python"
    start = _script(tmp_path / "start.sh", f"#!/bin/bash\nset -e\nexport HF_HOME=/data\nexec {vllm} serve m \"$@\"\n")
    assert unit_python(_state("/bin/bash", f"/bin/bash {start}"), LocalRunner()) == f"{tmp_path}/venv/bin/python"


def test_unit_python_container_or_unknown(tmp_path: Path) -> None:
    assert unit_python(_state("/usr/bin/docker", "/usr/bin/docker run --gpus all vllm/vllm-openai"), LocalRunner()) is None
    assert unit_python(_state(str(tmp_path / "missing"), f"{tmp_path}/missing serve"), LocalRunner()) is None
