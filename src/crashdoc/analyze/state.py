"""The present of a service, set against its last failure: running (and ready), starting, failed, looping, stopped.

A diagnosis reads the failed attempts; this module says what the service is doing *now*, so a unit that was
fixed by hand reads "running and ready since 09:41 (12 min); the last failure was attempt 7 at 09:16 — ..."
and not only the old error. Readiness comes from the engine's own lines (the `ready` markers of the engines in
data/phases.yaml, the start phase from parse/phases.py) and, when given, from one answer of a health endpoint.
The decisions are pure functions; `unit_present` reads the newest attempt through the Journal it is given, only
until its ready line. Containers: analyze/state_container.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from crashdoc.model import Attempt, Finding, LastFailure, State
from crashdoc.parse.phases import load_document, load_phases, phase_of_line
from crashdoc.parse.records import parse_json_record
from crashdoc.parse.runs import Run
from crashdoc.sources.journal_records import iso
from crashdoc.sources.journald import Journal
from crashdoc.sources.unit import UnitState
from crashdoc.sources.unit_show import describe_exit

#: the fields read of the newest attempt's records (is it up yet?)
START_FIELDS = ("MESSAGE", "__REALTIME_TIMESTAMP", "_SYSTEMD_INVOCATION_ID", "SYSLOG_IDENTIFIER", "_PID")


@dataclass(frozen=True)
class _Engine:
    id: str
    detect: tuple[re.Pattern[str], ...]
    ready: tuple[re.Pattern[str], ...]


@lru_cache(maxsize=1)
def _engines() -> tuple[_Engine, ...]:
    """The engines' detect and ready markers of data/phases.yaml (read once by parse/phases.py)."""
    out = []
    for e in load_document().get("engines") or ():
        out.append(_Engine(str(e["id"]), tuple(re.compile(p) for p in e.get("detect") or ()),
                           tuple(re.compile(p) for p in e.get("ready") or ())))
    return tuple(out)


@dataclass
class StartScan:
    """What the newest attempt's own lines say about its start."""

    lines: int = 0
    engine: str | None = None
    phase: str | None = None
    """Title of the furthest start phase announced."""
    ready_line: str | None = None
    ready_at: float | None = None
    """Seconds since the epoch of the ready line, when its time is known."""
    first_at: float | None = None
    last_at: float | None = None

    def feed(self, text: str, when: float | None) -> bool:
        """Take one line (prefixes stripped); True once the server said it is up."""
        self.lines += 1
        if when is not None:
            self.first_at = when if self.first_at is None else min(self.first_at, when)
            self.last_at = when if self.last_at is None else max(self.last_at, when)
        engines = _engines()
        if self.engine is None:
            self.engine = next((e.id for e in engines if any(rx.search(text) for rx in e.detect)), None)
        ph = phase_of_line(text)
        if ph is not None:
            order = [p.id for p in load_phases()]
            current = next((p for p in load_phases() if p.title == self.phase), None)
            if current is None or order.index(ph.id) > order.index(current.id):
                self.phase = ph.title
        wanted = [e for e in engines if self.engine is None or e.id in (self.engine, "any")]
        if any(rx.search(text) for e in wanted for rx in e.ready):
            self.ready_line, self.ready_at = text, when
            return True
        return False


def scan_records(records: Iterable[Mapping[str, Any]]) -> StartScan:
    """Scan journal records of one attempt until its ready line (the rest is not read)."""
    scan = StartScan()
    for rec in records:
        line = parse_json_record(scan.lines + 1, rec)
        usec = rec.get("__REALTIME_TIMESTAMP")
        when = int(usec) / 1e6 if isinstance(usec, str) and usec.isdigit() else None
        if line is not None and scan.feed(line.text, when):
            break
    return scan


def newest_attempt_scan(journal: Journal, run: Run) -> StartScan:
    """Read the newest attempt's own output (only until its ready line): is it up, which phase is it in?"""
    stream = journal.stream([f"_SYSTEMD_INVOCATION_ID={run.invocation_id}"],
                            purpose="the newest attempt's output (is it up?)", fields=START_FIELDS)
    try:
        return scan_records(r.fields for r in stream)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()  # stops journalctl at the ready line: a server's request log is not read


def clock(ts: str | None) -> float | None:
    """Seconds since the epoch of an ISO 8601 time (journal or docker, nanoseconds allowed); None if unknown."""
    if not ts:
        return None
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:?\d\d)?", ts.strip())
    if not m:
        return None
    zone = (m.group(3) or "+00:00").replace("Z", "+00:00")
    try:
        base = datetime.fromisoformat(m.group(1) + zone).timestamp()
    except ValueError:
        return None
    return base + (float(m.group(2)) if m.group(2) else 0.0)


def when_text(t: float | None, now: float) -> str:
    """`09:41 UTC` today, `2025-11-01 09:41 UTC` on another day, `?` when unknown."""
    if t is None:
        return "?"
    d = datetime.fromtimestamp(t, tz=timezone.utc)
    same_day = d.date() == datetime.fromtimestamp(now, tz=timezone.utc).date()
    return d.strftime("%H:%M UTC" if same_day else "%Y-%m-%d %H:%M UTC")


def duration(s: float) -> str:
    """`40 s`, `12 min`, `2 h 05 min`, `3 days`."""
    s = max(s, 0.0)
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{s // 60:.0f} min"
    if s < 2 * 86400:
        return f"{s // 3600:.0f} h {s % 3600 // 60:02.0f} min"
    return f"{s // 86400:.0f} days"


def _at(t: float | None, now: float, live: bool) -> str:
    """`09:41 UTC (12 min)` on a live host; without the age on a copied journal."""
    text = when_text(t, now)
    return f"{text} ({duration(now - t)} ago)" if live and t is not None else text


def _failure_text(lf: LastFailure, now: float, live: bool) -> str:
    n = f"attempt {lf.attempt}" if lf.attempt else "the last failed attempt"
    return f"the last failure was {n} at {_at(clock(lf.at), now, live)} — {lf.message}"


def last_unit_failure(runs: Sequence[Run], attempts: Sequence[Attempt], root: Finding | None) -> LastFailure | None:
    """The newest failed attempt among the runs read, with its root cause from the diagnosis."""
    failed = [(i, r) for i, r in enumerate(runs, 1) if r.ended and r.failed]
    if not failed:
        return None
    index, run = failed[-1]
    att = next((a for a in attempts if a.invocation_id == run.invocation_id), None)
    message = (att.root_message if att is not None else None) or ""
    fingerprint = att.fingerprint if att is not None else None
    if root is not None and (not message or fingerprint == root.fingerprint):
        message = f"{root.exception}: {root.message}" if root.exception else root.message
        fingerprint = root.fingerprint
    if not message:
        message = f"{run.outcome}" + (f" ({describe_exit(run.exit_code, run.exit_status)})" if run.exit_code else "")
    same = root is not None and fingerprint == root.fingerprint
    return LastFailure(index, run.invocation_id, iso(run.last_usec), message.splitlines()[0][:300], fingerprint,
                       root.category if same and root else None, root.rule if same and root else None)


def unit_now(runs: Sequence[Run], scan: StartScan | None, last: LastFailure | None, *, active: str | None,
             sub: str | None, live: bool, health: tuple[bool, str] | None = None, now: float | None = None) -> State:
    """The unit's present: from systemd's state (active, sub), its newest attempt (runs[-1]) and what that
    attempt's lines say (scan), set against the last failure."""
    now = time.time() if now is None else now
    newest = runs[-1] if runs else None
    if newest is not None and not newest.ended and active in (None, "active", "activating", "reloading"):
        started = newest.first_usec / 1e6 if newest.first_usec else None
        prev = runs[-2] if len(runs) > 1 else None
        auto = prev is not None and prev.failed and prev.restart_counter is not None
        return live_state(scan, last, started, auto, live, health, now)
    end = newest.last_usec / 1e6 if newest is not None and newest.last_usec else None
    if sub == "auto-restart":
        return ended_state("looping", end, last, live, now, "systemd restarts it")
    if active == "failed" or (newest is not None and newest.failed):
        return ended_state("failed", end, last, live, now, "")
    return ended_state("stopped", end, last, live, now, "")


def live_state(scan: StartScan | None, last: LastFailure | None, started: float | None, auto: bool, live: bool,
                  health: tuple[bool, str] | None, now: float) -> State:
    """A running process: up (ready line or health), still starting, or starting again in a restart loop."""
    scan = scan or StartScan()
    started = started or scan.first_at
    ready: bool | None = scan.ready_line is not None
    how = f"it printed {scan.ready_line!r}" if scan.ready_line else ""
    if health is not None:
        ready, how = health[0], f"its health endpoint answered {health[1]}"
    elif not ready and scan.lines and scan.engine is None and scan.phase is None:
        ready = None  # lines, but none of an engine crashdoc knows: nothing tells whether it is up
    tail = f"; {_failure_text(last, now, live)} (resolved since?)" if last is not None else ""
    if ready is None:
        text = f"running since {_at(started, now, live)}; readiness unknown (no engine ready line; pass --health URL)"
        return State("running", iso(int(started * 1e6)) if started else None, last, None, None, text + tail)
    if ready:
        at = scan.ready_at if scan.ready_at is not None and health is None else started
        text = f"running and ready since {_at(at, now, live)} ({how})"
        return State("running", iso(int(at * 1e6)) if at else None, last, True, scan.phase, text + tail)
    phase = scan.phase or "starting"
    age = f" for {duration(now - started)}" if live and started is not None else ""
    since = iso(int(started * 1e6)) if started else None
    if auto:
        text = f"looping: a new attempt (an automatic restart) is {phase}{age}"
        tail = f"; {_failure_text(last, now, live)}" if last is not None else ""
        return State("looping", since, last, False, scan.phase, text + (f" ({how})" if how else "") + tail)
    text = f"starting since {_at(started, now, live)}: {phase}{age}" + (f" ({how})" if how else "")
    tail = f"; {_failure_text(last, now, live)}" if last is not None else ""
    return State("starting", since, last, False, scan.phase, text + tail)


def ended_state(now_word: str, end: float | None, last: LastFailure | None, live: bool, now: float, why: str) -> State:
    text = {"looping": "looping", "failed": "failed", "stopped": "stopped"}[now_word]
    text += f" since {_at(end, now, live)}" if end is not None else ""
    text += f" ({why})" if why else ""
    if last is not None:
        text += f"; {_failure_text(last, now, live)}"
    return State(now_word, iso(int(end * 1e6)) if end else None, last, False if now_word != "stopped" else None,
                 None, text)


def unit_present(journal: Journal, runs: Sequence[Run], unit: UnitState, attempts: Sequence[Attempt],
                 root: Finding | None, health: tuple[bool, str] | None = None) -> State:
    """The unit's State: its newest attempt's lines read (until the ready line) when it is still running."""
    last = last_unit_failure(runs, attempts, root)
    newest = runs[-1] if runs else None
    scan = newest_attempt_scan(journal, newest) if newest is not None and not newest.ended else None
    return unit_now(runs, scan, last, active=unit.active_state, sub=unit.sub_state, live=unit.source == "systemctl",
                    health=health)


