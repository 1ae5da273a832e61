"""Run the `crashdoc` command in-process (httpie's `http()` style), or as a real process where a test needs one
(pipes, signals, a closed standard input, the judge's scorer)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crashdoc.cli import main

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    """What one crashdoc run printed and returned."""

    status: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        """stdout parsed as JSON."""
        return json.loads(self.stdout)


class _Stdin(io.TextIOWrapper):
    """A text standard input with the `.buffer` crashdoc reads from."""


def run_cli(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> Run:
    """`crashdoc ARGS` in this process: stdout, stderr and the exit status, as a user would see them."""
    out, err = io.StringIO(), io.StringIO()
    saved_env = dict(os.environ)
    saved_stdin = sys.stdin
    os.environ.update(env or {})
    sys.stdin = _Stdin(io.BytesIO(stdin or b""), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as exc:  # argparse errors, --help, --version
                status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        sys.stdin = saved_stdin
        os.environ.clear()
        os.environ.update(saved_env)
    return Run(int(status), out.getvalue(), err.getvalue())


def run_cli_subprocess(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None,
                       timeout: float = 120) -> Run:
    """`python -m crashdoc ARGS` as a real process, with the repo's src on the path."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    p = subprocess.run(
        [sys.executable, "-m", "crashdoc", *args], input=stdin, capture_output=True, env=full_env,
        timeout=timeout, cwd=ROOT, check=False,
    )
    return Run(p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))
