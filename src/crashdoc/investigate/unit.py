"""`crashdoc diagnose UNIT`: the unit's state, its failing attempts from the journal, the diagnosis."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import replace
from typing import Any, BinaryIO, cast

import crashdoc.investigate as investigate
from crashdoc.actions.freeze import freeze_argv, freeze_unit
from crashdoc.analyze.state import unit_present
from crashdoc.errors import InputError
from crashdoc.investigate.interpreter import with_interpreter
from crashdoc.investigate.unit_runs import choose_runs, enrich_attempts, state_from_journal
from crashdoc.investigate.unit_section import unit_section
from crashdoc.model import Diagnosis, Skipped
from crashdoc.parse.runs import Run, runs_from_output, runs_from_records, windows
from crashdoc.sources.errors import FreezeRefusedError, SystemdTooOldError
from crashdoc.sources.interface import StreamSource
from crashdoc.sources.journal_access import check_access, journal_skipped, verify_copies
from crashdoc.sources.journal_records import iso, merge
from crashdoc.sources.journal_stream import AttemptStream, Spans
from crashdoc.sources.journald import RECORDS_PER_ATTEMPT, Journal
from crashdoc.sources.unit import UnitState, normalize_unit, read_unit_state, systemd_version
from crashdoc.transport import Runner

#: attempts examined when --attempts is not given (the newest ones; the loop's first is added)
DEFAULT_ATTEMPTS = 5
#: invocation ids appeared in systemd 232
MIN_SYSTEMD = 232


def print_to_stderr(text: str) -> None:
    """Default `announce`: `crashdoc: TEXT` on stderr, so stdout stays clean for --format json."""
    print(f"crashdoc: {text}", file=sys.stderr, flush=True)


def diagnose_unit(
    runner: Runner,
    unit: str,
    *,
    since: str | None = None,
    attempts: int | None = None,
    freeze: bool = False,
    journal_args: tuple[str, ...] = (),
    announce: Callable[[str], None] = print_to_stderr,
    kb: Any = None,
    health: tuple[bool, str] | None = None,
) -> Diagnosis:
    """Diagnose a systemd unit on the runner's host, or in a copied journal (journal_args).

    Reads the unit's state (`systemctl show`; from systemd's records in the journal when journal_args name a
    copy), optionally stops its restart loop (`freeze`, after announcing the exact command), fetches the failing
    attempts whole by invocation id plus systemd's and the kernel's records in their time window, and hands
    them to the log pipeline; the newest attempt is set against the last failure (`state`; `health`: one answer
    of the service's health endpoint). Nothing on the host changes unless `freeze` is set.
    """
    unit = normalize_unit(unit)
    wanted = DEFAULT_ATTEMPTS if attempts is None else attempts
    if wanted < 1:
        raise InputError(f"--attempts must be 1 or more (got {attempts})")
    copied = bool(journal_args)
    if copied and freeze:
        raise FreezeRefusedError(
            "--freeze stops a live unit and cannot act on a copied journal: drop --file/--directory/--journal-root,"
            " or run crashdoc on the host (--host) to freeze it"
        )
    skipped: list[Skipped] = []
    notes: list[str] = []

    state: UnitState | None = None
    before: UnitState | None = None
    froze = False
    if copied:
        version = systemd_version(runner, "journalctl")
    else:
        state = read_unit_state(runner, unit)
        version = state.systemd_version
    if version is not None and version < MIN_SYSTEMD:
        raise SystemdTooOldError(
            f"systemd {version} on {runner.host or 'this machine'} has no invocation ids (needs {MIN_SYSTEMD} or"
            f" newer): export the unit's log with `journalctl -u {unit} -o json > unit.json` and run"
            " `crashdoc diagnose unit.json`"
        )

    if freeze and state is not None:
        done = freeze_unit(runner, unit, announce, "its restart loop stops changing the evidence")
        if done.ok:
            froze = True
            before = state
            state = replace(read_unit_state(runner, unit, resolve_python=False), python=state.python)
        else:
            skipped.append(Skipped(
                "freeze",
                f"`{' '.join(freeze_argv(unit))}` failed: {done.detail}"
                f" (run it as root: sudo systemctl stop {unit})",
            ))

    journal = Journal(runner, journal_args, version)
    limit = max(200, RECORDS_PER_ATTEMPT * wanted)
    scan = journal.unit_records(unit, since=since, limit=limit)
    runs = runs_from_records(scan) or runs_from_output(journal.output_invocations(unit, since=since, limit=limit * 50))
    if not runs and not copied:
        check_access(runner)  # an empty answer may only mean that this user sees their own journal
    if copied:
        state = state_from_journal(unit, runner, journal, runs, scan, version)
    assert state is not None

    chosen, first_of_loop = choose_runs(runs, wanted)
    restarts = state.n_restarts or max((r.restart_counter or 0 for r in runs), default=0)
    loop_records = []
    if first_of_loop is None and restarts >= 1:
        loop_records = journal.loop_start_records(unit)
        loop = runs_from_records(loop_records)
        first = loop[0] if loop else None
        known = {r.invocation_id: r for r in chosen}
        if first is not None and first.invocation_id in known:
            first_of_loop = known[first.invocation_id]
        elif first is not None and first.failed and (not chosen or first.first_usec < chosen[0].first_usec):
            chosen = [first, *chosen]
            first_of_loop = first

    # NOTE: verifying copied files reads every object of them: it runs beside the reading (another core), over the
    # files that hold what is read from here on (the oldest record read so far, or the attempts' window); its notes
    # (a wrong answer ahead) go first
    read_from = min((r.usec for r in (*scan, *loop_records) if r.usec), default=None)
    starts = [start for start, _ in windows(chosen)] + ([read_from] if read_from else [])
    verified = _background(verify_copies, runner, journal_args, journal.where, min(starts, default=None)) \
        if copied else None
    source = _source(unit, runner, journal_args)
    if not chosen:
        now = unit_present(journal, runs, state, (), None, health)
        notes[:0] = damaged = verified() if verified is not None else []
        section = unit_section(unit, runner, state, before, froze, freeze, chosen, None, journal, notes, (), journal_args,
                               now.now)
        return Diagnosis(
            source=source,
            root_cause=None,
            summary=f"the journal has no records of {unit}" + (f" since {since}" if since else ""),
            sections=(section,),
            skipped=(*skipped, *journal_skipped(damaged, journal.warnings)),
            unit=state.facts(),
            state=now,
        )

    kernel = merge(journal.kernel_records(unit, windows(chosen)))  # few: read first, spliced in by time
    spans = Spans(frozenset(r.invocation_id.encode() for r in chosen))
    ordered = sorted(chosen, key=lambda r: r.first_usec)
    blocks = journal.attempt_blocks([r.invocation_id for r in ordered], {r.invocation_id: r.first_usec for r in ordered})
    stream = AttemptStream(blocks, kernel, spans)
    diag = investigate.run(StreamSource(source, lambda: nullcontext(cast(BinaryIO, stream))), kb=kb)
    diag = replace(diag, bytes_read=journal.bytes_read)
    count = _widen(chosen, spans)
    for run in chosen:
        if not run.start_seen:
            reason = _missing_start(journal, run, count.get(run.invocation_id, 0))
            skipped.append(Skipped(f"start of attempt {run.invocation_id}", reason))
            notes.append(reason)
    diag = replace(diag, attempts=enrich_attempts(diag.attempts, chosen))
    notes[:0] = damaged = verified() if verified is not None else []
    now = unit_present(journal, runs, state, diag.attempts, diag.root_cause, health)
    section = unit_section(unit, runner, state, before, froze, freeze, chosen, first_of_loop, journal, notes,
                           diag.attempts, journal_args, now.now)
    return replace(
        with_interpreter(diag, state.python, None if copied else runner, unit),  # its environment, index, lines
        source=source,
        unit=state.facts(),
        state=now,
        sections=(section, *diag.sections),
        skipped=(*diag.skipped, *skipped, *journal_skipped(damaged, journal.warnings)),
    )


def _background(fn: Callable[..., list[str]], *args: Any) -> Callable[[], list[str]]:
    """Start fn(*args) in a thread; the returned call waits for its answer (and raises what it raised)."""
    out: list[list[str]] = []
    err: list[BaseException] = []

    def run() -> None:
        try:
            out.append(fn(*args))
        except BaseException as exc:  # handed to the caller, which reports it at the CLI
            err.append(exc)

    thread = threading.Thread(target=run, name="crashdoc-verify", daemon=True)
    thread.start()

    def wait() -> list[str]:
        thread.join()
        if err:
            raise err[0]
        return out[0]

    return wait


def _widen(runs: Sequence[Run], spans: Spans) -> dict[str, int]:
    """Widen each run to the first and last of its records that streamed past (its own output may begin before
    systemd's first record about it, or outlast its last); returns the records counted per invocation."""
    count: dict[str, int] = {}
    for run in runs:
        span = spans.spans.get(run.invocation_id)
        if span is None:
            continue
        run.first_usec = min(run.first_usec or span.first_usec, span.first_usec)
        run.last_usec = max(run.last_usec, span.last_usec)
        count[run.invocation_id] = span.records
    return count


def _missing_start(journal: Journal, run: Run, n_left: int) -> str:
    """Why an attempt's start is missing: the journal begins after it (rotated/vacuumed) or a gap."""
    first = iso(run.first_usec) or "?"
    if not journal.anything_before(run.first_usec):
        return (
            f"the journal begins at {first}, after attempt {run.invocation_id[:12]} started: its first lines were"
            f" rotated or vacuumed away; diagnosing the {n_left} records that are left"
        )
    return (
        f"systemd's start record of attempt {run.invocation_id[:12]} is not in the journal (its first surviving"
        f" record is at {first}); diagnosing the {n_left} records that are left"
    )


def _source(unit: str, runner: Runner, journal_args: Sequence[str]) -> str:
    if journal_args:
        paths = " ".join(a for a in journal_args if not a.startswith("-"))
        return f"unit {unit} in {paths}"
    return f"unit {unit} on {runner.host or 'this machine'}"
