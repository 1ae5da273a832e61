"""What systemd's records about a unit's runs say: which attempts to diagnose, what systemd adds to the
pipeline's attempts, and the unit's state as a copied journal leaves it (no systemctl to ask)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from crashdoc.model import Attempt
from crashdoc.parse.runs import Run
from crashdoc.sources.interpreter import PYTHON
from crashdoc.sources.journal_records import Record, iso
from crashdoc.sources.journald import Journal
from crashdoc.sources.unit import UnitState, describe_exit
from crashdoc.transport import Runner


def choose_runs(runs: Sequence[Run], wanted: int) -> tuple[list[Run], Run | None]:
    """The newest `wanted` attempts that failed (else that ended, else the running one), oldest first.

    Also returns the loop's first failed attempt (restart counter 1) when it is among the runs read.
    """
    failed = [r for r in runs if r.ended and r.failed]
    pool = failed or [r for r in runs if r.ended] or list(runs[-1:])
    chosen = list(pool[-wanted:])
    first = None
    for r in reversed(runs):
        if r.restart_counter == 1:
            first = r
            break
    if first is not None and first not in chosen and first.failed:
        chosen = [first, *chosen]
    return chosen, first


def enrich_attempts(attempts: Sequence[Attempt], runs: Sequence[Run]) -> tuple[Attempt, ...]:
    """Add what systemd knows (invocation id, exit status, outcome, times) to the pipeline's attempts."""
    by_id = {r.invocation_id: r for r in runs}
    matched: list[tuple[Attempt, Run | None]] = []
    if attempts and all(a.invocation_id in by_id for a in attempts if a.invocation_id) and any(
        a.invocation_id for a in attempts
    ):
        matched = [(a, by_id.get(a.invocation_id or "")) for a in attempts]
    elif len(attempts) == len(runs):
        matched = list(zip(attempts, runs))
    else:
        return tuple(attempts)
    out = []
    for a, run in matched:
        if run is None:
            out.append(a)
            continue
        out.append(replace(
            a,
            invocation_id=run.invocation_id,
            exit_status=describe_exit(run.exit_code, run.exit_status) or a.exit_status,
            outcome=run.outcome if run.outcome != "unknown" else a.outcome,
            started=a.started or iso(run.first_usec),
            ended=a.ended or (iso(run.last_usec) if run.ended else None),
        ))
    return tuple(out)


def state_from_journal(
    unit: str, runner: Runner, journal: Journal, runs: Sequence[Run], scan: Sequence[Record], version: int | None
) -> UnitState:
    """The unit's state as systemd's records in a copied journal leave it (no systemctl to ask)."""
    last = runs[-1] if runs else None
    restart = max((r.restart_counter or 0 for r in runs), default=0)
    active = sub = result = None
    if last is not None:
        if last.start_limit_hit:
            active, sub, result = "failed", "failed", "start-limit-hit"
        elif not last.ended:
            active, sub = "active", "running"
        elif last.restart_counter is not None:
            active, sub, result = "activating", "auto-restart", last.result
        elif last.stop_requested:
            active, sub = "inactive", "dead"
        elif last.failed and restart:
            # failed after earlier restarts: systemd restarts it again unless the journal copy was cut first
            active, sub, result = "activating", "auto-restart", last.result
        elif last.failed:
            active, sub, result = "failed", "failed", last.result
        else:
            active, sub, result = "inactive", "dead", last.result
    python = None
    cmdline = exe = None
    for run in runs[-1:-4:-1]:  # (at most three queries: a loop of hundreds of runs costs no more)
        # the newest run that logged a process of its own: a run that has just been started by a restart may
        # have no record with _CMDLINE/_EXE yet when the journal is read or copied
        cmdline, exe = journal.cmdline_of(run.invocation_id)
        if cmdline or exe:
            break
    if cmdline or exe:
        words = (cmdline or "").split()
        if words and PYTHON.fullmatch(words[0].rsplit("/", 1)[-1]):
            python = words[0]
        elif exe and PYTHON.fullmatch(exe.rsplit("/", 1)[-1].rstrip("0123456789.") or ""):
            python = exe
    failed_runs = [r for r in runs if r.failed]
    ref = failed_runs[-1] if failed_runs else last
    props = {"_CMDLINE": cmdline or "", "_EXE": exe or ""}
    return UnitState(
        unit=unit,
        host=runner.host,
        source="journal",
        active_state=active,
        sub_state=sub,
        result=result,
        exit_code=ref.exit_code if ref else None,
        exit_status=ref.exit_status if ref else None,
        n_restarts=restart,
        invocation_id=last.invocation_id if last else None,
        systemd_version=version,
        python=python,
        properties={k: v for k, v in props.items() if v},
    )
