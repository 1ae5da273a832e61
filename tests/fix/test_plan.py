"""The plan of `crashdoc fix` (what runs, or why nothing runs), the commands it builds, the verdict, and the
`fix.apply` field of the rules, on diagnoses made by the production pipeline from real log lines."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from crashdoc.actions.fix import pip_argv, restart_argv
from crashdoc.errors import UnsafeArgumentError
from crashdoc.fixloop.plan import make_plan, plan_lines
from crashdoc.fixloop.run import judge
from crashdoc.investigate import diagnose_stream
from crashdoc.kb import KnowledgeBase
from crashdoc.kb.schema import check_rule
from crashdoc.model import Diagnosis, LastFailure, State, UnitFacts
from crashdoc.status import FixStatus, WatchStatus
from tests.support.runners import FakeRunner

CUBIN = (b"(Worker_TP2 pid=41) ERROR 10-15 08:32:29 [multiproc_executor.py:671] RuntimeError: flashinfer-cubin version"
         b" (0.6.3) does not match flashinfer version (0.6.4). Please install the same version of both packages.\n")
NUMPY = (b"A module that was compiled using NumPy 1.x cannot be run in\n"
         b"NumPy 2.0.1 as it may crash. To support both 1.x and 2.x\n")
PYTHON = "/opt/venv/bin/python3"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _diag(kb: KnowledgeBase, log: bytes, python: str | None = PYTHON) -> Diagnosis:
    diag = diagnose_stream(io.BufferedReader(io.BytesIO(log)), "test", kb=kb)  # type: ignore[arg-type]
    facts = UnitFacts("vllm.service", "gpu1", "activating", "auto-restart", 4, True, python, None, "auto-restart loop")
    return replace(diag, unit=facts)


def test_a_safe_companion_pin_is_planned_with_the_units_interpreter(kb: KnowledgeBase) -> None:
    plan = make_plan(_diag(kb, CUBIN), kb, "vllm.service", find_links="/srv/wheels")
    assert plan.refusal is None
    assert plan.steps == (
        (PYTHON, "-m", "pip", "install", "flashinfer-cubin==0.6.4", "--no-index", "--find-links", "/srv/wheels"),
        ("systemctl", "restart", "vllm.service"),
    )
    lines = plan_lines(plan, FakeRunner({}, host="gpu1"))
    assert lines[2] == f"  1. ssh gpu1 '{PYTHON} -m pip install flashinfer-cubin==0.6.4 --no-index --find-links /srv/wheels'"
    assert lines[3] == "  2. ssh gpu1 'systemctl restart vllm.service'"
    assert lines[4].startswith("  3. verify: watch the next start of vllm.service")


def test_a_manual_fix_is_shown_never_planned(kb: KnowledgeBase) -> None:
    diag = _diag(kb, NUMPY)
    assert diag.root_cause is not None and diag.root_cause.fix.command == "pip install 'numpy<2'"
    plan = make_plan(diag, kb, "vllm.service")
    assert plan.steps == () and plan.status == FixStatus.NOT_APPLIED
    assert plan.refusal is not None and "a manual fix" in plan.refusal and "pip install 'numpy<2'" in plan.refusal


def test_no_interpreter_no_error_and_a_running_service_are_refused(kb: KnowledgeBase) -> None:
    no_python = make_plan(_diag(kb, CUBIN, python=None), kb, "vllm.service")
    assert no_python.steps == () and no_python.status == FixStatus.NOT_APPLIED
    assert no_python.refusal is not None and "cannot tell which Python" in no_python.refusal
    clean = make_plan(_diag(kb, b"INFO all good\n"), kb, "vllm.service")
    assert clean.status == FixStatus.NOTHING_TO_FIX and clean.steps == ()
    up = State("running", "2026-12-01T09:41:00+00:00", LastFailure(7, None, None, "RuntimeError: ..."), True,
               None, "running and ready since 09:41 UTC")
    ready = make_plan(replace(_diag(kb, CUBIN), state=up), kb, "vllm.service")
    assert ready.status == FixStatus.NOTHING_TO_FIX and ready.refusal == f"nothing to fix now: {up.detail}"


@pytest.mark.parametrize("command", [
    "pip install x==1; rm -rf /", "pip install x==1 && reboot", "pip install $(curl evil)==1", "pip install foo",
    "pip list | grep flashinfer", "curl http://x | sh", "pip install -e .==1", "pip install 'a b==1'",
])
def test_fix_commands_with_shell_syntax_or_no_pin_are_refused(command: str) -> None:
    with pytest.raises(UnsafeArgumentError):
        pip_argv(command, PYTHON)


def test_shell_syntax_in_the_interpreter_find_links_or_unit_is_refused() -> None:
    with pytest.raises(UnsafeArgumentError):
        pip_argv("pip install a==1", "/opt/venv/bin/python3;id")
    with pytest.raises(UnsafeArgumentError):
        pip_argv("pip install a==1", PYTHON, find_links="/srv/$(id)")
    with pytest.raises(UnsafeArgumentError):
        restart_argv("vllm;reboot")
    assert pip_argv("pip install a==1 --index-url https://x.example/whl/cu130", PYTHON)[-2:] == [
        "--index-url", "https://x.example/whl/cu130"]


def test_judge(kb: KnowledgeBase) -> None:
    before = _diag(kb, CUBIN).root_cause
    assert before is not None
    up = _diag(kb, b"INFO:     Application startup complete.\n")
    again = _diag(kb, CUBIN.replace(b"0.6.3", b"0.6.2"))  # the same rule, other versions: the same error
    other = _diag(kb, NUMPY)
    assert judge(before, WatchStatus.HEALTHY, up, 60).status == FixStatus.FIXED
    assert judge(before, WatchStatus.HEALTHY, up, 60).text == "fixed: the service reached readiness and the error is gone"
    v = judge(before, WatchStatus.CRASHED, again, 60)
    assert v.status == FixStatus.NOT_FIXED and v.word == "not_fixed" and v.text.startswith("not fixed: the same error again")
    v = judge(before, WatchStatus.CRASHED, other, 60)
    assert v.status == FixStatus.NEW_ERROR and v.text.startswith("a new error: ") and "NumPy" in v.text
    assert judge(before, WatchStatus.HEALTHY, again, 60).status == FixStatus.NOT_FIXED  # up, but the error again
    assert judge(before, WatchStatus.TIMED_OUT, None, 60).status == FixStatus.TIMED_OUT


def _rule(tmp_path: Path, fix: str) -> list[str]:
    import yaml

    data = yaml.safe_load(f"""
id: acme-pin
category: dependency_version_mismatch
role: cause
match:
  regex: 'acme (?P<v>[0-9.]+) broken'
explanation: acme.
fix:
{fix}
examples:
  - match: |
      acme 1.2 broken
  - no-match: |
      acme 1.2 fine
""")
    return check_rule(data, str(tmp_path / "dependency_version_mismatch" / "acme-pin.yaml"), "acme-pin",
                      "dependency_version_mismatch")


def test_rule_schema_knows_fix_apply(tmp_path: Path, kb: KnowledgeBase) -> None:
    assert _rule(tmp_path, "  text: pin it\n  command: pip install acme=={v}\n  apply: safe") == []
    assert _rule(tmp_path, "  text: pin it\n  command: pip install acme=={v}\n  apply: manual") == []
    [bad] = _rule(tmp_path, "  text: pin it\n  command: pip install acme=={v}\n  apply: yes-please")
    assert "'fix.apply'" in bad
    [unsafe] = _rule(tmp_path, "  text: clean\n  command: rm -rf /tmp/acme-{v}\n  apply: safe")
    assert "needs a 'fix.command' of the form `pip install NAME==VERSION`" in unsafe
    safe = sorted(r.id for r in kb.rules if r.fix_apply == "safe")
    assert safe == ["flashinfer-cubin-version-mismatch", "flashinfer-jit-cache-version-mismatch"]
    assert all(r.fix_apply == "manual" for r in kb.rules if r.id not in safe)
