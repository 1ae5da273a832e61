"""What `crashdoc fix` leaves in the incident memory (crashdoc.history): the diagnosis, the fix tried, every
command it ran with its exit status, and the verdict. A memory that cannot be used is said once, never an error."""

from __future__ import annotations

from collections.abc import Callable

from crashdoc.history import VERDICTS, HistoryError, Memory, host_name
from crashdoc.model import Diagnosis
from crashdoc.report.redact import Redactor


class FixLog:
    """Records one `crashdoc fix` run; every method is a no-op once the memory failed (and said why)."""

    def __init__(self, host: str | None, unit: str, note: Callable[[str], None]) -> None:
        self.host, self.unit, self.note = host_name(host), unit, note
        self.incident: int | None = None
        self.fix: int | None = None
        self.broken = False
        self.scrub = Redactor().text

    def _use(self, fn: Callable[[Memory], None]) -> None:
        if self.broken:
            return
        try:
            with Memory() as memory:
                fn(memory)
                for n in memory.notes:
                    self.note(f"history: {n}")
        except HistoryError as exc:
            self.broken = True
            self.note(f"history: {exc} (the fix goes on without it)")

    def diagnosed(self, diag: Diagnosis) -> None:
        """The diagnosis the fix starts from."""
        def write(m: Memory) -> None:
            history = m.record_diagnosis(diag, host=self.host, unit=self.unit, scrub=self.scrub)
            self.incident = history.incident if history is not None else None
        self._use(write)

    def started(self, command: str) -> None:
        """The fix is about to be applied."""
        if self.incident is None:
            return

        def write(m: Memory) -> None:
            assert self.incident is not None
            self.fix = m.start_fix(self.incident, self.scrub(command))
        self._use(write)

    def ran(self, command: str, status: int | None) -> None:
        """One command of the plan ran (the fix, the restart)."""
        if self.fix is not None:
            fix = self.fix
            self._use(lambda m: m.log_command(fix, self.scrub(command), status))

    def verdict(self, word: str, text: str) -> None:
        """How it ended (only fixed / not_fixed / new_error are verdicts; a timeout leaves none)."""
        if self.fix is not None and word in VERDICTS:
            fix = self.fix
            self._use(lambda m: m.record_verdict(fix, word, self.scrub(text)))  # type: ignore[arg-type]
