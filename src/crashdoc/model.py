"""The data model shared by every stage: frozen dataclasses, rendered by every report format."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Fix:
    """What to do about a finding."""

    text: str
    """The fix in plain words."""
    command: str | None = None
    """A command to run, built from the versions/values in the evidence; None when none is safe."""


@dataclass(frozen=True)
class Where:
    """Where an error happened."""

    process: str | None = None
    """Process role/name from the engine prefix (`Worker_TP3`, `EngineCore_DP0`, `APIServer`, `TP1`, a journald identifier)."""
    rank: int | None = None
    """Tensor/pipeline-parallel rank when the prefix names one."""
    pid: int | None = None
    """Process id when known."""
    frame: str | None = None
    """Innermost frame in engine/model code: `file.py:LINE in func: code`."""
    attempt: int | None = None
    """1-based start attempt the error belongs to."""
    host: str | None = None
    """Host name from the journal header, when known."""
    unit: str | None = None
    """systemd unit, when known."""
    phase: str | None = None
    """Start phase (import, load weights, profile memory, CUDA graphs, serving)."""


@dataclass(frozen=True)
class Evidence:
    """One input line shown as evidence."""

    lineno: int
    """1-based line number in the input."""
    text: str
    """The line as in the input (reports sanitise control characters)."""


@dataclass(frozen=True)
class Finding:
    """An error seen in the evidence, classified and with a fix."""

    line: str
    """The full input line that shows the error, exactly as in the input."""
    lineno: int
    """1-based line number of `line` (0 for findings not from the log, e.g. the environment)."""
    exception: str | None
    """Exception type, or None for a message without one."""
    message: str
    """The error message (prefixes stripped)."""
    category: str
    """Failure category (the taxonomy of the corpus FORMAT.md)."""
    fix: Fix
    """What to do."""
    where: Where = field(default_factory=Where)
    """Where it happened."""
    role: str = "cause"
    """`cause`, `consequence` (a wrapper/cascade message) or `unknown`."""
    rule: str | None = None
    """Id of the knowledge-base rule that classified it."""
    score: int = 0
    """Ranking score (higher ranks first)."""
    explanation: str = ""
    """What the error means, in plain words."""
    evidence: tuple[Evidence, ...] = ()
    """Lines that show it (the traceback tail, the chain, the surrounding context)."""
    count: int = 1
    """How many copies were folded into this finding (ranks, attempts)."""
    processes: tuple[str, ...] = ()
    """Every process that printed this error."""
    ranks: tuple[int, ...] = ()
    """Every rank that printed this error."""
    fingerprint: str = ""
    """Stable hash of type + normalised message, to fold copies across ranks and attempts."""
    source: str = "log"
    """`log`, `unit`, `kernel` or `environment`."""
    confirmation: str | None = None
    """What the environment says about it (confirmed / questioned), when checked."""
    confidence: str = "medium"
    """`high` (a cause rule matched an error), `medium` (an error no rule knows), `low` (inferred from a
    consequence, a warning or a cut traceback)."""
    confidence_reason: str = ""
    """Why, in one line."""


@dataclass(frozen=True)
class Attempt:
    """One start attempt of the service."""

    index: int
    """1-based."""
    started: str | None
    """Timestamp of its first line, as in the input."""
    ended: str | None
    """Timestamp of its last line, as in the input."""
    outcome: str
    """`failed`, `killed`, `crashed (signal)`, `exited 0`, `running`, `unknown`."""
    first_lineno: int = 0
    """First input line of the attempt."""
    last_lineno: int = 0
    """Last input line of the attempt."""
    exit_status: str | None = None
    """Exit status / signal as systemd or the shell reported it."""
    invocation_id: str | None = None
    """systemd invocation id, when known."""
    fingerprint: str | None = None
    """Fingerprint of the attempt's root cause."""
    root_message: str | None = None
    """Short form of the attempt's root cause."""


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
class Skipped:
    """Something that could not be checked, and why (a value, not an exception)."""

    what: str
    reason: str


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


@dataclass(frozen=True)
class Diagnosis:
    """The result of one investigation."""

    source: str
    """What was read (a path, `-`, `unit vllm.service on host`)."""
    root_cause: Finding | None
    """The error that started the failure, or None when no error was found."""
    findings: tuple[Finding, ...] = ()
    """All findings, ranked (root cause first)."""
    attempts: tuple[Attempt, ...] = ()
    """Start attempts, in order."""
    summary: str = ""
    """One line: what happened across attempts ("all 12 attempts failed with the same error")."""
    sections: tuple[Section, ...] = ()
    """Extra facts (unit state, environment)."""
    skipped: tuple[Skipped, ...] = ()
    """What could not be read or checked."""
    unit: UnitFacts | None = None
    """The unit's facts, when a unit was diagnosed."""
    state: State | None = None
    """The service's present against its last failure (units and containers; None for a log file)."""
    lines_read: int = 0
    """Input lines read."""
    bytes_read: int = 0
    """Input bytes read."""
    history: History | None = None
    """What the incident memory knows about the root cause (None: not recorded, e.g. a plain file)."""
