"""Errors crashdoc reports as one line; only the CLI catches them."""

from __future__ import annotations


class CrashdocError(Exception):
    """Base of every error crashdoc reports as one line."""

    #: exit status the CLI uses for this error
    exit_status = 1


class InputError(CrashdocError):
    """The input (file, stdin, journal) could not be read."""

    exit_status = 2


class TransportError(CrashdocError):
    """A command could not be run on the target host (ssh refused, timed out, not found)."""

    exit_status = 2


class UnsafeArgumentError(CrashdocError):
    """A unit or host name carries shell syntax; it is refused, not run."""

    exit_status = 2
