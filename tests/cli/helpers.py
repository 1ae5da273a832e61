"""The CLI runners for tests/cli (in-process by default; see tests/support/cli.py)."""

from __future__ import annotations

from tests.support.cli import ROOT, Run, run_cli, run_cli_subprocess


def crashdoc(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None, timeout: float = 120) -> Run:
    """`crashdoc ARGS`, in-process (the timeout only applies to the real-process runner)."""
    del timeout
    return run_cli(*args, stdin=stdin, env=env)


__all__ = ["ROOT", "Run", "crashdoc", "run_cli", "run_cli_subprocess"]
