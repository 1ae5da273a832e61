"""Helpers for the watch/run tests: the crashdoc CLI (with watch/run registered) as a real subprocess, the fake
vLLM server, free ports, and a reader that timestamps every line a process writes."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
FAKE = Path(__file__).resolve().parent / "fake_server.py"
CLI = [sys.executable, "-m", "tests.watch.cli_entry"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fake(*args: str) -> list[str]:
    """argv of the fake server."""
    return [sys.executable, str(FAKE), *args]


def env(**extra: str) -> dict[str, str]:
    """The environment for crashdoc subprocesses (repo src first; no colour; a fixed width)."""
    return {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}", "COLUMNS": "110", "NO_COLOR": "1", **extra}


@dataclass
class Result:
    """A finished crashdoc run."""

    status: int
    stdout: bytes
    stderr: str

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "replace")


def crashdoc(*args: str, timeout: float = 90, extra_env: dict[str, str] | None = None, cwd: Path = ROOT) -> Result:
    """Run `crashdoc ARGS` to its end."""
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


def start_crashdoc(*args: str, extra_env: dict[str, str] | None = None) -> Live:
    """Start `crashdoc ARGS` in the background."""
    proc = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env=env(**(extra_env or {})), cwd=ROOT)
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


def kill_group(pid: int) -> None:
    """SIGKILL a process group we created (leftover fake-server processes)."""
    import signal

    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def lines_of(data: bytes) -> list[bytes]:
    """Lines with their newline (the last one may lack it)."""
    return data.splitlines(keepends=True)


def sorted_lines(chunks: Sequence[bytes]) -> list[bytes]:
    return sorted(line for c in chunks for line in lines_of(c))
