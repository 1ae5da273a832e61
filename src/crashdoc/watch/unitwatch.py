"""`crashdoc watch UNIT [--host H] [--file J | --directory D]`: follow a systemd unit's start in its journal.

One `journalctl -f -o json` (over ssh with --host) carries the unit's output, systemd's records about the unit
(started, main process exited, failed, restart scheduled), its core dumps and the kernel's records. It starts
at the unit's latest start record, so a watch begun in the middle of a 9-minute load knows the phase and
diagnoses the whole attempt. systemd's records say when the process exits or restarts, with its exit status.
"""

from __future__ import annotations

import json
import selectors
import time
from collections.abc import Sequence
from typing import Any

from crashdoc.actions.freeze import freeze_unit
from crashdoc.errors import InputError
from crashdoc.parse.records import parse_json_record
from crashdoc.parse.systemd import interpret
from crashdoc.sources.follow import JSON_LINE_MAX, JournalFollower, follow_argv
from crashdoc.status import WatchStatus
from crashdoc.transport import Runner
from crashdoc.watch.session import Session
from crashdoc.watch.splitter import LineSplitter
from crashdoc.watch.tracker import fmt_seconds
from crashdoc.watch.unitfacts import is_manager, normalize, record_usec, start_args, text_of, unit_state
from crashdoc.watch.watcher import Pending, Watch

#: systemd active states in which the unit's process runs (or is being stopped)
_RUNNING = frozenset({"active", "activating", "reloading", "deactivating"})
#: journal records read back when the journal has no start record of the unit
DEFAULT_LINES = 2000
#: after this many quiet seconds, check that `journalctl -f` did not miss records (locally, over ssh)
RECHECK_LOCAL = 2.0
RECHECK_SSH = 5.0
RECHECK_MAX = 60.0


class UnitWatch(Watch):
    """The watch of one unit."""

    settle_quiet = 0.3
    settle_limit = 1.0

    def __init__(self, session: Session, runner: Runner, unit: str, *, journal_args: tuple[str, ...] = (),
                 freeze: bool = False, lines: int = DEFAULT_LINES, **kw: object) -> None:
        unit = normalize(unit)
        where = f"{unit} on {runner.host}" if runner.host else unit
        if journal_args:
            where = f"{unit} in " + " ".join(a.split("=", 1)[-1] for a in journal_args)
        super().__init__(session, where, **kw)  # type: ignore[arg-type]
        self.runner = runner
        self.unit = unit
        self.journal_args = journal_args
        self.freeze = freeze
        if freeze and journal_args:
            raise InputError("--freeze-on-crash stops a live unit and cannot act on a copied journal: drop "
                             "--file/--directory/--journal-root, or watch the unit on its host (--host)")
        self.state = None if journal_args else unit_state(runner, unit)
        self.lines = lines
        self.sel = selectors.DefaultSelector()
        self.follower: JournalFollower | None = None
        self.retry_at = 0.0
        self.empty_noted = False
        self.last_cursor: str | None = None
        self.recheck_base = self.recheck_every = RECHECK_LOCAL if runner.host is None else RECHECK_SSH
        self.catchup_max = 3.0 if runner.host is None else 15.0
        self._follow()
        self.inv: str | None = None
        self.has_output = False
        self.ended = False
        self.stop_requested = False
        self.restart_seen = False
        if self.state is not None:
            self.extra_data["unit_state_at_start"] = self.state.summary()

    # --- reading -----------------------------------------------------------------------------------------

    def _follow(self, start: Sequence[str] | None = None) -> None:
        """Start `journalctl -f` (from the latest start record, or right after the last record read)."""
        if start is None:
            start = [f"--after-cursor={self.last_cursor}"] if self.last_cursor else start_args(self.runner, self.unit, self.journal_args, self.target, self.lines)
        if any(a.startswith(("--cursor=", "--after-cursor=")) for a in start):
            start = [*start, "--lines=all"]  # with --follow, journalctl shows only 10 records from a cursor otherwise
        self.follow_start = list(start)
        self.follower = JournalFollower(self.runner, follow_argv(self.unit, self.journal_args, start), self.target)
        self.sel.register(self.follower.fd, selectors.EVENT_READ)
        self.splitter = LineSplitter(JSON_LINE_MAX)
        self.next_check = time.time() + self.recheck_every

    def _unfollow(self) -> None:
        if self.follower is not None:
            try:
                self.sel.unregister(self.follower.fd)
            except (KeyError, ValueError):
                pass  # interrupted between starting the follower and registering it
            self.follower.close()
            self.follower = None

    def _behind(self) -> bool:
        """True when the journal holds a record after the last one `journalctl -f` gave us.

        `journalctl -f` learns of new records through inotify, which a journal on a network file system does not
        deliver, and which a journal file being written while journalctl opens it can miss; a cheap look without
        --follow tells, and the follow is then restarted right after the last record read.
        """
        start = [f"--after-cursor={self.last_cursor}"] if self.last_cursor else self.follow_start
        argv = follow_argv(self.unit, self.journal_args, [*start, "--lines=1"], follow=False)
        try:
            res = self.runner.run(argv, timeout=30)
        except Exception:
            return False
        return res.ok and res.stdout.strip().startswith(b"{")

    def poll(self, timeout: float) -> bool:
        now = time.time()
        if self.follower is None:  # the journal had no records yet
            time.sleep(timeout)
            if now >= self.retry_at:
                self._follow()
            return False
        if not self.sel.select(timeout):
            if not self.catching_up and now >= self.next_check and now - self.last_data >= self.recheck_base:
                if self._behind():
                    self._unfollow()
                    self._follow()
                    self.recheck_every = self.recheck_base
                else:  # nothing missed: look again later and later (at most once a minute) while it stays quiet
                    self.recheck_every = min(self.recheck_every * 2, RECHECK_MAX)
                self.next_check = now + self.recheck_every
            return False
        chunks, ended = self.follower.read()
        if chunks:
            self.recheck_every = self.recheck_base
        for chunk in chunks:
            for raw in self.splitter.feed(chunk):
                if self.halted:
                    break
                self._record(raw)
        if ended and not self.halted:
            if self.pending is not None:
                self.halted = True
                return bool(chunks)
            failure = self.follower.failure()
            if "No such boot ID" not in str(failure) or self.has_output:
                raise failure
            # journalctl -f refuses a journal without any record yet (a copy being written): try again shortly
            self._unfollow()
            self.retry_at = time.time() + 0.5
            if not self.empty_noted:
                self.empty_noted = True
                self.session.display.note(f"the journal of {self.target} has no records yet; waiting for them")
        return bool(chunks)

    def _record(self, raw: bytes) -> None:
        try:
            rec = json.loads(raw)
        except ValueError:
            return
        if not isinstance(rec, dict):
            return
        s = self.session
        self.last_cursor = rec.get("__CURSOR") or self.last_cursor
        when = min(record_usec(rec) / 1e6, time.time()) or None
        if is_manager(rec, self.unit):
            if not self._manager(rec, when):
                return
        elif rec.get("_TRANSPORT") != "kernel" and not rec.get("COREDUMP_UNIT"):
            inv = rec.get("_SYSTEMD_INVOCATION_ID")
            if inv and self.inv and inv != self.inv and not self._boundary(when, "a new invocation began"):
                return
            self.inv = inv or self.inv
            self.has_output = True
        s.lineno += 1
        line = parse_json_record(s.lineno, rec)
        s.capture.write(raw + b"\n")
        if line is None:
            return
        if self.echo and not is_manager(rec, self.unit):
            s.display.echo(line.raw.encode("utf-8", "replace"))
        s.line(line, None if not self.catching_up else when)

    def _boundary(self, when: float | None, why: str) -> bool:
        """A new attempt starts; False when the watch stops here (the previous attempt is reported)."""
        if not (self.has_output or self.ended):
            if when and self.catching_up:
                self.session.tracker.started = when
            return True
        if self.catching_up:
            self.pending = None
            self._reset(when)
            return True
        if self.pending is not None:
            self.end(self.pending.status, self.pending.reason, now=True)
        else:
            self.end(WatchStatus.CRASHED, f"it started again ({why}) while {self.session.tracker.status()}", now=True)
        self.halted = True
        return False

    def _reset(self, when: float | None) -> None:
        self.new_attempt(when)
        self.has_output = self.ended = self.stop_requested = self.restart_seen = False
        self.inv = None

    def _manager(self, rec: dict[str, Any], when: float | None) -> bool:
        """One of systemd's records about the unit; False when the watch stops before it."""
        b = interpret(text_of(rec.get("MESSAGE")), rec)
        if b is None:
            return True
        tr = self.session.tracker
        into = fmt_seconds((when or time.time()) - tr.started)
        if b.kind in ("starting", "started"):
            inv = rec.get("INVOCATION_ID")
            same = inv is not None and inv == self.inv
            # "Started" right after "Starting" (Type=simple) or after the output (Type=notify) is the same attempt
            later = b.kind != "started" or self.ended or (inv is not None and self.inv is not None)
            if not same and later and not self._boundary(when, "systemd started it again"):
                return False
            self.inv = inv or self.inv
        elif b.kind == "exited" and b.main:
            code, status = b.exit_code or "exited", b.exit_status or "?"
            self.ended = True
            self.extra_data["main_process"] = {"code": code, "status": status}
            if code == "exited" and status.split("/")[0] in ("0", "SUCCESS"):
                self.end(WatchStatus.STOPPED, f"its main process exited with status 0, {into} into the attempt")
            elif self.stop_requested:
                self.end(WatchStatus.STOPPED, f"it was stopped by request ({code} {status}), {into} into the attempt")
            else:
                how = f"exited with status {status}" if code == "exited" else f"was {code} by signal {status}"
                self.end(WatchStatus.CRASHED, f"its main process {how}, {into} into the attempt, while {tr.status()}")
        elif b.kind == "failed":
            self.ended = True
            self.end(WatchStatus.CRASHED, f"systemd says it failed ({b.result or 'failed'}), {into} into the attempt,"
                     f" while {tr.status()}")
        elif b.kind == "restart":
            self.ended = self.restart_seen = True
            self.end(WatchStatus.CRASHED, f"systemd restarts it, {into} into the attempt, while {tr.status()}", now=True)
        elif b.kind == "gave_up":
            self.end(WatchStatus.CRASHED, "systemd gave up restarting it (start limit hit)", now=True)
        elif b.kind == "stopping":
            self.stop_requested = True
        elif b.kind == "success":
            self.ended = True
            self.end(WatchStatus.STOPPED, f"it stopped ({into} into the attempt)")
        return True

    # --- decisions ---------------------------------------------------------------------------------------

    def _caught_up(self) -> bool:
        return self.last_data > self.began or self.follower is None

    def catchup_done(self) -> None:
        """An attempt that had already ended: report it when the unit was running or in its restart loop when the
        watch began (or in a copied journal); when the unit was stopped or failed, wait for its next start."""
        st = self.state
        running = st is None or st.sub_state == "auto-restart" or st.active_state in _RUNNING
        if self.pending is None:
            if self.ended or not running:
                self._waiting()
            return
        if self.pending.status == WatchStatus.CRASHED and running:
            self.session.display.note(f"the latest attempt of {self.target} had already failed when the watch began"
                                      if st is None or st.active_state not in _RUNNING else
                                      f"the attempt of {self.target} failed while the watch was reading its start")
            return
        self.pending = None
        self._waiting()

    def _waiting(self) -> None:
        st = self.state
        what = st.summary() if st is not None else "no attempt is running in the journal"
        self.session.display.note(f"{self.unit}: {what}; waiting for its next start (Ctrl-C stops)")
        self._reset(None)
        self.clock_from = time.time()

    def before_conclusion(self, pending: Pending) -> None:
        """--freeze-on-crash: stop the restart loop, after saying so."""
        if not self.freeze:
            return
        restarts = self.restart_seen or (self.state is not None and (self.state.restart or "no") != "no")
        if not restarts:
            self.extra_lines.append(f"not frozen: nothing restarts {self.unit} (Restart=no)")
            return
        done = freeze_unit(self.runner, self.unit, self.session.display.note, "its restart loop stops")
        ok, why = done.ok, done.detail
        self.extra_data["frozen"] = ok
        self.extra_lines.append(f"froze: `systemctl stop {self.unit}` " + ("done" if ok else f"failed: {why}"))
        if not ok:
            self.session.display.note(f"`systemctl stop {self.unit}` failed: {why}; it may still be restarting", "bold red")

    def source(self) -> str:
        return f"unit {self.target}"

    def close(self) -> None:
        self._unfollow()
        self.sel.close()


