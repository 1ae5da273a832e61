"""The registry, check selection, the probe on several Pythons, failures that become Skipped values, the data."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from crashdoc.envdoctor import (
    CHECKS,
    DEFAULT_CHECKS,
    OPTIONAL_CHECKS,
    check_environment,
    list_checks,
)
from crashdoc.envdoctor.doctor import select_checks
from crashdoc.envdoctor.errors import ProbeError, TableError
from crashdoc.envdoctor.facts import parse_answer, probe_source
from crashdoc.envdoctor.interface import EnvCheck
from crashdoc.envdoctor.table import load_table, parse_table
from crashdoc.errors import CrashdocError
from crashdoc.transport import LocalRunner
from tests.envdoctor.builders import Pkg

PYENV = Path("/root/.pyenv/versions")


def test_registry_sets():
    assert set(DEFAULT_CHECKS) | set(OPTIONAL_CHECKS) == set(CHECKS)
    assert "imports" in OPTIONAL_CHECKS and "companions" in DEFAULT_CHECKS and "gpu" in DEFAULT_CHECKS
    assert [c.name for c in list_checks()][: len(DEFAULT_CHECKS)] == list(DEFAULT_CHECKS)
    assert all(c.title for c in list_checks())


def test_selection_names_sets_and_typos():
    checks, skipped = select_checks(["default,imports,patches", "gpus"])
    assert [c.name for c in checks] == list(CHECKS)
    assert skipped[0].what == "check gpus" and "did you mean 'gpu'?" in skipped[0].reason
    assert [c.name for c in select_checks(["all"])[0]] == list(CHECKS)


@pytest.mark.parametrize("version", ["3.6", "3.8", "3.13"])
def test_probe_needs_only_the_standard_library_of_old_and_new_pythons(version):
    found = sorted(PYENV.glob(f"{version}.*/bin/python{version}"))
    if not found:
        pytest.skip(f"no Python {version} here")
    request = {"sections": ["dists", "integrity", "debris", "host"], "verify": ["*"], "port": 1}
    out = subprocess.run([str(found[0]), "-I", "-"], input=probe_source(request), capture_output=True, check=True)
    facts = parse_answer(out.stdout)
    assert facts.errors == {}
    assert facts.python["version"].startswith(version)
    assert set(facts.sections) == {"integrity", "debris", "host"}


def test_probe_answer_that_is_not_json():
    with pytest.raises(ProbeError, match="not JSON"):
        parse_answer(b"Traceback ...\nSyntaxError\n")
    assert issubclass(ProbeError, CrashdocError)


def test_a_failing_check_does_not_abort_the_others(make_env, monkeypatch):
    def broken(ctx):
        raise ZeroDivisionError("bug")
    monkeypatch.setitem(CHECKS, "broken", EnvCheck("broken", "a check with a bug", broken))
    python = make_env(Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.3"))
    report = check_environment(LocalRunner(), str(python), checks=["companions", "broken"])
    assert [s.what for s in report.skipped] == ["broken"]
    assert "ZeroDivisionError: bug" in report.skipped[0].reason
    assert len(report.findings) == 1


def test_interpreter_that_exits_non_zero(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'python: error while loading shared libraries: libpython3.11.so.1.0' >&2\nexit 127\n")
    fake.chmod(0o755)
    report = check_environment(LocalRunner(), str(fake), checks=["companions"])
    assert report.findings == ()
    assert report.skipped[0].reason.startswith(f"{fake}: no such interpreter on this machine (python: error while")
    assert report.section.lines[0].startswith(f"python {fake}: not inspected")


def test_report_is_json_ready(make_env):
    python = make_env(Pkg("vllm", "0.16.0"))
    report = check_environment(LocalRunner(), str(python), checks=["default"])
    json.dumps(report.facts)
    assert report.section.key == "environment" and report.section.data is report.facts
    assert report.facts["packages"] == {"vllm": "0.16.0"}


def test_the_shipped_tables_load():
    table = load_table()
    assert table.resolve("flashinfer") == "flashinfer-python"
    assert {g.kind for g in table.groups} == {"same-version", "release-map", "cuda-wheels", "pins"}


def test_table_errors_say_what_to_fix():
    cuda = {"drivers": {}, "minor_compat": {}}
    with pytest.raises(TableError, match=r"groups.yaml groups\[0\] \(x\): kind 'same' is unknown; use one of"):
        parse_table({"serving": [], "verify": [], "groups": [{"id": "x", "kind": "same", "anchor": "a"}]}, cuda)
    with pytest.raises(TableError, match="'serving' is missing"):
        parse_table({"verify": [], "groups": []}, cuda)
