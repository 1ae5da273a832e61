"""What a starting server's lines announce, from data/phases.yaml: the start phase, the engine's own progress
percentage, which engine it is, that it is ready, that it is going down."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from crashdoc.errors import CrashdocError
from crashdoc.parse.phases import load_document, load_phases

_NAMED = re.compile(r"\(\?P<\w+>")


@dataclass(frozen=True)
class WatchPhase:
    """One start phase as the live display sees it."""

    id: str
    title: str
    index: int
    """Position in the phase table (phases only move forward during one attempt)."""
    lines: tuple[re.Pattern[str], ...]
    """The analyzer's lines plus the `watch` ones, minus nothing (see `not_lines`)."""
    not_lines: tuple[re.Pattern[str], ...]
    progress: tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class Engine:
    """An inference server's start and readiness markers."""

    id: str
    name: str
    start: tuple[re.Pattern[str], ...]
    detect: tuple[re.Pattern[str], ...]
    ready: tuple[re.Pattern[str], ...]
    fatal: tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class Progress:
    """The engine's own progress within a phase."""

    pct: float
    done: int | None = None
    total: int | None = None

    def __str__(self) -> str:
        count = f" ({self.done}/{self.total})" if self.done is not None and self.total else ""
        return f"{self.pct:.0f}%{count}"


@dataclass(frozen=True)
class Markers:
    """The whole marker table; `quick` rejects the many lines that announce nothing."""

    phases: tuple[WatchPhase, ...]
    engines: tuple[Engine, ...]
    quick: re.Pattern[str]
    after_ready: re.Pattern[str]
    """A superset of what still matters once the server is up (fatal lines, errors, a restart's first line),
    searched in the raw line
    before it is parsed: a busy server's access log costs one search a line."""

    def phase_of(self, text: str) -> WatchPhase | None:
        """The phase this line announces on the live display, if any (first listed wins)."""
        for ph in self.phases:
            if any(rx.search(text) for rx in ph.lines) and not any(rx.search(text) for rx in ph.not_lines):
                return ph
        return None

    def progress_of(self, phase: WatchPhase, text: str) -> Progress | None:
        """The engine's own progress in `phase`, when this line states it."""
        for rx in phase.progress:
            m = rx.search(text)
            if not m:
                continue
            groups = m.groupdict()
            done = int(groups["done"]) if groups.get("done") else None
            total = int(groups["total"]) if groups.get("total") else None
            if groups.get("pct"):
                pct = float(groups["pct"])
            elif done is not None and total:
                pct = 100.0 * done / total
            else:
                continue
            return Progress(min(pct, 100.0), done, total)
        return None

    def engine_of(self, text: str) -> Engine | None:
        """The engine a banner line names."""
        for eng in self.engines:
            if any(rx.search(text) for rx in eng.detect):
                return eng
        return None

    def _engines(self, engine: Engine | None) -> Iterable[Engine]:
        return (e for e in self.engines if engine is None or e.id in (engine.id, "any"))

    def is_start(self, text: str) -> bool:
        """The first line a server prints when it starts."""
        return any(rx.search(text) for e in self.engines for rx in e.start)

    def is_ready(self, text: str, engine: Engine | None) -> bool:
        """The server says it is up (markers of the detected engine, or of every engine when unknown)."""
        return any(rx.search(text) for e in self._engines(engine) for rx in e.ready)

    def is_fatal(self, text: str, engine: Engine | None) -> bool:
        """The server says it is going down."""
        return any(rx.search(text) for e in self._engines(engine) for rx in e.fatal)


def _compile(patterns: Any, where: str) -> tuple[re.Pattern[str], ...]:
    out = []
    for p in patterns or ():
        try:
            out.append(re.compile(p))
        except (re.error, TypeError) as exc:
            raise CrashdocError(f"data/phases.yaml: bad regex in {where}: {p!r}: {exc}") from exc
    return tuple(out)


@lru_cache(maxsize=1)
def load_markers() -> Markers:
    """The packaged marker table (phases.yaml, read once)."""
    data = load_document()
    extra = {p["id"]: p for p in data.get("phases") or ()}
    phases = []
    for i, base in enumerate(load_phases()):
        more = extra.get(base.id, {})
        phases.append(WatchPhase(
            base.id, base.title, i,
            tuple(rx.compiled for rx in base.lines) + _compile(more.get("watch"), f"{base.id}.watch"),
            tuple(rx.compiled for rx in base.not_lines) + _compile(more.get("watch_not"), f"{base.id}.watch_not"),
            _compile(more.get("progress"), f"{base.id}.progress"),
        ))
    engines = tuple(
        Engine(
            e["id"], e.get("name", e["id"]),
            *(_compile(e.get(k), f"engines.{e['id']}.{k}") for k in ("start", "detect", "ready", "fatal")),
        )
        for e in data.get("engines") or ()
    )
    every = [rx.pattern for ph in phases for rx in (*ph.lines, *ph.progress)]
    every += [rx.pattern for e in engines for rx in (*e.start, *e.detect, *e.ready, *e.fatal)]
    quick = re.compile("|".join(f"(?:{_NAMED.sub('(?:', p)})" for p in every) or r"(?!)")
    fatal = [_unanchored(rx.pattern) for e in engines for rx in (*e.fatal, *e.start)]
    after_ready = re.compile("|".join([*(f"(?:{p})" for p in fatal), _ERROR_WORDS]))
    return Markers(tuple(phases), engines, quick, after_ready)


#: words any error line carries (levels, exception names, tracebacks)
_ERROR_WORDS = r"ERROR|CRITICAL|FATAL|Traceback|Error|Exception|Exit|Interrupt|Failure"


def _unanchored(pattern: str) -> str:
    """The pattern without a leading ^ or trailing $, so it also finds the line inside its prefixes (a superset)."""
    pattern = _NAMED.sub("(?:", pattern)
    pattern = pattern.removeprefix("^")
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1]
    return pattern
