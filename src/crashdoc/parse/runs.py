"""systemd's records about a unit -> its start attempts (Run): when each began and ended, how, and what systemd
did next. The records come from sources/journald.py; each one is read through parse/systemd.py's interpreter."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from crashdoc.parse.systemd import interpret
from crashdoc.sources.journal_records import Record, iso
from crashdoc.sources.unit_show import describe_exit

#: seconds of kernel records read before an attempt's start and after its end
KERNEL_MARGIN = 10.0


@dataclass
class Run:
    """One start attempt (invocation) of the unit, as systemd's records describe it."""

    invocation_id: str
    first_usec: int = 0
    last_usec: int = 0
    start_seen: bool = False
    """systemd's `Starting`/`Started` record for this invocation is in the journal."""
    exit_code: str | None = None
    exit_status: int | None = None
    result: str | None = None
    """`exit-code`, `signal`, `core-dump`, `oom-kill`, `timeout`, `start-limit-hit`, `success` ..."""
    restart_counter: int | None = None
    """The restart counter systemd scheduled after this attempt (`restart counter is at N`)."""
    ended: bool = False
    stop_requested: bool = False
    """Someone stopped it (systemctl stop / restart by hand, or crashdoc --freeze)."""
    start_limit_hit: bool = False
    records: int = 0

    def add(self, rec: Record) -> None:
        """Fold one of systemd's records about this invocation into the run."""
        t = rec.usec
        self.first_usec = min(self.first_usec, t) if self.first_usec else t
        self.last_usec = max(self.last_usec, t)
        self.records += 1
        b = interpret(rec.get("MESSAGE") or "", rec.fields)
        if b is None:
            return
        if b.kind in ("starting", "started"):
            self.start_seen = True
        elif b.kind == "exited":
            if b.main:
                self.exit_code = b.exit_code
                self.exit_status = b.status_number if b.status_number is not None else self.exit_status
            self.ended = True
        elif b.kind == "failed":
            self.result = b.result or self.result
            self.ended = True
        elif b.kind == "success":
            self.result = self.result or "success"
            self.ended = True
        elif b.kind == "restart":
            if b.restart_counter is not None:
                self.restart_counter = b.restart_counter
            self.ended = True
        elif b.kind == "gave_up":
            self.start_limit_hit = True
            self.result = "start-limit-hit"
        elif b.kind == "stopping":
            if not self.result:
                self.stop_requested = True
            self.ended = True
        elif b.kind == "stopped" and b.job != "restart":
            self.ended = True
        elif b.kind == "oom":
            self.result = "oom-kill"

    @property
    def failed(self) -> bool:
        """It ended by itself with a failure (not stopped by request, not exit 0)."""
        if self.result and self.result not in ("success",):
            return True
        if self.exit_code in ("killed", "dumped"):
            return not self.stop_requested
        return self.exit_code == "exited" and (self.exit_status or 0) != 0

    @property
    def outcome(self) -> str:
        """`failed`, `killed`, `crashed (signal)`, `exited 0`, `stopped`, `running` or `unknown`."""
        if not self.ended:
            return "running"
        if self.result == "oom-kill":
            return "killed"
        if self.exit_code == "dumped" or self.result == "core-dump":
            return "crashed (signal)"
        if self.exit_code == "killed" or self.result == "signal":
            return "stopped" if self.stop_requested else "killed"
        if self.exit_code == "exited" and self.exit_status == 0:
            return "exited 0"
        if self.failed:
            return "failed"
        if self.stop_requested:
            return "stopped"
        return "unknown"

    def data(self) -> dict[str, Any]:
        """The run for the JSON report."""
        return {
            "invocation_id": self.invocation_id,
            "started": iso(self.first_usec),
            "ended": iso(self.last_usec) if self.ended else None,
            "outcome": self.outcome,
            "result": self.result,
            "exit_status": describe_exit(self.exit_code, self.exit_status),
            "restart_counter_after": self.restart_counter,
            "start_in_journal": self.start_seen,
        }


def runs_from_records(records: Iterable[Record]) -> list[Run]:
    """Group systemd's records about a unit by INVOCATION_ID into attempts, oldest first."""
    runs: dict[str, Run] = {}
    for rec in records:
        inv = rec.get("INVOCATION_ID")
        if not inv:
            continue
        runs.setdefault(inv, Run(inv)).add(rec)
    return sorted(runs.values(), key=lambda r: r.first_usec)


def runs_from_output(records: Iterable[Record]) -> list[Run]:
    """Attempts from the invocation ids on the unit's own output (when systemd's records are missing), oldest
    first; all but the newest have ended."""
    runs: dict[str, Run] = {}
    for rec in records:
        inv = rec.get("_SYSTEMD_INVOCATION_ID")
        if not inv:
            continue
        run = runs.setdefault(inv, Run(inv))
        t = rec.usec
        run.first_usec = min(run.first_usec, t) if run.first_usec else t
        run.last_usec = max(run.last_usec, t)
    ordered = sorted(runs.values(), key=lambda r: r.first_usec)
    for run in ordered[:-1]:
        run.ended = True
    return ordered


def windows(runs: Sequence[Run], margin: float = KERNEL_MARGIN) -> list[tuple[int, int]]:
    """The runs' time spans widened by `margin` seconds, overlapping ones merged."""
    spans = sorted(
        (r.first_usec - int(margin * 1e6), (r.last_usec or r.first_usec) + int(margin * 1e6))
        for r in runs if r.first_usec
    )
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


