"""Fixtures for the systemd tests: real journal files, a booted Debian container (the CLI: helpers.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import journal_files
from tests.support.container import Container, build_rootfs, missing_tools


@pytest.fixture(scope="session")
def journal_remote() -> str:
    """systemd-journal-remote, or a skip naming the package."""
    if not journal_files.available():
        pytest.skip("systemd-journal-remote is not installed (apt-get install systemd-journal-remote)")
    return journal_files.JOURNAL_REMOTE


@pytest.fixture(scope="session")
def rootfs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cached Debian 12 root filesystem (built with mmdebstrap the first time)."""
    missing = missing_tools()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install mmdebstrap systemd-container openssh-client)")
    if os.geteuid() != 0:
        pytest.skip("building and booting a container needs root")
    return build_rootfs(log=tmp_path_factory.mktemp("rootfs") / "mmdebstrap.log")


@pytest.fixture(scope="session")
def container(rootfs: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    """The booted container with vllm-kimi-k25.service crash-looping (at least 4 restarts done)."""
    box = Container(tmp_path_factory.mktemp("container"))
    try:
        box.prepare(rootfs)
        box.boot()
        box.wait_restarts(4)
        yield box
    finally:
        box.stop()
