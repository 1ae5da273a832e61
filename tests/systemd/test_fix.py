"""`crashdoc fix` on the real systemd in the booted container, over ssh: the founding stand-in crash-loops because
flashinfer-cubin is at the wrong version; a wheel folder built here holds the matching one; `crashdoc fix --yes`
installs it with the unit's own interpreter (pip --no-index --find-links), restarts the unit, watches the start and
says "fixed"; `diagnose` then reports running-and-ready with the old failure (exit 6). In a second unit a stale
copy earlier on PYTHONPATH shadows the install, so the same fix does not help: "not fixed".

The two units are this module's own (the session's vllm-kimi-k25.service is left to the other tests); each runs
the stand-in through a wrapper that takes the flashinfer versions from what is installed in its venv.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.envdoctor.builders import Pkg, build_wheel
from tests.support.container import Container
from tests.support.net import free_port
from tests.systemd.helpers import crashdoc

pytestmark = [pytest.mark.host, pytest.mark.slow]

ROOT_ERROR = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"
WHEELS = "/opt/crashdoc-wheels"

WRAPPER = '''#!{venv}/bin/python3
"""crashdoc test unit: the vLLM stand-in, with the flashinfer versions installed in this venv."""
import importlib.metadata as md
import os
import sys


def version(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "none"


cubin, flashinfer = version("flashinfer-cubin"), version("flashinfer-python")
os.environ.update(STANDIN_CUBIN=cubin, STANDIN_FLASHINFER=flashinfer, STANDIN_TP="2", STANDIN_FAIL_RANK="1")
args = sys.argv[1:] if cubin != flashinfer else ["--mode", "healthy", "--port", "{port}", "--workers", "2"]
os.execv(sys.executable, [sys.executable, "/opt/venv/bin/vllm", *args])
'''

UNIT_FILE = """\
[Unit]
Description=crashdoc fix test ({name})
StartLimitIntervalSec=0

[Service]
Type=simple
{environment}
ExecStart={venv}/bin/vllm serve moonshotai/Kimi-K2.5 --tensor-parallel-size 2
Restart=on-failure
RestartSec=1
"""


@dataclass
class FixUnit:
    name: str
    venv: str
    port: int

    def installed(self, box: Container, package: str) -> str:
        code = f"import importlib.metadata as m; print(m.version({package!r}))"
        return box.ssh(f"{self.venv}/bin/python3", "-c", f'"{code}"').stdout.strip()


def _python_dir(root: Path) -> str:
    return sorted(p.name for p in (root / "usr/lib").glob("python3.*") if (p / "os.py").exists())[-1]


def _make_venv(box: Container, venv: str, port: int, python_dir: str) -> None:
    """A venv in the container (bin/python3 -> /usr/bin/python3 + pyvenv.cfg), with this machine's pip copied in
    (the container's minimal Debian has no pip) and the stand-in wrapper as bin/vllm."""
    root = box.root / venv.lstrip("/")
    (root / "bin").mkdir(parents=True, exist_ok=True)
    (root / "bin/python3").symlink_to("/usr/bin/python3")
    (root / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\n")
    site = root / "lib" / python_dir / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    import pip

    pip_dir = Path(pip.__file__).parent
    shutil.copytree(pip_dir, site / "pip")
    for info in pip_dir.parent.glob("pip-*.dist-info"):
        shutil.copytree(info, site / info.name)
    (root / "bin/vllm").write_text(WRAPPER.format(venv=venv, port=port))
    (root / "bin/vllm").chmod(0o755)


def _wait_failed(box: Container, unit: str, timeout: float = 120.0) -> None:
    """Until systemd has restarted the unit after a failure (its journal holds a failed attempt)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if int(box.ssh("systemctl", "show", "-p", "NRestarts", "--value", unit).stdout.strip() or 0) >= 1:
            return
        time.sleep(0.3)
    raise RuntimeError(f"{unit} did not fail and restart within {timeout} s")


@pytest.fixture(scope="module")
def units(container: Container) -> Iterator[dict[str, FixUnit]]:
    """fixdemo-a (the cubin is simply wrong) and fixdemo-b (a stale 0.6.3 copy on PYTHONPATH shadows any
    install), both crash-looping, and the wheel folder with flashinfer-python 0.6.4 and flashinfer-cubin 0.6.3
    and 0.6.4."""
    box = container
    wheels = box.root / WHEELS.lstrip("/")
    for pkg in (Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.3"),
                Pkg("flashinfer-cubin", "0.6.4")):
        build_wheel(pkg, wheels)
    python_dir = _python_dir(box.root)
    stale = box.root / "opt/crashdoc-stale/flashinfer_cubin-0.6.3.dist-info"
    stale.mkdir(parents=True, exist_ok=True)
    (stale / "METADATA").write_text("Metadata-Version: 2.1\nName: flashinfer-cubin\nVersion: 0.6.3\n\n")
    made = {
        "a": FixUnit("fixdemo-a.service", "/opt/fix-a", free_port()),
        "b": FixUnit("fixdemo-b.service", "/opt/fix-b", free_port()),
    }
    env = {"a": "", "b": "Environment=PYTHONPATH=/opt/crashdoc-stale"}
    for key, u in made.items():
        _make_venv(box, u.venv, u.port, python_dir)
        box.ssh(f"{u.venv}/bin/python3", "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
                "--find-links", WHEELS, "flashinfer-python==0.6.4", "flashinfer-cubin==0.6.3")
        (box.root / f"etc/systemd/system/{u.name}").write_text(
            UNIT_FILE.format(name=u.name, venv=u.venv, environment=env[key]))
    box.ssh("systemctl", "daemon-reload")
    for u in made.values():
        box.ssh("systemctl", "start", u.name)
    for u in made.values():
        _wait_failed(box, u.name)
    try:
        yield made
    finally:
        for u in made.values():
            box.ssh("systemctl", "stop", u.name, check=False)


def _fix(box: Container, u: FixUnit, *extra: str):  # type: ignore[no-untyped-def]
    return crashdoc("fix", u.name.removesuffix(".service"), "--host", box.target(), "--find-links", WHEELS,
                    "--timeout", "120", "--display", "none", "--no-history", *extra, ssh_options=box.ssh_options_env)


def test_without_a_terminal_and_without_yes_nothing_changes(container: Container, units: dict[str, FixUnit]) -> None:
    u = units["a"]
    res = _fix(container, u)
    assert res.status == 2, res.stdout + res.stderr
    assert "no terminal to ask" in res.stderr and "--yes" in res.stderr
    assert "plan for fixdemo-a.service" in res.stdout  # the plan was shown ...
    assert "running:" not in res.stdout  # ... and nothing ran
    assert u.installed(container, "flashinfer-cubin") == "0.6.3"


def test_fix_installs_restarts_watches_and_says_fixed(container: Container, units: dict[str, FixUnit]) -> None:
    u = units["a"]
    res = _fix(container, u, "--yes")
    out = res.stdout
    assert res.status == 0, out + res.stderr
    pip = (f"running: ssh {container.target()} '{u.venv}/bin/python3 -m pip install flashinfer-cubin==0.6.4 "
           f"--no-index --find-links {WHEELS}'")
    restart = f"running: ssh {container.target()} 'systemctl restart {u.name}'"
    assert pip in out and restart in out and out.index(pip) < out.index(restart)
    assert "verify: watch the next start" in out
    assert out.rstrip().endswith("fixed: the service reached readiness and the error is gone")
    assert u.installed(container, "flashinfer-cubin") == "0.6.4"
    assert container.ssh("systemctl", "is-active", u.name, check=False).stdout.strip() == "active"

    # afterwards: running and ready, the old failure as history, exit status 6 (recovered)
    diag = crashdoc("diagnose", "fixdemo-a", "--host", container.target(), "-f", "json", "--no-history",
                    ssh_options=container.ssh_options_env)
    assert diag.status == 6, diag.stderr
    state = diag.json["state"]
    assert state["now"] == "running" and state["ready"] is True and state["recovered"] is True
    assert ROOT_ERROR in state["last_failure"]["message"], state
    assert "(resolved since?)" in state["detail"]
    assert diag.json["unit"]["still_looping"] is False
    assert not any("--freeze" in line for line in diag.json["unit"]["lines"])
    # a second fix has nothing to do
    again = _fix(container, u, "--yes")
    assert again.status == 3 and "nothing to fix now: running and ready since" in again.stdout


def test_fix_that_does_not_help_says_not_fixed(container: Container, units: dict[str, FixUnit]) -> None:
    u = units["b"]
    res = _fix(container, u, "--yes")
    out = res.stdout
    assert res.status == 7, out + res.stderr
    assert f"running: ssh {container.target()} 'systemctl restart {u.name}'" in out
    assert "not fixed: the same error again" in out and ROOT_ERROR in out.splitlines()[-1]
    # the fix was installed into the venv, but the stale copy earlier on the unit's PYTHONPATH still wins
    assert u.installed(container, "flashinfer-cubin") == "0.6.4"
