"""Golden reports: the terminal (fixed width, no colour), Markdown and JSON renderings of a handful of logs.

A renderer change shows up here as a diff; when it is intended, `pytest tests/report --update-golden` rewrites
the files and the diff is reviewed in the commit.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.cli import ROOT, run_cli

GOLDEN = Path(__file__).parent / "golden"
ASSETS = Path("tests") / "assets" / "logs"
CASES = {
    "founding-case": Path("examples") / "founding-case.log",
    "port-in-use": ASSETS / "journal-short-iso.vllm-port-in-use.log",
    "oom-killer-no-traceback": ASSETS / "journal-short.host-oom-killer-no-traceback.log",
    "clean-startup-no-error": ASSETS / "journal-short.vllm-clean-startup-and-serving-no-error.log",
    "crash-loop-12-attempts": ASSETS / "journal-short.vllm-crash-loop-12-attempts-model-path-trailing-space.log",
}
FORMATS = {"terminal": "txt", "markdown": "md", "json": "json"}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_report_matches_its_golden_file(case: str, fmt: str, update_golden: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # reports name the input as given: a relative path keeps them machine-independent
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    r = run_cli("diagnose", str(CASES[case]), "--format", fmt, "--width", "100")
    assert r.status in (0, 3), r.stderr
    path = GOLDEN / f"{case}.{FORMATS[fmt]}"
    if update_golden or not path.exists() and os.environ.get("CI") != "true":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(r.stdout, "utf-8")
    assert path.exists(), f"{path} is missing: run pytest tests/report --update-golden"
    assert r.stdout == path.read_text("utf-8"), f"{path.name} differs: review, then pytest tests/report --update-golden"
