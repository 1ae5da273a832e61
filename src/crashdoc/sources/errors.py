"""Errors a user meets when diagnosing a unit, each a single line that names the next step."""

from __future__ import annotations

from crashdoc.errors import CrashdocError, InputError


class UnitNotFoundError(InputError):
    """systemd does not know the unit on that host."""


class NoSystemdError(InputError):
    """The host does not run systemd as PID 1 (a container, WSL without systemd ...)."""


class JournalAccessError(InputError):
    """The user may not read the system journal (not root, not in group systemd-journal or adm)."""


class SystemdTooOldError(InputError):
    """The host's systemd lacks something crashdoc needs (invocation ids, a journalctl option)."""


class FreezeRefusedError(InputError):
    """--freeze was asked where it cannot act (a copied journal has no live unit to stop)."""


class FollowError(InputError):
    """A journal or log file cannot be followed; the message says why and what to do."""


class CommandNotFoundError(CrashdocError):
    """`crashdoc run` was given a command that does not exist (127, as a shell says)."""

    exit_status = 127


class CommandNotExecutableError(CrashdocError):
    """The command exists but cannot be executed (126, as a shell says)."""

    exit_status = 126
