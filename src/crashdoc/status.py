"""Exit statuses of the crashdoc command."""

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
