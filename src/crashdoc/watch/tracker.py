"""Where one start attempt is: the phases it went through, the engine's progress, ready, going down, errors."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crashdoc.parse.errors import is_error_line
from crashdoc.parse.exceptions import split_exception
from crashdoc.parse.lines import LogLine
from crashdoc.watch.markers import Engine, Markers, Progress, WatchPhase


@dataclass
class PhaseRecord:
    """A phase the attempt reached."""

    phase: WatchPhase
    first: float
    """Wall-clock time its first line was seen."""
    last: float
    progress: Progress | None = None


@dataclass(frozen=True)
class Event:
    """Something the display reports as one line."""

    kind: str
    """`engine`, `phase`, `progress`, `ready`, `fatal`, `error`."""
    at: float
    """Wall-clock time."""
    text: str
    phase: str | None = None
    """Phase id, for `phase` and `progress` events."""
    pct: float | None = None
    """Progress percentage, for `progress` events."""


@dataclass
class StartTracker:
    """Feed an attempt's lines in order; it keeps what the live display and the report say about the start."""

    markers: Markers
    clock: Callable[[], float] = time.time
    started: float = 0.0
    reached: list[PhaseRecord] = field(default_factory=list)
    engine: Engine | None = None
    ready_at: float | None = None
    ready_line: str | None = None
    fatal_at: float | None = None
    fatal_line: str | None = None
    errors: int = 0
    first_error: str | None = None
    last_error: str | None = None
    lines: int = 0
    last_line_at: float | None = None

    def __post_init__(self) -> None:
        if not self.started:
            self.started = self.clock()

    @property
    def current(self) -> PhaseRecord | None:
        """The phase the attempt is in (the furthest one reached)."""
        return self.reached[-1] if self.reached else None

    @property
    def progressed(self) -> bool:
        """The attempt is past its first lines (a new start banner now means a restart)."""
        return bool(self.errors or self.ready_at or self.fatal_at or (self.current and self.current.phase.index > 0))

    def feed(self, line: LogLine, when: float | None = None) -> list[Event]:
        """Take one line; returns what it changed."""
        now = self.clock() if when is None else when
        self.lines += 1
        self.last_line_at = now
        text = line.text
        events: list[Event] = []
        if text.startswith("Traceback (most recent call last)") or is_error_line(line):
            self._error(text, now, events)
        if not self.markers.quick.search(text):
            return events
        if self.engine is None:
            eng = self.markers.engine_of(text)
            if eng is not None:
                self.engine = eng
                events.append(Event("engine", now, eng.name))
        if self.fatal_at is None and self.markers.is_fatal(text, self.engine):
            self.fatal_at, self.fatal_line = now, text
            events.append(Event("fatal", now, text))
        if self.ready_at is not None:
            return events
        ph = self.markers.phase_of(text)
        if ph is not None:
            self._phase(ph, text, now, events)
        if self.markers.is_ready(text, self.engine):
            self.ready_at, self.ready_line = now, text
            serving = self.markers.phases[-1]
            if not self.current or self.current.phase.index < serving.index:
                self._phase(serving, text, now, events)
            events.append(Event("ready", now, text))
        return events

    def _error(self, text: str, now: float, events: list[Event]) -> None:
        self.errors += 1
        if split_exception(text.strip())[0] is not None:
            self.last_error = text
            if self.first_error is None:
                self.first_error = text
                events.append(Event("error", now, text))

    def _phase(self, ph: WatchPhase, text: str, now: float, events: list[Event]) -> None:
        cur = self.current
        if cur is None or ph.index > cur.phase.index:
            if cur is not None:
                cur.last = now
            cur = PhaseRecord(ph, now, now)
            self.reached.append(cur)
            events.append(Event("phase", now, ph.title, ph.id))
        elif ph.index < cur.phase.index:
            return
        cur.last = now
        prog = self.markers.progress_of(ph, text)
        if prog is not None and prog != cur.progress:
            cur.progress = prog
            events.append(Event("progress", now, f"{ph.title} {prog}", ph.id, prog.pct))

    def status(self) -> str:
        """Where the attempt is, in a few words: `loading weights 50% (32/64)`."""
        if self.ready_at is not None:
            return f"ready after {fmt_seconds(self.ready_at - self.started)}"
        cur = self.current
        if cur is None:
            return "starting"
        return cur.phase.title + (f" {cur.progress}" if cur.progress else "")

    def data(self, now: float | None = None) -> dict[str, Any]:
        """The start as facts for the report (`phases`, `ready`, `engine` ...)."""
        now = self.clock() if now is None else now
        phases = []
        for i, rec in enumerate(self.reached):
            end = self.reached[i + 1].first if i + 1 < len(self.reached) else (self.ready_at or now)
            phases.append({
                "id": rec.phase.id, "title": rec.phase.title, "seconds": round(max(end - rec.first, 0.0), 3),
                "progress": rec.progress.pct if rec.progress else None,
            })
        return {
            "engine": self.engine.id if self.engine else None,
            "phase": self.current.phase.id if self.current else None,
            "phases": phases,
            "ready": self.ready_at is not None,
            "ready_after_seconds": round(self.ready_at - self.started, 3) if self.ready_at else None,
            "fatal_line": self.fatal_line,
            "error_lines": self.errors,
            "lines": self.lines,
        }


def fmt_seconds(s: float) -> str:
    """`4.2 s`, `3 min 05 s`, `1 h 02 min`."""
    s = max(s, 0.0)
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(s % 60):02d} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"
