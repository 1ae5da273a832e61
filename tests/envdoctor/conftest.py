"""Fixtures for the environment doctor: venvs with tiny real wheels, a fake nvidia-smi on PATH."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.envdoctor.builders import Pkg, venv_with

ASSETS = Path(__file__).parent / "assets"


@pytest.fixture
def make_env(tmp_path: Path) -> Callable[..., Path]:
    """make_env(*pkgs, name="venv") -> the python of a new venv with those packages installed."""
    def make(*pkgs: Pkg, name: str = "venv") -> Path:
        return venv_with(tmp_path / name, pkgs)
    return make


@pytest.fixture
def nvidia_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """use(recording) puts the stand-in nvidia-smi first on PATH, answering from assets/nvidia-smi/<recording>."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    shutil.copy(ASSETS / "nvidia-smi" / "nvidia-smi", bin_dir / "nvidia-smi")
    (bin_dir / "nvidia-smi").chmod(0o755)

    def use(recording: str) -> None:
        monkeypatch.setenv("NVIDIA_SMI_RECORDING", str(ASSETS / "nvidia-smi" / recording))
        monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    return use


@pytest.fixture
def no_nvidia_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH without nvidia-smi (only the interpreter's and the system's basic folders)."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")


def torch_pkgs(torch: str = "2.8.0+cu128", cuda: str | None = "12.8", requires: Sequence[str] = ()) -> list[Pkg]:
    """A tiny torch with a real torch/version.py (its CUDA build) and the given requirements."""
    cuda_line = f"cuda: Optional[str] = {cuda!r}" if cuda else "cuda: Optional[str] = None"
    files = {
        "torch/__init__.py": f'__version__ = "{torch}"\n',
        "torch/version.py": f"from typing import Optional\n\n__version__ = '{torch}'\ndebug = False\n{cuda_line}\n"
                            "git_version = '0000000'\nhip: Optional[str] = None\n",
    }
    return [Pkg("torch", torch, requires=tuple(requires), files=files)]
