"""Context windows of a block's hot lines, in line-index space: the block scanner (parse/scan.py) judges each
marker hit on its line, then this module turns the accepted hits into merged windows of whole lines without
walking the block line by line, which keeps an error-dense block (a crash loop, every line a hit) cheap."""

from __future__ import annotations

from collections.abc import Iterable


class Windows:
    """Merged [start, end) ranges of line indexes in a block, and the context owed on either side (a plain class:
    a start defines no dataclass for it)."""

    __slots__ = ("ranges", "want_prev", "owed")

    def __init__(self, ranges: list[tuple[int, int]], want_prev: int, owed: int) -> None:
        self.ranges = ranges
        self.want_prev = want_prev
        """Lines of before-context wanted from the end of the previous block."""
        self.owed = owed
        """Lines of after-context still wanted from the next block (0 unless the last range reaches the end)."""


def windows(events: Iterable[tuple[int, int, int]], lines: int, pending: int) -> Windows:
    """The windows of accepted hits `(line index, lines before, lines after)`, in hit order, over a block of
    `lines` lines whose first `pending` lines are context owed by the previous block.

    A hit's window is merged into the current one when it starts inside it (the current one is then extended to
    cover the hit's after-context, never moved back), so the order of the hits matters as it did when windows were
    cut from byte offsets."""
    ranges: list[tuple[int, int]] = []
    want_prev = owed = 0
    if pending:
        ranges.append((0, min(pending, lines)))
        owed = max(0, pending - lines)
    for idx, before, after in events:
        ws = idx - before
        if ws <= 0:
            if not ranges:
                want_prev = max(want_prev, -ws)
            ws = 0
        end = idx + after + 1
        if ranges and ws <= ranges[-1][1]:
            cur = ranges[-1][1]
            if end > cur:
                owed = max(owed, end - lines)
                if min(end, lines) > cur:
                    ranges[-1] = (ranges[-1][0], min(end, lines))
        else:
            owed = max(owed, end - lines)
            ranges.append((ws, min(end, lines)))
    return Windows(ranges, want_prev, owed if ranges and ranges[-1][1] >= lines else 0)
