"""Fixtures for the watch/run tests (helpers live in tests/watch/helpers.py)."""

from __future__ import annotations

import pytest

from tests.support.net import free_port


@pytest.fixture
def port() -> int:
    """A free port for the stand-in server's health endpoint."""
    return free_port()
