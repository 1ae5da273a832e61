"""`diagnose UNIT` reports the fix for the unit's own interpreter (`PYTHON -m pip install ...`), built by the
same function as the command `crashdoc fix` runs; on canned systemctl/journalctl answers (FakeRunner)."""

from __future__ import annotations

from crashdoc.fixloop.plan import make_plan
from crashdoc.investigate.interpreter import interpreter_command
from crashdoc.investigate.unit import diagnose_unit
from crashdoc.kb import KnowledgeBase
from tests.systemd.test_errors import JournalFake


def test_the_founding_case_fix_names_the_units_python() -> None:
    diag = diagnose_unit(JournalFake(257), "vllm", announce=lambda _: None)
    assert diag.unit is not None and diag.unit.python == "/opt/venv/bin/python"  # from ExecStart
    assert diag.root_cause is not None
    assert diag.root_cause.fix.command == "/opt/venv/bin/python -m pip install flashinfer-cubin==0.6.4"
    assert diag.findings[0].fix.command == diag.root_cause.fix.command
    # what the report shows is what `crashdoc fix` runs
    plan = make_plan(diag, KnowledgeBase.load(), "vllm.service")
    assert plan.refusal is None, plan.refusal
    assert plan.steps[0] == ("/opt/venv/bin/python", "-m", "pip", "install", "flashinfer-cubin==0.6.4")


def test_only_a_plain_pinned_install_is_rewritten() -> None:
    py = "/opt/vllm/.venv/bin/python"
    assert interpreter_command("pip install vllm==0.6.3", py) == f"{py} -m pip install vllm==0.6.3"
    assert interpreter_command("pip install vllm==0.6.3", None) == "pip install vllm==0.6.3"
    for other in ("pip install --force-reinstall torch==2.2.0", "ss -ltnp", "pip install x==1 | tee log", None):
        assert interpreter_command(other, py) == other
