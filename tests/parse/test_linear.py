"""Every regex of the parser is linear-time: no repeated group whose body can itself take any share of the
text (`(?:[~^]+\\s*)+`, `(\\S+\\s*)+`), and hostile lines are read in bounded time."""

from __future__ import annotations

import importlib
import pkgutil
import re
import time

import pytest

import crashdoc.parse
from crashdoc.regex import Regex
from tests.parse.test_formats import _ambiguous_repeats


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    out = []
    for mod in pkgutil.iter_modules(crashdoc.parse.__path__):
        m = importlib.import_module(f"crashdoc.parse.{mod.name}")
        for name, value in vars(m).items():
            if isinstance(value, Regex):  # a module's patterns compile on first use (crashdoc/regex.py)
                value = value.compiled
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                out.append((f"{mod.name}.{name}", value))
    return out


PATTERNS = _patterns()


def test_the_traceback_noise_pattern_is_among_them() -> None:
    assert any(name == "traceback._NOISE" for name, _ in PATTERNS)


@pytest.mark.parametrize(("name", "rx"), PATTERNS, ids=[n for n, _ in PATTERNS])
def test_no_ambiguous_repeat(name: str, rx: re.Pattern[str]) -> None:
    assert not _ambiguous_repeats(rx.pattern), name


HOSTILE = [" " * 20000 + "x", "~ " * 10000 + "x", "^" * 20000 + "x", "[" * 20000, "a:" * 10000, "1" * 20000,
           '"' * 20000, "\\" * 20000, "+-" * 10000 + "x", "|" * 20000 + "x", "File " * 4000]


@pytest.mark.parametrize(("name", "rx"), PATTERNS, ids=[n for n, _ in PATTERNS])
def test_hostile_lines_are_matched_quickly(name: str, rx: re.Pattern[str]) -> None:
    t0 = time.perf_counter()
    for s in HOSTILE:
        rx.match(s)
    assert time.perf_counter() - t0 < 0.5, name
