"""Real podman for the container tests: a private configuration and storage, and an image with the stand-ins.

Podman here needs runc, the cgroupfs manager and no default ulimits; that is written to a containers.conf named
by CONTAINERS_CONF (and the storage to a storage.conf named by CONTAINERS_STORAGE_CONF), so nothing of the host's
own podman configuration or storage is touched. The storage lives under the test cache
(`/var/cache/crashdoc-tests/podman`, CRASHDOC_TEST_CACHE overrides it) so the image survives between runs.

The image: no registry is reachable, so the Debian root filesystem the systemd tests build with mmdebstrap
(tests/support/container.py, cached; python3 is in it) is `podman import`ed once per recipe as
localhost/crashdoc-rootfs:<recipe hash> (about 10 s), and `podman build` (FROM it, ADD of a tar, no RUN, no
registry) adds one layer with the stand-ins: `/opt/venv/bin/vllm` (tests/support/vllm_standin.py) and the small
programs in tests/sources/standins/. Its tag is a hash of the recipe and of those files, so a change to the
stand-ins costs a second or two; an unchanged image is found with `podman image exists` at once. Old tags go.

Known podman 4 behaviour handled here: conmon writes the file that marks an OOM kill into its working directory,
and podman < 5.0 reads it from the container's bundle directory (containers/podman#13102), so OOMKilled stays
false unless the container is started from its bundle directory (`start(..., from_bundle=True)`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support import container as rootfs_recipe
from tests.support import vllm_standin

STANDINS = Path(__file__).resolve().parents[1] / "sources" / "standins"
REPOSITORY = "localhost/crashdoc-standin"
BASE = "localhost/crashdoc-rootfs"
#: every container the tests create is named with this prefix (and removed with it)
PREFIX = "crashdoc-t-"

CONTAINERS_CONF = """\
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "{tmp}"
"""

STORAGE_CONF = """\
[storage]
driver = "overlay"
graphroot = "{graphroot}"
runroot = "{runroot}"
"""


def missing_tools() -> list[str]:
    """What the podman tests need that is not installed."""
    return [t for t in ("podman", "runc", "tar") if shutil.which(t) is None]


def storage_dir() -> Path:
    """The private podman storage (kept between runs: the imported image is the expensive part)."""
    return rootfs_recipe.cache_dir() / "podman"


def configure(workdir: Path) -> dict[str, str]:
    """Write containers.conf and storage.conf into workdir; return the environment that names them."""
    workdir.mkdir(parents=True, exist_ok=True)
    run = Path("/run/crashdoc-tests/podman")  # fixed paths: podman refuses a storage whose run dirs changed
    (workdir / "containers.conf").write_text(CONTAINERS_CONF.format(tmp=run / "libpod"))
    (workdir / "storage.conf").write_text(STORAGE_CONF.format(graphroot=storage_dir() / "storage", runroot=run / "storage"))
    return {"CONTAINERS_CONF": str(workdir / "containers.conf"),
            "CONTAINERS_STORAGE_CONF": str(workdir / "storage.conf")}


def _layer_files() -> dict[str, tuple[bytes, int]]:
    """The stand-in layer: path in the image -> (content, mode)."""
    vllm = vllm_standin.PATH.read_text().split("\n", 1)[1]
    files = {"opt/venv/bin/vllm": (("#!/opt/venv/bin/python3\n" + vllm).encode(), 0o755)}
    for p in sorted(STANDINS.glob("*.py")):
        files[f"opt/standins/{p.name}"] = (p.read_bytes(), 0o755)
    return files


def image_tag() -> str:
    """`localhost/crashdoc-standin:<rootfs recipe>-<stand-ins>`."""
    h = hashlib.sha256()
    for path, (data, mode) in sorted(_layer_files().items()):
        h.update(f"{path}\0{mode}\0".encode() + data)
    return f"{REPOSITORY}:{rootfs_recipe.recipe_hash()}-{h.hexdigest()[:12]}"


@dataclass
class Podman:
    """The podman CLI with the private configuration."""

    env: dict[str, str]
    image: str = ""

    def __call__(self, *args: str, check: bool = True, cwd: Path | None = None, timeout: float = 180,
                 stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(["podman", *args], env={**os.environ, **self.env}, cwd=cwd, capture_output=True,
                              timeout=timeout, check=False, input=stdin.decode() if stdin is not None else None,
                              text=True)
        if check and proc.returncode != 0:
            raise RuntimeError(f"podman {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc

    def inspect(self, name: str) -> dict[str, Any]:
        """The container's inspect object."""
        doc: list[dict[str, Any]] = json.loads(self("inspect", "--type", "container", name).stdout)
        return doc[0]

    def create(self, name: str, *args: str, command: tuple[str, ...] = ()) -> None:
        """`podman create --name NAME --network=none ARGS IMAGE COMMAND` (a leftover of the name is removed)."""
        self("rm", "-f", name, check=False)
        self("create", "--name", name, "--network=none", *args, self.image, *command)

    def start(self, name: str, from_bundle: bool = False) -> None:
        """Start it; `from_bundle`: from its bundle directory, so podman 4 can see an OOM kill (module doc)."""
        if from_bundle:
            self("start", name, cwd=Path(self.inspect(name)["StaticDir"]))
            return
        # conmon keeps the working directory it was started in (it writes an `oom` file there, and runs the
        # restart policy's cleanup from it): one that outlives the container, outside the repository
        cwd = Path(tempfile.gettempdir()) / "crashdoc-podman-cwd" / name
        cwd.mkdir(parents=True, exist_ok=True)
        self("start", name, cwd=cwd)

    def events(self, name: str, event: str, n: int, timeout: float = 180) -> None:
        """Block on podman's event stream (replayed from the container's creation) until the container has had
        `n` events of kind `event` (`died`, `restart`, `start`); a RuntimeError after `timeout`."""
        info = self.inspect(name)
        proc = subprocess.Popen(
            ["podman", "events", "--since", info["Created"], "--filter", f"container={info['Id']}",
             "--filter", f"event={event}", "--format", "{{.Status}}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, **self.env})
        watchdog = threading.Timer(timeout, proc.kill)
        watchdog.start()
        seen = 0
        try:
            assert proc.stdout is not None
            for _ in proc.stdout:
                seen += 1
                if seen >= n:
                    return
            raise RuntimeError(f"{name}: {seen} {event} events of {n} within {timeout} s")
        finally:
            watchdog.cancel()
            proc.kill()
            proc.wait()

    def wait_exit(self, name: str, restarts: int = 0, timeout: float = 180) -> dict[str, Any]:
        """Wait for the container's last exit: `restarts + 1` died events (one more each time the state says it
        is not over yet), then `podman wait` for its state to settle (exit code, OOMKilled); its inspect object."""
        deadline = time.monotonic() + timeout
        died = restarts + 1
        while True:
            self.events(name, "died", died, max(1.0, deadline - time.monotonic()))
            self("wait", name, timeout=max(1.0, deadline - time.monotonic()))
            info = self.inspect(name)
            state = info["State"]
            if state["Status"] in ("exited", "stopped") and not state["Restarting"] and info["RestartCount"] >= restarts:
                return info
            died += 1

    def wait_restarts(self, name: str, n: int, timeout: float = 180) -> dict[str, Any]:
        """Wait until a looping container has been restarted n times (its restart events)."""
        self.events(name, "restart", n, timeout)
        return self.inspect(name)

    def remove_test_containers(self) -> None:
        """Remove every container the tests created (by name prefix; the storage is ours alone anyway)."""
        names = self("ps", "-a", "--format", "{{.Names}}", check=False).stdout.split()
        mine = [n for n in names if n.startswith(PREFIX)]
        if mine:
            self("rm", "-f", "-t", "0", *mine, check=False)


def _layer_tar(files: dict[str, tuple[bytes, int]]) -> bytes:
    """A tar of the stand-in layer, with /opt/venv/bin/python3 -> /usr/bin/python3 (the vllm script's shebang)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        dirs = {str(parent) for p in files for parent in Path(p).parents if str(parent) != "."}
        for d in sorted(dirs):
            info = tarfile.TarInfo(d)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
        info = tarfile.TarInfo("opt/venv/bin/python3")
        info.type, info.linkname = tarfile.SYMTYPE, "/usr/bin/python3"
        tar.addfile(info)
        for path, (data, mode) in sorted(files.items()):
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@contextlib.contextmanager
def _lock() -> Iterator[None]:
    storage_dir().mkdir(parents=True, exist_ok=True)
    with open(storage_dir() / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _import_rootfs(podman: Podman, rootfs: Path) -> str:
    """`localhost/crashdoc-rootfs:<recipe>`: the root filesystem as one image layer (imported once)."""
    tag = f"{BASE}:{rootfs_recipe.recipe_hash()}"
    if podman("image", "exists", tag, check=False).returncode == 0:
        return tag
    tar = subprocess.Popen(["tar", "-cf", "-", "--exclude=./.crashdoc-complete", "-C", str(rootfs), "."],
                           stdout=subprocess.PIPE)
    imp = subprocess.run(["podman", "import", "-", tag], stdin=tar.stdout, env={**os.environ, **podman.env},
                         capture_output=True, text=True, timeout=900, check=False)
    assert tar.stdout is not None
    tar.stdout.close()
    if tar.wait() != 0 or imp.returncode != 0:
        raise RuntimeError(f"podman import of {rootfs} failed (tar {tar.returncode}, import {imp.returncode}): "
                           f"{imp.stderr.strip()}")
    return tag


def ensure_image(podman: Podman, rootfs: Path, workdir: Path) -> str:
    """The stand-in image: the rootfs image plus the stand-in layer (`podman build`, no RUN, no registry),
    unless an image of this tag exists already. Older tags of both repositories are removed."""
    tag = image_tag()
    podman.image = tag
    if podman("image", "exists", tag, check=False).returncode == 0:
        return tag
    with _lock():
        if podman("image", "exists", tag, check=False).returncode == 0:
            return tag
        base = _import_rootfs(podman, rootfs)
        ctx = workdir / "image"
        ctx.mkdir(parents=True, exist_ok=True)
        (ctx / "standins.tar").write_bytes(_layer_tar(_layer_files()))
        (ctx / "Containerfile").write_text(
            f'FROM {base}\nADD standins.tar /\nCMD ["/opt/venv/bin/vllm", "serve"]\n')
        podman("build", "--pull=never", "--network=none", "-t", tag, str(ctx), timeout=600)
        for repo, keep in ((REPOSITORY, tag), (BASE, base)):
            for old in podman("images", "--format", "{{.Repository}}:{{.Tag}}", repo, check=False).stdout.split():
                if old != keep:
                    podman("rmi", old, check=False)
    return tag
