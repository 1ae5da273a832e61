"""Where a report goes: standard output, or a file replaced atomically (`FILE.<pid>.tmp`, then rename).

A report file is either the old one or the whole new one, never a cut one: the report is written next to it,
flushed to disk and renamed over it. A full disk, an I/O error or a closed standard output is one line and
exit status 2 (ReportWriteError), with the old file intact. A reader that goes away (`| head -1`) is not an
error: the rest of the report is dropped and the exit status stays what the diagnosis says.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from typing import TextIO

from crashdoc.errors import CrashdocError


class ReportWriteError(CrashdocError):
    """The report could not be written (disk full, I/O error, standard output closed)."""

    exit_status = 2


class Outcome:
    """What became of the report: `reader_gone` when standard output's reader closed the pipe."""

    __slots__ = ("reader_gone",)

    def __init__(self, reader_gone: bool = False) -> None:
        self.reader_gone = reader_gone


def silence_stdout() -> None:
    """Point standard output at /dev/null, so the interpreter's flush at exit does not fail a second time."""
    stream = sys.stdout
    if stream is None:
        return
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


@contextlib.contextmanager
def report_output(path: str | None, outcome: Outcome | None = None) -> Iterator[TextIO]:
    """A text stream for the report: the file at `path` (committed when the block ends without an error) or
    standard output. Write errors become ReportWriteError; a closed pipe sets `outcome.reader_gone`."""
    if path:
        with _atomic(path) as out:
            yield out
        return
    out = sys.stdout
    if out is None:
        raise ReportWriteError("standard output is closed; write the report with --output FILE")
    try:
        yield out
        out.flush()
    except BrokenPipeError:
        silence_stdout()
        if outcome is None:
            raise
        outcome.reader_gone = True
    except OSError as exc:
        silence_stdout()
        raise ReportWriteError(f"cannot write the report to standard output: {_reason(exc)}") from exc


def _special(path: str) -> bool:
    """True for an existing path that is not a regular file (/dev/stdout, a FIFO, a terminal): written in place."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


@contextlib.contextmanager
def _atomic(path: str) -> Iterator[TextIO]:
    if _special(path):
        try:
            with open(path, "w", encoding="utf-8") as f:
                yield f
        except OSError as exc:
            raise ReportWriteError(f"cannot write the report to {path}: {_reason(exc)}") from exc
        return
    real = os.path.realpath(path)  # through a symlink: the file it names is replaced, the link stays
    tmp = f"{real}.{os.getpid()}.tmp"
    try:
        f = open(tmp, "w", encoding="utf-8")  # noqa: SIM115 - closed below, before the rename
    except OSError as exc:
        raise ReportWriteError(f"cannot write the report to {path}: {_reason(exc)}") from exc
    try:
        with contextlib.suppress(OSError):
            os.chmod(tmp, stat.S_IMODE(os.stat(real).st_mode))  # the old file's permissions
        yield f
        f.flush()
        os.fsync(f.fileno())
        f.close()
        os.replace(tmp, real)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            f.close()
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise ReportWriteError(f"cannot write the report to {path}: {_reason(exc)}; {path} is unchanged") from exc
        raise
