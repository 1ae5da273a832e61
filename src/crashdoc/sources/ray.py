"""A Ray session's log folder (`/tmp/ray/session_latest/logs`) as one multi-process log.

Every file is one process stream: `worker-<worker id>-<job id>-<pid>.out|.err` (the stdout/stderr of a task or
actor worker), `python-core-worker-<worker id>_<pid>.log` / `python-core-driver-..._<pid>.log` (Ray's core
library in that process), `raylet.out`, `gcs_server.out`, `dashboard*`, `monitor*`, `log_monitor*`, and
`job-driver-<id>.log` for submitted jobs. Lines become records whose identifier is the file's name and whose pid
is the one in the name (or the one the glog header of Ray's C++ processes prints), so a finding's Where names the
process file and its pid. Files are read in an order that puts the workers' own streams first (the error the
worker printed), then the core-worker logs, then the raylet and GCS (which repeat workers' errors and report
kills); the rotated copies under `old/` and the JSON event files are not read (they repeat the same lines).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crashdoc.errors import InputError
from crashdoc.regex import Regex
from crashdoc.sources.interface import RecordSource

DEFAULT_DIR = "/tmp/ray/session_latest/logs"
#: a file larger than this is read from its last MAX_FILE_BYTES (the start of a huge raylet.out is history)
MAX_FILE_BYTES = 64 << 20
_WORKER = Regex(r"worker-(?P<wid>[0-9a-f]{8,})-(?P<job>[0-9a-f]{8})-(?P<pid>\d+)\.(?:out|err)")
_CORE = Regex(r"python-core-(?P<kind>worker|driver)-(?P<wid>[0-9a-f]{8,})_(?P<pid>\d+)\.log")
_PID_SUFFIX = Regex(r"[_-](?P<pid>\d{2,})\.(?:log|out|err)$")
#: the glog header of Ray's C++ processes: `[2026-12-01 21:11:21,838 I 6454 6490] (raylet) file.cc:N: ...`
_GLOG = Regex(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ [DIWEF] (?P<pid>\d+) \d+\]")
_SUFFIXES = (".out", ".err", ".log")
_SKIP = ("debug_state", "events", "export_events")


def ray_target(text: str) -> str | None:
    """`ray:DIR` -> DIR (`ray:` alone: the newest local session's logs); None for any other target."""
    scheme, sep, rest = text.partition(":")
    if not sep or scheme != "ray":
        return None
    return rest or DEFAULT_DIR


@dataclass(frozen=True)
class RayFile:
    """One process stream of the session."""

    path: Path
    name: str
    """The file's name: the process in reports (`worker-2612ded3...-01000000-5454.err`)."""
    role: str
    """`worker`, `core-worker`, `driver`, `job-driver`, `raylet`, `gcs`, `dashboard`, `other`."""
    pid: int | None
    worker_id: str | None


def classify_file(path: Path) -> RayFile:
    """Which process a file of the session's log folder is the stream of."""
    name = path.name
    m = _WORKER.fullmatch(name)
    if m:
        return RayFile(path, name, "worker", int(m["pid"]), m["wid"])
    m = _CORE.fullmatch(name)
    if m:
        return RayFile(path, name, "core-worker" if m["kind"] == "worker" else "driver", int(m["pid"]), m["wid"])
    stem = name.split(".")[0]
    role = ("raylet" if stem.startswith("raylet") else "gcs" if stem.startswith("gcs_server")
            else "dashboard" if stem.startswith("dashboard") else "job-driver" if stem.startswith("job-driver")
            else "other")
    p = _PID_SUFFIX.search(name)
    return RayFile(path, name, role, int(p["pid"]) if p and role != "job-driver" else None, None)


_ORDER = {"worker": 0, "job-driver": 1, "core-worker": 2, "driver": 3, "raylet": 4, "gcs": 5, "other": 6,
          "dashboard": 7}


class RayLogs(RecordSource):
    """The log files of one Ray session folder, as records: one per line, the file as its process."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.label = f"Ray session logs {self.directory}"
        self.files = self._list()
        self.spans: list[tuple[int, int, RayFile]] = []
        """(first record, last record, file) of every file read, in reading order (1-based record numbers)."""
        self.bytes_read = 0
        self.cut: list[str] = []
        """Files read from their last MAX_FILE_BYTES only."""

    def _list(self) -> list[RayFile]:
        d = self.directory
        if not d.is_dir():
            why = "no such folder" if not d.exists() else "not a folder"
            hint = " (is Ray running on this machine? `ray start` writes /tmp/ray/session_latest)" if (
                str(d) == DEFAULT_DIR) else ""
            raise InputError(f"{d}: {why}{hint}")
        if (d / "session_latest" / "logs").is_dir():
            d = self.directory = d / "session_latest" / "logs"  # given Ray's temp dir (/tmp/ray)
        elif (d / "logs").is_dir() and not any(d.glob("raylet*")):
            d = self.directory = d / "logs"  # given the session folder, not its logs
        try:
            names = sorted(os.listdir(d))
        except OSError as exc:
            raise InputError(f"{d}: cannot list it ({exc.strerror or exc})") from exc
        files = [classify_file(d / n) for n in names
                 if n.endswith(_SUFFIXES) and not n.startswith(_SKIP) and (d / n).is_file()]
        if not files:
            raise InputError(f"{d}: no Ray log files here (raylet.out, worker-*.err, ...): is it a session's logs folder?")
        return sorted(files, key=lambda f: (_ORDER[f.role], f.name))

    def file_by_pid(self, pid: int) -> RayFile | None:
        """The worker's own stream (.err before .out) of the process with that pid, else its core-worker log."""
        found = [f for f in self.files if f.pid == pid]
        found.sort(key=lambda f: (_ORDER[f.role], not f.name.endswith(".err")))
        return found[0] if found else None

    def file_by_worker_id(self, worker_id: str) -> RayFile | None:
        """The stream of the worker with that id (Ray prints 56 hex digits)."""
        found = [f for f in self.files if f.worker_id and worker_id.startswith(f.worker_id)]
        found.sort(key=lambda f: (_ORDER[f.role], not f.name.endswith(".err")))
        return found[0] if found else None

    def file_at(self, record: int) -> RayFile | None:
        """The file a record number came from."""
        return next((f for first, last, f in self.spans if first <= record <= last), None)

    def lines_after(self, record: int, n: int) -> list[str]:
        """The text of up to `n` lines of the same file from record number `record` on (for a kill report whose
        victim is named a few lines below its first line)."""
        for first, last, f in self.spans:
            if first <= record <= last:
                out = []
                for i, line in enumerate(self._lines(f, quiet=True), start=first):
                    if i >= record:
                        out.append(line)
                    if i >= min(last, record + n - 1):
                        break
                return out
        return []

    def _lines(self, f: RayFile, quiet: bool = False) -> Iterator[str]:
        try:
            with open(f.path, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if size > MAX_FILE_BYTES:
                    fh.seek(size - MAX_FILE_BYTES)
                    fh.readline()  # the rest of a cut line
                    if not quiet:
                        self.cut.append(f.name)
                for raw in fh:
                    if not quiet:
                        self.bytes_read += len(raw)
                    yield raw.decode("utf-8", "replace").rstrip("\r\n")
        except OSError:
            return

    def records(self) -> Iterator[Mapping[str, Any]]:
        """Every line of every file, in the reading order, as a journal-shaped record (the file is the process)."""
        self.spans, self.bytes_read, self.cut = [], 0, []
        n = 0
        for f in self.files:
            first = n + 1
            for line in self._lines(f):
                n += 1
                pid = f.pid
                if pid is None and (g := _GLOG.search(line[:80])):
                    pid = int(g["pid"])
                rec: dict[str, Any] = {"MESSAGE": line, "SYSLOG_IDENTIFIER": f.name}
                if pid is not None:
                    rec["_PID"] = str(pid)
                yield rec
            if n >= first:
                self.spans.append((first, n, f))
