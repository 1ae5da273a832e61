"""Shared fixtures for the knowledge-base tests."""

from __future__ import annotations

import pytest

from crashdoc.kb import KnowledgeBase


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    """The packaged knowledge base (no user rule directories)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("CRASHDOC_RULES", raising=False)
        return KnowledgeBase.load()
