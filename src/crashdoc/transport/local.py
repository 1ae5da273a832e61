"""Run commands on this machine."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence

from crashdoc.errors import TransportError
from crashdoc.transport.interface import CommandResult, Runner


class LocalRunner(Runner):
    """Runs argv directly (no shell)."""

    host = None

    def run(self, argv: Sequence[str], *, timeout: float = 60.0, stdin: bytes | None = None) -> CommandResult:
        """Run argv to completion with a timeout."""
        start = time.monotonic()
        try:
            proc = subprocess.run(
                list(argv),
                input=stdin,
                stdin=None if stdin is not None else subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except FileNotFoundError as exc:
            raise TransportError(f"{argv[0]}: command not found on this machine") from exc
        except subprocess.TimeoutExpired as exc:
            raise TransportError(f"{argv[0]} did not finish within {timeout:.0f} s") from exc
        except OSError as exc:
            raise TransportError(f"{argv[0]}: {exc.strerror or exc}") from exc
        return CommandResult(tuple(argv), proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)

    def popen(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        """Start argv with stdout and stderr piped."""
        try:
            return subprocess.Popen(
                list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except FileNotFoundError as exc:
            raise TransportError(f"{argv[0]}: command not found on this machine") from exc
