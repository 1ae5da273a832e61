"""The `run` source: a command started in its own process group, its output read as it is written."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from collections.abc import Sequence

from crashdoc.sources.errors import CommandNotExecutableError, CommandNotFoundError


def spawn(argv: Sequence[str]) -> subprocess.Popen[bytes]:
    """Start argv in its own process group, stdout+stderr on one pipe; the shell's 127/126 when it cannot."""
    name = argv[0]
    stdin = subprocess.DEVNULL if isatty(0) else None  # a background process group must not read the terminal
    try:
        if sys.version_info >= (3, 11):
            return subprocess.Popen(list(argv), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    close_fds=True, bufsize=0, process_group=0)
        # Python 3.10 has no process_group=; a new session is also a new process group (and fork-safe)
        return subprocess.Popen(list(argv), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                close_fds=True, bufsize=0, start_new_session=True)
    except FileNotFoundError as exc:
        if os.path.exists(name):
            raise CommandNotExecutableError(f"{name}: bad interpreter (the program named on its #! line does not exist)") from exc
        if "/" in name:
            raise CommandNotFoundError(f"{name}: no such file or directory") from exc
        raise CommandNotFoundError(f"{name}: command not found") from exc
    except PermissionError as exc:
        what = "is a directory" if os.path.isdir(name) else "permission denied (not executable)"
        raise CommandNotExecutableError(f"{name}: {what}") from exc
    except OSError as exc:
        if exc.errno == errno.ENOEXEC:
            raise CommandNotExecutableError(f"{name}: cannot execute: exec format error (a script needs a #! line)") from exc
        raise CommandNotExecutableError(f"{name}: cannot execute: {exc.strerror or exc}") from exc


def pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name.removeprefix("SIG")
    except ValueError:
        return str(sig)


def isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False
