"""The Runner contract: run an argv on a host, get bytes back; the same for local and ssh."""

from __future__ import annotations

import shlex
import subprocess
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO


@dataclass(frozen=True)
class CommandResult:
    """What a command returned."""

    argv: tuple[str, ...]
    """The command as asked for (not the ssh wrapper)."""
    returncode: int
    stdout: bytes
    stderr: bytes
    seconds: float

    @property
    def ok(self) -> bool:
        """True when the command exited 0."""
        return self.returncode == 0

    def stderr_line(self) -> str:
        """The last non-empty stderr line, decoded, for one-line error messages."""
        lines = [ln for ln in self.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        return lines[-1].strip() if lines else ""


@dataclass
class Streamed:
    """A command whose output is read as it is written: iterate `lines`, then `result()` says how it ended."""

    lines: Iterator[bytes]
    result: Callable[[], CommandResult]


class Runner(ABC):
    """Runs commands on one host. Implementations: LocalRunner, SshRunner."""

    #: host name for reports; None for the local machine
    host: str | None = None

    @abstractmethod
    def run(self, argv: Sequence[str], *, timeout: float = 60.0, stdin: bytes | None = None) -> CommandResult:
        """Run argv to completion; raises TransportError when it cannot run at all."""

    @abstractmethod
    def popen(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        """Start argv with stdout piped, for streaming (journalctl -f, large outputs)."""

    def stream(self, argv: Sequence[str]) -> Streamed:
        """Run argv and read its standard output line by line as it comes (large journal answers): nothing
        holds the whole output. `result()` (after the lines, or to stop early) waits for the exit."""
        start = time.monotonic()
        proc = self.popen(argv)
        out, errs = proc.stdout, proc.stderr
        assert out is not None and errs is not None
        _widen(out)

        def result() -> CommandResult:
            if proc.poll() is None:
                out.close()  # stopped early: journalctl ends on the closed pipe
            err = errs.read()
            code = proc.wait()
            return CommandResult(tuple(argv), code, b"", err, time.monotonic() - start)

        return Streamed(iter(out), result)

    def describe(self, argv: Sequence[str]) -> str:
        """The command as a person would type it, for "about to run" lines."""
        cmd = shlex.join(argv)
        return cmd if self.host is None else f"ssh {self.host} {shlex.quote(cmd)}"


#: bytes of a streamed command's pipe (Linux allows an unprivileged process 1 MiB by default)
PIPE_BYTES = 1 << 20


def _widen(pipe: IO[bytes]) -> None:
    """Let the writer run up to PIPE_BYTES ahead of the reader (64 KiB by default): journalctl keeps writing while
    crashdoc handles the last block, instead of stopping at each one (F_SETPIPE_SZ; elsewhere nothing changes)."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        return
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is None:
        return
    try:
        fcntl.fcntl(pipe.fileno(), setsize, PIPE_BYTES)
    except (OSError, ValueError):
        pass
