"""Every input the fuzzer once failed on (tests/fuzz/regressions/*.bin) holds every property now."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.harness import REGRESSIONS, check

CASES = sorted(REGRESSIONS.glob("*.bin"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_regression(path: Path) -> None:
    check(path.read_bytes())


def test_regressions_are_kept() -> None:
    assert CASES, "tests/fuzz/regressions/ holds the inputs fuzzing found; it should never be empty"
