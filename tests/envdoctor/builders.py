"""Real wheels and real venvs for the environment tests: wheels written with zipfile (RECORD with sha256
hashes, as a build backend writes it), installed with `pip install --no-deps --no-index` into `python3 -m venv`
environments. Nothing about the installed metadata is faked."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(os.environ.get("CRASHDOC_TEST_CACHE", "/var/cache/crashdoc-tests"))
PYTHON = sys.executable


def _escape(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name)


def _record_row(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


@dataclass(frozen=True)
class Pkg:
    """A tiny package named like a real one."""

    name: str
    version: str
    requires: Sequence[str] = ()
    files: Mapping[str, str] | None = None
    """Paths inside the wheel -> text; default: `<module>/__init__.py` with `__version__`."""
    module: str | None = None
    scripts: Mapping[str, str] | None = None
    """console_scripts: name -> `module:function`."""

    @property
    def import_name(self) -> str:
        """The module the package installs."""
        return self.module or _escape(self.name).lower()


def build_wheel(pkg: Pkg, dest: Path) -> Path:
    """Write `pkg` as a py3-none-any wheel with a correct RECORD; return its path."""
    dest.mkdir(parents=True, exist_ok=True)
    dist = _escape(pkg.name)
    info = f"{dist}-{pkg.version}.dist-info"
    files = dict(pkg.files or {f"{pkg.import_name}/__init__.py": f'__version__ = "{pkg.version}"\n'})
    meta = ["Metadata-Version: 2.1", f"Name: {pkg.name}", f"Version: {pkg.version}"]
    meta += [f"Requires-Dist: {r}" for r in pkg.requires]
    files[f"{info}/METADATA"] = "\n".join(meta) + "\n\n"
    files[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: crashdoc-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    if pkg.scripts:
        files[f"{info}/entry_points.txt"] = "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in pkg.scripts.items())
    path = dest / f"{dist}-{pkg.version}-py3-none-any.whl"
    rows = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            data = text.encode()
            zf.writestr(name, data)
            rows.append(_record_row(name, data))
        rows.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(rows) + "\n")
    return path


def make_venv(path: Path, python: str = PYTHON) -> Path:
    """A real venv (without pip: the host's pip installs into it); returns its python."""
    subprocess.run([python, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


def pip_install(venv_python: Path, wheels: Sequence[Path]) -> None:
    """`pip install --no-deps --no-index` the wheels into the venv of `venv_python`."""
    subprocess.run(
        [PYTHON, "-m", "pip", "--python", str(venv_python), "install", "--no-deps", "--no-index", "--quiet",
         "--disable-pip-version-check", *map(str, wheels)],
        check=True, capture_output=True,
    )


def venv_with(path: Path, pkgs: Sequence[Pkg]) -> Path:
    """A venv at `path` with `pkgs` installed from wheels built for them; returns its python."""
    python = make_venv(path)
    pip_install(python, [build_wheel(p, path.parent / f"{path.name}-wheels") for p in pkgs])
    return python


def site_packages(venv_python: Path) -> Path:
    """The venv's site-packages."""
    lib = venv_python.parent.parent / "lib"
    return next(lib.glob("python3*/site-packages"))


def pip_download(specs: Sequence[str]) -> list[Path]:
    """Real PyPI wheels, downloaded once into CACHE/wheels (`pip download --no-deps`)."""
    dest = CACHE / "wheels"
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for spec in specs:
        name, _, version = spec.partition("==")
        pattern = f"{_escape(name)}-{version}-*.whl"
        found = sorted(dest.glob(pattern))
        if not found:
            subprocess.run([PYTHON, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(dest), spec],
                           check=True, capture_output=True)
            found = sorted(dest.glob(pattern))
        out.append(found[0])
    return out
