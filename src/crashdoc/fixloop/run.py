"""`crashdoc fix UNIT`: diagnose, show the plan, ask, apply each command after printing it, watch the next start
with the watch driver, and say whether the fix worked.

The watch begins at the first record of the invocation the restart started (its id from `systemctl show`), so an
attempt that failed before the fix is never taken for the verdict.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from crashdoc.actions.fix import PIP_TIMEOUT, RESTART_TIMEOUT, run_step
from crashdoc.fixloop.plan import FixRefusedError, make_plan, plan_lines, short
from crashdoc.fixloop.record import FixLog
from crashdoc.investigate.unit import diagnose_unit
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Diagnosis, Finding, Section
from crashdoc.report import render
from crashdoc.report.safe import safe
from crashdoc.sources.unit import normalize_unit, read_unit_state
from crashdoc.status import FixStatus, WatchStatus
from crashdoc.transport import Runner, check_unit_name
from crashdoc.watch.session import Session
from crashdoc.watch.unitwatch import UnitWatch

#: how long to wait for the journal to show the restarted invocation's first record
FIRST_RECORD_WAIT = 30.0


@dataclass(frozen=True)
class Verdict:
    """The result of a fix: the exit status, a word for machines (the incident memory) and a line for people."""

    status: FixStatus
    word: str
    """`fixed`, `not_fixed`, `new_error`, `timed_out`, `interrupted`, `unreadable`."""
    text: str


class _Recording(Session):
    """A watch session that keeps the diagnosis of the watched attempt."""

    last: Diagnosis | None = None

    def diagnose(self, source: str, section: Section) -> Diagnosis:
        self.last = super().diagnose(source, section)
        return self.last


class _FixWatch(UnitWatch):
    """The unit watch, begun at a given journal position (the restarted invocation's first record)."""

    def __init__(self, session: Session, runner: Runner, unit: str, start: Sequence[str], **kw: Any) -> None:
        self._first_start: list[str] | None = list(start)
        super().__init__(session, runner, unit, **kw)

    def _follow(self, start: Sequence[str] | None = None) -> None:
        if start is None and self._first_start is not None:
            start, self._first_start = self._first_start, None
        super()._follow(start)


def same_error(a: Finding, b: Finding) -> bool:
    """The same error: the same fingerprint, or the same rule (its versions may differ)."""
    return a.fingerprint == b.fingerprint or (a.rule is not None and a.rule == b.rule)


def judge(before: Finding | None, status: int, after: Diagnosis | None, timeout: float) -> Verdict:
    """The verdict from the watch's outcome and the watched attempt's diagnosis."""
    came_back = [f for f in (after.findings if after else ()) if before is not None and same_error(f, before)]
    if status == WatchStatus.HEALTHY:
        if came_back:
            return Verdict(FixStatus.NOT_FIXED, "not_fixed", "not fixed: the service came up, but printed the same "
                           f"error again: {short(came_back[0])}")
        return Verdict(FixStatus.FIXED, "fixed", "fixed: the service reached readiness and the error is gone")
    if status == WatchStatus.CRASHED or status == WatchStatus.STOPPED:
        root = after.root_cause if after else None
        if root is not None and before is not None and same_error(root, before):
            return Verdict(FixStatus.NOT_FIXED, "not_fixed", "not fixed: the same error again (the first attempt "
                           f"after the fix): {short(root)}")
        if root is not None:
            return Verdict(FixStatus.NEW_ERROR, "new_error", f"a new error: {short(root)}")
        what = "crashed" if status == WatchStatus.CRASHED else "stopped before it was up"
        return Verdict(FixStatus.NEW_ERROR, "new_error", f"a new error: it {what} without an error crashdoc found")
    if status == WatchStatus.TIMED_OUT:
        return Verdict(FixStatus.TIMED_OUT, "timed_out", f"not verified: the service was not up within {timeout:g} s")
    if status == WatchStatus.INTERRUPTED:
        return Verdict(FixStatus.INTERRUPTED, "interrupted", "not verified: the watch was interrupted")
    return Verdict(FixStatus.UNREADABLE, "unreadable", "not verified: the journal could not be followed")


def first_record_cursor(runner: Runner, unit: str, invocation: str, wait: float = FIRST_RECORD_WAIT) -> list[str]:
    """`--cursor=` of the invocation's first journal record (systemd's or the service's), as soon as journald
    has written it; `--lines=2000` when it does not appear in time."""
    argv = ["journalctl", "--no-pager", "-o", "json", f"UNIT={unit}", f"INVOCATION_ID={invocation}", "+",
            f"_SYSTEMD_INVOCATION_ID={invocation}"]
    deadline = time.monotonic() + wait
    while True:
        res = runner.run(argv, timeout=60)
        for line in res.stdout.splitlines() if res.ok else ():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and rec.get("__CURSOR"):
                return [f"--cursor={rec['__CURSOR']}"]
        if time.monotonic() >= deadline:
            return ["--lines=2000"]
        time.sleep(0.2)  # journald writes the records of a start within moments


def fix_unit(runner: Runner, unit: str, *, kb: KnowledgeBase, yes: bool, ask: Callable[[str], bool] | None,
             out: TextIO, timeout: float = 1800.0, health: tuple[str, tuple[bool, str]] | None = None,
             find_links: str | None = None, display: str = "auto", width: int | None = None,
             rules: Sequence[str] = (), log: FixLog | None = None) -> int:
    """The whole `crashdoc fix`; returns the FixStatus. `ask` is None without a terminal; `health` is the URL
    and its first answer; `log` records the diagnosis, the commands and the verdict in the incident memory."""
    unit = check_unit_name(normalize_unit(unit))

    def say(text: str, *, raw: bool = False) -> None:
        out.write((text if raw else safe(text, 2000)) + "\n")
        out.flush()

    diag = diagnose_unit(runner, unit, kb=kb, health=health[1] if health else None, announce=say)
    render(diag, "terminal", out, width)
    if log is not None:
        log.diagnosed(diag)
    plan = make_plan(diag, kb, unit, find_links=find_links, timeout=timeout, health=health[0] if health else None)
    for line in plan_lines(plan, runner):
        say(line)
    if plan.refusal is not None:
        say(plan.refusal)
        return int(plan.status)
    if not yes:
        if ask is None:
            raise FixRefusedError("no terminal to ask whether to apply the plan (crashdoc changed nothing): run "
                                  "`crashdoc fix` on a terminal, or pass --yes to apply it without asking")
        if not ask("apply this plan? [y/N] "):
            say("nothing was changed")
            return int(FixStatus.NOT_APPLIED)
    if log is not None and plan.command:
        log.started(plan.command)
    for argv, limit in zip(plan.steps, (PIP_TIMEOUT, RESTART_TIMEOUT)):
        step = run_step(runner, argv, say, limit)
        if log is not None:
            log.ran(step.command, step.returncode)
        if not step.ok:
            say(f"failed: {step.command}: {step.detail}; the steps after it were not run")
            for line in step.output_tail:
                say(f"  | {line}")
            return int(FixStatus.APPLY_FAILED)
    invocation = read_unit_state(runner, unit, resolve_python=False).invocation_id
    start = first_record_cursor(runner, unit, invocation) if invocation else ["--lines=2000"]
    session = _Recording(f"unit {unit}", display=display, health_url=health[0] if health else None,
                         rules=rules)
    try:
        watch = _FixWatch(session, runner, unit, start, timeout=timeout, fmt="terminal", width=width, out=out)
        session.display.title = watch.target
        status = watch.run()
        after = session.last
        if status == WatchStatus.HEALTHY and after is None:
            after = session.diagnose(watch.source(), Section("watch", "Watch", (), {}))
    finally:
        session.close()
    verdict = judge(plan.root, status, after, timeout)
    say(verdict.text)
    if log is not None:
        log.verdict(verdict.word, verdict.text)
    return int(verdict.status)
