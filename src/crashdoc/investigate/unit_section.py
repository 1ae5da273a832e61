"""The `unit` section of a unit's diagnosis: what the unit is doing, what was examined, what crashdoc did (or not)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crashdoc.actions.freeze import freeze_argv
from crashdoc.model import Attempt, Section
from crashdoc.parse.runs import Run
from crashdoc.sources.journald import Journal
from crashdoc.sources.unit import UnitState
from crashdoc.sources.unit_show import describe_exit
from crashdoc.transport import Runner


def unit_section(
    unit: str,
    runner: Runner,
    state: UnitState,
    before: UnitState | None,
    froze: bool,
    freeze_asked: bool,
    chosen: Sequence[Run],
    first_of_loop: Run | None,
    journal: Journal,
    notes: Sequence[str],
    attempts: Sequence[Attempt],
    journal_args: Sequence[str],
    now: str | None = None,
) -> Section:
    """The `unit` section: what the unit is doing, what was examined, and what crashdoc did (or not); `now` is the
    present (analyze/state.py): a running service is never told to freeze."""
    lines: list[str] = []
    where = f"in {' '.join(a for a in journal_args if not a.startswith('-'))}" if journal_args else (
        f"on {runner.host or 'this machine'}"
    )
    if froze and before is not None:
        lines.append(f"stopped by crashdoc --freeze (was: {before.summary()}); now {state.active_state} ({state.sub_state})")
    else:
        lines.append(state.summary())
    if chosen:
        lines.append(_attempts_line(chosen, first_of_loop, state, attempts))
    if state.python:
        how = "from ExecStart" if state.source == "systemctl" else "from the journal's _CMDLINE"
        lines.append(f"runs {state.python} ({how})")
    elif state.exec_start:
        lines.append(f"runs {' '.join(state.exec_start[0].argv) or state.exec_start[0].path} (no Python interpreter found in it)")
    lines.extend(notes)
    looping = state.looping and now != "running"
    if not froze and looping and state.source == "systemctl":
        lines.append("still looping: run with --freeze to stop it (crashdoc changed nothing on the host)")
    elif freeze_asked and not froze and state.source == "systemctl":
        lines.append("--freeze did not stop the unit (see skipped); it may still be looping")
    lines.append(
        f"read {journal.bytes_read:,} bytes from the journal {where} in {len(journal.queries)} journalctl calls"
        " (the examined attempts, systemd's and the kernel's records around them)"
    )
    data: dict[str, Any] = state.data()
    data.update(
        frozen=froze,
        freeze_command=" ".join(freeze_argv(unit)) if freeze_asked else None,
        state_before_freeze=before.data() if before is not None else None,
        still_looping=(not froze and looping),
        attempts_examined=[r.data() for r in chosen],
        first_of_loop=first_of_loop.invocation_id if first_of_loop else None,
        journal_bytes=journal.bytes_read,
        journal_queries=[
            {"command": q.command, "purpose": q.purpose, "bytes": q.bytes, "records": q.records,
             "seconds": round(q.seconds, 3)}
            for q in journal.queries
        ],
        journal_source=journal.where,
        notes=list(notes),
    )
    title = f"Unit {unit} {where}"
    return Section(key="unit", title=title, lines=tuple(lines), data=data)


def _attempts_line(chosen: Sequence[Run], first: Run | None, state: UnitState, attempts: Sequence[Attempt]) -> str:
    """`6 attempts examined (the loop's first and the newest 5): all failed with exit status 1, same root cause`."""
    n = len(chosen)
    which = "the newest" if first is None or first not in chosen else "the loop's first and the newest"
    rest = n - (1 if first is not None and first in chosen else 0)
    head = f"{n} attempt{'s' if n != 1 else ''} examined ({which} {rest})" if which != "the newest" else (
        f"{n} attempt{'s' if n != 1 else ''} examined (the newest {n})"
    )
    outcomes: dict[str, int] = {}
    for r in chosen:
        key = r.outcome + (f" with {describe_exit(r.exit_code, r.exit_status)}" if r.exit_code else "")
        outcomes[key] = outcomes.get(key, 0) + 1
    parts = [f"{c} {k}" if len(outcomes) > 1 else (f"all {k}" if n > 1 else k) for k, c in outcomes.items()]
    line = f"{head}: {', '.join(parts)}"
    prints = [a.fingerprint for a in attempts if a.fingerprint]
    if prints and len(prints) == len(attempts):
        groups = len(set(prints))
        line += "; the same root cause in all" if groups == 1 and n > 1 else f"; {groups} different root causes"
    return line
