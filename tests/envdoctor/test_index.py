"""Versions that exist (envdoctor/index.py): a fix's pinned versions checked against the index the service's
own pip uses, here a `--find-links` folder of real wheels built in the test and a real venv with pip; the
alternative command when the matching companion does not exist; "not checked" when pip cannot be asked."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from crashdoc.envdoctor import index
from crashdoc.envdoctor.index import available, check_pins
from crashdoc.investigate import diagnose_stream
from crashdoc.investigate.interpreter import with_interpreter
from crashdoc.kb import KnowledgeBase
from crashdoc.transport.local import LocalRunner
from tests.envdoctor.builders import PYTHON, Pkg, build_wheel

MISMATCH = ("RuntimeError: flashinfer-cubin version (0.6.13) does not match flashinfer version (0.7.0.post1). "
            "Please install the same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass "
            "this check.\n")
RELEASES = [("flashinfer-python", "0.6.4"), ("flashinfer-python", "0.7.0.post1"),
            ("flashinfer-cubin", "0.6.4"), ("flashinfer-cubin", "0.6.13")]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A venv with pip (the service's interpreter) and a find-links folder of wheels (its index)."""
    root = tmp_path_factory.mktemp("index")
    links = root / "links"
    for name, version in RELEASES:
        build_wheel(Pkg(name, version, module=name.replace("-", "_")), links)
    subprocess.run([PYTHON, "-m", "venv", str(root / "venv")], check=True, capture_output=True)
    return str(root / "venv" / "bin" / "python"), links


@pytest.fixture
def only_links(monkeypatch: pytest.MonkeyPatch, service: tuple[str, Path]) -> str:
    """The service's pip sees the folder and nothing else (as a pip.conf or PIP_* environment would set it)."""
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(service[1]))
    return service[0]


def test_the_index_lists_the_folders_releases(only_links: str) -> None:
    assert sorted(available(LocalRunner(), only_links, "flashinfer-cubin").versions or ()) == ["0.6.13", "0.6.4"]
    assert available(LocalRunner(), only_links, "flashinfer-jit-cache").versions == ()


def test_a_pin_that_exists_is_kept_and_said_checked(only_links: str) -> None:
    command = f"{only_links} -m pip install flashinfer-cubin==0.6.4"
    checked = check_pins(LocalRunner(), only_links, command)
    assert checked is not None and checked.command == command
    assert checked.note.startswith("Checked: flashinfer-cubin 0.6.4 is on the index")


def test_a_missing_optional_companion_is_uninstalled_instead(only_links: str) -> None:
    kb = KnowledgeBase.load()
    diag = diagnose_stream(io.BufferedReader(io.BytesIO(MISMATCH.encode())), "t", kb=kb)  # type: ignore[arg-type]
    assert diag.root_cause is not None and diag.root_cause.fix.command == "pip install flashinfer-cubin==0.7.0.post1"
    fixed = with_interpreter(diag, only_links, LocalRunner()).root_cause
    assert fixed is not None and fixed.fix.command == f"{only_links} -m pip uninstall -y flashinfer-cubin"
    assert "flashinfer-cubin 0.7.0.post1 is not on the index this pip uses (its newest there: 0.6.13)" in fixed.fix.text
    assert "works without the optional flashinfer-cubin" in fixed.fix.text


def test_a_required_companion_pins_the_group_back(only_links: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "optional_members", lambda: frozenset())
    checked = check_pins(LocalRunner(), only_links, f"{only_links} -m pip install flashinfer-cubin==0.7.0.post1")
    assert checked is not None
    assert checked.command == f"{only_links} -m pip install flashinfer-python==0.6.4 flashinfer-cubin==0.6.4"
    assert "pinned back to 0.6.4, the newest version all of flashinfer-python, flashinfer-cubin have" in checked.note


def test_without_pip_the_version_is_not_checked(tmp_path: Path) -> None:
    python = str(tmp_path / "missing" / "python")
    checked = check_pins(LocalRunner(), python, f"{python} -m pip install flashinfer-cubin==0.6.4")
    assert checked is not None and checked.command == f"{python} -m pip install flashinfer-cubin==0.6.4"
    assert checked.note.startswith("The pinned versions were not checked against the package index")


def test_commands_without_pins_are_not_checked(only_links: str) -> None:
    assert check_pins(LocalRunner(), only_links, "ss -ltnp") is None
    assert check_pins(LocalRunner(), only_links, f"{only_links} -m pip install --upgrade vllm") is None


def test_an_unreachable_index_is_not_checked(service: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """pip says "No matching distribution" offline as well: the connection errors before it decide."""
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")  # nothing listens on the discard port
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    answer = available(LocalRunner(), service[0], "flashinfer-cubin")
    assert answer.versions is None and "not reached" in answer.why_not
