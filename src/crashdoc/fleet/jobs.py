"""What a fleet does on each host: the same single-host diagnosis as `crashdoc diagnose UNIT --host H` (or a
container's), so each host's report is the single-host object."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from crashdoc.fleet.targets import Target
from crashdoc.kb import KnowledgeBase
from crashdoc.model import Diagnosis, Skipped
from crashdoc.sources.container import container_target
from crashdoc.transport import Runner, check_unit_name


@dataclass(frozen=True)
class DiagnoseJob:
    """`crashdoc diagnose TARGET` with the same options on every host."""

    target: str
    """A systemd unit, or `docker:NAME` / `podman:NAME`."""
    kb: KnowledgeBase
    since: str | None = None
    attempts: int | None = None
    freeze: bool = False
    journal_args: tuple[str, ...] = ()
    python: str | None = None
    env: bool = False
    """Also check the environment of the Python the unit runs (as `diagnose --env`)."""

    def __post_init__(self) -> None:
        """Refuse a bad target once, before any host is contacted."""
        if container_target(self.target) is None:
            check_unit_name(self.target)

    @property
    def what(self) -> str:
        """`unit vllm.service` / `container docker:vllm`, for the fleet report's heading."""
        if container_target(self.target) is not None:
            return f"container {self.target}"
        from crashdoc.sources.unit import normalize_unit

        return f"unit {normalize_unit(self.target)}"

    def warm(self) -> None:
        """Build the scanner once before the hosts start: its hyperscan database is compiled (or loaded) once
        per process, and threads that all found it missing would each compile it."""
        from crashdoc.analyze.feed import make_scanner

        make_scanner(self.kb)

    def __call__(self, host: Target, runner: Runner, announce: Callable[[str], None]) -> Diagnosis:
        """The host's diagnosis (raises CrashdocError subclasses as the single-host command does)."""
        container = container_target(self.target)
        if container is not None:
            from crashdoc.investigate.container import diagnose_container

            diag = diagnose_container(runner, container[0], container[1], kb=self.kb, freeze=self.freeze,
                                      since=self.since, announce=announce)
        else:
            from crashdoc.investigate.unit import diagnose_unit

            diag = diagnose_unit(runner, self.target, since=self.since, attempts=self.attempts, freeze=self.freeze,
                                 journal_args=self.journal_args, announce=announce, kb=self.kb)
        python = self.python
        if self.env and not python:
            python = diag.unit.python if diag.unit is not None else None
            if not python:
                why = "cannot tell which Python the unit runs (ExecStart); pass --python PATH"
                return replace(diag, skipped=(*diag.skipped, Skipped("environment (--env)", why)))
        if python:
            from crashdoc.envdoctor import apply_to_diagnosis, check_environment, since_from_diagnosis

            workdir = diag.unit.working_directory if diag.unit is not None else None
            report = check_environment(runner, python, since=since_from_diagnosis(diag), workdir=workdir)
            diag = apply_to_diagnosis(diag, report)
        return diag
