"""The phase display on stderr: a rich live view on a terminal, one line per change otherwise.

Log text is untrusted: it is passed through `safe()` (or rich's ANSI decoder for echoed lines) and never parsed
as rich markup.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from crashdoc.report.safe import safe
from crashdoc.watch.health import HealthState
from crashdoc.watch.tracker import Event, StartTracker, fmt_seconds

#: in plain mode, a progress line each time the percentage enters a new step of this size (and at 100%)
PLAIN_PROGRESS_STEP = 25


class Display:
    """What the user sees while a server starts. `tracker` and `health` are read at each refresh."""

    def __init__(self, title: str, mode: str = "auto", stream: TextIO | None = None,
                 health: Callable[[], HealthState | None] | None = None, health_url: str | None = None) -> None:
        self.stream = stream or sys.stderr
        if mode == "auto":
            mode = "live" if _isatty(self.stream) else "plain"
        self.mode = mode
        self.title = title
        self.tracker: StartTracker | None = None
        self.health = health or (lambda: None)
        self.health_url = health_url
        self.console = Console(file=self.stream, markup=False, highlight=False, emoji=False, soft_wrap=True,
                               force_terminal=True if mode == "live" else None)
        self._live: Live | None = None
        self._spinner = Spinner("dots", style="cyan")
        self._last_health: tuple[bool, str] | None = None
        self._last_progress: dict[str, int] = {}
        self._origin = time.time()

    # --- lifecycle ---------------------------------------------------------------------------------------

    def start(self, tracker: StartTracker) -> None:
        """Show the display for an attempt (again, for a new attempt)."""
        self.tracker = tracker
        self._last_progress.clear()
        if self.mode == "live" and self._live is None:
            self._live = Live(console=self.console, get_renderable=self._render, refresh_per_second=8,
                              transient=True, redirect_stdout=False, redirect_stderr=False)
            self._live.start()

    def stop(self) -> None:
        """Remove the live view (notes printed so far stay)."""
        if self._live is not None:
            self._live.stop()
            self._live = None

    # --- what happened -----------------------------------------------------------------------------------

    def note(self, message: str, style: str = "") -> None:
        """One line from crashdoc itself (both modes)."""
        if self.mode == "none":
            return
        if self.mode == "plain":
            self.console.print(Text(f"crashdoc: {self._clock()}{safe(message, 2000)}"))
        else:
            self.console.print(Text(f"crashdoc: {safe(message, 2000)}", style=style or "bold"))

    def echo(self, line: bytes) -> None:
        """A log line shown above the live view (the server's own output on a shared terminal, or --echo)."""
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        if "\r" in text:
            text = text.rsplit("\r", 1)[-1]
        if self.mode == "live":
            self.console.print(Text.from_ansi(text))
        else:
            self.console.print(Text(safe(text, 100_000)))

    def events(self, events: Sequence[Event]) -> None:
        """Print what changed (plain mode; the live view shows it by itself)."""
        if self.mode != "plain" or self.tracker is None:
            return
        for ev in events:
            if ev.kind == "progress":
                key = ev.phase or ""
                step = int((ev.pct or 0) // PLAIN_PROGRESS_STEP)
                if self._last_progress.get(key) == step:
                    continue
                self._last_progress[key] = step
            label = {"engine": "engine: ", "ready": "ready: ", "fatal": "going down: ", "error": "error: "}.get(ev.kind, "")
            self.console.print(Text(f"crashdoc: {self._clock(ev.at)}{label}{safe(ev.text, 300)}"))

    def poll_health(self) -> None:
        """Print a line when the health endpoint's answer changes (plain mode)."""
        st = self.health()
        if st is None:
            return
        key = (st.up, st.detail)
        if key == self._last_health:
            return
        self._last_health = key
        if self.mode == "plain":
            word = "up" if st.up else "not up yet" if not st.ever_up else "down"
            self.console.print(Text(f"crashdoc: {self._clock()}health {safe(self.health_url or '', 200)}: {word} ({st.detail})"))

    # --- rendering -----------------------------------------------------------------------------------------

    def _clock(self, at: float | None = None) -> str:
        start = self.tracker.started if self.tracker else self._origin
        return f"[{(at or time.time()) - start:7.1f}s] "

    def _render(self) -> RenderableType:
        tr = self.tracker
        if tr is None:
            return Text("")
        now = time.time()
        head = Text(safe(self.title, 200), style="bold")
        if tr.engine:
            head.append(f" · {tr.engine.name}", style="cyan")
        head.append(f" · {fmt_seconds(now - tr.started)}", style="dim")
        grid = Table.grid(padding=(0, 1))
        grid.add_column(width=2)
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column(justify="right", no_wrap=True)
        reached = {r.phase.id: r for r in tr.reached}
        cur = tr.current
        for i, ph in enumerate(tr.markers.phases):
            rec = reached.get(ph.id)
            nxt = tr.reached[tr.reached.index(rec) + 1].first if rec and rec is not cur else None
            if rec is cur and rec is not None and tr.ready_at is None and tr.fatal_at is None:
                bar: RenderableType = Text("")
                if rec.progress is not None:
                    cells = Table.grid(padding=(0, 1))
                    cells.add_row(ProgressBar(total=100, completed=rec.progress.pct, width=24), Text(str(rec.progress)))
                    bar = cells
                grid.add_row(self._spinner, Text(ph.title, style="bold"), bar, Text(fmt_seconds(now - rec.first)))
            elif rec is not None:
                end = nxt or tr.ready_at or tr.fatal_at or now
                mark = Text("✓", style="green") if rec is not cur or tr.ready_at else Text("✗", style="red")
                grid.add_row(mark, Text(ph.title), Text(str(rec.progress) if rec.progress else "", style="dim"),
                             Text(fmt_seconds(end - rec.first), style="dim"))
            elif cur is not None and i < cur.phase.index:
                grid.add_row(Text("·", style="dim"), Text(ph.title, style="dim"), Text("not seen", style="dim"), Text(""))
            else:
                grid.add_row(Text(" "), Text(ph.title, style="dim"), Text(""), Text(""))
        parts: list[RenderableType] = [head, grid]
        st = self.health()
        if self.health_url:
            if st is None:
                parts.append(Text(f"health {safe(self.health_url, 200)}: checking", style="dim"))
            else:
                word = "up" if st.up else "not up yet" if not st.ever_up else "down"
                parts.append(Text(f"health {safe(self.health_url, 200)}: {word} ({st.detail}, {st.checks} checks)",
                                  style="green" if st.up else "yellow"))
        if tr.errors:
            line = Text(f"error lines: {tr.errors}", style="red")
            if tr.first_error:
                line.append(f" · first: {safe(tr.first_error, 160)}")
            parts.append(line)
        if tr.fatal_at is not None:
            parts.append(Text(f"going down: {safe(tr.fatal_line, 160)}", style="bold red"))
        return Group(*parts)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
