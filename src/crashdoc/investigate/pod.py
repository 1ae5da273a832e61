"""`crashdoc diagnose k8s:pod/NAME`: the pod's state and events, its containers' logs through the one pipeline,
and what the cluster adds to the log's verdict.

The cluster knows what the log cannot show: a pod that was never scheduled (`Insufficient nvidia.com/gpu`)
has no log at all, an image that cannot be pulled or a secret that does not exist stops the container before
it prints anything, an OOM kill (`lastState.terminated.reason: OOMKilled`) and a liveness probe that kills a
server still loading its weights leave no traceback. Those become the root cause unless the log holds a
stronger cause (the same weighing as a container's state: investigate/container.py `adopt`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import crashdoc.investigate as investigate
from crashdoc.investigate.container import adopt
from crashdoc.investigate.pod_causes import state_cause
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Attempt, Diagnosis, Finding, Section, Skipped
from crashdoc.sources.kubernetes import Kubectl, PodLogs, Segment
from crashdoc.sources.kubernetes_facts import ContainerState, PodFacts, parse_events, parse_pod


def oom_words(c: ContainerState) -> str | None:
    """`OOMKilled by the container's 16Gi limit`, or None when it was not OOM-killed."""
    if not c.oom_killed:
        return None
    if c.memory_limit:
        return f"OOMKilled by the container's {c.memory_limit} limit"
    return "OOMKilled (no memory limit on the container: the node ran out of memory)"


def container_summary(c: ContainerState, probe_kills: int = 0) -> str:
    """One line: `CrashLoopBackOff, 14 restarts, last exit 137, OOMKilled by the container's 16Gi limit`."""
    if c.state == "waiting":
        parts = [c.reason or "waiting"]
    elif c.state == "terminated":
        parts = [f"terminated ({c.reason})" if c.reason else "terminated"]
    elif c.state == "unknown":
        parts = ["not created yet"]
    else:
        parts = [c.state + ("" if c.ready else ", not ready")]
    if c.restart_count or not c.init:
        parts.append(f"{c.restart_count} restart{'s' if c.restart_count != 1 else ''}")
    code = c.terminated_code
    if code is not None:
        parts.append(f"last exit {code}")
    if oom := oom_words(c):
        parts.append(oom)
    elif (c.last_reason or c.reason) not in (None, "Completed", "Error", "OOMKilled") and code is not None:
        parts.append(str(c.last_reason if c.state != "terminated" else c.reason))
    if probe_kills:
        parts.append(f"killed by its probe {probe_kills} time{'s' if probe_kills != 1 else ''}")
    return ", ".join(parts)


def probe_kills(facts: PodFacts, container: str) -> int:
    """How many times the kubelet killed the container for a failed liveness or startup probe."""
    return sum(e.count for e in facts.events if e.reason == "Killing" and "probe" in e.message
               and (e.field_path or "").endswith(f"{{{container}}}"))


def main_container(facts: PodFacts) -> ContainerState | None:
    """The container the report opens with: the first failing one (init containers first), else the first."""
    return next((c for c in facts.containers if c.failing), None) or next(
        (c for c in facts.containers if not c.init), None)


def pod_summary(facts: PodFacts) -> str:
    """The opening line of the report."""
    if facts.unschedulable and not any(c.state in ("running", "terminated") for c in facts.containers):
        return f"{facts.phase}: not scheduled ({facts.unschedulable})"
    c = main_container(facts)
    if c is None:
        return facts.phase + (f" ({facts.reason}: {facts.message})" if facts.reason else "")
    line = container_summary(c, probe_kills(facts, c.name))
    many = len([x for x in facts.containers if not x.init]) > 1 or c.init
    head = f"{'init container' if c.init else 'container'} {c.name}: " if many else ""
    pod = f"; pod {facts.reason}: {facts.message}" if facts.reason else ""
    return head + line + pod


def wanted_logs(facts: PodFacts) -> list[tuple[str, bool, bool]]:
    """(container, init, previous) for every run kubectl still keeps a log of: the previous run when the
    container restarted, the current one when it started."""
    out = []
    for c in facts.containers:
        if c.restart_count > 0 or c.last_reason is not None:
            out.append((c.name, c.init, True))
        if c.state in ("running", "terminated") or c.started_at:
            out.append((c.name, c.init, False))
    return out


def read_pod(kubectl: Kubectl, name: str, doc: dict[str, Any] | None = None) -> PodFacts:
    """The pod's facts (from `doc` when the pods were listed already) with its events."""
    facts = parse_pod(doc if doc is not None else kubectl.get_json(kubectl.get_argv("pod", name), f"pod {name}"))
    events = kubectl.get_json(kubectl.events_argv(facts.name), f"events of pod {facts.name}")
    return replace(facts, events=parse_events(events))


def diagnose_pod(
    kubectl: Kubectl, name: str, *, kb: KnowledgeBase | None = None, doc: dict[str, Any] | None = None
) -> Diagnosis:
    """Diagnose one pod (read-only: kubectl only gets and reads logs)."""
    kb = kb if kb is not None else KnowledgeBase.load()
    facts = read_pod(kubectl, name, doc)
    label = f"pod {facts.namespace or kubectl.namespace or '?'}/{facts.name}" + (
        f" (context {kubectl.context})" if kubectl.context else "") + (
        f" via kubectl on {kubectl.runner.host}" if kubectl.runner.host else "")
    logs = PodLogs(kubectl, facts.name, wanted_logs(facts), label)
    if logs.wanted:
        diag = investigate.run(logs, kb=kb)
    else:
        diag = Diagnosis(source=label, root_cause=None)
    diag = _with_containers(diag, logs)
    cause = state_cause(facts, kb, logs.segments, diag.root_cause, kubectl.runner.host)
    if cause is not None:
        diag = adopt(diag, cause, _killed_attempt(diag, logs, cause))
    diag = replace(diag, attempts=tuple(_outcome(a, diag.attempts, logs, facts) for a in diag.attempts))
    skipped = [Skipped(f"log of {s.container}" + (" (previous run)" if s.previous else ""), s.error)
               for s in logs.segments if s.error]
    section = pod_section(kubectl, facts, logs, cause)
    return replace(diag, sections=(section, *diag.sections), skipped=(*diag.skipped, *skipped))


def _killed_attempt(diag: Diagnosis, logs: PodLogs, cause: Finding) -> int | None:
    """The attempt a kill of the state ended: the last one in the killed container's previous run."""
    runs = [s for s in logs.segments if s.previous and s.container == cause.where.process and not s.error]
    inside = [a.index for a in diag.attempts for s in runs if s.first <= a.first_lineno <= s.last]
    return inside[-1] if inside else None


def _outcome(a: Attempt, attempts: Sequence[Attempt], logs: PodLogs, facts: PodFacts) -> Attempt:
    """The last attempt of a container's previous run ended as its lastState says; the current run's is its state."""
    seg = logs.segment_at(a.first_lineno)
    c = next((c for c in facts.containers if seg is not None and c.name == seg.container), None)
    if seg is None or c is None or a.outcome not in ("no error seen", "unknown") or any(
            b.index > a.index and seg.first <= b.first_lineno <= seg.last for b in attempts):
        return a
    if seg.previous and c.last_reason:
        return replace(a, outcome=f"terminated ({c.last_reason})", exit_status=f"exit {c.last_exit_code}")
    if not seg.previous and c.state == "running":
        return replace(a, outcome="running" + ("" if c.ready else " (not ready)"))
    return a


def _with_containers(diag: Diagnosis, logs: PodLogs) -> Diagnosis:
    """Every log finding's Where names its container (and `previous run` in its process when it was)."""

    def fix(f: Finding) -> Finding:
        seg = logs.segment_at(f.lineno) if f.lineno else None
        if seg is None or f.where.process:
            return f
        return replace(f, where=replace(f.where, process=seg.container + (" (previous run)" if seg.previous else "")))

    findings = tuple(fix(f) for f in diag.findings)
    root = None
    if diag.root_cause is not None:  # kept the same object as its entry in findings
        root = next((new for old, new in zip(diag.findings, findings) if old is diag.root_cause),
                    fix(diag.root_cause))
    return replace(diag, findings=findings, root_cause=root)


def _container_line(c: ContainerState, facts: PodFacts) -> str:
    kind = "init container" if c.init else "container"
    limits = [f"memory {c.memory_limit}" if c.memory_limit else "no memory limit"]
    if c.gpus:
        limits.append(f"GPUs {c.gpus}")
    probes = "; ".join(f"{p.kind} {p.words()}" for p in (c.startup, c.liveness) if p is not None)
    line = f"{kind} {c.name} ({c.image or '?'}): {container_summary(c, probe_kills(facts, c.name))}; " + ", ".join(
        limits)
    if probes:
        line += f"; {probes}"
    if c.last_message or c.message:
        line += f"; says: {(c.message or c.last_message or '').splitlines()[0][:200]}"
    return line


def pod_section(kubectl: Kubectl, facts: PodFacts, logs: PodLogs, cause: Finding | None) -> Section:
    """The `kubernetes` section: the pod's state, each container, the warnings among the events, what was read."""
    lines = [pod_summary(facts)]
    lines.append(f"pod {facts.phase}" + (f" on node {facts.node}" if facts.node else " (no node)")
                 + (f", owned by {facts.owner}" if facts.owner else ""))
    lines.extend(_container_line(c, facts) for c in facts.containers)
    warnings = [e for e in facts.events if e.type != "Normal"]
    lines.extend(f"event {e.words()[:300]}" for e in warnings[-8:])
    if cause is not None:
        lines.append(f"from the pod's state and events: {cause.message} ({cause.confidence} confidence)")
    read = [s for s in logs.segments if not s.error]
    if read:
        lines.append(f"read {logs.bytes_read:,} bytes of {len(read)} log{'s' if len(read) != 1 else ''} "
                     f"(`{' '.join(read[0].argv)}`" + (" ..." if len(read) > 1 else "") + ")")
    elif not logs.wanted:
        lines.append("no container has started: there is no log to read")
    data: dict[str, Any] = facts.data()
    data.update(
        kind="pod", context=kubectl.context, host=kubectl.runner.host, summary=lines[0],
        state_cause=cause.rule if cause is not None else None,
        logs=[_segment_data(s) for s in logs.segments],
    )
    return Section(key="kubernetes", title=f"Pod {facts.namespace or kubectl.namespace or '?'}/{facts.name}"
                   + (f" (context {kubectl.context})" if kubectl.context else ""), lines=tuple(lines), data=data)


def _segment_data(s: Segment) -> dict[str, Any]:
    return {"container": s.container, "init": s.init, "previous": s.previous, "command": " ".join(s.argv),
            "first_lineno": s.first, "last_lineno": s.last, "bytes": s.bytes, "error": s.error}


def segments_of(diag: Diagnosis) -> Sequence[dict[str, Any]]:
    """The log segments a pod's diagnosis read (from its section's data)."""
    sec = next((s for s in diag.sections if s.key == "kubernetes"), None)
    return list(sec.data.get("logs") or ()) if sec is not None else []
