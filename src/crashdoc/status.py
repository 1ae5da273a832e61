"""Every exit status of the crashdoc command, per subcommand, in one place (the README table follows it)."""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """What `crashdoc` returns to the shell."""

    ROOT_CAUSE = 0
    """A root cause was found and reported."""
    INTERNAL = 1
    """crashdoc itself failed (a bug); the message says so."""
    UNREADABLE = 2
    """The input could not be read (missing file, ssh refused, no journal access)."""
    NO_ERROR = 3
    """The evidence shows no error."""
    BELOW_FLOOR = 4
    """`crashdoc eval`: below --min-hit/--min-category, or a decoy ranked first."""
    RECOVERED = 6
    """`diagnose UNIT|CONTAINER`: the last failure is followed by a healthy attempt that is still running (it was
    broken; 0 says it is broken now)."""
    INTERRUPTED = 130
    """Ctrl-C."""


class WatchStatus(IntEnum):
    """What `crashdoc watch` returns (`crashdoc run` returns the command's own status)."""

    HEALTHY = 0
    """The server came up: the health endpoint answered 2xx, or (without --health) it printed its ready line."""
    UNREADABLE = 2
    """The journal, file or host could not be read or followed (the message says why)."""
    CRASHED = 4
    """The attempt failed: the process exited or restarted, the log says it is going down, or (after it was up)
    the health endpoint stayed down; the diagnosis is printed."""
    STOPPED = 5
    """The attempt ended without an error before it was up (stopped by hand, exited 0)."""
    TIMED_OUT = 124
    """Not up within --timeout (as timeout(1)); the diagnosis of what was logged so far is printed."""
    INTERRUPTED = 130
    """Ctrl-C."""


class FixStatus(IntEnum):
    """What `crashdoc fix UNIT` returns."""

    FIXED = 0
    """The fix was applied and the restarted service reached readiness without the error."""
    UNREADABLE = 2
    """The unit or host could not be read, or the fix was refused (no terminal and no --yes, unsafe name)."""
    NOTHING_TO_FIX = 3
    """No error to fix: the evidence shows none, or the service is running and ready."""
    NOT_APPLIED = 5
    """Nothing was changed: the fix is manual (shown, never run), has no command, or the answer was no."""
    NOT_FIXED = 7
    """Applied and restarted, and the same error came back."""
    NEW_ERROR = 8
    """Applied and restarted, and the service failed with a different error."""
    APPLY_FAILED = 9
    """A command of the plan failed (the fix command or the restart); nothing after it ran."""
    TIMED_OUT = 124
    """Not ready within --timeout after the restart."""
    INTERRUPTED = 130
    """Ctrl-C."""
