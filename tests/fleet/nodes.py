"""A small real fleet: booted Debian containers (systemd-nspawn -b), each with its own sshd on its own loopback
port, its own hostname and its own crash-looping `vllm.service`, reached through an ssh config of aliases
(`node-01` ...), as an operator reaches a GPU fleet.

Each node is an overlay mount over the cached root filesystem of the systemd tests (tests/support/container.py),
so a node costs its boot, not a 260 MB copy: the upper layer holds only the node's sshd config, key, unit and
server. The nodes boot in parallel.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import vllm_standin
from tests.support.container import SSHD_CONFIG, Container
from tests.support.net import free_port

HERE = Path(__file__).resolve().parent
UNIT = "vllm.service"

UNIT_FILE = """\
[Unit]
Description=vLLM (crashdoc fleet test stand-in)
StartLimitIntervalSec=0

[Service]
Type=simple
Environment={environment}
ExecStart=/opt/venv/bin/vllm serve {model} --tensor-parallel-size 2
Restart=on-failure
RestartSec=2

[Install]
WantedBy=multi-user.target
"""


@dataclass(frozen=True)
class Failure:
    """What a node's server does: the stand-in's founding case (flashinfer-cubin mismatch) or a GPU OOM."""

    server: Path
    environment: str = "STANDIN_TP=2 STANDIN_FAIL_RANK=1"
    model: str = "moonshotai/Kimi-K2.5"


FLASHINFER = Failure(vllm_standin.PATH)
FLASHINFER_RANK0 = Failure(vllm_standin.PATH, "STANDIN_TP=2 STANDIN_FAIL_RANK=0")
GPU_OOM = Failure(HERE / "oom_server.py", "", "Qwen/Qwen3-235B-A22B")


@dataclass
class Node(Container):
    """One booted node; its root is an overlay over the shared root filesystem."""

    failure: Failure = FLASHINFER
    port: int = field(default_factory=free_port)
    client_key: Path | None = None
    """The fleet's one client key (every node authorises it), as one operator's key opens a fleet."""

    @property
    def key(self) -> Path:
        """The client key that logs in as root."""
        return self.client_key or self.workdir / "id_ed25519"

    def prepare(self, rootfs: Path) -> None:
        """Mount the overlay and write the node's own files into it."""
        for d in ("upper", "work", "root"):
            (self.workdir / d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        f"lowerdir={rootfs},upperdir={self.workdir / 'upper'},workdir={self.workdir / 'work'}",
                        str(self.root)], check=True)
        if not self.key.exists():
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.key)], check=True)
        r = self.root
        (r / ".crashdoc-complete").unlink(missing_ok=True)
        (r / "etc/ssh/sshd_config.d").mkdir(parents=True, exist_ok=True)
        (r / "etc/ssh/sshd_config.d/crashdoc.conf").write_text(SSHD_CONFIG.format(port=self.port))
        self._authorize(r / "root", self.key.with_suffix(".pub").read_text(), uid=0)
        venv = r / "opt/venv/bin"
        venv.mkdir(parents=True, exist_ok=True)
        (venv / "python3").symlink_to("/usr/bin/python3")
        script = self.failure.server.read_text().split("\n", 1)[1]
        (venv / "vllm").write_text("#!/opt/venv/bin/python3\n" + script)
        (venv / "vllm").chmod(0o755)
        unit = UNIT_FILE.format(environment=self.failure.environment or "STANDIN_UNUSED=1", model=self.failure.model)
        (r / f"etc/systemd/system/{UNIT}").write_text(unit)
        wants = r / "etc/systemd/system/multi-user.target.wants"
        wants.mkdir(parents=True, exist_ok=True)
        (wants / UNIT).symlink_to(f"/etc/systemd/system/{UNIT}")
        for timer in (r / "etc/systemd/system/timers.target.wants").glob("*.timer"):
            timer.unlink()
        (r / "var/log/journal").mkdir(parents=True, exist_ok=True)
        (r / "etc/hostname").write_text(self.name + "\n")

    def show(self, prop: str) -> str:
        """`systemctl show -p PROP --value vllm.service` inside."""
        return self.ssh("systemctl", "show", "-p", prop, "--value", UNIT).stdout.strip()

    def ssh_config(self) -> str:
        """This node's block of the fleet's ssh config."""
        return f"Host {self.name}\n  HostName 127.0.0.1\n  Port {self.port}\n  User root\n"

    def stop(self) -> None:
        """Power off, unmount the overlay, remove the node's layer."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if os.path.ismount(self.root):
            subprocess.run(["umount", "-l", str(self.root)], check=False)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def stop_loop(self) -> None:
        """`systemctl stop vllm.service`: the failed attempts stay in the journal, the CPU is free again."""
        self.ssh("systemctl", "stop", UNIT)


@dataclass
class Fleet:
    """Booted nodes plus one alias that nothing answers (a port nobody listens on)."""

    nodes: list[Node]
    workdir: Path
    unreachable: str = "node-04"
    dead_port: int = field(default_factory=free_port)

    @property
    def ssh_config_path(self) -> Path:
        """The ssh config naming every node (and the dead one)."""
        return self.workdir / "ssh_config"

    @property
    def ssh_options(self) -> str:
        """CRASHDOC_SSH_OPTIONS for the fleet: its ssh config."""
        return f"-F {self.ssh_config_path}"

    @property
    def names(self) -> list[str]:
        """Every alias, the unreachable one last."""
        return [n.name for n in self.nodes] + [self.unreachable]

    @property
    def key(self) -> Path:
        """The one client key of the fleet."""
        return self.workdir / "id_ed25519"

    def write_ssh_config(self) -> None:
        """One Host block per node, the unreachable alias at a closed port, then the identity for every host
        (also for the inventory tests, which reach `root@127.0.0.1:PORT` without an alias)."""
        dead = f"Host {self.unreachable}\n  HostName 127.0.0.1\n  Port {self.dead_port}\n  User root\n"
        every = (f"Host *\n  IdentityFile {self.key}\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n"
                 f"  UserKnownHostsFile {self.workdir / 'known_hosts'}\n  LogLevel ERROR\n")
        self.ssh_config_path.write_text("".join(n.ssh_config() for n in self.nodes) + dead + every)
        self.ssh_config_path.chmod(0o600)

    def start(self, rootfs: Path, restarts: int = 2) -> None:
        """Prepare and boot every node at once; wait until each unit has failed and restarted `restarts` times."""
        if not self.key.exists():
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.key)], check=True)
        for n in self.nodes:
            n.client_key = self.key
            n.prepare(rootfs)
        self.write_ssh_config()
        with ThreadPoolExecutor(len(self.nodes)) as pool:
            list(pool.map(lambda n: n.boot(timeout=180), self.nodes))
            list(pool.map(lambda n: n.wait_restarts(restarts, timeout=240), self.nodes))

    def stop(self) -> None:
        """Every node off and removed."""
        for n in self.nodes:
            n.stop()


def make_fleet(workdir: Path) -> Fleet:
    """node-01 and node-02 fail alike (flashinfer-cubin 0.6.3 vs flashinfer 0.6.4, on different ranks), node-03
    runs out of GPU memory; node-04 is unreachable."""
    specs = [("node-01", FLASHINFER), ("node-02", FLASHINFER_RANK0), ("node-03", GPU_OOM)]
    nodes = [Node(workdir / name, name=name, failure=f) for name, f in specs]
    return Fleet(nodes, workdir)
