"""What the cluster says about a pod, typed: `kubectl get pod -o json` -> PodFacts (every container's status,
its limits and probes), `kubectl get events -o json` -> PodEvent. The pod's section renders them; the text
fields (messages, reasons) are the cluster's and are sanitised by the reports like log text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from crashdoc.errors import InputError
from crashdoc.sources.container import mask_args

#: waiting reasons that mean the container cannot start (as `kubectl get pods` shows them in STATUS)
START_FAILURES = frozenset({"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "InvalidImageName",
                            "CreateContainerConfigError", "CreateContainerError", "RunContainerError",
                            "ContainerCannotRun", "StartError", "ErrImageNeverPull", "PreCreateHookError",
                            "PostStartHookError"})


@dataclass(frozen=True)
class Probe:
    """A liveness, startup or readiness probe as the pod spec sets it (Kubernetes' defaults filled in)."""

    kind: str
    action: str  # `GET :8000/health`, `tcp :8000`, `exec cat /tmp/ready`, `grpc :9000`
    initial_delay: int
    period: int
    timeout: int
    failure_threshold: int

    @property
    def budget(self) -> int:
        """Seconds from the container's start until the probe gives up on a server that never answers."""
        return self.initial_delay + self.period * self.failure_threshold

    def words(self) -> str:
        """`GET :8000/health after 30s, every 10s, 3 failures (60s)`."""
        return (f"{self.action} after {self.initial_delay}s, every {self.period}s, {self.failure_threshold} "
                f"failure{'s' if self.failure_threshold != 1 else ''} ({self.budget}s)")


@dataclass(frozen=True)
class ContainerState:
    """One container of the pod: its spec (image, limits, probes) and its status."""

    name: str
    init: bool
    image: str | None
    command: tuple[str, ...]
    ready: bool
    started: bool
    restart_count: int
    state: str  # running, waiting, terminated, unknown
    reason: str | None  # waiting reason (CrashLoopBackOff) or terminated reason (OOMKilled, Error, Completed)
    message: str | None
    exit_code: int | None  # of the current state when terminated
    started_at: str | None
    last_reason: str | None  # lastState.terminated
    last_exit_code: int | None
    last_started_at: str | None
    last_finished_at: str | None
    last_message: str | None
    memory_limit: str | None  # as written in the spec (`16Gi`)
    memory_request: str | None
    gpus: str | None  # nvidia.com/gpu (or another */gpu resource) limit
    liveness: Probe | None
    startup: Probe | None
    readiness: Probe | None

    @property
    def oom_killed(self) -> bool:
        """The current or the last run ended with reason OOMKilled."""
        return "OOMKilled" in (self.reason, self.last_reason)

    @property
    def terminated_code(self) -> int | None:
        """The exit code of the run that ended last (the current state's when terminated, else lastState's)."""
        return self.exit_code if self.state == "terminated" else self.last_exit_code

    @property
    def failing(self) -> bool:
        """Restarting, unable to start, or ended with an error."""
        if self.reason in START_FAILURES or self.oom_killed:
            return True
        if self.state == "terminated" and (self.exit_code or 0) != 0:
            return True
        return self.restart_count > 0 and self.last_reason not in (None, "Completed")


@dataclass(frozen=True)
class PodEvent:
    """One event about the pod (`Warning FailedScheduling (x12): 0/4 nodes are available: ...`)."""

    type: str
    reason: str
    message: str
    count: int
    first: str | None
    last: str | None
    field_path: str | None  # `spec.containers{vllm}`
    source: str | None  # kubelet, default-scheduler

    def words(self) -> str:
        """`Warning Unhealthy (x3): Liveness probe failed: ...`."""
        n = f" (x{self.count})" if self.count > 1 else ""
        return f"{self.type} {self.reason}{n}: {self.message}"


@dataclass(frozen=True)
class PodFacts:
    """The pod as the cluster says it is."""

    name: str
    namespace: str | None
    phase: str  # Pending, Running, Succeeded, Failed, Unknown
    reason: str | None  # Evicted, ...
    message: str | None
    node: str | None
    owner: str | None  # `ReplicaSet/vllm-7d9c8b6f4`
    unschedulable: str | None  # the PodScheduled=False condition's message
    containers: tuple[ContainerState, ...]
    events: tuple[PodEvent, ...] = field(default=())

    @property
    def failing(self) -> bool:
        """Not scheduled, failed, evicted, or a container that is failing."""
        return (self.phase in ("Pending", "Failed", "Unknown") and self.phase != "Succeeded"
                or any(c.failing for c in self.containers) or self.unschedulable is not None)

    def data(self) -> dict[str, Any]:
        """The facts for machines."""
        return asdict(self)


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _probe(kind: str, spec: Any) -> Probe | None:
    if not isinstance(spec, dict):
        return None
    if isinstance(spec.get("httpGet"), dict):
        h = spec["httpGet"]
        action = f"GET :{h.get('port', '?')}{h.get('path', '/')}"
    elif isinstance(spec.get("tcpSocket"), dict):
        action = f"tcp :{spec['tcpSocket'].get('port', '?')}"
    elif isinstance(spec.get("grpc"), dict):
        action = f"grpc :{spec['grpc'].get('port', '?')}"
    elif isinstance(spec.get("exec"), dict):
        action = "exec " + " ".join(mask_args([str(a) for a in spec["exec"].get("command") or ()]))[:120]
    else:
        action = "?"
    return Probe(kind, action, _int(spec.get("initialDelaySeconds")), _int(spec.get("periodSeconds"), 10),
                 _int(spec.get("timeoutSeconds"), 1), _int(spec.get("failureThreshold"), 3))


def _gpus(limits: Mapping[str, Any]) -> str | None:
    found = [f"{k}: {v}" if k != "nvidia.com/gpu" else str(v) for k, v in limits.items()
             if k.endswith("/gpu") or k.startswith("nvidia.com/")]
    return ", ".join(found) or None


def _container(spec: Mapping[str, Any], status: Mapping[str, Any], init: bool) -> ContainerState:
    res = spec.get("resources") or {}
    limits, requests = res.get("limits") or {}, res.get("requests") or {}
    state = status.get("state") or {}
    kind = next((k for k in ("running", "waiting", "terminated") if isinstance(state.get(k), dict)), "unknown")
    now = state.get(kind) if kind != "unknown" else {}
    last = (status.get("lastState") or {}).get("terminated") or {}
    return ContainerState(
        name=str(spec.get("name") or status.get("name") or "?"), init=init,
        image=str(spec.get("image") or status.get("image") or "") or None,
        command=mask_args([str(a) for a in (*(spec.get("command") or ()), *(spec.get("args") or ()))]),
        ready=bool(status.get("ready")), started=bool(status.get("started")),
        restart_count=_int(status.get("restartCount")), state=kind,
        reason=(now or {}).get("reason"), message=((now or {}).get("message") or "").strip()[:1000] or None,
        exit_code=(now or {}).get("exitCode") if kind == "terminated" else None,
        started_at=(now or {}).get("startedAt"),
        last_reason=last.get("reason"), last_exit_code=last.get("exitCode"),
        last_started_at=last.get("startedAt"), last_finished_at=last.get("finishedAt"),
        last_message=(last.get("message") or "").strip()[:1000] or None,
        memory_limit=str(limits["memory"]) if "memory" in limits else None,
        memory_request=str(requests["memory"]) if "memory" in requests else None,
        gpus=_gpus(limits), liveness=_probe("liveness", spec.get("livenessProbe")),
        startup=_probe("startup", spec.get("startupProbe")), readiness=_probe("readiness", spec.get("readinessProbe")),
    )


def parse_pod(doc: Mapping[str, Any]) -> PodFacts:
    """One pod object (from `get pod NAME -o json`, or an item of `get pods -o json`) -> PodFacts."""
    if doc.get("kind") not in (None, "Pod") or not isinstance(doc.get("metadata"), dict):
        raise InputError(f"kubectl: expected a Pod, got {doc.get('kind')!r}")
    meta, spec, status = doc["metadata"], doc.get("spec") or {}, doc.get("status") or {}
    statuses = {(True, s.get("name")): s for s in status.get("initContainerStatuses") or () if isinstance(s, dict)}
    statuses.update({(False, s.get("name")): s for s in status.get("containerStatuses") or () if isinstance(s, dict)})
    containers = tuple(
        _container(c, statuses.get((init, c.get("name"))) or {}, init)
        for init, key in ((True, "initContainers"), (False, "containers"))
        for c in spec.get(key) or () if isinstance(c, dict)
    )
    owners = [o for o in meta.get("ownerReferences") or () if isinstance(o, dict)]
    unsched = next((c for c in status.get("conditions") or () if isinstance(c, dict) and c.get("type") == "PodScheduled"
                    and c.get("status") == "False"), None)
    return PodFacts(
        name=str(meta.get("name") or "?"), namespace=meta.get("namespace"), phase=str(status.get("phase") or "Unknown"),
        reason=status.get("reason"), message=(status.get("message") or "").strip()[:1000] or None,
        node=spec.get("nodeName"), owner=f"{owners[0].get('kind')}/{owners[0].get('name')}" if owners else None,
        unschedulable=(unsched.get("message") or unsched.get("reason") or "Unschedulable") if unsched else None,
        containers=containers,
    )


def parse_events(doc: Mapping[str, Any]) -> tuple[PodEvent, ...]:
    """`kubectl get events -o json` (an EventList; core/v1 or events.k8s.io field names) -> events, oldest first."""
    out = []
    for e in doc.get("items") or ():
        if not isinstance(e, dict):
            continue
        obj = e.get("involvedObject") or e.get("regarding") or {}
        series = e.get("series") or {}
        src = e.get("source") or {}
        out.append(PodEvent(
            type=str(e.get("type") or "Normal"), reason=str(e.get("reason") or "?"),
            message=str(e.get("message") or e.get("note") or "").strip()[:2000],
            count=_int(e.get("count")) or _int(series.get("count")) or 1,
            first=e.get("firstTimestamp") or e.get("eventTime"),
            last=e.get("lastTimestamp") or series.get("lastObservedTime") or e.get("eventTime"),
            field_path=obj.get("fieldPath"), source=src.get("component") or e.get("reportingComponent") or None,
        ))
    return tuple(sorted(out, key=lambda ev: ev.last or ev.first or ""))


def parse_pod_json(raw: bytes) -> PodFacts:
    """`kubectl get pod NAME -o json` output -> PodFacts."""
    try:
        doc = json.loads(raw.decode("utf-8", "replace"))
    except ValueError as exc:
        raise InputError(f"kubectl get pod: the answer is not JSON ({exc})") from exc
    return parse_pod(doc)
