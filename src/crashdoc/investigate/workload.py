"""`crashdoc diagnose k8s:deploy/NAME` / `k8s:sts/NAME`: every failing pod of a Deployment or StatefulSet
diagnosed (the pods its `spec.selector` selects), then grouped by root cause: "3 of 4 pods: OOMKilled by the
container's 16Gi limit (vllm-0, vllm-1, vllm-3); vllm-2: not scheduled (Insufficient nvidia.com/gpu)".

The report is the diagnosis of the first pod of the largest group, with the other groups' root causes among
the findings and the grouping in the `kubernetes` section.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from crashdoc.investigate.pod import diagnose_pod
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Diagnosis, Finding, Section, Skipped
from crashdoc.sources.kubernetes import K8sTarget, Kubectl, selector_of
from crashdoc.sources.kubernetes_facts import parse_pod
from crashdoc.transport import Runner

#: at most this many failing pods are diagnosed (each costs a get events and its logs); the rest are counted
MAX_PODS = 8
_TITLE = {"deployment": "Deployment", "statefulset": "StatefulSet"}


def diagnose_k8s(runner: Runner, target: K8sTarget, *, namespace: str | None = None, context: str | None = None,
                 kb: KnowledgeBase | None = None) -> Diagnosis:
    """Diagnose a pod, or the failing pods of a Deployment / StatefulSet, through kubectl on the runner's host."""
    kb = kb if kb is not None else KnowledgeBase.load()
    kubectl = Kubectl(runner, namespace, context)
    if target.kind == "pod":
        return diagnose_pod(kubectl, target.name, kb=kb)
    return diagnose_workload(kubectl, target.kind, target.name, kb=kb)


def _groups(diags: list[tuple[str, Diagnosis]]) -> list[list[tuple[str, Diagnosis]]]:
    by: dict[str, list[tuple[str, Diagnosis]]] = {}
    for name, d in diags:
        by.setdefault(d.root_cause.fingerprint if d.root_cause else "", []).append((name, d))
    return sorted(by.values(), key=lambda g: (-len(g), g[0][1].root_cause is None))


def _group_line(group: list[tuple[str, Diagnosis]], failing: int) -> str:
    names = ", ".join(n for n, _ in group)
    root = group[0][1].root_cause
    what = root.message.splitlines()[0][:200] if root is not None else "no error found in its state or logs"
    if len(group) == 1:
        return f"{names}: {what}"
    return f"{len(group)} of {failing} failing pods: {what} ({names})"


def diagnose_workload(kubectl: Kubectl, kind: str, name: str, *, kb: KnowledgeBase) -> Diagnosis:
    """Diagnose each failing pod of the workload and group them by root cause (read-only)."""
    wl = kubectl.get_json(kubectl.get_argv(kind, name), f"{kind} {name}")
    selector = selector_of(wl)
    listed = kubectl.get_json(kubectl.pods_argv(selector), f"pods of {kind} {name}")
    docs = [d for d in listed.get("items") or () if isinstance(d, dict)]
    pods = [(doc, parse_pod(doc)) for doc in docs]
    failing = [(doc, f) for doc, f in pods if f.failing]
    ns = (wl.get("metadata") or {}).get("namespace") or kubectl.namespace or "?"
    spec, status = wl.get("spec") or {}, wl.get("status") or {}
    replicas, ready = spec.get("replicas"), status.get("readyReplicas") or 0
    source = f"{kind} {ns}/{name} ({len(pods)} pod{'s' if len(pods) != 1 else ''})" + (
        f" via kubectl on {kubectl.runner.host}" if kubectl.runner.host else "")
    diags = [(f.name, diagnose_pod(kubectl, f.name, kb=kb, doc=doc)) for doc, f in failing[:MAX_PODS]]
    head = (f"{_TITLE.get(kind, kind)} {ns}/{name}: {ready}/{replicas if replicas is not None else len(pods)} ready; "
            f"{len(failing)} of {len(pods)} pods failing (selector {selector})")
    lines = [head]
    skipped: list[Skipped] = []
    if len(failing) > MAX_PODS:
        skipped.append(Skipped("pods", f"{len(failing) - MAX_PODS} more failing pods not diagnosed "
                               f"(crashdoc reads at most {MAX_PODS})"))
    if not diags:
        lines.append("no pod is failing" if pods else "the selector matches no pod")
        empty = {"kind": kind, "name": name, "namespace": ns, "selector": selector, "replicas": replicas,
                 "ready_replicas": ready, "pods": [f.name for _, f in pods], "groups": [], "summary": head}
        return Diagnosis(source=source, root_cause=None, summary=lines[-1], skipped=tuple(skipped),
                         sections=(Section("kubernetes", head.split(":")[0], tuple(lines), empty),))
    groups = _groups(diags)
    lines.extend(_group_line(g, len(diags)) for g in groups)
    healthy = [f.name for _, f in pods if not f.failing]
    if healthy:
        lines.append(f"{len(healthy)} pod{'s' if len(healthy) != 1 else ''} healthy: {', '.join(healthy[:8])}")
    rep_name, rep = groups[0][0]
    pod_sec = next((s for s in rep.sections if s.key == "kubernetes"), None)
    if pod_sec is not None:
        lines.append(f"pod {rep_name} (first of the largest group):")
        lines.extend(f"  {ln}" for ln in pod_sec.lines)
    findings = list(rep.findings)
    seen = {f.fingerprint for f in findings}
    for g in groups[1:]:
        root = g[0][1].root_cause
        if root is not None and root.fingerprint not in seen:
            findings.append(_named(root, g[0][0]))
            seen.add(root.fingerprint)
    root = rep.root_cause
    summary = _group_line(groups[0], len(diags)) if len(groups) > 1 or len(diags) > 1 else rep.summary
    data: dict[str, Any] = {
        "kind": kind, "name": name, "namespace": ns, "selector": selector, "replicas": replicas,
        "ready_replicas": ready, "pods": [f.name for _, f in pods], "failing": [f.name for _, f in failing],
        "summary": head,
        "groups": [{"fingerprint": g[0][1].root_cause.fingerprint if g[0][1].root_cause else None,
                    "pods": [n for n, _ in g],
                    "root_cause": g[0][1].root_cause.message if g[0][1].root_cause else None} for g in groups],
        "pod_reports": [dict(next((s.data for s in d.sections if s.key == "kubernetes"), {})) for _, d in diags],
    }
    section = Section("kubernetes", f"{_TITLE.get(kind, kind)} {ns}/{name}", tuple(lines), data)
    others = tuple(s for s in rep.sections if s.key != "kubernetes")
    return replace(rep, source=source, findings=tuple(findings), root_cause=root, summary=summary,
                   sections=(section, *others), skipped=(*rep.skipped, *skipped))


def _named(f: Finding, pod: str) -> Finding:
    """A finding of another pod: its Where says which pod."""
    process = f"{pod}/{f.where.process}" if f.where.process else pod
    return replace(f, where=replace(f.where, process=process))
