"""Run the `crashdoc` command in-process (httpie's `http()` style), or as a real process where a test needs one
(pipes, signals, a closed standard input, the judge's scorer, a watch that follows a live process).

In-process, `run_cli` gives crashdoc what a process started by a shell gets: an empty standard input (fd 0 is
/dev/null too), and standard output and error that are files, not terminals. Whatever is written to them goes
to one capture per stream, in order, whether it is written through sys.stdout/sys.stderr or straight to file
descriptors 1 and 2 (`crashdoc run` passes the command's output through with os.write(1, ...), and the programs
crashdoc starts inherit both descriptors).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from crashdoc.cli import main

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    """What one crashdoc run printed and returned."""

    status: int
    stdout: str
    stderr: str
    stdout_bytes: bytes = b""
    """stdout exactly as written (`stdout` is it decoded, invalid UTF-8 replaced)."""

    @property
    def json(self) -> Any:
        """stdout parsed as JSON."""
        return json.loads(self.stdout)


class _Stdin(io.TextIOWrapper):
    """A text standard input with the `.buffer` crashdoc reads from."""


@contextlib.contextmanager
def _fd_redirected(fd: int, target: int) -> Iterator[None]:
    """Point file descriptor `fd` at `target` for the duration (pytest's own capture is restored after)."""
    for stream in (sys.__stdout__, sys.__stderr__, sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = os.dup(fd)
    os.dup2(target, fd)
    try:
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


@contextlib.contextmanager
def _environ(env: Mapping[str, str | None] | None) -> Iterator[None]:
    saved = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _text_stream(f: BinaryIO) -> io.TextIOWrapper:
    """A text stream over the capture file, written through at once (so it interleaves with fd writes in order)."""
    raw = open(os.dup(f.fileno()), "wb", buffering=0)  # noqa: SIM115 - closed with the wrapper
    return io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)


def run_cli(*args: str, stdin: bytes | None = None, env: Mapping[str, str | None] | None = None,
            cwd: str | Path | None = None) -> Run:
    """`crashdoc ARGS` in this process: stdout, stderr and the exit status, as a user would see them.

    `env` adds variables to the environment for the run (None removes one); `cwd` is the working directory.
    """
    saved_stdin, saved_out, saved_err = sys.stdin, sys.stdout, sys.stderr
    saved_cwd = os.getcwd()
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f, \
            open(os.devnull, "rb") as null, _environ(env), \
            _fd_redirected(0, null.fileno()), _fd_redirected(1, out_f.fileno()), _fd_redirected(2, err_f.fileno()):
        out, err = _text_stream(out_f), _text_stream(err_f)
        sys.stdin = _Stdin(io.BytesIO(stdin or b""), encoding="utf-8")
        sys.stdout, sys.stderr = out, err
        try:
            if cwd is not None:
                os.chdir(cwd)
            try:
                status = main(list(args))
            except SystemExit as exc:  # argparse errors, --help, --version
                status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        finally:
            os.chdir(saved_cwd)
            sys.stdin, sys.stdout, sys.stderr = saved_stdin, saved_out, saved_err
            for stream in (out, err):
                with contextlib.suppress(Exception):
                    stream.close()
        out_f.seek(0)
        err_f.seek(0)
        raw_out, raw_err = out_f.read(), err_f.read()
    return Run(int(status), raw_out.decode("utf-8", "replace"), raw_err.decode("utf-8", "replace"), raw_out)


def run_cli_subprocess(*args: str, stdin: bytes | None = None, env: Mapping[str, str | None] | None = None,
                       timeout: float = 120, cwd: str | Path | None = None) -> Run:
    """`python -m crashdoc ARGS` as a real process, with the repo's src on the path."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for key, value in (env or {}).items():
        if value is None:
            full_env.pop(key, None)
        else:
            full_env[key] = value
    p = subprocess.run(
        [sys.executable, "-m", "crashdoc", *args], input=stdin, capture_output=True, env=full_env,
        timeout=timeout, cwd=cwd or ROOT, check=False,
    )
    return Run(p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.stdout)
