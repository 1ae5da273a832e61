"""A real fleet in one command: three booted Debian nodes with systemd, each with its own sshd on its own
loopback port and its own crash-looping vllm.service (node-01 and node-02: flashinfer-cubin 0.6.3 vs flashinfer
0.6.4 on different ranks; node-03: CUDA out of memory while loading), and node-04, whose port nobody listens on.
They are reached as an operator reaches a fleet: ssh config aliases, a hosts file, an Ansible inventory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fleet.helpers import validate
from tests.fleet.nodes import Fleet
from tests.support.cli import Run, run_cli

pytestmark = [pytest.mark.host, pytest.mark.slow]

FLASHINFER = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"


def crashdoc(fleet: Fleet, *args: str) -> Run:
    """`crashdoc ARGS` in-process, ssh reading the fleet's ssh config."""
    return run_cli(*args, "--no-history", env={"CRASHDOC_SSH_OPTIONS": fleet.ssh_options, "CRASHDOC_RULES": None})


def _check_fleet_report(report: dict, names: list[str], unreachable: str | None) -> None:
    validate(report)
    by = {h["host"]: h for h in report["hosts"]}
    assert [h["host"] for h in report["hosts"]] == names
    flash, oom = [n for n in names if n in ("node-01", "node-02")], [n for n in names if n == "node-03"]
    for name in flash + oom:
        h = by[name]
        assert h["status"] == "diagnosed", h["error"]
        diag = h["diagnosis"]
        assert diag["schema"] == "crashdoc.diagnosis/1"
        assert diag["unit"]["looping"] is True and diag["source"].startswith("unit vllm.service on ")
        assert all(a["outcome"] == "failed" for a in diag["attempts"][:-1])
    for name in flash:
        root = by[name]["diagnosis"]["root_cause"]
        assert root["exception"] == "RuntimeError" and FLASHINFER in root["message"]
        python = by[name]["diagnosis"]["unit"].get("python")  # the unit's interpreter (ExecStart), when known
        assert root["fix"]["command"] == (f"{python} -m " if python else "") + "pip install flashinfer-cubin==0.6.4"
    for name in oom:
        root = by[name]["diagnosis"]["root_cause"]
        assert root["exception"] == "torch.OutOfMemoryError" and root["category"] == "gpu_oom"
    groups = [g["hosts"] for g in report["groups"]]
    assert groups == [g for g in (flash, oom) if g]  # largest first; one group per root cause
    if unreachable:
        assert by[unreachable]["status"] == "unreachable" and by[unreachable]["diagnosis"] is None
        assert "Connection refused" in by[unreachable]["error"]


def test_ssh_config_aliases_one_command_grouped(fleet: Fleet) -> None:
    res = crashdoc(fleet, "diagnose", "vllm", "--ssh-hosts", "node-*", "--format", "json")
    assert res.status == 0, res.stderr
    _check_fleet_report(res.json, fleet.names, fleet.unreachable)
    assert res.json["counts"] == {"hosts": 4, "root_cause": 3, "no_error": 0, "unreachable": 1, "error": 0}


def test_each_host_is_diagnosed_as_alone(fleet: Fleet) -> None:
    fleet_run = crashdoc(fleet, "diagnose", "vllm", "--host", "node-01", "--host", "node-03", "-f", "json")
    alone = crashdoc(fleet, "diagnose", "vllm", "--host", "node-01", "-f", "json")
    assert fleet_run.status == 0 and alone.status == 0, fleet_run.stderr + alone.stderr
    assert alone.json["schema"] == "crashdoc.diagnosis/1"  # one --host: the single-host report, as before
    in_fleet = fleet_run.json["hosts"][0]["diagnosis"]
    keys = ("exception", "message", "category", "fix", "fingerprint", "rule", "line")
    assert {k: in_fleet["root_cause"][k] for k in keys} == {k: alone.json["root_cause"][k] for k in keys}
    assert in_fleet["unit"]["unit"] == alone.json["unit"]["unit"] == "vllm.service"


def test_terminal_report_groups_hosts(fleet: Fleet) -> None:
    res = crashdoc(fleet, "diagnose", "vllm", *(a for n in fleet.names for a in ("--host", n)), "--width", "200")
    assert res.status == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("crashdoc fleet: unit vllm.service on 4 hosts: 3 diagnosed, 1 unreachable")
    assert lines[2].startswith("2 of 4 hosts: RuntimeError: " + FLASHINFER) and lines[2].endswith("(node-01, 02)")
    assert lines[3].startswith("node-03: torch.OutOfMemoryError: CUDA out of memory")
    assert lines[4].startswith("node-04: unreachable (ssh node-04: ")


def test_ansible_yaml_inventory_with_ranges_and_host_vars(fleet: Fleet, tmp_path: Path) -> None:
    (tmp_path / "hosts.yml").write_text(
        "all:\n  children:\n    gpu:\n      vars:\n        ansible_host: 127.0.0.1\n        ansible_user: root\n"
        "      hosts:\n        node-0[1:4]:\n    oom:\n      hosts:\n        node-03:\n"
    )
    (tmp_path / "host_vars").mkdir()
    ports = {n.name: n.port for n in fleet.nodes} | {fleet.unreachable: fleet.dead_port}
    for name, port in ports.items():
        (tmp_path / "host_vars" / f"{name}.yml").write_text(f"ansible_port: {port}\n")
    res = crashdoc(fleet, "diagnose", "vllm", "--inventory", str(tmp_path / "hosts.yml"), "--limit", "gpu:!oom",
                   "-f", "json", "--forks", "2")
    assert res.status == 0, res.stderr
    _check_fleet_report(res.json, ["node-01", "node-02", "node-04"], "node-04")
    assert res.json["hosts"][0]["address"] == f"root@127.0.0.1:{fleet.nodes[0].port}"


def test_ini_inventory_and_hosts_file_one_fork(fleet: Fleet, tmp_path: Path) -> None:
    node1, _, node3 = fleet.nodes
    (tmp_path / "hosts.ini").write_text(
        f"[gpu]\n{node1.name} ansible_host=127.0.0.1 ansible_port={node1.port}\n"
        f"{node3.name} ansible_host=127.0.0.1 ansible_port={node3.port} ansible_user=root\n[gpu:vars]\nansible_user=root\n"
    )
    res = crashdoc(fleet, "diagnose", "vllm", "-i", str(tmp_path / "hosts.ini"), "-l", "gpu", "-f", "markdown",
                   "--forks", "1")
    assert res.status == 0, res.stderr
    assert res.stdout.startswith("## crashdoc fleet: unit ")
    assert "| `node-01` | diagnosed |" in res.stdout and "| `node-03` | diagnosed |" in res.stdout
    (tmp_path / "hosts.txt").write_text(f"# the dead one only\n127.0.0.1:{fleet.dead_port}\n")
    down = crashdoc(fleet, "diagnose", "vllm", "--hosts", str(tmp_path / "hosts.txt"), "-f", "json")
    assert down.status == 2  # no host could be diagnosed
    assert down.json["hosts"][0]["status"] == "unreachable"
