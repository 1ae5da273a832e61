"""The contract of an environment check: a context in, a CheckResult out; and the EnvReport they add up to."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from crashdoc.envdoctor.errors import CheckSkipped
from crashdoc.model import Evidence, Finding, Fix, Section, Skipped, Where
from crashdoc.transport import Runner

if TYPE_CHECKING:
    from crashdoc.envdoctor.facts import ProbeFacts
    from crashdoc.envdoctor.table import Table


@dataclass(frozen=True)
class Subject:
    """What an environment finding is about, so that a root cause from the log can be matched against it."""

    packages: tuple[str, ...] = ()
    """Canonical names of the packages involved."""
    paths: tuple[str, ...] = ()
    """Files involved (a modified file, a core dump)."""
    summary: str = ""
    """The facts in a few words: `flashinfer-python 0.6.4, flashinfer-cubin 0.6.3 installed in /venv`."""


@dataclass(frozen=True)
class EnvFinding:
    """A finding of a check and its subject."""

    finding: Finding
    subject: Subject


@dataclass(frozen=True)
class CheckResult:
    """What one check found: findings, facts in words (section lines) and for machines, what it skipped."""

    findings: tuple[EnvFinding, ...] = ()
    lines: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)
    skipped: tuple[Skipped, ...] = ()


@dataclass(frozen=True)
class CheckContext:
    """Everything a check may use: the runner, the target interpreter, the probe's facts and the options."""

    runner: Runner
    python: str
    table: Table
    probe: ProbeFacts | None
    probe_error: str | None
    verify: str = "serving"
    since: datetime | None = None
    workdir: str | None = None
    port: int | None = None
    selected: frozenset[str] = frozenset()

    def facts(self) -> ProbeFacts:
        """The probe's facts, or CheckSkipped with the reason the probe did not answer."""
        if self.probe is None:
            raise CheckSkipped(f"needs the probe, which did not run in {self.python}" if self.probe_error
                               else "needs the probe, which was not asked for")
        return self.probe

    def since_epoch(self) -> float | None:
        """The first failure as epoch seconds; a naive time is read as the target host's local time."""
        if self.since is None:
            return None
        if self.since.tzinfo is not None:
            return self.since.timestamp()
        offset = self.probe.utc_offset if self.probe else 0
        return self.since.replace(tzinfo=timezone.utc).timestamp() - offset


@dataclass(frozen=True)
class EnvCheck:
    """One check in the registry."""

    name: str
    """Registry key, used with `--check`."""
    title: str
    """One line for `crashdoc env --list-checks`."""
    run: Callable[[CheckContext], CheckResult]
    needs: frozenset[str] = frozenset()
    """Probe sections it reads: dists, integrity, debris, host."""
    default: bool = True
    """Runs without being asked for."""


@dataclass(frozen=True)
class EnvReport:
    """The result of check_environment."""

    findings: tuple[Finding, ...]
    """Environment findings, strongest first (source="environment", line="", lineno=0)."""
    section: Section
    """The facts for every report format (key "environment")."""
    skipped: tuple[Skipped, ...]
    """Checks that could not run, with the reason."""
    facts: Mapping[str, Any]
    """Versions, interpreter, host facts, per-check data (the same as section.data)."""
    subjects: Mapping[str, Subject] = field(default_factory=dict)
    """What each finding is about, by its fingerprint (used by apply_to_diagnosis)."""


def env_finding(
    check: str,
    key: str,
    message: str,
    category: str,
    fix: Fix,
    *,
    score: int,
    role: str = "cause",
    explanation: str = "",
    evidence: tuple[str, ...] = (),
    host: str | None = None,
    subject: Subject = Subject(),
    exception: str | None = None,
) -> EnvFinding:
    """Build an environment finding with its stable fingerprint `env:<check>:<key>`."""
    finding = Finding(
        line="",
        lineno=0,
        exception=exception,
        message=message,
        category=category,
        fix=fix,
        where=Where(host=host),
        role=role,
        rule=f"env.{check}",
        score=score,
        explanation=explanation,
        evidence=tuple(Evidence(0, text) for text in evidence),
        fingerprint=f"env:{check}:{key}",
        source="environment",
    )
    return EnvFinding(finding, subject)
