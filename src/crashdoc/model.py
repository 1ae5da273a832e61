"""The data model shared by every stage: frozen dataclasses, rendered by every report format."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crashdoc.model_service import History as History
    from crashdoc.model_service import LastFailure as LastFailure
    from crashdoc.model_service import PastIncident as PastIncident
    from crashdoc.model_service import Section as Section
    from crashdoc.model_service import State as State
    from crashdoc.model_service import UnitFacts as UnitFacts

_SERVICE = frozenset({"Section", "UnitFacts", "LastFailure", "State", "PastIncident", "History"})
"""The model's classes crashdoc/model_service.py defines: a log file's diagnosis needs none (a start-up cost)."""


def __getattr__(name: str) -> Any:
    """`crashdoc.model.History` and the other service parts, imported from crashdoc.model_service when first named."""
    if name in _SERVICE:
        from crashdoc import model_service

        return getattr(model_service, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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

    @property
    def headline(self) -> str:
        """The one line a report shows for it: the exception and its message's first line, or the line of a
        several-line error the analysis reported (`what():` after `terminate called ...`); the line itself when
        it holds a carriage return (the message is what a terminal showed after the last one)."""
        if "\r" in self.line.rstrip("\r"):
            return self.line
        msg = f"{self.exception}: {self.message}" if self.exception else self.message
        lines = (msg or self.line).splitlines() or [""]
        return next((t.strip() for t in lines[1:] if len(t.strip()) > 8 and t.strip() in self.line), lines[0])


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
class Skipped:
    """Something that could not be checked, and why (a value, not an exception)."""

    what: str
    reason: str


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
