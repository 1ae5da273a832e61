"""The fleet tests' real fleet: three booted nodes (booted in parallel, once for the module that uses them, so
their crash loops stop with it) and an unreachable alias."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fleet.nodes import Fleet, make_fleet
from tests.support.container import build_rootfs, missing_tools


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """node-01..03 booted with crash-looping vllm.service units (at least two restarts each), node-04 dead."""
    missing = missing_tools()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install mmdebstrap systemd-container openssh-client)")
    if os.geteuid() != 0:
        pytest.skip("booting containers needs root")
    rootfs: Path = build_rootfs(log=tmp_path_factory.mktemp("rootfs") / "mmdebstrap.log")
    f = make_fleet(tmp_path_factory.mktemp("fleet"))
    try:
        f.start(rootfs)
        yield f
    finally:
        f.stop()
