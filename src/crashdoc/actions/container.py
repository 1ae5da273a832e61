"""Stop a container's restart loop: `<tool> update --restart=no NAME`, then `<tool> stop NAME`, each announced
with the exact command before it runs.

The policy goes first, so that the engine does not start the container again (docker brings `always`
containers back when its daemon restarts, even after a stop). Podman before 5.0 has no `update --restart`;
there the stop alone ends the loop (podman does not restart a container stopped by hand), and the result says
so. A stop that lands between two attempts can lose the race with a restart already under way: the state is
read after each stop, and a container that runs again is stopped again (announced, at most STOP_TRIES times).
Used by `diagnose docker:NAME --freeze`; nothing else in crashdoc stops a container.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from crashdoc.sources.container import ContainerFacts, check_container_name, check_tool, read_container
from crashdoc.transport import Runner

#: `stop` waits for the container's stop timeout (10 s by default), then kills it
STOP_TIMEOUT = 180.0
UPDATE_TIMEOUT = 60.0
#: a restart that was already under way when the stop came is stopped again, this many times at most
STOP_TRIES = 3


@dataclass(frozen=True)
class ContainerFreeze:
    """What the freeze did."""

    commands: tuple[str, ...]
    """The commands as run (with the ssh wrapper when remote), in order."""
    ok: bool
    """The container is stopped (the restart policy may still be set, see `policy_cleared`)."""
    policy_cleared: bool
    detail: str
    """Why something failed (the tool's or ssh's last line), or "done"."""
    after: ContainerFacts | None = None
    """The container's state once stopped (read to check that nothing started it again)."""


def freeze_argvs(tool: str, name: str) -> list[list[str]]:
    """The commands that stop the loop, in order."""
    check_tool(tool)
    check_container_name(name)
    return [[tool, "update", "--restart=no", name], [tool, "stop", name]]


def _run(runner: Runner, argv: list[str], timeout: float) -> tuple[bool, str]:
    try:
        res = runner.run(argv, timeout=timeout)
    except Exception as exc:  # the transport failed: reported, never raised
        return False, str(exc)
    lines = [ln.strip() for ln in res.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    error = next((ln for ln in lines if ln.startswith("Error")), lines[-1] if lines else f"exit status {res.returncode}")
    return res.ok, ("done" if res.ok else error)


def freeze_container(
    runner: Runner, tool: str, name: str, announce: Callable[[str], None], why: str
) -> ContainerFreeze:
    """Say what will run and why, run it, and say how it went (never raises for a failed command)."""
    update, stop = freeze_argvs(tool, name)
    commands = []
    notes = []
    command = runner.describe(update)
    announce(f"clearing the restart policy of {tool} container {name} so {why}: {command}")
    commands.append(command)
    cleared, detail = _run(runner, update, UPDATE_TIMEOUT)
    if not cleared:
        unknown_flag = "unknown flag" in detail or "unknown option" in detail
        notes.append(f"`{' '.join(update)}` failed: {detail}"
                     + (f" (this {tool} has no `update --restart`; the stop alone ends the loop)" if unknown_flag else ""))
    after = None
    for attempt in range(STOP_TRIES):
        command = runner.describe(stop)
        again = " again: it was started once more (its restart policy raced the stop)" if attempt else ""
        announce(f"stopping {tool} container {name}{again}: {command}")
        commands.append(command)
        stopped, stop_detail = _run(runner, stop, STOP_TIMEOUT)
        if not stopped:
            notes.append(f"`{' '.join(stop)}` failed: {stop_detail}")
            break
        try:
            after = read_container(runner, tool, name)
        except Exception as exc:  # reported, never raised
            notes.append(f"could not read the state after the stop: {exc}")
            break
        if not (after.running or after.restarting):
            break
    else:
        stopped = False
        notes.append(f"{tool} started {name} again after {STOP_TRIES} stops")
    return ContainerFreeze(tuple(commands), stopped, cleared, "; ".join(notes) or "done", after)
