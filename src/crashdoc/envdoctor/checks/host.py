"""Host resources: /dev/shm size, free disk where the environment, caches and models live, memory, the port."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    EnvFinding,
    Subject,
    env_finding,
)
from crashdoc.envdoctor.words import listing, size
from crashdoc.model import Fix

NAME = "host"
SMALL_SHM = 1 << 30
LOW_DISK = 1 << 30
LOW_DISK_FRACTION = 0.02


def _shm(ctx: CheckContext, shm: Mapping[str, Any] | None) -> tuple[list[EnvFinding], list[str]]:
    if not shm:
        return [], ["/dev/shm: absent"]
    line = f"/dev/shm: {size(shm['total'])} ({size(shm['free'])} free)"
    if shm["total"] >= SMALL_SHM:
        return [], [line]
    fix = Fix("give the service more shared memory: docker run --shm-size=16g (or --ipc=host); in Kubernetes mount "
              "an emptyDir with medium: Memory at /dev/shm", None)
    return [env_finding(
        NAME, "shm", f"/dev/shm is only {size(shm['total'])}; NCCL and the engines' worker queues need gigabytes "
        "(64 MiB is Docker's default)", "host_resources", fix, score=55, host=ctx.runner.host,
        subject=Subject((), ("/dev/shm",), f"/dev/shm {size(shm['total'])}"))], [line]


def _disks(ctx: CheckContext, disks: list[Mapping[str, Any]]) -> tuple[list[EnvFinding], list[str]]:
    by_device: dict[int, list[Mapping[str, Any]]] = {}
    for disk in disks:
        by_device.setdefault(disk["device"], []).append(disk)
    found, lines = [], []
    for device, entries in by_device.items():
        first = entries[0]
        labels = [f"{e['label']} {e['path']}" for e in entries]
        shown = [f"{e['label']} {e['path']}" for e in entries if e.get("exists") or e["label"] in ("python", "tmp")]
        lines.append(f"disk: {size(first['free'])} free of {size(first['total'])} for {listing(shown or labels, 6)}")
        if first["free"] < LOW_DISK or first["free"] < LOW_DISK_FRACTION * first["total"]:
            found.append(env_finding(
                NAME, f"disk:{device}", f"only {size(first['free'])} free on the file system of {listing(labels, 4)}",
                "host_resources", Fix("free space there, or point the caches elsewhere (HF_HOME, VLLM_CACHE_ROOT, "
                                      "TRITON_CACHE_DIR, TMPDIR)", None),
                score=60, host=ctx.runner.host,
                subject=Subject((), tuple(e["path"] for e in entries), f"{size(first['free'])} free for {listing(labels, 2)}")))
    return found, lines


def _port(ctx: CheckContext, port: Mapping[str, Any] | None) -> tuple[list[EnvFinding], list[str]]:
    if not port:
        return [], []
    holders = [p for listener in port["listeners"] for p in listener["pids"]]
    if not port["listeners"]:
        return [], [f"port {port['port']}: nobody listens"]
    who = listing([f"pid {p['pid']} ({p['cmdline'][:120]})" for p in holders], 3) if holders else "a process not visible here"
    fix = Fix(f"if that is not the service itself, stop it or serve on another port (--port); see: ss -ltnp 'sport = :{port['port']}'", None)
    return [env_finding(
        NAME, f"port:{port['port']}", f"port {port['port']} is in use by {who}", "port_in_use", fix, score=40,
        role="unknown", host=ctx.runner.host,
        subject=Subject((), (), f"port {port['port']} held by {who}"))], [f"port {port['port']}: in use by {who}"]


def run(ctx: CheckContext) -> CheckResult:
    """Shared memory, disks, memory and the serving port, from the probe's host section."""
    host = ctx.facts().section("host")
    found, lines = [], [f"host {host['hostname']}: {host['cpu_count']} CPUs"]
    memory = host.get("memory") or {}
    if memory.get("MemTotal"):
        lines[0] += f", memory {size(memory['MemTotal'])} ({size(memory.get('MemAvailable') or 0)} available)"
    for part in (_shm(ctx, host.get("shm")), _disks(ctx, host.get("disks") or []), _port(ctx, host.get("port"))):
        found.extend(part[0])
        lines.extend(part[1])
    data = {k: host.get(k) for k in ("hostname", "cpu_count", "shm", "disks", "memory", "port")}
    return CheckResult(tuple(found), tuple(lines), data)


CHECK = EnvCheck(NAME, "/dev/shm size, free disk for the environment and caches, memory, the serving port", run,
                 frozenset({"host"}))
