"""`crashdoc watch`: follow a start until it is up, crashes or times out, and diagnose the attempt at once.

The loop is the same for a log file and for a unit's journal: read what arrived, feed the attempt's tracker and
capture, then decide. The catch-up (what the file or journal already held when the watch began) only places
the watch in the latest attempt; decisions wait until it is read.
"""

from __future__ import annotations

import signal
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from crashdoc.model import Section
from crashdoc.report import render
from crashdoc.status import WatchStatus
from crashdoc.watch.session import Session, write_json_report
from crashdoc.watch.splitter import LineSplitter
from crashdoc.watch.tracker import fmt_seconds

TICK = 0.1
#: the server printed its ready line this long ago and --health is still not up: say the URL may be wrong
URL_HINT_AFTER = 30.0
#: the catch-up is over at the first quiet tick, or after this many seconds of a source that never goes quiet
CATCHUP_MAX = 3.0


class _Terminated(Exception):
    """SIGTERM or SIGHUP: stop watching, and clean up (journalctl, ssh) on the way out."""


def _terminated(signum: int, _frame: object) -> None:
    raise _Terminated(signum)


@dataclass
class Pending:
    """The attempt has ended; the diagnosis waits until late lines stop (`quiet` s) or `limit` s have passed."""

    status: WatchStatus
    reason: str
    since: float
    quiet: float
    limit: float


class Watch:
    """The loop; subclasses read their source in `poll(timeout)` and call `end()` when the attempt ends."""

    settle_quiet = 0.5
    settle_limit = 1.5
    catchup_max = CATCHUP_MAX

    def __init__(self, session: Session, target: str, *, timeout: float = 0.0, keep_watching: bool = False,
                 down_after: float = 30.0, fmt: str = "terminal", width: int | None = None,
                 report: str | None = None, out: TextIO | None = None, echo: bool = False) -> None:
        self.session = session
        self.target = target
        self.timeout = timeout
        self.keep_watching = keep_watching
        self.down_after = down_after
        self.fmt = fmt
        self.width = width
        self.report = report
        self.out = out or sys.stdout
        self.echo = echo
        self.pending: Pending | None = None
        self.halted = False
        self.catching_up = True
        self.began = time.time()
        self.clock_from = self.began
        self.last_data = self.began
        self.up_noted = False
        self.url_hinted = False
        self.extra_lines: list[str] = []
        self.extra_data: dict[str, object] = {}

    # --- to be provided by the source ------------------------------------------------------------------------

    def poll(self, timeout: float) -> bool:
        """Wait up to `timeout` for input and take it; True when something arrived."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the source."""

    def _caught_up(self) -> bool:
        """A quiet tick ends the catch-up (a journal follow waits for its first records: ssh takes a while)."""
        return True

    def catchup_done(self) -> None:
        """The catch-up is read (a subclass decides what an attempt that had already ended means)."""

    def before_conclusion(self, pending: Pending) -> None:
        """Last step before a crash is reported (the unit watch freezes the restart loop here)."""

    # --- the loop ----------------------------------------------------------------------------------------

    def run(self) -> int:
        """Watch until healthy, crashed, stopped or timed out; returns the WatchStatus."""
        self.session.begin()
        parts = [f"watching {self.target}"]
        if self.session.health:
            parts.append(f"health {self.session.health.url}")
        if self.timeout:
            parts.append(f"timeout {fmt_seconds(self.timeout)}")
        old = {sig: signal.signal(sig, _terminated) for sig in (signal.SIGTERM, signal.SIGHUP)}
        try:
            # NOTE: announced inside the try, so a Ctrl-C right after the line is read is reported as a stop
            self.session.display.note(", ".join(parts) + " (Ctrl-C stops)")
            while True:
                got = self.poll(TICK) if not self.halted else False
                now = time.time()
                if got:
                    self.last_data = now
                if self.catching_up and (now - self.began > self.catchup_max or (not got and self._caught_up())):
                    self.catching_up = False
                    self.catchup_done()
                status = self._decide(now)
                if status is not None:
                    return int(status)
        except (KeyboardInterrupt, _Terminated) as exc:
            self.session.display.stop()
            what = "Ctrl-C" if isinstance(exc, KeyboardInterrupt) else signal.Signals(exc.args[0]).name
            self.session.display.note(f"stopped watching {self.target} ({what}) while {self.session.tracker.status()}")
            return int(WatchStatus.INTERRUPTED) if isinstance(exc, KeyboardInterrupt) else 128 + exc.args[0]
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)
            self.close()

    def new_attempt(self, started: float | None = None) -> None:
        """A new start attempt begins (the previous one is forgotten)."""
        self.session.new_attempt(started if self.catching_up else None)
        if not self.catching_up:
            self.clock_from = time.time()

    def end(self, status: WatchStatus, reason: str, *, now: bool = False) -> None:
        """The attempt ended (first report wins); `now` skips waiting for late lines."""
        if self.pending is None:
            t = time.time()
            self.pending = Pending(status, reason, t, 0.0 if now else self.settle_quiet, 0.0 if now else self.settle_limit)
        elif now:
            self.pending.quiet = self.pending.limit = 0.0

    def _decide(self, now: float) -> WatchStatus | None:
        if self.catching_up:
            self.session.display.poll_health()
            return None
        p = self.pending
        if p is not None:
            if self.halted or now - max(self.last_data, p.since) >= p.quiet or now - p.since >= p.limit:
                return self._conclude(p)
            return None
        s = self.session
        s.display.poll_health()
        up = (s.health.state is not None and s.health.state.up) if s.health else s.tracker.ready_at is not None
        if up and not self.up_noted:
            self.up_noted = True
            if not self.keep_watching:
                return self._conclude(Pending(WatchStatus.HEALTHY, self._up_reason(), now, 0, 0))
            s.display.note(f"{self.target} is up: {self._up_reason()}; still watching (--keep-watching)", "bold green")
        if self.up_noted and s.health is not None and s.health.down_for(now) >= self.down_after:
            st = s.health.state
            self.end(WatchStatus.CRASHED, f"the health endpoint has been down for {fmt_seconds(s.health.down_for(now))}"
                     f" ({st.detail if st else 'no answer'}) after it was up", now=True)
        elif not self.up_noted and self.timeout and now - self.clock_from >= self.timeout:
            if s.health is not None:
                st = s.health.state
                what = f"its health endpoint did not answer 2xx ({st.detail if st else 'no answer'})"
            else:
                what = "it did not print a ready line"
            self.end(WatchStatus.TIMED_OUT, f"not up after {fmt_seconds(now - self.clock_from)}: {what}", now=True)
        if (s.health is not None and not self.up_noted and not self.url_hinted and s.tracker.ready_at is not None
                and now - s.tracker.ready_at >= URL_HINT_AFTER):
            self.url_hinted = True
            st = s.health.state
            s.display.note(f"the server said it is up {fmt_seconds(now - s.tracker.ready_at)} ago but {s.health.url} "
                           f"still answers {st.detail if st else 'nothing'}: is that the right URL (port, path)?",
                           "bold yellow")
        return None

    def _up_reason(self) -> str:
        s = self.session
        after = fmt_seconds(time.time() - s.tracker.started)
        if s.health is not None and s.health.state is not None:
            return f"health {s.health.url} answered {s.health.state.detail} ({after} into the attempt)"
        return f"it printed {s.tracker.ready_line!r} ({after} into the attempt)"

    def _conclude(self, p: Pending) -> WatchStatus:
        s = self.session
        if p.status == WatchStatus.CRASHED:
            self.before_conclusion(p)
        s.display.stop()
        status_word = {WatchStatus.HEALTHY: "up", WatchStatus.CRASHED: "crashed", WatchStatus.STOPPED: "stopped",
                       WatchStatus.TIMED_OUT: "timed out"}[p.status]
        headline = f"{self.target} {'is ' if p.status == WatchStatus.HEALTHY else ''}{status_word}: {p.reason}"
        diagnose = p.status in (WatchStatus.CRASHED, WatchStatus.TIMED_OUT)
        style = "bold green" if p.status == WatchStatus.HEALTHY else "bold red" if diagnose else "bold yellow"
        if not diagnose:
            s.display.note(headline, style)
            if not self.report:
                return p.status
        facts, data = s.start_facts()
        data.update({"target": self.target, "outcome": status_word, "reason": p.reason, "exit_status": int(p.status),
                     **self.extra_data})
        lines = [f"watched: {self.target}", f"outcome: {status_word}: {p.reason}", *facts, *self.extra_lines]
        diag = s.diagnose(self.source(), Section("watch", "Watch", tuple(lines), data))
        if diagnose:
            s.display.note(f"{headline}; diagnosis:", style)
            render(diag, self.fmt, self.out, self.width)
        if self.report:
            problem = write_json_report(diag, self.report)
            if problem:
                s.display.note(problem, "bold red")
        return p.status

    def source(self) -> str:
        """The report's `source`."""
        return self.target


class FileWatch(Watch):
    """`crashdoc watch --file PATH [--pid N]`: a service that logs to a file."""

    def __init__(self, session: Session, path: str, *, pid: int | None = None, **kw: object) -> None:
        from crashdoc.sources.follow import FileFollower, PidWatcher

        super().__init__(session, f"log file {path}", **kw)  # type: ignore[arg-type]
        self.path = path
        self.follower = FileFollower(path)
        self.pid = PidWatcher(pid) if pid else None
        self.splitter = LineSplitter()

    def poll(self, timeout: float) -> bool:
        time.sleep(timeout)
        chunks = self.follower.poll()
        for note in self.follower.notes:
            self.session.display.note(note)
        self.follower.notes.clear()
        for chunk in chunks:
            for raw in self.splitter.feed(chunk):
                if self.halted:
                    break
                self._line(raw)
        frag = self.splitter.progress_update()
        if frag is not None and not self.halted:
            from crashdoc.parse.lines import parse_line

            self.session.line(parse_line(self.session.lineno, frag))
        if self.pid is not None and self.pending is None and not self.catching_up and self.pid.exited():
            self.end(WatchStatus.CRASHED, f"process {self.pid.pid} exited "
                     f"{fmt_seconds(time.time() - self.session.tracker.started)} into the attempt, "
                     f"while {self.session.tracker.status()}")
        return bool(chunks)

    def _line(self, raw: bytes) -> None:
        s = self.session
        if s.tracker.ready_at is not None and not s.markers.after_ready.search(raw.decode("utf-8", "replace")):
            s.capture.write(raw + b"\n")  # a served request's log line: nothing to look at
            s.lineno += 1
            s.tracker.lines += 1
            if self.echo:
                s.display.echo(raw)
            return
        lines = s.parse(raw)
        if s.tracker.progressed and any(s.markers.is_start(ln.text) for ln in lines):
            if self.catching_up:
                self.pending = None
                self.new_attempt()
            elif self.pending is not None:
                self.end(self.pending.status, self.pending.reason, now=True)
                self.halted = True
                return
            else:
                self.end(WatchStatus.CRASHED, f"it started again (a restart) while {s.tracker.status()}", now=True)
                self.halted = True
                return
        s.capture.write(raw + b"\n")
        if self.echo:
            s.display.echo(raw)
        for ln in lines:
            s.line(ln)
        if s.tracker.fatal_at is not None and self.pending is None:
            self.end(WatchStatus.CRASHED, f"the log says it is going down ({s.tracker.fatal_line}) while "
                     f"{s.tracker.status()}")

    def catchup_done(self) -> None:
        if self.pending is not None:
            self.session.display.note(f"the latest attempt in {self.path} had already failed when the watch began")

    def close(self) -> None:
        self.follower.close()
