"""Grouping and the fleet report, on real diagnoses of real logs (the founding case, a port in use, a healthy log):
the brief's 8-host example, the JSON contract against the shipped schema, redaction per host, hostile text."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import jsonschema
import pytest

from crashdoc.fleet import FleetResult, HostResult, Target, compact_hosts, exit_status, groups
from crashdoc.investigate import run
from crashdoc.model import Diagnosis
from crashdoc.report import render
from crashdoc.report.fleet import fleet_dict, render_fleet
from crashdoc.sources.file import FileSource
from tests.fleet.helpers import validate

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "assets" / "logs"
FOUNDING = ROOT / "examples" / "founding-case.log"
TOKEN = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"


@pytest.fixture(scope="module")
def diagnoses(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Diagnosis]:
    """Real diagnoses: the founding case, a port in use, a healthy log, and a log that carries a token."""
    secret = tmp_path_factory.mktemp("logs") / "token.log"
    secret.write_text(
        "INFO 12-01 09:00:00 [api_server.py:1] starting\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.12/site-packages/huggingface_hub/utils/_http.py", line 409, in hf_raise\n'
        "    raise HfHubHTTPError(message)\n"
        f"huggingface_hub.errors.HfHubHTTPError: 401 Client Error for token {TOKEN}\n"
    )
    return {
        "founding": run(FileSource(str(FOUNDING))),
        "port": run(FileSource(str(LOGS / "journal-short-iso.vllm-port-in-use.log"))),
        "healthy": run(FileSource(str(LOGS / "journal-short.vllm-clean-startup-and-serving-no-error.log"))),
        "token": run(FileSource(str(secret))),
    }


def _host(name: str, diag: Diagnosis | None = None, error: str | None = None) -> HostResult:
    if diag is not None:
        return HostResult(Target(name, f"root@{name}"), "diagnosed", diag, None, 1.5)
    return HostResult(Target(name, f"root@{name}"), "unreachable", None, error, 0.1)


def _brief_fleet(d: dict[str, Diagnosis]) -> FleetResult:
    """The issue's example: 6 of 8 hosts share the founding case, node-05 differs, node-08 is unreachable."""
    hosts = [_host(f"node-0{i}", d["founding"]) for i in (1, 2, 3, 4)]
    hosts.append(_host("node-05", d["port"]))
    hosts += [_host(f"node-0{i}", d["founding"]) for i in (6, 7)]
    hosts.append(_host("node-08", error="ssh node-08: ssh: connect to host node-08 port 22: Connection timed out"))
    return FleetResult("unit vllm.service", tuple(hosts), 2.5, 10)


def test_compact_host_names() -> None:
    names = ["node-07", "node-01", "node-02", "node-03", "node-04", "node-06"]
    assert compact_hosts(names) == "node-01..04, 06, 07"
    assert compact_hosts(["gpu-b", "node-9", "node-10", "node-11", "a1"]) == "a1, gpu-b, node-9..11"
    assert compact_hosts(["n1", "n2"]) == "n1, 2"


def test_groups_by_root_cause_largest_first(diagnoses: dict[str, Diagnosis]) -> None:
    result = _brief_fleet(diagnoses)
    got = groups(result)
    assert [g.hosts for g in got] == [("node-01", "node-02", "node-03", "node-04", "node-06", "node-07"),
                                      ("node-05",)]
    assert got[0].fingerprint == diagnoses["founding"].root_cause.fingerprint  # type: ignore[union-attr]
    assert exit_status(result) == 0


def test_terminal_report_reads_like_the_issue(diagnoses: dict[str, Diagnosis]) -> None:
    out = io.StringIO()
    render_fleet(_brief_fleet(diagnoses), "terminal", out, width=200)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("crashdoc fleet: unit vllm.service on 8 hosts: 7 diagnosed, 1 unreachable")
    assert lines[2].startswith("6 of 8 hosts: RuntimeError: flashinfer-cubin version (0.6.3) does not match")
    assert lines[2].endswith("(node-01..04, 06, 07)")
    assert lines[3].startswith("node-05: ")
    assert "address already in use" in lines[3].lower()
    assert lines[4].startswith("node-08: unreachable (ssh node-08:")
    body = out.getvalue()
    assert "pip install flashinfer-cubin==0.6.4" in body
    assert body.count("\n  node-0") == 8  # each host briefly


def test_json_follows_the_schema_and_each_host_is_the_single_host_object(diagnoses: dict[str, Diagnosis]) -> None:
    result = FleetResult("unit vllm.service", (
        _host("a", diagnoses["founding"]), _host("b", diagnoses["healthy"]), _host("c", diagnoses["token"]),
        _host("d", error="ssh d: Connection refused"),
        HostResult(Target("e", None), "error", None, "journalctl: Permission denied", 0.2),
    ), 3.0, 2)
    out = io.StringIO()
    render_fleet(result, "json", out)
    report = json.loads(out.getvalue())
    validate(report)
    assert report["schema"] == "crashdoc.fleet/1"
    assert [h["status"] for h in report["hosts"]] == ["diagnosed", "diagnosed", "diagnosed", "unreachable", "error"]
    assert report["counts"] == {"hosts": 5, "root_cause": 2, "no_error": 1, "unreachable": 1, "error": 1}
    for host, key in (("a", "founding"), ("b", "healthy"), ("c", "token")):
        single = io.StringIO()
        render(diagnoses[key], "json", single)  # what `crashdoc diagnose ... --format json` prints for it
        entry = next(h for h in report["hosts"] if h["host"] == host)
        assert entry["diagnosis"] == json.loads(single.getvalue())
    no_error = [g for g in report["groups"] if g["fingerprint"] is None]
    assert no_error == [{"fingerprint": None, "title": "no error in the evidence", "hosts": ["b"], "root_cause": None}]
    assert TOKEN not in out.getvalue()  # redacted per host, as the single-host report does
    assert next(h for h in report["hosts"] if h["host"] == "c")["diagnosis"]["redactions"] == 1


def test_the_schema_refuses_a_changed_contract(diagnoses: dict[str, Diagnosis]) -> None:
    report = fleet_dict(_brief_fleet(diagnoses))
    validate(json.loads(json.dumps(report)))
    for breaking in ("status", "diagnosis", "renamed"):
        bad = copy.deepcopy(json.loads(json.dumps(report)))
        host = bad["hosts"][0]
        if breaking == "status":
            host["status"] = "ok"
        elif breaking == "diagnosis":
            host["diagnosis"]["root_cause"]["fingerprint"] = 7  # the single-host schema applies inside
        else:
            host["hostname"] = host.pop("host")
        with pytest.raises(jsonschema.ValidationError):
            validate(bad)


def test_markdown_keeps_untrusted_text_in_code(diagnoses: dict[str, Diagnosis]) -> None:
    evil = "ssh x: \x1b[31mred\x1b[0m <img src=x> @admin #12"
    result = FleetResult("unit vllm.service", (_host("gpu-1", diagnoses["founding"]), _host("gpu-2", error=evil)),
                         1.0, 10)
    out = io.StringIO()
    render_fleet(result, "markdown", out)
    text = out.getvalue()
    assert text.startswith("## crashdoc fleet:")
    assert "\x1b" not in text
    assert "`ssh x: red <img src=x> @admin #12`" in text
    term = io.StringIO()
    render_fleet(result, "terminal", term)
    assert "\x1b" not in term.getvalue()


def test_exit_status() -> None:
    unreachable = _host("x", error="down")
    assert exit_status(FleetResult("u", (unreachable,), 0.1, 10)) == 2
    healthy = run(FileSource(str(LOGS / "journal-short.vllm-clean-startup-and-serving-no-error.log")))
    assert exit_status(FleetResult("u", (unreachable, _host("y", healthy)), 0.1, 10)) == 3
