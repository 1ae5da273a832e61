"""`crashdoc run -- COMMAND ...`: run the server command, pass its output through unchanged, show the start
phases on stderr, and diagnose the moment it exits with an error.

The command's stdout and stderr share one pipe (as `2>&1` would), so its output reaches crashdoc's stdout
byte for byte and in the order it was written; the same bytes go to `--log FILE` and to the attempt's capture.
The command runs in its own process group: Ctrl-C reaches it once, through crashdoc (SIGINT to the group),
and crashdoc then reports its exit; a second Ctrl-C stops waiting (SIGTERM to the group). crashdoc returns
the command's exit status (128+N when a signal N ended it, 127/126 when it cannot be started, as a shell does).
"""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import BinaryIO, TextIO

from crashdoc.model import Section
from crashdoc.parse.lines import parse_line
from crashdoc.report import render
from crashdoc.sources.command import pidfd, signame, spawn
from crashdoc.watch.errors import (
    WatchUsageError,
)
from crashdoc.watch.session import Session, writable, write_json_report
from crashdoc.watch.splitter import LineSplitter
from crashdoc.watch.tracker import fmt_seconds
from crashdoc.watch.tty import same_tty, short, write_all

#: after the command exits, wait this long for the processes it started to close its output
EOF_GRACE = 0.5
#: how often the loop wakes up when nothing happens (display, health, signals)
TICK = 0.1
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class CommandRun:
    """One `crashdoc run`."""

    def __init__(self, argv: Sequence[str], *, log: str | None = None, report: str | None = None,
                 display: str = "auto", health: str | None = None, rules: Sequence[str] = (),
                 width: int | None = None, err: TextIO | None = None, out_fd: int = 1,
                 health_interval: float = 1.0) -> None:
        argv = list(argv)
        if argv[:1] == ["--"]:
            argv = argv[1:]
        if not argv:
            raise WatchUsageError("name the command to run: crashdoc run -- vllm serve MODEL ...")
        self.argv = argv
        self.cmd = shlex.join(argv)
        self.log_path = writable(log, "--log") if log else None
        self.report = writable(report, "--report") if report else None
        self.width = width
        self.err = err or sys.stderr
        self.out_fd = out_fd
        self.session = Session(f"`{short(self.cmd)}`", display=display, health_url=health, rules=rules,
                               stream=self.err, health_interval=health_interval)
        self.shared_tty = self.session.display.mode == "live" and same_tty(out_fd, self.err)
        self.splitter = LineSplitter()
        self.signals: list[int] = []
        self.forwarded: int | None = None
        self.out_ok = True
        self.log: BinaryIO | None = None

    # --- the run -----------------------------------------------------------------------------------------

    def run(self) -> int:
        """Run the command to its end; returns its exit status."""
        self.log = open(self.log_path, "wb", buffering=0) if self.log_path else None  # noqa: SIM115
        try:
            proc = spawn(self.argv)
        except BaseException:
            if self.log:
                self.log.close()
            self.session.close()
            raise
        self.started = time.time()
        old = {sig: signal.signal(sig, self._on_signal) for sig in _FORWARDED}
        try:
            self.session.begin()
            self.session.display.note(f"running `{short(self.cmd)}` (pid {proc.pid}); Ctrl-C stops it")
            return self._loop(proc)
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)
            self.session.close()
            if self.log:
                self.log.close()
            if proc.stdout:
                proc.stdout.close()

    def _on_signal(self, signum: int, _frame: object) -> None:
        self.signals.append(signum)

    def _loop(self, proc: subprocess.Popen[bytes]) -> int:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        os.set_blocking(fd, False)
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ, "out")
        exit_fd = pidfd(proc.pid)
        if exit_fd is not None:
            sel.register(exit_fd, selectors.EVENT_READ, "exit")
        eof = False
        rc: int | None = None
        exited_at = 0.0
        background = False
        try:
            while True:
                for key, _ in sel.select(TICK):
                    if key.data == "out" and self._read(fd):
                        eof = True
                        sel.unregister(fd)
                    elif key.data == "exit":
                        sel.unregister(key.fd)
                if rc is None:
                    rc = proc.poll()
                    if rc is not None:
                        exited_at = time.time()
                if self._handle_signals(proc, rc) == "stop":
                    return self._abandon(proc, rc)
                self._tick()
                if rc is None:
                    continue
                if eof:
                    break
                if time.time() - exited_at >= EOF_GRACE:
                    if rc != 0:
                        break
                    if not background:
                        background = True
                        self.session.display.note(
                            f"`{short(self.cmd)}` exited 0 after {fmt_seconds(exited_at - self.started)} but left "
                            "processes running in the background that still write to its output; following that "
                            "output until it closes (Ctrl-C stops)")
        finally:
            sel.close()
            if exit_fd is not None:
                os.close(exit_fd)
        tail = self.splitter.flush()
        if tail is not None:
            self._line(tail)
        return self._finish(proc, rc, exited_at, eof, background)

    def _read(self, fd: int) -> bool:
        """Pass through what is there (at most 4 MiB, so a flood does not starve the rest); True at the end."""
        for _ in range(64):
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                return False
            except OSError:
                return True
            if not data:
                return True
            self._pass(data)
            for line in self.splitter.feed(data):
                self._line(line)
            frag = self.splitter.progress_update()
            if frag is not None:
                self.session.line(parse_line(self.session.lineno, frag))
        return False

    def _pass(self, data: bytes) -> None:
        """The command's bytes, unchanged: to stdout (unless it is the display's terminal), --log, the capture."""
        self.session.capture.write(data)
        if self.log is not None:
            self.log.write(data)
        if self.out_ok and not self.shared_tty:
            try:
                write_all(self.out_fd, data)
            except BrokenPipeError:
                self.out_ok = False
                self.session.display.note("standard output was closed; the command's output still goes to the "
                                          "capture" + (" and --log" if self.log else ""))

    def _line(self, raw: bytes) -> None:
        if self.shared_tty:
            self.session.display.echo(raw)
        self.session.text_line(raw)

    def _tick(self) -> None:
        self.session.display.poll_health()

    def _handle_signals(self, proc: subprocess.Popen[bytes], rc: int | None) -> str | None:
        while self.signals:
            sig = self.signals.pop(0)
            name = signal.Signals(sig).name
            if self.forwarded is not None or rc is not None:
                return "stop"
            self.forwarded = sig
            try:
                os.killpg(proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            what = "Ctrl-C" if sig == signal.SIGINT else name
            self.session.display.note(f"{what}: sent {name} to `{short(self.cmd)}` (process group {proc.pid}); "
                                      f"waiting for it to exit ({what} again stops waiting)")
        return None

    def _abandon(self, proc: subprocess.Popen[bytes], rc: int | None) -> int:
        """A second Ctrl-C: stop waiting; the command's process group gets SIGTERM."""
        if rc is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
        self.session.display.stop()
        self.session.display.note(f"stopped waiting; sent SIGTERM to `{short(self.cmd)}` (process group {proc.pid})"
                                  if rc is None else "stopped following the output of processes left in the background")
        return 130

    # --- the end -----------------------------------------------------------------------------------------

    def _finish(self, proc: subprocess.Popen[bytes], rc: int | None, exited_at: float, eof: bool, background: bool) -> int:
        assert rc is not None
        status = rc if rc >= 0 else 128 - rc
        secs = exited_at - self.started
        how = f"exited with status {rc}" if rc >= 0 else f"was killed by signal {-rc} ({signame(-rc)})"
        tr = self.session.tracker
        display = self.session.display
        display.stop()
        where = f"while {tr.status()}" if tr.ready_at is None else f"after it was up ({tr.status()})"
        summary = f"`{short(self.cmd)}` {how} after {fmt_seconds(secs)}, {where}"
        crashed = rc != 0 and self.forwarded is None
        show = crashed or (rc == 0 and tr.fatal_at is not None)
        if self.forwarded is not None:
            display.note(f"{summary} (after {signal.Signals(self.forwarded).name} from crashdoc)", "bold")
        elif rc == 0:
            hint = "" if tr.ready_at or background else (
                "; if it started the server in the background, follow the server's log with "
                "`crashdoc watch --file LOG`")
            display.note(summary + hint, "bold green")
        if not (show or self.report):
            return status
        facts, data = self.session.start_facts(exited_at)
        lines = [f"command: {self.cmd} (pid {proc.pid})", summary, *facts]
        if not eof:
            lines.append("processes it started still held its output open when it was diagnosed")
        data.update({"command": self.argv, "pid": proc.pid, "exit_status": status,
                     "signal": signame(-rc) if rc < 0 else None, "seconds": round(secs, 3),
                     "interrupted_by": signal.Signals(self.forwarded).name if self.forwarded else None,
                     "log": self.log_path})
        source = f"{self.log_path} (output of `{short(self.cmd)}`)" if self.log_path else f"output of `{short(self.cmd)}`"
        diag = self.session.diagnose(source, Section("run", "Run", tuple(lines), data))
        if show:
            display.note(f"{summary}; diagnosis:", "bold red")
            render(diag, "terminal", self.err, self.width)
        if self.report:
            problem = write_json_report(diag, self.report)
            if problem:
                display.note(problem, "bold red")
        return status


