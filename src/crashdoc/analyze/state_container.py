"""The present of a container (analyze/state.py for units): the engine's state (`inspect`) and the lines of its
newest run, scanned for the start phase and the ready line as the log passes into the pipeline (read once)."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO

from crashdoc.analyze.state import StartScan, clock, ended_state, live_state
from crashdoc.model import Attempt, LastFailure, State
from crashdoc.parse.lines import parse_line
from crashdoc.sources.container import ContainerFacts
from crashdoc.sources.interface import ByteSource


def container_now(*, running: bool, restarting: bool, exit_code: int | None, started_at: str | None,
                  finished_at: str | None, engine_health: str | None, attempts: Sequence[Attempt],
                  current: int | None, scan: StartScan | None, health: tuple[bool, str] | None,
                  live: bool = True, now: float | None = None) -> State:
    """A container's present, from the engine's state and the newest run's lines, against its last failure."""
    now = time.time() if now is None else now
    failed = [a for a in attempts if (a.index != current or not running or restarting) and (
        a.fingerprint or a.outcome.startswith(("failed", "killed", "crashed")))]
    last = None
    if failed:
        a = failed[-1]
        last = LastFailure(a.index, None, a.ended, (a.root_message or a.outcome).splitlines()[0][:300], a.fingerprint)
    if restarting:
        return ended_state("looping", clock(finished_at), last, live, now, "the container engine restarts it")
    if running:
        if health is None and engine_health in ("healthy", "unhealthy"):
            health = (engine_health == "healthy", f"{engine_health} (the container's healthcheck)")
        return live_state(scan, last, clock(started_at), False, live, health, now)
    word = "stopped" if exit_code in (0, None) else "failed"
    return ended_state(word, clock(finished_at), last, live, now, "")


class _Tee(io.RawIOBase):
    """Passes a log through unchanged; the lines from `since` on (docker's RFC 3339 stamps, compared to the
    second) go to the scan until the ready line."""

    def __init__(self, stream: BinaryIO, scan: StartScan, since: bytes) -> None:
        self.stream, self.scan, self.since = stream, scan, since
        self.pending = b""
        self.done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        data = self.stream.read(len(buf))
        if not data:
            return 0
        buf[: len(data)] = data
        if not self.done:
            *lines, self.pending = (self.pending + data).split(b"\n")
            for raw in lines:
                if raw[:19] >= self.since and not self.done:
                    line = parse_line(self.scan.lines + 1, raw)
                    self.done = self.scan.feed(line.text, clock(line.ts))
        return len(data)


class StartTee(ByteSource):
    """A container's log on its way into the pipeline: the newest run's lines (from `started_at`) are scanned for
    its start phase and ready line as they pass, so the log is read once."""

    def __init__(self, inner: ByteSource, started_at: str | None) -> None:
        self.inner, self.label = inner, inner.label
        self.scan = StartScan() if started_at else None
        self.since = (started_at or "")[:19].encode()

    @contextmanager
    def open(self) -> Iterator[BinaryIO]:
        with self.inner.open() as stream:
            if self.scan is None:
                yield stream
                return
            yield io.BufferedReader(_Tee(stream, self.scan, self.since), buffer_size=1 << 20)


def container_present(facts: ContainerFacts, attempts: Sequence[Attempt], current: int | None,
                      scan: StartScan | None, health: tuple[bool, str] | None = None) -> State:
    """A container's State from its facts (`inspect`) and its newest run's lines (a StartTee's scan)."""
    running = facts.running and not facts.restarting
    return container_now(running=facts.running, restarting=facts.restarting, exit_code=facts.exit_code,
                         started_at=facts.started_at, finished_at=facts.finished_at, engine_health=facts.health,
                         attempts=attempts, current=current, scan=scan if running else None, health=health)
