"""Linear time whatever the line: super-linear rule regexes are caught before they ship, fast."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from crashdoc.evaluate.validate import validate
from crashdoc.kb.redos import linear_start, slow_line


@pytest.mark.parametrize("pattern", [
    r"(?:[~^]+\s*)+$",               # nested quantifiers: exponential on a caret line with a trailing character
    r"(\S+\s*)+x",                   # the same shape over words
    r"[^\s:]*?(?P<n>[\w-]+)[\w.-]*\.so: undefined symbol",   # three overlapping runs: polynomial on a word run
    r"(?P<p>[A-Za-z][\w.-]{0,60})==\S+ has no wheels",   # every name of `a==a==...` starts a run to the line's end
])
def test_super_linear_patterns_are_caught_quickly(pattern: str) -> None:
    t0 = time.perf_counter()
    assert slow_line(pattern) is not None
    assert time.perf_counter() - t0 < 30  # found on a short line, long before it could hang the check


@pytest.mark.parametrize("pattern", [r"Address already in use", r"CUDA out of memory\. Tried to allocate (?P<n>[\d.]+)",
                                     r"(?P<p>[A-Za-z][\w.-]{0,60})==[^\s=]{1,80} has no wheels"])
def test_linear_patterns_pass(pattern: str) -> None:
    assert slow_line(pattern) is None


@pytest.mark.parametrize(("pattern", "text"), [
    (r"(?P<path>\S+) is not a local folder", "OSError: /models/x is not a local folder and is not"),
    (r"[\w.+-]+: command not found", "sh: 1: nvidia-smi: command not found"),
    (r"(?P<what>[\w ]+) \((?P<n>\d+)\) is not divisible", "Total number of attention heads (14) is not divisible"),
])
def test_a_leading_run_starts_only_where_it_starts_and_matches_the_same(pattern: str, text: str) -> None:
    a, b = re.search(pattern, text), re.search(linear_start(pattern), text)
    assert a is not None and b is not None and a.span() == b.span() and a.groupdict() == b.groupdict()
    assert linear_start(pattern) != pattern
    assert slow_line(pattern) is None  # slow_line times the pattern as the rules compile it


def test_validate_reports_a_slow_user_rule(tmp_path: Path) -> None:
    (tmp_path / "carets.yaml").write_text(
        "id: carets\ncategory: other\nrole: cause\nmatch:\n  regex: 'boom(?:[~^]+\\s*)+$'\n"
        "explanation: x\nfix:\n  text: y\nexamples:\n  - match: 'boom^^^'\n  - no-match: 'fine'\n")
    problems = validate([tmp_path])
    assert any("not linear-time" in p for p in problems), problems
