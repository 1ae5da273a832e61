"""Run commands on a remote host through the user's own OpenSSH client (their config, agent and keys)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass

from crashdoc.errors import TransportError, UnsafeArgumentError
from crashdoc.transport.interface import CommandResult, Runner

_HOST = re.compile(r"(?:(?P<user>[A-Za-z0-9._][A-Za-z0-9._-]{0,63})@)?(?P<host>[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[0-9]{1,5}))?")

#: exit status ssh uses for its own errors (connection refused, auth failed, timeout)
SSH_ERROR = 255


@dataclass(frozen=True)
class SshTarget:
    """`[user@]host[:port]`, validated."""

    host: str
    user: str | None = None
    port: int | None = None

    def __str__(self) -> str:
        user = f"{self.user}@" if self.user else ""
        port = f":{self.port}" if self.port else ""
        return f"{user}{self.host}{port}"


def parse_target(text: str) -> SshTarget:
    """Parse and validate `[user@]host[:port]`; shell syntax or an option-looking name is refused."""
    m = _HOST.fullmatch(text.strip())
    if not m or m.group("host").startswith("-"):
        raise UnsafeArgumentError(
            f"refusing host {text!r}: expected [user@]host[:port] with letters, digits, '.', '-' and '_'"
        )
    port = int(m.group("port")) if m.group("port") else None
    if port is not None and not 0 < port < 65536:
        raise UnsafeArgumentError(f"refusing host {text!r}: port {port} is out of range")
    return SshTarget(host=m.group("host").strip("[]"), user=m.group("user"), port=port)


class SshRunner(Runner):
    """Runs argv on a remote host; every argument is quoted for the remote shell."""

    def __init__(self, target: SshTarget, extra_options: Sequence[str] = (), connect_timeout: int = 10) -> None:
        """`extra_options` are passed to ssh before the host (also from env CRASHDOC_SSH_OPTIONS)."""
        self.target = target
        self.host = str(target)
        env_opts = shlex.split(os.environ.get("CRASHDOC_SSH_OPTIONS", ""))
        self.options = (
            "-o", "BatchMode=yes",
            "-o", f"ConnectTimeout={connect_timeout}",
            "-o", "Compression=yes",
            *env_opts,
            *extra_options,
        )

    def ssh_argv(self, argv: Sequence[str]) -> list[str]:
        """The full local command line: ssh, options, destination, then the quoted remote command."""
        dest = f"{self.target.user}@{self.target.host}" if self.target.user else self.target.host
        port = ["-p", str(self.target.port)] if self.target.port else []
        remote = " ".join(shlex.quote(a) for a in argv)
        return ["ssh", *self.options, *port, "--", dest, remote]

    def run(self, argv: Sequence[str], *, timeout: float = 60.0, stdin: bytes | None = None) -> CommandResult:
        """Run argv remotely; ssh's own failures (exit 255) become a TransportError with ssh's message."""
        start = time.monotonic()
        try:
            proc = subprocess.run(
                self.ssh_argv(argv),
                input=stdin,
                stdin=None if stdin is not None else subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except FileNotFoundError as exc:
            raise TransportError("ssh: the OpenSSH client is not installed (apt-get install openssh-client)") from exc
        except subprocess.TimeoutExpired as exc:
            raise TransportError(f"ssh {self.host}: no answer within {timeout:.0f} s") from exc
        result = CommandResult(tuple(argv), proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)
        if proc.returncode == SSH_ERROR:
            raise TransportError(
                f"ssh {self.host}: {result.stderr_line() or 'connection failed'}"
                " (check the host, port and that your key is loaded: ssh-add -l)"
            )
        return result

    def popen(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        """Start the remote argv with stdout piped (for journalctl -f)."""
        try:
            return subprocess.Popen(
                self.ssh_argv(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except FileNotFoundError as exc:
            raise TransportError("ssh: the OpenSSH client is not installed (apt-get install openssh-client)") from exc
