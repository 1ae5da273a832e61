"""`../shared` next to the repository (the dev corpus, the judge's scorer): absent in a plain clone, where the
tests that read it are skipped with one reason, and the run's summary lists them (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
"""`../shared` next to the repository."""
SHARED_TAG = "[needs ../shared]"
"""Starts the reason of every test skipped because ../shared is absent (the run's summary counts them)."""


def shared_reason(path: Path) -> str:
    """The skip reason for a test that reads `path` under ../shared (or CRASHDOC_CORPUS) when it is absent."""
    return (f"{SHARED_TAG} {path} is absent: the dev corpus and the judge's scorer live in ../shared next to the "
            "repository (a plain clone has none; set CRASHDOC_CORPUS to a corpus folder for the corpus tests)")
