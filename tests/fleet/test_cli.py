"""The fleet options of `crashdoc diagnose`: bad input is one line and exit 2, never a traceback; hosts that
cannot be reached (real ssh to closed ports) still give the whole report."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fleet.helpers import validate
from tests.support.cli import run_cli
from tests.support.net import free_port


def _one_line_error(args: list[str], *words: str) -> None:
    res = run_cli("diagnose", *args, "--no-history")
    assert res.status == 2, (res.stdout, res.stderr)
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("crashdoc: error: "), res.stderr
    for w in words:
        assert w in lines[0], lines[0]


def test_limit_needs_an_inventory() -> None:
    _one_line_error(["vllm", "--limit", "gpu"], "--inventory")


def test_a_fleet_diagnoses_units_not_files(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_text("hello\n")
    _one_line_error([str(log), "--host", "a", "--host", "b"], "unit or a container")


def test_unreadable_or_unsafe_host_lists(tmp_path: Path) -> None:
    _one_line_error(["vllm", "--hosts", str(tmp_path / "missing.txt")], "cannot read --hosts")
    bad = tmp_path / "hosts.txt"
    bad.write_text("gpu1\n$(reboot)\n")
    _one_line_error(["vllm", "--hosts", str(bad)], "hosts.txt:2", "refusing")
    _one_line_error(["vllm", "--host", "gpu1", "--host", "gpu2;reboot"], "refusing host")
    inv = tmp_path / "hosts.yml"
    inv.write_text("gpu:\n  hosts: [unclosed\n")
    _one_line_error(["vllm", "-i", str(inv)], "not valid YAML")
    _one_line_error(["vllm", "--host", "a", "--host", "b", "--forks", "0"], "--forks")
    _one_line_error(["vllm", "--host", "a", "--host", "b;c"], "refusing")
    _one_line_error(["bad;unit", "--host", "a", "--host", "b"], "refusing unit name")


@pytest.mark.parametrize("fmt", ["terminal", "json", "markdown"])
def test_every_host_unreachable_is_a_report_and_exit_2(fmt: str) -> None:
    ports = [free_port(), free_port()]
    res = run_cli("diagnose", "vllm", "--no-history", "-f", fmt,
                  *(a for p in ports for a in ("--host", f"root@127.0.0.1:{p}")),
                  env={"CRASHDOC_SSH_OPTIONS": "-o StrictHostKeyChecking=no -o LogLevel=ERROR"})
    assert res.status == 2, res.stderr
    for p in ports:
        assert f"root@127.0.0.1:{p}" in res.stdout
    if fmt == "json":
        validate(res.json)
        assert [h["status"] for h in res.json["hosts"]] == ["unreachable", "unreachable"]
        assert res.json["groups"] == []
    elif fmt == "terminal":
        assert res.stdout.startswith("crashdoc fleet: unit vllm.service on 2 hosts: 0 diagnosed, 2 unreachable")
