"""The JSON contract: every report validates against the shipped JSON Schema (`crashdoc schema`)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.support.cli import ROOT, run_cli
from tests.support.shared import SHARED, shared_reason

_SKIP = (".expected.json", "README.md", ".py", ".md")


def _logs() -> list[Path]:
    found = [p for p in sorted((ROOT / "tests").rglob("*")) if p.is_file() and p.suffix in (".log", ".json", ".gz")
             and "assets" in p.parts and not p.name.endswith(_SKIP) and "envdoctor" not in p.parts]
    found += sorted((ROOT / "tests" / "corpus_extra" / "cases").glob("*.log"))
    found += sorted((ROOT / "examples").glob("*.log"))
    dev = SHARED / "corpus" / "dev" / "cases"
    found += sorted(dev.glob("*.log"))
    return found


def _params() -> list[object]:
    """Every log, and a skipped case saying so when the dev corpus in ../shared is absent."""
    dev = SHARED / "corpus" / "dev" / "cases"
    missing = [] if any(dev.glob("*.log")) else [
        pytest.param(dev, id="dev-corpus", marks=pytest.mark.skip(reason=shared_reason(dev)))]
    return [*_logs(), *missing]


@pytest.fixture(scope="module")
def schema() -> dict:
    r = run_cli("schema")
    assert r.status == 0
    data = json.loads(r.stdout)
    jsonschema.Draft202012Validator.check_schema(data)
    return data


def test_there_are_logs_to_check() -> None:
    assert len(_logs()) >= 60


@pytest.mark.parametrize("log", _params(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_report_validates_against_the_schema(log: Path, schema: dict) -> None:
    r = run_cli("diagnose", str(log), "--format", "json")
    assert r.status in (0, 3), r.stderr
    report = json.loads(r.stdout)
    jsonschema.validate(report, schema)
    assert report["schema"] == "crashdoc.diagnosis/1"
    assert (report["root_cause"] is None) == (r.status == 3)


def test_internal_fields_stay_out_of_the_contract() -> None:
    report = run_cli("diagnose", str(ROOT / "examples" / "founding-case.log"), "--format", "json").json
    for finding in [report["root_cause"], *report["findings"]]:
        assert "score" not in finding and "source" not in finding


def test_the_schema_rejects_a_renamed_field(schema: dict) -> None:
    report = run_cli("diagnose", str(ROOT / "examples" / "founding-case.log"), "--format", "json").json
    report["root_cause"]["cause_line"] = report["root_cause"].pop("line")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(report, schema)
