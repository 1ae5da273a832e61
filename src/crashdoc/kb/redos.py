"""Linear time, whatever the line: every rule regex is timed on adversarial lines before it ships.

A regex with nested or overlapping quantifiers (`(?:[~^]+\\s*)+$`, `(\\S+\\s*)+x`, `.*\\w+.*:`) takes
exponential or polynomial time on some lines; one such line in a log (a long word run, repeated separators, a
near miss of the pattern) stalls a diagnosis for minutes or days. `crashdoc rules validate` runs each regex on
such lines of growing length, up to 16 KiB, and reports any that takes more than LIMIT seconds on one line.
Lengths grow slowly at first, so an exponential pattern is caught on a short line before it can hang the check.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

from crashdoc.regex import Regex

LIMIT = 0.05
"""Seconds one search may take on one adversarial line of 16 KiB."""
FLOOR = 0.002
"""Below this a search is too quick to time reliably."""
SIZES = (8, 12, 16, 20, 24, 28, 32, 48, 64, 128, 512, 2048, 8192, 16384)
_LITERAL = Regex(r"(?:\\b)?((?:[A-Za-z0-9_ :'=,-]|\\[.()\[\]{}|?*+^$/-])+)")


_LEADING_RUN = Regex(r"(?:\\b)?(\(\?P<\w+>)?(\\[Swd]|\[(?:\\.|[^\]\\])+\])[+*]")


def linear_start(pattern: str) -> str:
    """A pattern that opens with a greedy run of one character class (`(?P<path>\\S+) is not a local folder`,
    `[\\w.+-]+: command not found`) made to start only where such a run starts.

    `re.search` tries every start position, and from each one the run consumes the rest of the line: a long
    word in the line makes that quadratic. A leftmost match of such a pattern always starts where the run
    starts, so a lookbehind for "not preceded by the class" changes no match and makes the search linear.
    """
    m = _LEADING_RUN.match(pattern)
    if not m:
        return pattern
    return f"(?<!{m.group(2)})" + pattern


def _literal_head(pattern: str) -> str:
    """The literal text a pattern starts with (what a near miss repeats), `\\.` and the like unescaped."""
    m = _LITERAL.match(pattern)
    if not m:
        return ""
    return re.sub(r"\\(.)", r"\1", m.group(1))


def _lines(pattern: str) -> Iterator[tuple[str, str, str, str]]:
    """(what, head, repeated unit, tail): a line is head + the unit repeated to the length + tail."""
    head = _literal_head(pattern)
    yield "a word run", "", "a", ""
    yield "a word run then a stop", "", "a", "!"
    yield "words and spaces", "", "ab ", ""
    for sep in ("/", ".", "-", ":", " ", "^", "~", "=", "'", "\\"):
        yield f"a run of {sep!r}", "", sep, ""
        yield f"a run of {sep!r} then a stop", "", sep, "!"  # a near miss at the very end
    yield "a mixed run", "", "a1.-/_:x", ""
    yield "a dotted name run", "", "a.", ""  # a word boundary at every other character
    for sep in ("==", "=", ":", "/"):  # a name and an operator, repeated: every name could start a match
        yield f"names joined by {sep!r}", "", "ab" + sep, ""
    yield "a digit run", "", "9", ""
    if head:
        yield f"{head!r} then a word run", head, "a", ""
        yield f"{head!r} then spaces", head, " ", ""
        yield f"{head!r} repeated", "", head + " ", ""
        for sep in ("^", " ", ".", "/", "-"):
            yield f"{head!r} then a run of {sep!r} then a stop", head, sep, "!"


def _line(head: str, unit: str, tail: str, n: int) -> str:
    return head + (unit * (n // len(unit) + 1))[:n] + tail


def _best(rx: re.Pattern[str], line: str, tries: int = 5) -> float:
    best = float("inf")
    for _ in range(tries):
        t0 = time.thread_time()
        rx.search(line)
        best = min(best, time.thread_time() - t0)
    return best


def slow_line(pattern: str, flags: int = 0, limit: float = LIMIT) -> str | None:
    """None when `pattern` stays linear and fast on every adversarial line; else which line, how long.

    Timed in CPU time of this thread (other processes on a busy machine do not count) and decided on growth,
    so that a busy machine cannot fail a linear pattern: a line that takes over FLOOR is timed again (best of
    5) beside a line a quarter of its length. A linear search takes about 4 times as long on the longer line, a
    quadratic one 16 times; the pattern is reported when its time grows more than twice the length ratio and
    takes over `limit` / 2, or when even a linear search takes more than 4 x `limit` on one line. (A ratio of
    two neighbouring lengths, 2 against 2.8, let cache noise on a shared machine fail a linear pattern.)
    """
    rx = re.compile(linear_start(pattern), flags)
    for what, head, unit, tail in _lines(pattern):
        for n in SIZES:
            line = _line(head, unit, tail, n)
            t0 = time.thread_time()
            rx.search(line)
            if time.thread_time() - t0 > FLOOR and n > SIZES[0]:
                quarter = max(n // 4, 1)
                took = _best(rx, line)
                before = _best(rx, _line(head, unit, tail, quarter))
                grows = took / max(before, 1e-9) > 2 * n / quarter
                if (grows and took > limit / 2) or took > 4 * limit:
                    return f"{took * 1000:.0f} ms on {what} of {len(line)} characters, growing faster than the line"
    return None
