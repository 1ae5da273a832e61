"""The parts of the model (crashdoc/model.py) a log file's diagnosis leaves empty: a service's unit facts, its
present state and its incident history, and the sections other stages add. `crashdoc.model` names them too; this
module is imported when one is first named (a file's diagnosis defines none of their classes at start)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Section:
    """An extra block of facts from another stage (unit state, environment)."""

    key: str
    """JSON key (`unit`, `environment`)."""
    title: str
    """Heading in the terminal and Markdown reports."""
    lines: tuple[str, ...]
    """Facts in plain words, most important first."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """The same facts for machines."""


@dataclass(frozen=True)
class UnitFacts:
    """What the service manager says about the unit that ran the service (typed; the `unit` section renders it)."""

    unit: str
    """Full unit name (`vllm.service`)."""
    host: str | None
    """Host as given to --host; None for this machine."""
    active_state: str | None
    sub_state: str | None
    n_restarts: int | None
    looping: bool
    """systemd will start it again by itself."""
    python: str | None
    """The Python interpreter the unit runs, when it could be told (ExecStart, the journal's _CMDLINE)."""
    working_directory: str | None
    summary: str
    """One line: `auto-restart loop, 14 restarts, last exit status 1`."""


@dataclass(frozen=True)
class LastFailure:
    """The newest attempt that failed, before the present one (`State.last_failure`)."""

    attempt: int | None
    """1-based position among the attempts read (the journal window or the container's starts)."""
    invocation_id: str | None
    at: str | None
    """When it ended (ISO 8601), when known."""
    message: str
    """Its root cause in short (`RuntimeError: flashinfer-cubin version ...`), or its outcome."""
    fingerprint: str | None = None
    category: str | None = None
    rule: str | None = None


@dataclass(frozen=True)
class State:
    """The present of a service, set against its last failure (analyze/state.py)."""

    now: str
    """`running` (up: ready line or health endpoint), `starting`, `failed`, `looping` (systemd or the container
    engine restarts it after failures), `stopped`."""
    since: str | None
    """ISO 8601: when it became ready (running), started (starting), or last ended."""
    last_failure: LastFailure | None
    ready: bool | None = None
    """The newest attempt said it is up (True), did not (False), or nothing tells (None: no engine lines)."""
    phase: str | None = None
    """The start phase of a starting attempt (`loading weights`)."""
    detail: str = ""
    """One line for the reports: `running and ready since 09:41 (12 min); the last failure was ...`."""

    @property
    def recovered(self) -> bool:
        """The last failure is followed by a healthy attempt that is still running (exit status 6)."""
        return self.now == "running" and self.ready is True and self.last_failure is not None


@dataclass(frozen=True)
class PastIncident:
    """An earlier incident with the same root cause, from the incident memory (crashdoc.history)."""

    host: str
    unit: str | None
    at: str
    """When it was first diagnosed (ISO 8601, UTC)."""
    fix_command: str | None = None
    """The fix applied to it, when one was recorded."""
    verdict: str | None = None
    """`fixed` (verified), `not_fixed`, `new_error`, or None (no verdict recorded)."""


@dataclass(frozen=True)
class History:
    """What the incident memory knows about this root cause (`Diagnosis.history`)."""

    fingerprint: str
    incident: int | None
    """Id of this diagnosis's incident in the memory (None when it was not recorded)."""
    seen_before: tuple[PastIncident, ...] = ()
    """Earlier incidents with the same fingerprint, the most telling first (a verified fix, then newest)."""
    total: int = 0
    """How many earlier incidents there are (seen_before is bounded)."""
    summary: str = ""
    """One line: "seen before: node-03, 2026-11-12 09:41 UTC, fixed by `...` (verified)", or "" when new."""
