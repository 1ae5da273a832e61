"""Stop a unit's restart loop (`systemctl stop UNIT`): announced with the exact command before it runs.

Used by `diagnose --freeze` and `watch --freeze-on-crash`; nothing else in crashdoc stops a service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from crashdoc.transport import Runner

#: how long systemd may take to stop a unit (its TimeoutStopSec, then SIGKILL)
STOP_TIMEOUT = 180.0


@dataclass(frozen=True)
class FreezeResult:
    """What the freeze did."""

    command: str
    """The command as run (with the ssh wrapper when remote)."""
    ok: bool
    detail: str
    """Why it failed (journalctl's or ssh's last line), or "done"."""


def freeze_argv(unit: str) -> list[str]:
    """The command that stops the loop."""
    return ["systemctl", "stop", unit]


def freeze_unit(runner: Runner, unit: str, announce: Callable[[str], None], why: str) -> FreezeResult:
    """Say what will run and why, run it, and say how it went (never raises for a failed stop)."""
    argv = freeze_argv(unit)
    command = runner.describe(argv)
    announce(f"stopping {unit} so {why}: {command}")
    try:
        res = runner.run(argv, timeout=STOP_TIMEOUT)
        ok, detail = res.ok, ("done" if res.ok else res.stderr_line() or f"exit status {res.returncode}")
    except Exception as exc:
        ok, detail = False, str(exc)
    return FreezeResult(command, ok, detail)
