"""The crashdoc CLI for the systemd tests, in-process (tests/support/cli.py): crashdoc runs on this machine and
reaches the container or the sshd through its own ssh transport, so no test here needs it as a process."""

from __future__ import annotations

from tests.support.cli import Run, run_cli


def crashdoc(*args: str, ssh_options: str = "") -> Run:
    """`crashdoc ARGS` with CRASHDOC_SSH_OPTIONS, a wide terminal and no extra rule folders."""
    return run_cli(*args, env={"CRASHDOC_SSH_OPTIONS": ssh_options, "COLUMNS": "160", "CRASHDOC_RULES": None})
