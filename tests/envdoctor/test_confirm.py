"""apply_to_diagnosis: the environment confirms, questions, or supplies the root cause."""

from __future__ import annotations

import importlib.util
from datetime import datetime
from pathlib import Path

import pytest

from crashdoc.envdoctor import (
    apply_to_diagnosis,
    check_environment,
    since_from_diagnosis,
)
from crashdoc.envdoctor.confirm import parse_time
from crashdoc.model import Attempt, Diagnosis, Evidence, Finding, Fix, Where
from crashdoc.transport import LocalRunner
from tests.envdoctor.builders import Pkg, site_packages
from tests.envdoctor.conftest import ASSETS

SKEW = ("RuntimeError: flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4). Please install "
        "the same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check.")
FLASHINFER = (Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.3"))


def _log_finding(message: str, category: str = "dependency_version_mismatch", role: str = "cause",
                 rule: str | None = "flashinfer-cubin-version-mismatch", evidence: tuple[str, ...] = ()) -> Finding:
    return Finding(line=f"(EngineCore_DP0 pid=59619) ERROR [core.py:708] {message}", lineno=17,
                   exception="RuntimeError", message=message.split(": ", 1)[-1], category=category,
                   fix=Fix("install matching versions", "pip install flashinfer-cubin==9.9.9"),
                   where=Where(process="EngineCore_DP0"), role=role, rule=rule, score=100,
                   evidence=tuple(Evidence(i, t) for i, t in enumerate(evidence, 1)))


def _diag(*findings: Finding) -> Diagnosis:
    return Diagnosis(source="founding-case.log", root_cause=findings[0] if findings else None, findings=findings)


def _env(python, **kw):
    return check_environment(LocalRunner(), str(python), checks=["companions", "requirements", "integrity"], **kw)


def test_log_skew_confirmed_with_the_installed_versions(make_env):
    python = make_env(*FLASHINFER)
    venv = python.parent.parent
    out = apply_to_diagnosis(_diag(_log_finding(SKEW)), _env(python))
    rc = out.root_cause
    assert rc.confirmation == f"confirmed by the environment: flashinfer-python 0.6.4, flashinfer-cubin 0.6.3 installed in {venv}"
    assert rc.fix.command == "pip install flashinfer-cubin==0.6.4"
    assert rc.line.startswith("(EngineCore_DP0") and rc.source == "log"
    assert [s.key for s in out.sections] == ["environment"]
    assert out.findings[0] is rc and out.findings[1].source == "environment"


def test_other_versions_in_the_log_still_confirm_and_say_so(make_env):
    python = make_env(*FLASHINFER)
    corpus = "RuntimeError: flashinfer-cubin version (0.6.13) does not match flashinfer version (0.7.0.post1)."
    rc = apply_to_diagnosis(_diag(_log_finding(corpus)), _env(python)).root_cause
    assert rc.confirmation.startswith("confirmed by the environment: flashinfer-python 0.6.4, flashinfer-cubin 0.6.3")
    assert rc.confirmation.endswith("(the log names 0.6.13, 0.7.0.post1: the versions changed since)")
    assert rc.fix.command == "pip install flashinfer-cubin==0.6.4"


def test_matching_versions_question_the_log(make_env):
    python = make_env(Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.4"))
    rc = apply_to_diagnosis(_diag(_log_finding(SKEW)), _env(python)).root_cause
    assert rc.confirmation.startswith("questioned by the environment: flashinfer-cubin 0.6.4, flashinfer-python 0.6.4 "
                                      "installed in ")
    assert rc.fix.command == "pip install flashinfer-cubin==9.9.9"     # the log's own fix is kept


def test_no_clear_log_error_ranks_the_environment_first(make_env):
    python = make_env(*FLASHINFER)
    decoy = _log_finding("RuntimeError: Engine core initialization failed. See root cause above.",
                         category="other", role="consequence", rule=None)
    out = apply_to_diagnosis(_diag(decoy), _env(python))
    assert out.root_cause.source == "environment" and out.root_cause.rule == "env.companions"
    assert out.root_cause.confirmation.endswith("the log shows no clear error")
    assert out.findings[1] is decoy
    nothing = apply_to_diagnosis(_diag(), _env(python))
    assert nothing.root_cause.fix.command == "pip install flashinfer-cubin==0.6.4"


def test_traceback_through_a_patched_file_is_questioned(make_env):
    python = make_env(Pkg("vllm", "0.16.0", files={"vllm/__init__.py": "", "vllm/v1/core.py": "A = 1\n"}))
    patched = site_packages(python) / "vllm" / "v1" / "core.py"
    patched.write_text("A = 2\n")
    rc = _log_finding("AttributeError: 'NoneType' object has no attribute 'shape'", category="engine_bug",
                      rule="none", evidence=('  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/core.py", line 3, in f',))
    out = apply_to_diagnosis(_diag(rc), _env(python))
    assert out.root_cause.confirmation == (
        f"questioned by the environment: the traceback runs through {patched}, which was modified after install")


def test_since_from_the_first_failed_attempt():
    diag = Diagnosis("x", None, attempts=(Attempt(1, "2026-11-30T09:14:02+00:00", None, "failed"),
                                          Attempt(2, "2026-11-30T09:20:00+00:00", None, "failed")))
    assert since_from_diagnosis(diag).isoformat() == "2026-11-30T09:14:02+00:00"
    now = datetime(2026, 12, 1, 10, 0)
    assert parse_time("Nov 30 09:14:02", now) == datetime(2026, 11, 30, 9, 14, 2)
    assert parse_time("12-31 23:59:59", now) == datetime(2025, 12, 31, 23, 59, 59)
    assert parse_time("W1130 12:48:02.223000", now) is None


def _founding_log(repo_root: Path) -> Path:
    sample = repo_root / "examples" / "founding-case.log"
    return sample if sample.exists() else ASSETS / "founding-case.log"


@pytest.mark.skipif(importlib.util.find_spec("crashdoc.investigate") is None, reason="crashdoc.investigate not written yet")
def test_diagnose_stream_of_the_founding_log_is_confirmed(make_env, repo_root):
    from crashdoc.investigate import diagnose_stream
    python = make_env(*FLASHINFER)
    log = _founding_log(repo_root)
    with open(log, "rb") as stream:
        diag = diagnose_stream(stream, str(log))
    out = apply_to_diagnosis(diag, _env(python, since=since_from_diagnosis(diag)))
    assert out.root_cause.confirmation.startswith("confirmed by the environment: flashinfer-python 0.6.4")
    assert out.root_cause.fix.command == "pip install flashinfer-cubin==0.6.4"


def test_environment_alone_as_a_diagnosis(make_env):
    from crashdoc.envdoctor import environment_diagnosis
    report = _env(make_env(*FLASHINFER))
    diag = environment_diagnosis(report, "environment of /venv/bin/python")
    assert diag.root_cause.rule == "env.companions" and diag.root_cause.confirmation is None
    assert diag.findings == report.findings and diag.sections == (report.section,)
    assert diag.summary == "1 environment finding"
