"""nvidia-smi through the runner: `--query-gpu` / `--query-compute-apps` with `--format=csv`, parsed."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from crashdoc.envdoctor.errors import CheckSkipped
from crashdoc.errors import TransportError
from crashdoc.transport import Runner

GPU_FIELDS = ("index", "name", "uuid", "pci.bus_id", "driver_version", "memory.total", "memory.used",
              "memory.free", "compute_cap")
APP_FIELDS = ("gpu_uuid", "pid", "process_name", "used_memory")
TIMEOUT = 60.0
_NUMBER = re.compile(r"^(-?\d+(?:\.\d+)?)(?: ?(MiB|%|W|C))?$")


@dataclass(frozen=True)
class Gpu:
    """One GPU as nvidia-smi reports it (memory in MiB)."""

    index: int
    name: str
    uuid: str
    bus_id: str | None
    driver: str
    memory_total: int | None
    memory_used: int | None
    memory_free: int | None
    compute_cap: str | None


@dataclass(frozen=True)
class GpuProcess:
    """A process holding GPU memory."""

    gpu_uuid: str
    pid: int | None
    name: str
    used: int | None


@dataclass(frozen=True)
class SmiAnswer:
    """What nvidia-smi said: GPUs and processes, or why it could not say it."""

    gpus: tuple[Gpu, ...] = ()
    processes: tuple[GpuProcess, ...] = ()
    missing: bool = False
    """nvidia-smi is not installed."""
    error: str | None = None
    """Its own message when it failed (`Failed to initialize NVML: Driver/library version mismatch`)."""


def _value(text: str | None) -> str | None:
    text = (text or "").strip()
    return None if not text or text.startswith("[") or text in ("N/A", "Not Supported") else text


def _int(text: str | None) -> int | None:
    m = _NUMBER.match(_value(text) or "")
    return int(float(m.group(1))) if m else None


def parse_csv(text: str, fields: tuple[str, ...]) -> list[dict[str, str | None]]:
    """Rows of a `--format=csv` answer (first line is the header), keyed by the requested field names."""
    rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    return [dict(zip(fields, (_value(v) for v in row))) for row in rows[1:] if len(row) == len(fields)]


def parse_gpus(text: str, fields: tuple[str, ...] = GPU_FIELDS) -> tuple[Gpu, ...]:
    """GPUs from a `--query-gpu` answer."""
    return tuple(Gpu(
        index=_int(r["index"]) or 0, name=r["name"] or "?", uuid=r["uuid"] or "?", bus_id=r.get("pci.bus_id"),
        driver=r["driver_version"] or "?", memory_total=_int(r["memory.total"]), memory_used=_int(r["memory.used"]),
        memory_free=_int(r["memory.free"]), compute_cap=r.get("compute_cap"),
    ) for r in parse_csv(text, fields))


def parse_processes(text: str) -> tuple[GpuProcess, ...]:
    """Processes from a `--query-compute-apps` answer."""
    return tuple(GpuProcess(r["gpu_uuid"] or "?", _int(r["pid"]), r["process_name"] or "?", _int(r["used_memory"]))
                 for r in parse_csv(text, APP_FIELDS))


def _run(runner: Runner, argv: list[str]) -> tuple[int, str] | None:
    """(exit status, stdout + stderr), or None when nvidia-smi is not installed."""
    try:
        result = runner.run(argv, timeout=TIMEOUT)
    except TransportError as exc:
        if runner.host is None and "not found" in str(exc):
            return None
        raise CheckSkipped(f"nvidia-smi could not run: {exc}") from exc
    if result.returncode == 127:
        return None
    return result.returncode, (result.stdout + result.stderr).decode("utf-8", "replace")


def query(runner: Runner) -> SmiAnswer:
    """Ask nvidia-smi for the GPUs, then for the processes holding their memory."""
    fields: tuple[str, ...] = GPU_FIELDS
    answer = _run(runner, ["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv"])
    if answer is not None and answer[0] != 0 and "is not a valid field" in answer[1]:
        fields = tuple(f for f in GPU_FIELDS if f != "compute_cap")   # drivers before 510 do not know it
        answer = _run(runner, ["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv"])
    if answer is None:
        return SmiAnswer(missing=True)
    status, text = answer
    if status != 0:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return SmiAnswer(error=" ".join(lines[:2]) or f"nvidia-smi exited {status}")
    gpus = parse_gpus(text, fields)
    apps = _run(runner, ["nvidia-smi", f"--query-compute-apps={','.join(APP_FIELDS)}", "--format=csv"])
    processes = parse_processes(apps[1]) if apps and apps[0] == 0 else ()
    return SmiAnswer(gpus=gpus, processes=processes)
