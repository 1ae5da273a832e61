"""Exit statuses of `crashdoc watch`, and the one-line errors of `watch` and `run`."""

from __future__ import annotations

from enum import IntEnum

from crashdoc.errors import InputError


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


class WatchUsageError(InputError):
    """The arguments do not say what to watch or run."""
