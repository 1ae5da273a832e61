"""Helpers for the watch/run tests: the crashdoc CLI in-process (`crashdoc`) or as a real process
(`crashdoc_process`, `start_crashdoc`), and a reader that timestamps every line a process writes. The server
they watch is the vLLM stand-in, tests/support/vllm_standin.py."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "crashdoc"]


#: what every crashdoc run here gets: no colour, a fixed width
SETTINGS = {"COLUMNS": "110", "NO_COLOR": "1"}


def env(**extra: str) -> dict[str, str]:
    """The environment for crashdoc subprocesses (repo src first; no colour; a fixed width)."""
    return {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}", **SETTINGS, **extra}


@dataclass
class Result:
    """A finished crashdoc run."""

    status: int
    stdout: bytes
    stderr: str

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "replace")


def crashdoc(*args: str, extra_env: dict[str, str] | None = None, cwd: Path = ROOT) -> Result:
    """Run `crashdoc ARGS` to its end, in this process (tests/support/cli.py)."""
    r = run_cli(*args, env={**SETTINGS, **(extra_env or {})}, cwd=cwd)
    return Result(r.status, r.stdout_bytes, r.stderr)


def crashdoc_process(*args: str, timeout: float = 90, extra_env: dict[str, str] | None = None,
                     cwd: Path = ROOT) -> Result:
    """Run `crashdoc ARGS` to its end as a real process (for the tests that need one: each says why)."""
    p = subprocess.run([*CLI, *args], capture_output=True, env=env(**(extra_env or {})), cwd=cwd, timeout=timeout,
                       stdin=subprocess.DEVNULL, check=False)
    return Result(p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))


class Lines:
    """Reads a pipe in a thread; keeps (time, line) pairs; `wait_for` a regex."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self.items: list[tuple[float, bytes]] = []
        self.done = threading.Event()
        self._cv = threading.Condition()
        self._t = threading.Thread(target=self._run, args=(pipe,), daemon=True)
        self._t.start()

    def _run(self, pipe: IO[bytes]) -> None:
        for line in iter(pipe.readline, b""):
            with self._cv:
                self.items.append((time.time(), line))
                self._cv.notify_all()
        with self._cv:
            self.done.set()
            self._cv.notify_all()

    def text(self) -> str:
        return b"".join(line for _, line in self.items).decode("utf-8", "replace")

    def raw(self) -> bytes:
        return b"".join(line for _, line in self.items)

    def wait_for(self, pattern: str, timeout: float = 30) -> float:
        """Time the first line matching `pattern` arrived (raises AssertionError after `timeout`)."""
        rx = re.compile(pattern)
        deadline = time.time() + timeout
        with self._cv:
            while True:
                for t, line in self.items:
                    if rx.search(line.decode("utf-8", "replace")):
                        return t
                left = deadline - time.time()
                if left <= 0 or self.done.is_set():
                    raise AssertionError(f"no line matching {pattern!r} within {timeout} s:\n{self.text()[-3000:]}")
                self._cv.wait(min(left, 0.2))


@dataclass
class Live:
    """A running crashdoc with its stdout and stderr read line by line."""

    proc: subprocess.Popen[bytes]
    out: Lines = field(init=False)
    err: Lines = field(init=False)

    def __post_init__(self) -> None:
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.out = Lines(self.proc.stdout)
        self.err = Lines(self.proc.stderr)

    def wait(self, timeout: float = 60) -> int:
        rc = self.proc.wait(timeout=timeout)
        self.out.done.wait(10)
        self.err.done.wait(10)
        return rc


def _default_sigint() -> None:
    """In the child, before exec: Ctrl-C (SIGINT) as a shell's foreground job gets it, even when this test run
    was started with SIGINT ignored (a `cmd &` in a script), which Python would otherwise pass on."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_crashdoc(*args: str, extra_env: dict[str, str] | None = None) -> Live:
    """Start `crashdoc ARGS` in the background."""
    proc = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env=env(**(extra_env or {})), cwd=ROOT, preexec_fn=_default_sigint)
    return Live(proc)


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    """End a process we started (and its group when it leads one)."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def wait_for_file(path: Path, timeout: float = 30) -> None:
    """Wait until `path` exists (a process writes it when something happened)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear within {timeout} s")
        time.sleep(0.05)


def kill_group(pid: int) -> None:
    """SIGKILL a process group we created (leftover stand-in server processes)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def lines_of(data: bytes) -> list[bytes]:
    """Lines with their newline (the last one may lack it)."""
    return data.splitlines(keepends=True)


def sorted_lines(chunks: Sequence[bytes]) -> list[bytes]:
    return sorted(line for c in chunks for line in lines_of(c))
