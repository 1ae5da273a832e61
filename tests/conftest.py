"""Shared fixtures: the repo root, the dev corpus, a real sshd on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.shared import SHARED, SHARED_TAG, shared_reason
from tests.support.sshd import SSHD, SshServer, start_sshd

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root."""
    return ROOT


@pytest.fixture(autouse=True)
def state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own incident memory (CRASHDOC_STATE_DIR): the suite never writes to the real home."""
    path = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("CRASHDOC_STATE_DIR", str(path))
    return path


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The dev corpus (CRASHDOC_CORPUS or ../shared/corpus/dev); skips when absent."""
    path = Path(os.environ.get("CRASHDOC_CORPUS", ROOT.parent / "shared" / "corpus" / "dev"))
    if not (path / "cases").is_dir() and not path.is_dir():
        pytest.skip(shared_reason(path))
    return path


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    """A real sshd on 127.0.0.1 (root login with a throwaway key)."""
    if not Path(SSHD).exists() or not shutil.which("ssh"):
        pytest.skip("OpenSSH server/client not installed (apt-get install openssh-server openssh-client)")
    if os.geteuid() != 0:
        pytest.skip("sshd for tests needs root here")
    server, proc = start_sshd(tmp_path_factory.mktemp("sshd"))
    yield server
    proc.terminate()
    proc.wait(timeout=10)


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--update-golden`: rewrite tests/report/golden/ from the current renderers instead of comparing."""
    parser.addoption("--update-golden", action="store_true", help="rewrite the golden report files")


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True when the run rewrites golden files."""
    return bool(request.config.getoption("--update-golden"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say which tests were skipped because ../shared is absent, and why, in one block at the end."""
    reports = [r for r in terminalreporter.stats.get("skipped", []) if SHARED_TAG in str(getattr(r, "longrepr", ""))]
    if not reports:
        return
    tests = sorted({r.nodeid.split("[")[0] for r in reports})
    terminalreporter.write_sep("-", f"{len(reports)} skipped: ../shared is absent (dev corpus, judge's scorer)",
                               yellow=True)
    for t in tests:
        terminalreporter.write_line(f"  {t}")
    terminalreporter.write_line(f"  {shared_reason(SHARED)}")
