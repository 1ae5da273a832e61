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
