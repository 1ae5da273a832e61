"""What `watch` follows: a growing log file (like `tail -F`), a unit's journal (`journalctl -f -o json`, locally
or over ssh), and optionally a process id whose exit ends the attempt."""

from __future__ import annotations

import io
import os
import stat
import subprocess
from collections.abc import Sequence

from crashdoc.errors import TransportError
from crashdoc.sources.errors import FollowError
from crashdoc.transport import Runner

#: a log file larger than this is read from its last INITIAL_TAIL bytes when the watch begins
INITIAL_MAX = 64 << 20
INITIAL_TAIL = 16 << 20
#: journalctl -o json lines are cut here (a record is one line; MESSAGE can hold a 48 KiB log line and more)
JSON_LINE_MAX = 8 << 20


class FileFollower:
    """Follows a log file by name: waits for it to appear, reads what it holds, then what is appended; reopens
    it when it is replaced (rotation) and rereads it when it shrinks (copytruncate)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._f: io.FileIO | None = None
        self._ino: tuple[int, int] | None = None
        self._pos = 0
        self.notes: list[str] = []
        self._waiting_noted = False
        self._first_open = True
        self._skip_partial = False

    def _open(self) -> bool:
        try:
            f: io.FileIO = open(self.path, "rb", buffering=0)  # noqa: SIM115 - kept open while following
        except FileNotFoundError:
            if not self._waiting_noted:
                self.notes.append(f"{self.path} does not exist yet; waiting for it to appear")
                self._waiting_noted = True
            return False
        except IsADirectoryError as exc:
            raise FollowError(f"cannot follow {self.path}: it is a directory; give the log file") from exc
        except PermissionError as exc:
            raise FollowError(f"cannot follow {self.path}: permission denied (run as a user who may read it)") from exc
        except OSError as exc:
            raise FollowError(f"cannot follow {self.path}: {exc.strerror or exc}") from exc
        st = os.fstat(f.fileno())
        if not _regular_or_fifo(st.st_mode):
            f.close()
            raise FollowError(f"cannot follow {self.path}: not a regular file")
        self._f, self._ino, self._pos = f, (st.st_dev, st.st_ino), 0
        if self._first_open and stat.S_ISREG(st.st_mode) and st.st_size > INITIAL_MAX:
            self._pos = st.st_size - INITIAL_TAIL
            f.seek(self._pos)
            self.notes.append(f"{self.path} holds {st.st_size >> 20} MiB; reading its last {INITIAL_TAIL >> 20} MiB")
            self._skip_partial = True
        self._first_open = False
        return True

    def poll(self) -> list[bytes]:
        """Bytes appended since the last call (empty when nothing new)."""
        if self._f is None and not self._open():
            return []
        out = self._drain()
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return out  # rotated away, the new file is not there yet: keep reading the old one
        except OSError:
            return out
        if (st.st_dev, st.st_ino) != self._ino:
            out += self._drain()
            assert self._f is not None
            self._f.close()
            self._f = None
            self.notes.append(f"{self.path} was replaced (rotated); following the new file")
            if self._open():
                out += self._drain()
        elif st.st_size < self._pos:
            self.notes.append(f"{self.path} was truncated; reading it again from its start")
            assert self._f is not None
            self._f.seek(0)
            self._pos = 0
            out += self._drain()
        return out

    def _drain(self) -> list[bytes]:
        out: list[bytes] = []
        assert self._f is not None
        while True:
            data = self._f.read(1 << 20)
            if not data:
                return out
            self._pos += len(data)
            if self._skip_partial:
                nl = data.find(b"\n")
                if nl < 0:
                    continue
                data = data[nl + 1:]
                self._skip_partial = False
            out.append(data)

    def close(self) -> None:
        """Close the file."""
        if self._f is not None:
            self._f.close()
            self._f = None


def _regular_or_fifo(mode: int) -> bool:
    return stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def follow_argv(unit: str, journal_args: Sequence[str], start: Sequence[str], follow: bool = True) -> list[str]:
    """`journalctl [copy] -f -o json --all` for the unit's output, systemd's records about it, its core dumps and
    the kernel's records (OOM killer, GPU Xid)."""
    return ["journalctl", *journal_args, *(["--follow"] if follow else []), "--no-pager", "-o", "json", "--all", *start,
            f"_SYSTEMD_UNIT={unit}", "+", f"UNIT={unit}", "_PID=1", "+", f"COREDUMP_UNIT={unit}", "+",
            "_TRANSPORT=kernel"]


class JournalFollower:
    """A running `journalctl -f -o json` (local or over ssh); its stdout is read by the watch loop."""

    def __init__(self, runner: Runner, argv: Sequence[str], where: str) -> None:
        self.runner = runner
        self.argv = list(argv)
        self.where = where
        try:
            self.proc: subprocess.Popen[bytes] = runner.popen(self.argv)
        except TransportError as exc:
            raise FollowError(f"cannot follow the journal of {where}: {exc}") from exc
        assert self.proc.stdout is not None
        self.fd = self.proc.stdout.fileno()
        os.set_blocking(self.fd, False)

    def read(self) -> tuple[list[bytes], bool]:
        """(chunks available now, ended)."""
        out: list[bytes] = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out, False
            except OSError:
                return out, True
            if not data:
                return out, True
            out.append(data)

    def failure(self) -> FollowError:
        """Why journalctl stopped, as one line (it only stops on an error)."""
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        err = self.proc.stderr.read().decode("utf-8", "replace") if self.proc.stderr else ""
        lines = [ln.strip() for ln in err.splitlines() if ln.strip()]
        why = lines[-1] if lines else f"exit status {rc}"
        host = self.runner.host
        if host is not None and rc == 255:
            return FollowError(f"ssh {host}: {why} (check the host, port and that your key is loaded: ssh-add -l)")
        if "insufficient permissions" in err or "not seeing messages from other users" in err:
            return FollowError(f"cannot follow the journal of {self.where}: this user may not read the system journal"
                               " (add it to group systemd-journal, or run as root)")
        return FollowError(f"journalctl cannot follow the journal of {self.where}: {why}")

    def close(self) -> None:
        """Stop journalctl (or the ssh carrying it)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()


class PidWatcher:
    """A local process whose exit ends the attempt (`watch --file LOG --pid N`)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        try:
            os.kill(pid, 0)
        except ProcessLookupError as exc:
            raise FollowError(f"--pid {pid}: no such process") from exc
        except PermissionError:
            pass  # it exists; another user's

    def exited(self) -> bool:
        """True once the process is gone (or a zombie)."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                return f.read().rsplit(b")", 1)[-1].split()[0] in (b"Z", b"X")
        except OSError:
            return False
