"""The plan of `crashdoc fix`: what will run (the fix with the unit's interpreter, the restart), how the result
is verified, or why nothing will run (a manual fix is shown, never run)."""

from __future__ import annotations

from dataclasses import dataclass

from crashdoc.actions.fix import pip_argv, restart_argv
from crashdoc.errors import CrashdocError, UnsafeArgumentError
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Diagnosis, Finding
from crashdoc.status import FixStatus
from crashdoc.transport import Runner


class FixRefusedError(CrashdocError):
    """`crashdoc fix` will not change the host (no terminal to ask and no --yes)."""

    exit_status = int(FixStatus.UNREADABLE)


@dataclass(frozen=True)
class Plan:
    """What `crashdoc fix` would do about a diagnosis."""

    unit: str
    root: Finding | None
    command: str | None
    """The fix command as the rule gives it (`pip install flashinfer-cubin==0.6.4`)."""
    steps: tuple[tuple[str, ...], ...] = ()
    """The commands that will run, in order (argv; nothing goes through a shell)."""
    verify: str = ""
    """How the result will be checked."""
    refusal: str | None = None
    """Why nothing will run; None when the plan can be applied."""
    status: FixStatus = FixStatus.FIXED
    """The exit status when refused."""


def short(f: Finding) -> str:
    """`RuntimeError: flashinfer-cubin version (0.6.3) does not match ...` (first line, at most 200 characters)."""
    text = f"{f.exception}: {f.message}" if f.exception else f.message or f.line
    return (text.splitlines()[0] if text else "")[:200]


def make_plan(diag: Diagnosis, kb: KnowledgeBase, unit: str, *, find_links: str | None = None,
              timeout: float = 1800.0, health: str | None = None) -> Plan:
    """The plan for the diagnosis' root cause, or the reason to change nothing."""
    root = diag.root_cause
    st = diag.state
    if st is not None and st.now == "running" and st.ready:
        return Plan(unit, root, None, refusal=f"nothing to fix now: {st.detail}", status=FixStatus.NOTHING_TO_FIX)
    if root is None:
        return Plan(unit, None, None, refusal="nothing to fix: the journal shows no error for "
                    f"{unit}", status=FixStatus.NOTHING_TO_FIX)
    command = root.fix.command
    rule = kb.get(root.rule) if root.rule else None
    if command is None:
        return Plan(unit, root, None, refusal="the fix has no command to run (see Fix above); nothing was changed",
                    status=FixStatus.NOT_APPLIED)
    if rule is None or rule.fix_apply != "safe":
        why = f"rule {rule.id}" if rule is not None else "this finding"
        return Plan(unit, root, command, refusal=f"a manual fix ({why} is not marked `fix.apply: safe`): run it "
                    f"yourself if it fits, crashdoc never runs it: {command}", status=FixStatus.NOT_APPLIED)
    python = diag.unit.python if diag.unit is not None else None
    if not python:
        return Plan(unit, root, command, refusal=f"cannot tell which Python {unit} runs (ExecStart), so the fix "
                    "cannot be installed into its environment; run it with that interpreter yourself",
                    status=FixStatus.NOT_APPLIED)
    try:
        steps = (tuple(pip_argv(command, python, find_links)), tuple(restart_argv(unit)))
    except UnsafeArgumentError as exc:
        return Plan(unit, root, command, refusal=str(exc), status=FixStatus.NOT_APPLIED)
    how = f"{health} answers 2xx" if health else "it prints its engine's ready line (data/phases.yaml)"
    limit = f"{timeout:g} s" if timeout else "no time limit"
    verify = (f"watch the next start of {unit} (journalctl -f) until {how}, it crashes, or {limit} pass: fixed when "
              f"it is up and `{short(root)[:80]}` did not come back")
    return Plan(unit, root, command, steps, verify)


def plan_lines(plan: Plan, runner: Runner) -> list[str]:
    """The plan in plain words, each command exactly as it will run."""
    lines = [f"plan for {plan.unit} on {runner.host or 'this machine'}:"]
    if plan.root is not None:
        lines.append(f"  the error: {short(plan.root)}")
    for i, argv in enumerate(plan.steps, 1):
        lines.append(f"  {i}. {runner.describe(argv)}")
    if plan.verify:
        lines.append(f"  {len(plan.steps) + 1}. verify: {plan.verify}")
    return lines
