"""A docker or podman container: its facts from `<tool> inspect`, its log from `<tool> logs --timestamps`.

Both tools speak the same verbs, locally or through ssh (the Runner). The log holds every attempt since the
container was created (both keep it across restarts; the engines' start banners split it in the analysis).
`logs` writes the container's stderr on its own stderr: both streams are spooled to temporary files (no pipe
can fill up and stall the tool, nothing is held in memory) and merged back into time order by their timestamps.
"""

from __future__ import annotations

import heapq
import io
import json
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import IO, Any, BinaryIO

from crashdoc.errors import InputError, UnsafeArgumentError
from crashdoc.regex import Regex
from crashdoc.sources.interface import ByteSource
from crashdoc.sources.unit_show import mask_secret
from crashdoc.transport import Runner, check_word

TOOLS = ("docker", "podman")
#: docker's rule for container names (and ids are hex): no shell syntax can pass
_NAME = Regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,254}")
_SECRET_FLAG = Regex(r"token|secret|passw|api[-_]?key|credential|private|auth", re.IGNORECASE)
_TS = Regex(rb"(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)?[ \t]")
#: docker's default /dev/shm is 64 MiB; podman's is 65536000 bytes ("64m" in its config)
DEFAULT_SHM = 64 << 20
INSPECT_TIMEOUT = 60.0


class ContainerNotFoundError(InputError):
    """The tool does not know a container of that name on that host."""


def check_tool(tool: str) -> str:
    """`docker` or `podman`, else refused."""
    if tool not in TOOLS:
        raise UnsafeArgumentError(f"refusing container tool {tool!r}: crashdoc speaks to docker and podman")
    return tool


def check_container_name(name: str) -> str:
    """Return `name` if it is a container name or id docker would accept, else raise UnsafeArgumentError."""
    if not _NAME.fullmatch(name):
        raise UnsafeArgumentError(f"refusing container name {name!r}: a container name may only contain letters,"
                                  " digits and '_.-' and starts with a letter or digit")
    return name


def container_target(text: str) -> tuple[str, str] | None:
    """`docker:NAME` / `podman:NAME` -> (tool, NAME), the name checked; None for any other target."""
    tool, sep, name = text.partition(":")
    return (tool, check_container_name(name)) if sep and tool in TOOLS else None


def inspect_argv(tool: str, name: str) -> list[str]:
    """`docker inspect --type container NAME` (never an image of the same name)."""
    return [check_tool(tool), "inspect", "--type", "container", check_container_name(name)]


def logs_argv(tool: str, name: str, since: str | None = None) -> list[str]:
    """`docker logs --timestamps [--since S] NAME`: both streams, every line with the engine's timestamp."""
    extra = ["--since", check_word(since, "--since value")] if since else []
    return [check_tool(tool), "logs", "--timestamps", *extra, check_container_name(name)]


@dataclass(frozen=True)
class ContainerFacts:
    """What the container engine says about the container (the `container` section renders it)."""

    tool: str
    name: str
    host: str | None  # as given to --host; None for this machine
    id: str
    status: str  # running, restarting, exited, created, paused, dead (podman also stopped, configured)
    running: bool
    restarting: bool
    exit_code: int | None
    oom_killed: bool
    error: str | None  # the engine's own error for the last start (`OCI runtime create failed ...`)
    restart_count: int
    started_at: str | None
    finished_at: str | None
    health: str | None  # healthy, unhealthy, starting; None without a healthcheck
    health_failing_streak: int
    health_last_output: str | None
    image: str | None  # as the container was created from it (`vllm/vllm-openai:v0.11.2`)
    image_id: str | None
    command: tuple[str, ...]  # the main process: entrypoint and arguments (secret-looking values masked)
    create_command: tuple[str, ...]  # the command that created it, when the engine keeps it (podman)
    gpus: str | None  # --gpus as device requests say it (all, 2, device=0,1), or the GPU devices passed in
    devices: tuple[str, ...]
    shm_size: int | None  # /dev/shm in bytes; None when it is the host's (--ipc=host)
    ipc_mode: str | None
    memory_limit: int | None  # -m in bytes; None when unlimited
    memory_swap: int | None
    restart_policy: str  # no, on-failure, always, unless-stopped
    restart_max: int  # MaximumRetryCount of on-failure (0: no limit)
    env: tuple[str, ...]  # secret-looking values masked

    @property
    def looping(self) -> bool:
        """True when the engine will start it again by itself."""
        if self.restarting or self.status == "restarting":
            return True
        left = self.restart_policy != "on-failure" or not self.restart_max or self.restart_count < self.restart_max
        return self.running and self.restart_count > 0 and self.restart_policy != "no" and bool(left)

    @property
    def small_shm(self) -> bool:
        """/dev/shm is the engine's default size (64 MB) or smaller, and not the host's."""
        return self.shm_size is not None and self.shm_size <= DEFAULT_SHM and (self.ipc_mode or "") != "host"

    def data(self) -> dict[str, Any]:
        """The facts for machines (the `container` section's data)."""
        return {**asdict(self), "looping": self.looping, "small_shm": self.small_shm}


def _time(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not value.startswith("0001-01-01") else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _words(value: Any) -> tuple[str, ...]:
    return tuple(map(str, value)) if isinstance(value, list) else (value,) if isinstance(value, str) and value else ()


def mask_args(args: Sequence[str]) -> tuple[str, ...]:
    """`--api-key SECRET`, `--hf-token=SECRET` and `HF_TOKEN=SECRET` masked; everything else as it was."""
    out: list[str] = []
    for i, a in enumerate(args):
        flag, sep, _ = a.partition("=")
        prev = args[i - 1] if i else ""
        if prev.startswith("-") and "=" not in prev and _SECRET_FLAG.search(prev):
            out.append("***")
        elif a.startswith("-") and sep and _SECRET_FLAG.search(flag):
            out.append(f"{flag}=***")
        else:
            out.append(a if a.startswith("-") else mask_secret(a))
    return tuple(out)


def _gpus(host_config: Mapping[str, Any]) -> tuple[str | None, tuple[str, ...]]:
    """`--gpus` from device requests, and the devices passed in (CDI names or /dev paths)."""
    gpus = None
    for req in host_config.get("DeviceRequests") or ():
        caps = [c for group in req.get("Capabilities") or () for c in group or ()]
        if "gpu" not in caps and req.get("Driver") != "nvidia":
            continue
        ids, count = req.get("DeviceIDs") or [], req.get("Count")
        gpus = f"device={','.join(ids)}" if ids else "all" if count == -1 else str(count)
    devices = tuple(str(d.get("PathOnHost") or d.get("PathInContainer") or "")
                    for d in host_config.get("Devices") or () if isinstance(d, dict))
    if gpus is None and (found := [d for d in devices if d.startswith(("nvidia.com/gpu", "/dev/nvidia"))]):
        gpus = ",".join(found)
    return gpus, devices


def parse_inspect(tool: str, name: str, host: str | None, raw: bytes) -> ContainerFacts:
    """`<tool> inspect` output (a JSON array of one object) -> ContainerFacts."""
    try:
        doc = json.loads(raw.decode("utf-8", "replace"))
    except ValueError as exc:
        raise InputError(f"{tool} inspect {name}: the answer is not JSON ({exc})") from exc
    obj = doc[0] if isinstance(doc, list) and doc and isinstance(doc[0], dict) else doc
    if not isinstance(obj, dict) or not isinstance(obj.get("State"), dict):
        raise InputError(f"{tool} inspect {name}: the answer has no container State")
    state, config = obj["State"], obj.get("Config") or {}
    hc = obj.get("HostConfig") or {}
    health = state.get("Health") if isinstance(state.get("Health"), dict) else {}
    log = health.get("Log") or []
    last_out = log[-1].get("Output") if log and isinstance(log[-1], dict) else None
    policy = hc.get("RestartPolicy") or {}
    gpus, devices = _gpus(hc)
    ipc = hc.get("IpcMode") or None
    command = (*_words(obj.get("Path")), *_words(obj.get("Args"))) or (*_words(config.get("Entrypoint")),
                                                                       *_words(config.get("Cmd")))
    shm = _int(hc.get("ShmSize"))
    return ContainerFacts(
        tool=tool, name=str(obj.get("Name") or name).lstrip("/"), host=host, id=str(obj.get("Id") or ""),
        status=str(state.get("Status") or "unknown"), running=bool(state.get("Running")),
        restarting=bool(state.get("Restarting")) or (state.get("Status") == "stopped" and _will_restart(obj, policy)),
        exit_code=_int(state.get("ExitCode")),
        oom_killed=bool(state.get("OOMKilled")), error=str(state.get("Error") or "").strip() or None,
        restart_count=_int(obj.get("RestartCount")) or _int(state.get("RestartCount")) or 0,
        started_at=_time(state.get("StartedAt")), finished_at=_time(state.get("FinishedAt")),
        health=str(health.get("Status") or "") or None, health_failing_streak=_int(health.get("FailingStreak")) or 0,
        health_last_output=str(last_out).strip()[:500] if last_out else None,
        image=str(config.get("Image") or obj.get("ImageName") or "") or None,
        image_id=str(obj.get("Image") or "") or None,
        command=mask_args(command), create_command=mask_args(_words(config.get("CreateCommand"))),
        gpus=gpus, devices=devices, shm_size=None if ipc == "host" else (shm or None), ipc_mode=ipc,
        memory_limit=_int(hc.get("Memory")) or None, memory_swap=_int(hc.get("MemorySwap")) or None,
        restart_policy=str(policy.get("Name") or "no"), restart_max=_int(policy.get("MaximumRetryCount")) or 0,
        env=tuple(mask_secret(str(e)) for e in config.get("Env") or ()),
    )


def _will_restart(obj: Mapping[str, Any], policy: Mapping[str, Any]) -> bool:
    """Podman's `stopped` (exited, not cleaned up yet) under a policy that starts it again: between restarts."""
    name, most, code = policy.get("Name") or "no", _int(policy.get("MaximumRetryCount")) or 0, obj["State"].get("ExitCode")
    return name in ("always", "unless-stopped") or name == "on-failure" and code != 0 and (
        not most or (_int(obj.get("RestartCount")) or 0) < most)


def read_container(runner: Runner, tool: str, name: str) -> ContainerFacts:
    """Ask the container engine on the runner's host about the container."""
    argv = inspect_argv(tool, name)
    res = runner.run(argv, timeout=INSPECT_TIMEOUT)
    if not res.ok:
        raise tool_error(tool, name, runner.host, res.stderr_line() or f"exit status {res.returncode}")
    return parse_inspect(tool, name, runner.host, res.stdout)


def tool_error(tool: str, name: str, host: str | None, line: str) -> InputError:
    """The tool's own failure as one line that names the next step."""
    where = host or "this machine"
    low = line.lower()
    if "no such container" in low or "no such object" in low or "no container with name" in low:
        return ContainerNotFoundError(f"{tool} on {where} knows no container {name!r} ({tool} ps -a lists them)")
    if "permission denied" in low:
        return InputError(f"{tool} on {where}: {line} (run as root, or as a member of the group that owns the socket)")
    return InputError(f"{tool} {name} on {where}: {line}")


def time_key(line: bytes, last: tuple[bytes, int] = (b"", 0)) -> tuple[bytes, int]:
    """Sort key of a `--timestamps` line: (UTC date and time, nanoseconds); a line without one keeps the last."""
    m = _TS.match(line)
    if not m:
        return last
    when, zone = m.group(1).replace(b" ", b"T"), m.group(3)
    if zone and zone != b"Z":
        zone = zone if b":" in zone else zone[:3] + b":" + zone[3:]
        utc = datetime.fromisoformat((when + zone).decode()).astimezone(timezone.utc)
        when = utc.strftime("%Y-%m-%dT%H:%M:%S").encode()
    return when, int((m.group(2) or b"0").ljust(9, b"0"))


def _keyed(spool: IO[bytes]) -> Iterator[tuple[tuple[bytes, int], bytes]]:
    spool.seek(0)
    last = (b"", 0)
    for line in spool:
        last = time_key(line, last)
        yield last, line if line.endswith(b"\n") else line + b"\n"


class _Lines(io.RawIOBase):
    """A raw byte stream over an iterator of lines (the merged log), so the scanner reads it in blocks."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        self.lines, self.pending = lines, b""

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        if not self.pending:
            self.pending = next(self.lines, b"")  # a line is never empty: it ends with its newline
        n = min(len(buf), len(self.pending))
        buf[:n], self.pending = self.pending[:n], self.pending[n:]
        return n


class ContainerLogs(ByteSource):
    """`<tool> logs --timestamps NAME` on the runner's host: stdout and stderr merged in time order."""

    def __init__(self, runner: Runner, tool: str, name: str, *, since: str | None = None, label: str | None = None):
        self.runner = runner
        self.argv = logs_argv(tool, name, since)
        self.tool, self.name = tool, name
        self.label = label or f"{tool} container {name} on {runner.host or 'this machine'}"
        self.bytes_read = 0
        self.stream_bytes: dict[str, int] = {}
        """Bytes the tool wrote on each stream (`stdout`, `stderr`: the container's own two streams)."""

    @contextmanager
    def open(self) -> Iterator[BinaryIO]:
        """The merged log (raises InputError when the tool cannot give it)."""
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            proc = self.runner.popen(self.argv)
            assert proc.stdout is not None and proc.stderr is not None
            drain = threading.Thread(target=shutil.copyfileobj, args=(proc.stderr, err, 1 << 20), daemon=True)
            drain.start()
            shutil.copyfileobj(proc.stdout, out, 1 << 20)
            drain.join()
            code = proc.wait()
            self.stream_bytes = {"stdout": out.tell(), "stderr": err.tell()}
            self.bytes_read = out.tell() + err.tell()
            if code != 0:
                err.seek(max(0, err.tell() - 4096))
                tail = [ln for ln in err.read().decode("utf-8", "replace").splitlines() if ln.strip()]
                raise tool_error(self.tool, self.name, self.runner.host, tail[-1].strip() if tail else f"exit {code}")
            # stable: on equal timestamps stdout's line comes first
            merged = (line for _, line in heapq.merge(_keyed(out), _keyed(err), key=lambda t: t[0]))
            yield io.BufferedReader(_Lines(merged), buffer_size=1 << 20)

