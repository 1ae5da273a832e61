"""Facts in words: durations, sizes, times on the target host, short lists."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone


def ago(seconds: float) -> str:
    """A duration in words: `40 seconds`, `11 minutes`, `5 hours`, `3 days`."""
    seconds = round(abs(seconds))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size * (2 if unit != "minute" else 1):
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    n = int(seconds)
    return f"{n} second{'s' if n != 1 else ''}"


def size(count: float) -> str:
    """Bytes in words: `64 MiB`, `1.5 GiB`."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            value = count / scale
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{int(count)} B"


def when(epoch: float, utc_offset: int = 0) -> str:
    """`2026-11-30 17:02` in the target host's local time."""
    return datetime.fromtimestamp(epoch, tz=timezone(timedelta(seconds=utc_offset))).strftime("%Y-%m-%d %H:%M")


def listing(items: Sequence[str], limit: int = 3) -> str:
    """`a, b and c`, or `a, b, c and 4 more`."""
    items = list(items)
    if len(items) > limit:
        return f"{', '.join(items[:limit])} and {len(items) - limit} more"
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def plural(count: int, word: str) -> str:
    """`1 file`, `3 files`."""
    return f"{count} {word}{'' if count == 1 else 's'}"
