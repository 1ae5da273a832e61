"""A real systemd in a booted Debian container, diagnosed over ssh exactly as a user diagnoses a GPU host.

The unit vllm-kimi-k25.service crash-loops (Restart=on-failure, RestartSec=1) running the stand-in server: a
worker fails during model construction with flashinfer's version-check RuntimeError, the engine core and the
API server fail afterwards with vLLM's wrapper errors. The freeze test runs last: it stops the loop.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from crashdoc.sources.unit import read_unit_state, unit_python
from crashdoc.transport import SshRunner, parse_target
from tests.support.container import UNIT, Container
from tests.systemd.helpers import crashdoc

pytestmark = [pytest.mark.host, pytest.mark.slow]

ROOT_ERROR = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"
FIX = "pip install flashinfer-cubin==0.6.4"


def _assert_verdict(report: dict, newest_may_be_cut: bool = False) -> None:
    """The root cause, its process, its fix, and identical attempts folded.

    With --freeze the newest attempt may have been stopped mid-start by crashdoc itself: it is left out.
    """
    root = report["root_cause"]
    assert root is not None, report["summary"]
    assert root["exception"] == "RuntimeError"
    assert ROOT_ERROR in root["message"]
    assert root["where"]["process"] == "Worker_TP2"
    # for the unit's own interpreter (ExecStart): `PYTHON -m pip install ...` (investigate/interpreter.py)
    assert root["fix"]["command"] == FIX or root["fix"]["command"].endswith(f"/python3 -m {FIX}"), root["fix"]
    attempts = report["attempts"]
    if newest_may_be_cut:
        # the freeze races the restart loop: the newest attempt may be the one crashdoc stopped (mid-start, or
        # after it printed its error but before it exited by itself); judge the attempts that ran to their end
        attempts = [a for a in attempts[:-1] if a["fingerprint"] and a["outcome"] == "failed"]
    assert len(attempts) >= 3
    fps = [a["fingerprint"] for a in attempts]
    assert len(set(fps)) == 1 and all(fps), fps  # identical attempts, folded
    assert all(a["outcome"] == "failed" and a["exit_status"] == "exit status 1" for a in attempts), [
        (a["index"], a["outcome"], a["exit_status"]) for a in report["attempts"]]
    assert all(a["invocation_id"] for a in attempts)
    if not newest_may_be_cut:
        assert f"all {len(attempts)} attempts failed with the same error" in report["summary"]


def test_env_checks_the_interpreter_the_unit_runs(container: Container) -> None:
    res = crashdoc("diagnose", "vllm-kimi-k25", "--host", container.target(), "--env", "-f", "json",
                  ssh_options=container.ssh_options_env)
    assert res.status == 0, res.stderr
    report = res.json
    env = report["environment"]
    assert "/opt/venv/bin/python3" in " ".join(env["lines"]) or "/opt/venv" in json.dumps(env)
    assert report["root_cause"]["exception"] == "RuntimeError"


def test_diagnose_over_ssh_names_cause_process_fix_and_attempts(container: Container) -> None:
    before = int(container.show("NRestarts"))
    res = crashdoc("diagnose", "vllm-kimi-k25", "--host", container.target(), "-f", "json",
                  ssh_options=container.ssh_options_env)
    assert res.status == 0, res.stderr
    report = res.json
    _assert_verdict(report)
    unit = report["unit"]
    assert unit["looping"] is True and unit["still_looping"] is True and unit["frozen"] is False
    assert unit["lines"][0].startswith(("auto-restart loop", "restart loop")), unit["lines"]
    assert any("still looping: run with --freeze" in line for line in unit["lines"])
    assert unit["python"] == "/opt/venv/bin/python3"
    assert unit["n_restarts"] >= 4 and unit["restart"] == "on-failure"
    assert "HF_TOKEN=***" in unit["environment"] and "hf_not_a_real_token" not in res.stdout
    # the attempts were fetched by invocation id, the kernel's window read too
    purposes = [q["purpose"] for q in unit["journal_queries"]]
    assert any("by invocation id" in p for p in purposes) and any("kernel" in p for p in purposes)
    # nothing on the host changed: the loop goes on
    container.wait_restarts(before + 1)
    assert container.ssh("systemctl", "is-active", UNIT, check=False).stdout.strip() in ("activating", "active")


def test_terminal_report_says_it_in_one_command(container: Container) -> None:
    res = crashdoc("diagnose", "vllm-kimi-k25", "--host", container.target(), ssh_options=container.ssh_options_env)
    assert res.status == 0, res.stderr
    text = " ".join(res.stdout.split())
    assert "RuntimeError: flashinfer-cubin version (0.6.3)" in text
    assert "Worker_TP2" in text and FIX in text
    assert "attempts failed with the same error" in text
    assert "still looping" in text


def test_unit_python_from_the_console_script_shebang(container: Container) -> None:
    runner = SshRunner(parse_target(container.target()), extra_options=container.ssh_options)
    state = read_unit_state(runner, "vllm-kimi-k25")
    assert state.exec_start[0].path == "/opt/venv/bin/vllm"
    assert state.python == "/opt/venv/bin/python3" == unit_python(state, runner) == unit_python(state)
    assert state.systemd_version == 252


def test_same_verdict_from_a_copied_journal(container: Container, tmp_path: Path) -> None:
    journal = container.journal_dir()
    copy = tmp_path / "journal"
    shutil.copytree(journal, copy)
    res = crashdoc("diagnose", "vllm-kimi-k25", "--file", str(copy / "system.journal"), "-f", "json")
    assert res.status == 0, res.stderr
    report = res.json
    _assert_verdict(report)
    assert report["unit"]["state_source"] == "journal"
    assert report["unit"]["python"] == "/opt/venv/bin/python3"
    assert "restart" in report["unit"]["lines"][0]
    res = crashdoc("diagnose", "vllm-kimi-k25", "--directory", str(copy), "-f", "json")
    assert res.status == 0, res.stderr
    _assert_verdict(res.json)


def test_user_without_journal_access_gets_one_line(container: Container) -> None:
    res = crashdoc("diagnose", "vllm-kimi-k25", "--host", container.target("alice"), ssh_options=container.ssh_options_env)
    assert res.status == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "alice" in lines[0] and "systemd-journal" in lines[0] and "usermod -aG systemd-journal alice" in lines[0]


def test_unknown_unit_suggests_the_close_name(container: Container) -> None:
    res = crashdoc("diagnose", "vllm-kimi-k2", "--host", container.target(), ssh_options=container.ssh_options_env)
    assert res.status == 2
    assert res.stderr.strip().count("\n") == 0, res.stderr
    assert "vllm-kimi-k2.service is not known" in res.stderr and "did you mean vllm-kimi-k25.service?" in res.stderr


def test_freeze_stops_the_loop_and_says_so(container: Container) -> None:
    res = crashdoc("diagnose", "vllm-kimi-k25", "--host", container.target(), "--freeze", "-f", "json",
                  ssh_options=container.ssh_options_env)
    assert res.status == 0, res.stderr
    assert f"ssh {container.target()} 'systemctl stop {UNIT}'" in res.stderr  # the exact command, said first
    report = res.json
    _assert_verdict(report, newest_may_be_cut=True)
    unit = report["unit"]
    assert unit["frozen"] is True and unit["still_looping"] is False
    assert unit["lines"][0].startswith("stopped by crashdoc --freeze (was: ")
    assert not any("still looping" in line for line in unit["lines"])
    # stopped: `inactive` when the stop came between two attempts, `failed` when it came while an attempt ran and
    # the service exited non-zero on SIGTERM; either way systemd starts it no more
    assert container.ssh("systemctl", "is-active", UNIT, check=False).stdout.strip() in ("inactive", "failed")
    assert container.ssh("systemctl", "show", "-p", "SubState", "--value", UNIT, check=False).stdout.strip() in (
        "dead", "failed")
