"""`crashdoc diagnose ray:DIR`: a Ray session's log folder through the one pipeline, the root cause tied to the
worker process it happened in.

An error a worker printed is already in that worker's own file (the file is the process). A kill is reported by
another process: the raylet logs the memory monitor's victim (`Selected to kill: (Task: ... pid=6532, ...)`)
a few lines under the kill line, the GCS logs every worker exit (`Reporting worker exit, worker id = ...,
exit_type = NODE_OUT_OF_MEMORY`). For such a finding the victim's pid or worker id is read from the finding's
line and the lines below it in the same file, and Where names the victim's own file and pid (the reporter stays
in the evidence). The `ray` section lists the session's processes and every worker exit the GCS recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import crashdoc.investigate as investigate
from crashdoc.analyze.findings import summary
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Diagnosis, Evidence, Finding, Section, Skipped
from crashdoc.regex import Regex
from crashdoc.sources.ray import RayFile, RayLogs

#: how far below a kill line its victim may be named (the raylet prints the memory table in between)
VICTIM_WINDOW = 40
_VICTIM_PID = Regex(r"(?:Selected to kill: \(.*?\bpid=|Worker PID: |\bpid[=:] ?)(?P<pid>\d+)")
_VICTIM_WORKER = Regex(r"(?:worker id = |Worker ID: |worker_id=)(?P<wid>[0-9a-f]{16,})")
_EXIT = Regex(r"Reporting worker exit, worker id = (?P<wid>[0-9a-f]+),.*?exit_type = (?P<type>[A-Z_]+)"
                   r"(?:, exit_detail = (?P<detail>.*))?")
_RAY_NOISE = Regex(r"pip install '?ray\[default\]")
_ABNORMAL = frozenset({"SYSTEM_ERROR", "NODE_OUT_OF_MEMORY", "USER_ERROR", "UNSPECIFIED"})


@dataclass(frozen=True)
class WorkerExit:
    """A worker exit the GCS recorded."""

    worker_id: str
    exit_type: str
    detail: str
    file: str | None
    pid: int | None


def diagnose_ray(directory: str, *, kb: KnowledgeBase | None = None) -> Diagnosis:
    """Diagnose the Ray session whose logs are in `directory` (read-only; nothing in the session changes)."""
    logs = RayLogs(directory)
    diag = investigate.run(logs, kb=kb)
    findings = tuple(_tie_to_victim(logs, f) for f in diag.findings)
    root = None
    if diag.root_cause is not None:  # kept the same object as its entry in findings
        root = next((new for old, new in zip(diag.findings, findings) if old is diag.root_cause),
                    _tie_to_victim(logs, diag.root_cause))
    findings, root = _noise_last(findings, root)
    if root is not diag.root_cause:
        attempts = tuple(replace(a, fingerprint=root.fingerprint if root else None,
                                 root_message=root.message if root else None) for a in diag.attempts)
        diag = replace(diag, attempts=attempts, summary=summary(attempts, root))
    exits = worker_exits(logs)
    skipped = [Skipped("ray log", f"{name}: larger than 64 MiB, read from its last 64 MiB") for name in logs.cut]
    diag = replace(diag, root_cause=root, findings=findings, bytes_read=logs.bytes_read or diag.bytes_read,
                   skipped=(*diag.skipped, *skipped))
    return replace(diag, sections=(ray_section(logs, exits, root), *diag.sections))


def _noise_last(findings: tuple[Finding, ...], root: Finding | None) -> tuple[tuple[Finding, ...], Finding | None]:
    """Ray's own notes about its optional dashboard packages (`pip install 'ray[default]'`) go last and are
    never the root cause: a session runs without them. The root cause is then the first other finding (a cause
    before a consequence)."""
    noise = [f for f in findings if _RAY_NOISE.search(f.line)]
    if not noise:
        return findings, root
    rest = [f for f in findings if not _RAY_NOISE.search(f.line)]
    if root is not None and _RAY_NOISE.search(root.line):
        root = next((f for f in rest if f.role == "cause"), None) or next(iter(rest), None)
    marked = [replace(f, role="consequence", confidence="low",
                      confidence_reason="Ray's note about its optional dashboard packages, not a failure") for f in noise]
    return (*rest, *marked), root


def _worker_of(logs: RayLogs, f: Finding) -> RayFile | None:
    return next((x for x in logs.files if x.name == f.where.process), None)


def _tie_to_victim(logs: RayLogs, f: Finding) -> Finding:
    """A finding another process reported about a worker: Where names the worker's file and pid."""
    own = _worker_of(logs, f)
    if f.lineno <= 0 or (own is not None and own.role in ("worker", "core-worker")):
        return f
    victim = None
    for text in logs.lines_after(f.lineno, VICTIM_WINDOW):
        w = _VICTIM_WORKER.search(text)
        p = _VICTIM_PID.search(text)
        victim = (logs.file_by_worker_id(w["wid"]) if w else None) or (
            logs.file_by_pid(int(p["pid"])) if p else None)
        if victim is not None and victim.role in ("worker", "core-worker"):
            break
        victim = None
    if victim is None:
        return f
    reporter = f.where.process or "another process"
    note = Evidence(0, f"the victim is {victim.name} (pid {victim.pid}); {reporter} reported it")
    return replace(f, where=replace(f.where, process=victim.name, pid=victim.pid),
                   evidence=(*f.evidence, note),
                   confidence_reason=f"{f.confidence_reason}; reported by {reporter} about pid {victim.pid}".lstrip("; "))


def worker_exits(logs: RayLogs) -> list[WorkerExit]:
    """Every `Reporting worker exit` of the GCS log, with the worker's file when it is in this folder."""
    out: dict[str, WorkerExit] = {}
    for first, last, f in logs.spans:
        if f.role != "gcs":
            continue
        for text in logs.lines_after(first, last - first + 1):
            m = _EXIT.search(text)
            if m:
                own = logs.file_by_worker_id(m["wid"])
                detail = (m["detail"] or "").split(". ")[0][:200]
                out[m["wid"]] = WorkerExit(m["wid"], m["type"], detail, own.name if own else None,
                                           own.pid if own else None)
    return list(out.values())


def _exit_line(e: WorkerExit) -> str:
    who = f"{e.file} (pid {e.pid})" if e.file else f"worker {e.worker_id[:12]}…"
    return f"{who}: {e.exit_type}" + (f" — {e.detail}" if e.detail else "")


def ray_summary(logs: RayLogs, exits: Sequence[WorkerExit]) -> str:
    """One line: `3 worker processes; 2 ended abnormally (1 NODE_OUT_OF_MEMORY, 1 SYSTEM_ERROR)`."""
    pids = {f.pid for f in logs.files if f.role == "worker"}
    bad = [e for e in exits if e.exit_type in _ABNORMAL]
    kinds: dict[str, int] = {}
    for e in bad:
        kinds[e.exit_type] = kinds.get(e.exit_type, 0) + 1
    parts = [f"{len(pids)} worker process{'es' if len(pids) != 1 else ''}"]
    if bad:
        parts.append(f"{len(bad)} ended abnormally ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})")
    elif exits:
        parts.append(f"{len(exits)} exited as asked (no abnormal exit recorded by the GCS)")
    return "; ".join(parts)


def ray_section(logs: RayLogs, exits: Sequence[WorkerExit], root: Finding | None) -> Section:
    """The `ray` section: what the session ran, which workers died how, what was read."""
    roles: dict[str, int] = {}
    for f in logs.files:
        roles[f.role] = roles.get(f.role, 0) + 1
    lines = [ray_summary(logs, exits)]
    if root is not None and root.where.process:
        lines.append(f"root cause in {root.where.process}" + (f" (pid {root.where.pid})" if root.where.pid else ""))
    lines.extend(_exit_line(e) for e in exits if e.exit_type in _ABNORMAL)
    lines.append(f"read {logs.bytes_read:,} bytes of {len(logs.files)} files in {logs.directory} ("
                 + ", ".join(f"{n} {r}" for r, n in sorted(roles.items())) + ")")
    data: dict[str, Any] = {
        "directory": str(logs.directory), "summary": lines[0],
        "files": [{"name": f.name, "role": f.role, "pid": f.pid, "worker_id": f.worker_id} for f in logs.files],
        "worker_exits": [{"worker_id": e.worker_id, "exit_type": e.exit_type, "detail": e.detail, "file": e.file,
                          "pid": e.pid} for e in exits],
        "bytes_read": logs.bytes_read, "cut_files": list(logs.cut),
    }
    return Section(key="ray", title=f"Ray session {logs.directory}", lines=tuple(lines), data=data)
