"""Fixtures for the systemd tests: real journal files, a booted Debian container, the crashdoc CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import journal_files
from tests.fixtures.container import Container, build_rootfs, missing_tools

ROOT = Path(__file__).resolve().parents[2]


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


@dataclass
class CliResult:
    """What `python -m crashdoc ...` returned."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        """stdout parsed as JSON."""
        return json.loads(self.stdout)


def run_cli(*args: str, ssh_options: str = "", timeout: float = 300) -> CliResult:
    """Run `python -m crashdoc ARGS` as a subprocess (PYTHONPATH=src), with CRASHDOC_SSH_OPTIONS."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), CRASHDOC_SSH_OPTIONS=ssh_options, COLUMNS="160")
    env.pop("CRASHDOC_RULES", None)
    proc = subprocess.run(
        [sys.executable, "-m", "crashdoc", *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)
