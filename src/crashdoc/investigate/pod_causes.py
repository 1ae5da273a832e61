"""The causes a pod's state and events show by themselves, as findings (see investigate/pod.py): not scheduled,
image not pulled, container not created or not run, a volume not mounted, an eviction, an OOM kill, a probe
that killed a server still starting, a SIGKILL under a memory limit."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Evidence, Finding, Fix, Where
from crashdoc.parse.phases import Phase, phase_of_line
from crashdoc.regex import Regex
from crashdoc.sources.kubernetes import Segment
from crashdoc.sources.kubernetes_facts import ContainerState, PodEvent, PodFacts

_GPU = Regex(r"Insufficient [\w./-]*gpu", re.IGNORECASE)
_PULL = frozenset({"ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull"})
_CREATE = frozenset({"CreateContainerConfigError", "CreateContainerError", "RunContainerError",
                     "ContainerCannotRun", "StartError", "PreCreateHookError", "PostStartHookError"})
#: phases in which a server does not answer its health endpoint yet
STARTING = frozenset({"import", "distributed", "build_model", "load_weights", "profile", "cuda_graphs"})
PROBE_WHY = ("A liveness (or startup) probe that fails failureThreshold times in a row makes the kubelet kill the "
             "container and start it again. An inference server answers /health only once the model is loaded (and "
             "the weights downloaded, the memory profiled, the CUDA graphs captured): a probe whose budget "
             "(initialDelaySeconds + periodSeconds x failureThreshold) is shorter than that start kills every attempt "
             "at the same point, and the pod loops in CrashLoopBackOff without any error in its log.")
SCHED_WHY = ("The scheduler could not place the pod on any node: no node has the requested resources free (GPUs "
             "are whole devices: a node with 8 GPUs of which 5 are taken cannot take a pod asking for 4), or the "
             "pod's node selector, affinity or tolerations exclude the nodes that have them. The pod stays Pending "
             "and no container starts, so there is no log.")
PULL_WHY = ("The kubelet cannot pull the container's image: a wrong name or tag, a private registry without "
            "imagePullSecrets, or a registry the node cannot reach. The container never starts.")
CREATE_WHY = ("The kubelet pulled the image but cannot create or start the container: the spec refers to a Secret "
              "or ConfigMap (key) that does not exist, a command that is not in the image, or a device the node "
              "cannot give.")
MOUNT_WHY = ("The kubelet cannot mount one of the pod's volumes (a PersistentVolumeClaim holding the model cache, "
             "a Secret, a ConfigMap): the pod waits in ContainerCreating and no container starts.")
EVICT_WHY = "The kubelet evicted the pod because its node ran short of memory, disk or another resource."


@dataclass(frozen=True)
class _Cause:
    rule: str
    category: str
    message: str
    text: str
    command: str | None
    score: int
    confidence: str
    reason: str
    evidence: tuple[str, ...]
    container: str | None = None
    explanation: str = ""


def _events(facts: PodFacts, *reasons: str) -> list[PodEvent]:
    return [e for e in facts.events if e.reason in reasons]


def _scheduling(facts: PodFacts) -> _Cause | None:
    ev = _events(facts, "FailedScheduling")
    msg = ev[-1].message if ev else facts.unschedulable
    if not msg or any(c.state in ("running", "terminated") for c in facts.containers):
        return None
    gpu = _GPU.search(msg)
    n = sum(e.count for e in ev)
    why = f"the scheduler found no node for it{f' ({n} attempts)' if n > 1 else ''}: {msg}"
    if gpu:
        return _Cause("k8s-unschedulable-gpu", "gpu_unavailable", f"pod not scheduled: {msg}",
                      "No node has the GPUs this pod requests free: lower the pod's nvidia.com/gpu request, free GPUs "
                      "held by other pods, add GPU nodes, or check that the NVIDIA device plugin runs on the GPU "
                      "nodes (a node whose plugin is down advertises 0 GPUs).",
                      "kubectl describe nodes | grep -A8 -E 'Allocat(able|ed resources)'", 64, "high", why,
                      tuple(e.words() for e in ev[-3:]) or (msg,), None, SCHED_WHY)
    return _Cause("k8s-unschedulable", "host_resources" if "Insufficient" in msg else "other",
                  f"pod not scheduled: {msg}", "No node fits the pod: check its requests, node selectors, "
                  "affinities and tolerations against the nodes (kubectl describe nodes).", None, 60, "high", why,
                  tuple(e.words() for e in ev[-3:]) or (msg,), None, SCHED_WHY)


def _waiting(facts: PodFacts) -> _Cause | None:
    for c in facts.containers:
        if c.state != "waiting" or c.reason not in _PULL | _CREATE:
            continue
        ev = [e for e in _events(facts, "Failed") if not e.field_path or e.field_path.endswith(f"{{{c.name}}}")]
        # the kubelet's Failed event says why (`Failed to pull image ...: not found`); the waiting message
        # often only says that it backs off
        detail = (ev[-1].message if ev and not ev[-1].message.startswith("Error: ") else None) or c.message or (
            ev[-1].message if ev else "")
        evidence = (f"{c.name}: waiting, reason {c.reason}", *(e.words() for e in ev[-3:]))
        if c.reason in _PULL:
            return _Cause("k8s-image-pull-failed", "other", f"image {c.image} cannot be pulled ({c.reason}): {detail}",
                          "Check the image name and tag, that the registry is reachable from the node, and the "
                          "pod's imagePullSecrets for a private registry.", None, 64, "high",
                          f"the kubelet reports {c.reason} for container {c.name}", evidence, c.name, PULL_WHY)
        gpu = "nvidia" in detail.lower()
        return _Cause("k8s-container-not-created", "gpu_unavailable" if gpu else "cli_config_error",
                      f"container {c.name} cannot start ({c.reason}): {detail}",
                      "The pod spec names something the node cannot provide (a Secret or ConfigMap key that does "
                      "not exist, a command not in the image, a device): fix the spec and let the pod be recreated.",
                      None, 62, "high", f"the kubelet reports {c.reason} for container {c.name}", evidence, c.name,
                      CREATE_WHY)
    return None


def _mount(facts: PodFacts) -> _Cause | None:
    ev = _events(facts, "FailedMount", "FailedAttachVolume")
    if not ev or any(c.state in ("running", "terminated") for c in facts.containers):
        return None
    return _Cause("k8s-volume-not-mounted", "filesystem_permissions" if "permission" in ev[-1].message.lower()
                  else "model_files", f"a volume cannot be mounted: {ev[-1].message}",
                  "The pod waits for a volume (the model cache PVC, a Secret, a ConfigMap): check that it exists in "
                  "the pod's namespace and is bound, and that the node can attach it.", None, 60, "high",
                  f"the kubelet reports {ev[-1].reason} and no container has started", tuple(e.words() for e in ev[-3:]),
                  None, MOUNT_WHY)


def _phase(segments: Sequence[Segment], c: ContainerState) -> Phase | None:
    """The phase the container's previous run was in when it ended (its last lines that name one)."""
    for s in segments:
        if s.container == c.name and s.previous and not s.error:
            for text in reversed(s.tail):
                ph = phase_of_line(text)
                if ph is not None:
                    return ph
    return None


def _probe_kill(facts: PodFacts, segments: Sequence[Segment], log_root: Finding | None) -> _Cause | None:
    for c in facts.containers:
        kills = [e for e in _events(facts, "Killing") if "probe" in e.message
                 and (e.field_path or "").endswith(f"{{{c.name}}}")]
        if not kills:
            continue
        probe = c.startup if "startup probe" in kills[-1].message else c.liveness
        failed = [e for e in _events(facts, "Unhealthy") if (e.field_path or "").endswith(f"{{{c.name}}}")]
        phase = _phase(segments, c)
        loading = phase is not None and phase.id in STARTING
        quiet = log_root is None or log_root.confidence == "low" or log_root.role == "consequence"
        n = sum(e.count for e in kills)
        budget = f" ({probe.kind} probe {probe.words()})" if probe else ""
        if loading or (quiet and not c.ready):
            where = f"while it was still {phase.title}" if phase else "before it answered its probe"
            text = (f"The kubelet killed the server {where}: it needs longer to start than the probe allows{budget}. "
                    "Add a startupProbe on the same endpoint with failureThreshold x periodSeconds above the "
                    "slowest start (weights download and load, CUDA graphs), e.g. periodSeconds: 10, "
                    "failureThreshold: 60; keep the livenessProbe for after the start.")
            return _Cause("k8s-probe-killed-starting-server", "cli_config_error",
                          f"the {probe.kind if probe else 'liveness'} probe killed container {c.name} {where} "
                          f"({n} kill{'s' if n != 1 else ''}, {c.restart_count} restarts)", text, None, 60,
                          "high" if loading else "medium",
                          "the kubelet's Killing events name the probe, and the killed run printed no error"
                          + (f"; its last lines were {phase.title}" if phase else ""),
                          tuple(e.words() for e in (kills[-1], *failed[-2:])), c.name, PROBE_WHY)
    return None


def _oom(facts: PodFacts) -> _Cause | None:
    for c in facts.containers:
        code = c.last_exit_code if c.last_reason == "OOMKilled" else c.exit_code
        if c.oom_killed:
            limit = c.memory_limit
            raise_it = f"raise the container's memory limit (now {limit})" if limit else (
                "set a memory limit and request below the node's RAM and move the pod to a node with more memory")
            return _Cause("oom-killer", "host_resources",
                          (f"OOMKilled by the container's {limit} limit" if limit else "OOMKilled (no memory limit)")
                          + f" (exit {code}, container {c.name})",
                          f"The kernel's OOM killer ended the container: {raise_it} in resources.limits.memory (and "
                          "requests.memory with it), or lower its host-memory use (fewer workers, --swap-space 0, a "
                          "smaller --cpu-offload-gb).", None, 58, "high",
                          f"the pod's status says {'lastState' if c.last_reason == 'OOMKilled' else 'state'}"
                          ".terminated.reason: OOMKilled", (f"{c.name}: reason OOMKilled, exit code {code}, "
                                                            f"memory limit {limit or 'none'}",), c.name)
    return None


def _evicted(facts: PodFacts) -> _Cause | None:
    if facts.reason != "Evicted":
        return None
    return _Cause("k8s-evicted", "host_resources", f"pod evicted: {facts.message}", "The node ran short of a "
                  "resource and the kubelet evicted the pod: give it requests that match its use (memory, "
                  "ephemeral-storage) so it is placed where they fit.", None, 58, "high", "the pod's status says "
                  "reason Evicted", (f"status.reason Evicted: {facts.message}",), None, EVICT_WHY)


def _sigkill(facts: PodFacts) -> _Cause | None:
    for c in facts.containers:
        if c.terminated_code == 137 and c.memory_limit and not c.oom_killed:
            return _Cause("process-killed-sigkill", "host_resources",
                          f"container {c.name} killed with SIGKILL (exit 137) under its {c.memory_limit} memory limit",
                          f"Check the node's kernel log for an OOM kill at {c.last_finished_at or 'that time'}; if it "
                          f"is there, raise the {c.memory_limit} limit.", None, 25, "low",
                          "exit 137 without OOMKilled: a kill from outside, most likely memory",
                          (f"{c.name}: exit code 137, reason {c.last_reason or c.reason}",), c.name)
    return None


def state_cause(facts: PodFacts, kb: KnowledgeBase, segments: Sequence[Segment], log_root: Finding | None,
                host: str | None) -> Finding | None:
    """The cause the pod's state and events show by themselves, or None."""
    found = (_scheduling(facts) or _waiting(facts) or _mount(facts) or _evicted(facts) or _oom(facts)
             or _probe_kill(facts, segments, log_root) or _sigkill(facts))
    if found is None:
        return None
    rule = kb.get(found.rule)
    return Finding(
        line=f"kubectl get pod {facts.name}: {found.evidence[0]}", lineno=0, exception=None, message=found.message,
        category=found.category, fix=Fix(found.text, found.command), where=Where(process=found.container, host=host),
        rule=found.rule if rule is not None else None, score=max(found.score, rule.priority if rule else 0),
        explanation=rule.explanation if rule else found.explanation, evidence=tuple(Evidence(0, e) for e in found.evidence),
        fingerprint=f"k8s:{found.rule}", source="kubernetes", confidence=found.confidence,
        confidence_reason=found.reason,
    )
