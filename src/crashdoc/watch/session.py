"""What `run` and `watch` share: the attempt's capture and tracker, the display, the health poller, the
knowledge base (loaded once, in the background), and turning the attempt into a Diagnosis and reports."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from crashdoc.errors import InputError
from crashdoc.kb import KnowledgeBase
from crashdoc.model import Diagnosis, Section
from crashdoc.parse.lines import LogLine, parse_line
from crashdoc.report import render
from crashdoc.watch.capture import Capture
from crashdoc.watch.display import Display
from crashdoc.watch.health import HealthPoller
from crashdoc.watch.markers import load_markers
from crashdoc.watch.tracker import Event, StartTracker, fmt_seconds


class KbLoader:
    """Loads the knowledge base once; in a background thread unless user rule folders are given (then at once,
    so a broken rule file is reported before anything starts)."""

    def __init__(self, rules: Sequence[str] = ()) -> None:
        self._dirs = tuple(Path(d) for d in rules)
        self._kb: KnowledgeBase | None = None
        self._error: BaseException | None = None
        if self._dirs:
            self._load()
            if self._error is not None:
                raise self._error
            self._thread: threading.Thread | None = None
        else:
            self._thread = threading.Thread(target=self._load, name="crashdoc-kb", daemon=True)
            self._thread.start()

    def _load(self) -> None:
        try:
            self._kb = KnowledgeBase.load(extra_dirs=self._dirs)
        except BaseException as exc:
            self._error = exc

    def get(self) -> KnowledgeBase:
        """The knowledge base (waits for the background load)."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._kb is not None
        return self._kb


def writable(path: str, what: str) -> str:
    """Refuse an output path whose folder does not exist or is not writable, before anything starts."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise InputError(f"{what} {path} is a directory; give a file name")
    if not os.path.isdir(folder):
        raise InputError(f"{what} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise InputError(f"{what} {path}: permission denied")
    return path


class Session:
    """One watched start (or several, when the service restarts and the watch goes on)."""

    def __init__(self, title: str, *, display: str = "auto", health_url: str | None = None,
                 rules: Sequence[str] = (), stream: TextIO | None = None, health_interval: float = 1.0) -> None:
        self.markers = load_markers()
        self.kb = KbLoader(rules)
        self.capture = Capture()
        self.health = HealthPoller(health_url, interval=health_interval) if health_url else None
        self.display = Display(title, display, stream=stream, health=lambda: self.health.state if self.health else None,
                               health_url=health_url)
        self.tracker = StartTracker(self.markers)
        self.lineno = 0
        self.attempts = 0

    def begin(self) -> None:
        """Start the display and the health poller."""
        if self.health is not None:
            self.health.start()
        self.new_attempt()

    def new_attempt(self, started: float | None = None) -> None:
        """Forget the previous attempt's lines; the tracker starts over."""
        self.capture.reset()
        self.lineno = 0
        self.attempts += 1
        self.tracker = StartTracker(self.markers, started=started or 0.0)
        self.display.start(self.tracker)

    def parse(self, raw: bytes) -> list[LogLine]:
        """One line of plain log text as LogLines: a progress bar redrawn in place ("\\r") gives its first piece
        (which carries the process prefix) and its last (the state it ended in)."""
        self.lineno += 1
        if b"\r" in raw:
            pieces = [p for p in raw.split(b"\r") if p.strip()]
            chosen = pieces[:1] + pieces[-1:] if len(pieces) > 1 else pieces
            return [parse_line(self.lineno, p) for p in chosen]
        return [parse_line(self.lineno, raw)]

    def text_line(self, raw: bytes) -> list[Event]:
        """A line of plain log text (the caller writes it to the capture)."""
        if self.tracker.ready_at is not None and not self.markers.after_ready.search(raw.decode("utf-8", "replace")):
            self.lineno += 1
            self.tracker.lines += 1
            return []
        events: list[Event] = []
        for line in self.parse(raw):
            events += self.line(line)
        return events

    def line(self, line: LogLine, when: float | None = None) -> list[Event]:
        """One parsed line: update the tracker and the display."""
        events = self.tracker.feed(line, when)
        if events:
            self.display.events(events)
        return events

    def diagnose(self, source: str, section: Section) -> Diagnosis:
        """Diagnose the attempt's captured output, with `section` (what the watch saw) added."""
        from crashdoc.investigate import run
        from crashdoc.sources.interface import StreamSource

        diag = run(StreamSource(source, self.capture.stream), kb=self.kb.get())
        skipped = diag.skipped
        if self.capture.dropped:
            from crashdoc.model import Skipped

            skipped = (*skipped, Skipped("middle of the attempt", f"{self.capture.dropped} bytes between the first "
                                         "and the last part of this attempt's output were not kept; line numbers "
                                         "after the gap count from the kept part"))
        return dataclasses.replace(diag, sections=(section, *diag.sections), skipped=skipped)

    def start_facts(self, now: float | None = None) -> tuple[list[str], dict[str, Any]]:
        """Lines and data about the start, for the report's section."""
        now = time.time() if now is None else now
        tr = self.tracker
        data = tr.data(now)
        lines = []
        if data["phases"]:
            engine = f" ({tr.engine.name})" if tr.engine else ""
            lines.append(f"phases{engine}: " + " · ".join(
                f"{p['title']} {fmt_seconds(p['seconds'])}" + (f" ({p['progress']:.0f}%)" if p["progress"] is not None else "")
                for p in data["phases"]))
        if self.health is not None:
            st = self.health.state
            data["health"] = {"url": self.health.url, "up": st.up if st else None, "detail": st.detail if st else None,
                              "checks": st.checks if st else 0, "ever_up": bool(st and st.ever_up)}
            word = "never answered" if st is None else "up" if st.up else "not up yet" if not st.ever_up else "down"
            lines.append(f"health {self.health.url}: {word}" + (f" ({st.detail}, {st.checks} checks)" if st else ""))
        if tr.fatal_line:
            lines.append(f"going down: {tr.fatal_line}")
        return lines, data

    def close(self) -> None:
        """Stop the display and the poller, remove the capture files."""
        if self.health is not None:
            self.health.stop()
        self.display.stop()
        self.capture.close()


def write_json_report(diag: Diagnosis, path: str) -> str | None:
    """Write the JSON report (the contract of `diagnose --format json`); returns an error line or None."""
    from crashdoc.report.writer import ReportWriteError, report_output

    try:
        with report_output(path) as f:  # FILE.<pid>.tmp, then rename: the old report or the whole new one
            render(diag, "json", f)
    except ReportWriteError as exc:
        return str(exc)
    return None
