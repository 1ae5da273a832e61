"""Apply a fix on the service's host: the rule's pip command run with the unit's own interpreter, then
`systemctl restart UNIT`. Each command is announced (exactly as it will run, ssh wrapper included) before it runs.

Only `crashdoc fix` calls this, and only for a rule marked `fix.apply: safe` (a pinned pip install of a
companion package the knowledge base knows); every word of the command is checked for shell syntax again here,
whatever the rule says, and nothing runs through a shell.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from crashdoc.errors import UnsafeArgumentError
from crashdoc.transport import Runner, check_unit_name, check_word

#: the only pip options a safe fix may carry (each followed by its value, itself checked)
OPTIONS = frozenset({"--index-url", "--extra-index-url"})
#: pip may take a while to resolve and install a large wheel
PIP_TIMEOUT = 900.0
#: systemctl restart waits for the stop (TimeoutStopSec, then SIGKILL) and the start job
RESTART_TIMEOUT = 300.0


@dataclass(frozen=True)
class StepResult:
    """How one command of the plan went."""

    command: str
    """As run (with the ssh wrapper when remote)."""
    ok: bool
    detail: str
    """`done`, or why it failed (the command's last stderr line, or the transport's error)."""
    output_tail: tuple[str, ...] = ()
    """The last lines the command printed (stdout and stderr), for the report."""
    returncode: int | None = None
    """Its exit status; None when it could not run at all."""


def pip_argv(command: str, python: str, find_links: str | None = None) -> list[str]:
    """The rule's `pip install NAME==VERSION ...` as `PYTHON -m pip install ...`: the unit's interpreter, so the
    package lands in the environment the service imports from. `find_links`: install only from this folder or
    URL on the host (`--no-index --find-links`). Raises UnsafeArgumentError for anything else."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise UnsafeArgumentError(f"refusing the fix command {command!r}: {exc}") from exc
    if words[:3] == [python, "-m", "pip"]:  # already for this interpreter (the report of `diagnose UNIT`)
        words = ["pip", *words[3:]]
    if len(words) < 3 or words[0] not in ("pip", "pip3") or words[1] != "install":
        raise UnsafeArgumentError(f"refusing to apply {command!r}: only a `pip install NAME==VERSION` fix is applied")
    args = [w if w in OPTIONS and i and i < len(words) - 1 else check_word(w, "a word of the fix command")
            for i, w in enumerate(words[2:], 1)]
    if not any("==" in a and not a.startswith("-") for a in args):
        raise UnsafeArgumentError(f"refusing to apply {command!r}: it pins no version (NAME==VERSION)")
    extra = ["--no-index", "--find-links", check_word(find_links, "--find-links")] if find_links else []
    return [check_word(python, "the unit's Python"), "-m", "pip", "install", *args, *extra]


def restart_argv(unit: str) -> list[str]:
    """The restart that makes the service load the fixed environment."""
    return ["systemctl", "restart", check_unit_name(unit)]


def run_step(runner: Runner, argv: Sequence[str], announce: Callable[[str], None], timeout: float) -> StepResult:
    """Announce the command, run it, say how it went (never raises for a failed command)."""
    command = runner.describe(argv)
    announce(f"running: {command}")
    try:
        res = runner.run(argv, timeout=timeout)
    except Exception as exc:  # a transport error (ssh refused, timed out) is a failed step, reported
        return StepResult(command, False, str(exc))
    text = (res.stdout + b"\n" + res.stderr).decode("utf-8", "replace")
    tail = tuple(ln for ln in text.splitlines() if ln.strip())[-8:]
    if res.ok:
        return StepResult(command, True, "done", tail, res.returncode)
    return StepResult(command, False, res.stderr_line() or f"exit status {res.returncode}", tail, res.returncode)
