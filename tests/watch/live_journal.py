"""A journal written while a test runs: `systemd-journal-remote` appends records to a .journal file as they come,
so `journalctl -f --file` follows it as it would follow journald.

`LiveJournal.run_attempt` plays journald and PID 1 for one start of a unit: systemd's Starting/Started records,
every line the real command writes (stdout and stderr of all its processes, as one stream, like journald's
stdout stream), then systemd's "Main process exited" / "Failed with result" / "Scheduled restart job" records.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from crashdoc.parse.systemd import MSG_PROCESS_EXIT, MSG_RESTART_SCHEDULED, MSG_STARTED, MSG_STARTING, MSG_UNIT_FAILURE
from tests.support.journal_files import (
    JOURNAL_REMOTE,
    available,
    export_record,
)

__all__ = ["LiveJournal", "available"]


class LiveJournal:
    """A growing journal file for one unit."""

    def __init__(self, path: Path, unit: str = "fake-llm.service", hostname: str = "gpu-test") -> None:
        self.path = Path(path)
        self.unit = unit
        self.hostname = hostname
        self.boot_id = uuid.uuid4().hex
        self.machine_id = uuid.uuid4().hex
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([JOURNAL_REMOTE, f"--output={self.path}", "--split-mode=none", "-"],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.records = 0

    def _base(self) -> dict[str, str]:
        now = time.time()
        return {
            "__REALTIME_TIMESTAMP": str(int(now * 1e6)),
            "__MONOTONIC_TIMESTAMP": str(int((time.monotonic() - self.t0) * 1e6) + 1),
            "_BOOT_ID": self.boot_id, "_MACHINE_ID": self.machine_id, "_HOSTNAME": self.hostname,
        }

    def write(self, fields: dict[str, str | bytes]) -> None:
        """One record, flushed at once."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(export_record(fields))
        self.proc.stdin.flush()
        self.records += 1

    def systemd(self, message: str, inv: str | None, **extra: str) -> None:
        """One of PID 1's records about the unit."""
        rec: dict[str, str | bytes] = {**self._base(), "PRIORITY": "6", "SYSLOG_IDENTIFIER": "systemd",
                                       "_TRANSPORT": "journal", "_PID": "1", "_COMM": "systemd", "UNIT": self.unit,
                                       "MESSAGE": message}
        if inv:
            rec["INVOCATION_ID"] = inv
        rec.update(extra)
        self.write(rec)

    def unit_line(self, message: bytes, inv: str, pid: int) -> None:
        """A line the unit wrote (journald's stdout stream)."""
        self.write({**self._base(), "PRIORITY": "6", "SYSLOG_IDENTIFIER": "python3", "_TRANSPORT": "stdout",
                    "_PID": str(pid), "_COMM": "python3", "_SYSTEMD_UNIT": self.unit, "_SYSTEMD_INVOCATION_ID": inv,
                    "MESSAGE": message})

    def run_attempt(self, argv: Sequence[str], *, restart_counter: int | None = None,
                    on_line: Callable[[bytes], None] | None = None) -> int:
        """Start argv as the unit would be started, journal everything, return its exit status."""
        inv = hashlib.md5(os.urandom(8)).hexdigest()
        self.systemd(f"Starting {self.unit} - fake LLM server...", inv, JOB_TYPE="start", MESSAGE_ID=MSG_STARTING)
        proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.systemd(f"Started {self.unit} - fake LLM server.", inv, JOB_TYPE="start", JOB_RESULT="done",
                     MESSAGE_ID=MSG_STARTED)
        assert proc.stdout is not None
        for line in proc.stdout:
            self.unit_line(line.rstrip(b"\n"), inv, proc.pid)
            if on_line is not None:
                on_line(line)
        rc = proc.wait()
        code, status = ("exited", str(rc)) if rc >= 0 else ("killed", str(-rc))
        word = "FAILURE" if rc else "SUCCESS"
        self.systemd(f"{self.unit}: Main process exited, code={code}, status={status}/{word}", inv,
                     MESSAGE_ID=MSG_PROCESS_EXIT, EXIT_CODE=code, EXIT_STATUS=status, PRIORITY="5")
        if rc:
            self.systemd(f"{self.unit}: Failed with result 'exit-code'.", inv, MESSAGE_ID=MSG_UNIT_FAILURE,
                         UNIT_RESULT="exit-code", PRIORITY="4")
            if restart_counter is not None:
                time.sleep(0.2)
                self.systemd(f"{self.unit}: Scheduled restart job, restart counter is at {restart_counter}.", inv,
                             MESSAGE_ID=MSG_RESTART_SCHEDULED, N_RESTARTS=str(restart_counter))
        return rc

    def close(self) -> None:
        """Finish the file (systemd-journal-remote exits at the end of its input)."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
