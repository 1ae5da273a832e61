"""Fuzzing: hostile inputs of every shape through diagnose and the three renderers (tests/fuzz/harness.py).

`make test` runs a fixed-seed budget (profile `crashdoc-ci`: derandomized, the same inputs every run, about
600 in all); `make fuzz` runs CRASHDOC_FUZZ_EXAMPLES inputs (100,000) with fresh randomness (profile
`crashdoc-fuzz`). A failing input is shrunk by hypothesis and the smallest per failure is written to
tests/fuzz/regressions/, which test_regressions.py replays from then on.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.fuzz import inputs
from tests.fuzz.harness import Keeper

#: share of the inputs per shape
SHARES = {"mutated": 0.40, "journal": 0.15, "docker": 0.10, "traceback": 0.15, "bytes": 0.10, "binary": 0.10}
CI_EXAMPLES = 600
TOTAL = int(os.environ.get("CRASHDOC_FUZZ_EXAMPLES", "0") or 0)

_common = {"deadline": None, "database": None, "print_blob": True,
           "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]}
settings.register_profile("crashdoc-ci", derandomize=True, **_common)  # type: ignore[arg-type]
# no shrinking in the long run: a seed shrinks to nothing useful, and the failing bytes are kept as they are
settings.register_profile("crashdoc-fuzz", derandomize=False, phases=[Phase.explicit, Phase.reuse, Phase.generate],
                          **_common)  # type: ignore[arg-type]


def budget(shape: str) -> settings:
    """The settings of one shape's test: its share of the run's inputs, under the run's profile."""
    total = TOTAL or CI_EXAMPLES
    profile = settings.get_profile("crashdoc-fuzz" if TOTAL else "crashdoc-ci")
    return settings(profile, max_examples=max(1, round(total * SHARES[shape])))


KEEPER = Keeper()


@pytest.fixture(scope="module", autouse=True)
def _keep_failures() -> Iterator[None]:
    yield
    for path in KEEPER.save():
        print(f"\nfuzz: kept a failing input as {path}")


@budget("mutated")
@given(inputs.strategy("mutated"))
def test_mutated_real_logs(data: bytes) -> None:
    KEEPER.check(data)


@budget("journal")
@given(inputs.strategy("journal"))
def test_journal_export_with_wrong_types(data: bytes) -> None:
    KEEPER.check(data)


@budget("docker")
@given(inputs.strategy("docker"))
def test_docker_json_file_with_wrong_types(data: bytes) -> None:
    KEEPER.check(data)


@budget("traceback")
@given(inputs.strategy("traceback"))
def test_traceback_grammar(data: bytes) -> None:
    KEEPER.check(data)


@budget("bytes")
@given(inputs.strategy("bytes"))
def test_control_bytes_and_escapes(data: bytes) -> None:
    KEEPER.check(data)


@budget("binary")
@given(st.binary(max_size=4096))
def test_random_bytes(data: bytes) -> None:
    KEEPER.check(data)
