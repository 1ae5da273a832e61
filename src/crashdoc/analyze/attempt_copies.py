"""The analysis' side of attempts that repeat an earlier one (parse/regions.py): which regions were read whole as
exactly one attempt (registered, so that later copies are skipped), which attempts are copies, and their
verdicts: a copy's attempt takes the top error of the attempt it repeats, and is never the one reported."""

from __future__ import annotations

from collections.abc import Callable

from crashdoc.analyze.attempts import AttemptTracker
from crashdoc.analyze.rank import Group
from crashdoc.parse.regions import RegionFold


class AttemptCopies:
    """Fed the first line of every region, after the attempt tracker read it."""

    def __init__(self, regions: RegionFold) -> None:
        self.regions = regions
        self.of: dict[int, int] = {}
        """A copy's attempt -> the attempt it repeats."""
        self._open: tuple[int, int, int] | None = None
        """(first line, fingerprint, attempt) of the region being read whole."""

    def start(self, lineno: int, before: int, tracker: AttemptTracker) -> None:
        """Line `lineno` begins a region; the tracker had `before` attempts before it read the line."""
        fingerprint, model = self.regions.starts.pop(lineno)
        attempts = tracker.attempts
        opened = len(attempts) == before + 1 and attempts[-1].first_lineno == lineno
        o = self._open
        # NOTE: the region just ended was exactly one attempt: it opened it, no other began inside, the next opens one
        if o is not None and opened and before == o[2] and attempts[o[2] - 1].first_lineno == o[0]:
            self.regions.register(o[1], o[2])
        self._open = None
        if model is not None:
            if opened:
                self.of[before + 1] = model
                attempts[-1].error_seen = attempts[model - 1].error_seen  # (a banner after it then means a restart)
        elif opened and fingerprint is not None:
            self._open = (lineno, fingerprint, before + 1)

    def verdicts(self, ranked: dict[int, list[Group]], light: Callable[[list[Group]], list[Group]]) -> None:
        """Give every copy's attempt the top error of the attempt it repeats (in place)."""
        for copy, model in self.of.items():
            if model in ranked:
                ranked[copy] = light(ranked[model][:1])
            else:
                ranked.pop(copy, None)
