"""The one-line errors of `watch` and `run` (their exit statuses are in crashdoc.status)."""

from __future__ import annotations

from crashdoc.errors import InputError


class WatchUsageError(InputError):
    """The arguments do not say what to watch or run."""
