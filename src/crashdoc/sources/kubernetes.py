"""A Kubernetes pod (or the pods of a Deployment / StatefulSet) through `kubectl`, run by the Runner (so
`--host` reads a cluster from a bastion): `get pod -o json` for the state, `get events` for what the kubelet
and the scheduler said, `logs --previous` and `logs` of every container (init containers too) for the text.

Every name is checked before it reaches a command line: pod, workload and namespace names are RFC 1123 names,
a context is a plain word, label selectors are built only from label keys and values Kubernetes itself accepts.
The logs of a pod's containers are spooled to one temporary file, one segment after another (each init
container, then each container; the previous run before the current one), with `--prefix` so every line says
its container; the segments' line ranges tell which run of which container a finding is in.
"""

from __future__ import annotations

import json
import tempfile
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from crashdoc.errors import InputError, UnsafeArgumentError
from crashdoc.regex import Regex
from crashdoc.sources.interface import ByteSource
from crashdoc.transport import Runner

KINDS = {"pod": "pod", "po": "pod", "pods": "pod", "deploy": "deployment", "deployment": "deployment",
         "deployments": "deployment", "sts": "statefulset", "statefulset": "statefulset",
         "statefulsets": "statefulset"}
_SUBDOMAIN = Regex(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL = Regex(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_CONTEXT = Regex(r"[A-Za-z0-9][A-Za-z0-9_.:@/+=,%-]{0,252}")
_LABEL_KEY = Regex(r"(?:[a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
_LABEL_VALUE = Regex(r"(?:[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?")
_PREFIX = Regex(rb"\[[^\]\s]{1,300}\] ")
GET_TIMEOUT = 60.0
TAIL_LINES = 40


class KubernetesNotFoundError(InputError):
    """kubectl knows no object of that kind and name in that namespace."""


def check_k8s_name(name: str, what: str = "pod name") -> str:
    """An RFC 1123 subdomain (what pods, Deployments and StatefulSets are named), else refused."""
    if len(name) > 253 or not _SUBDOMAIN.fullmatch(name):
        raise UnsafeArgumentError(f"refusing {what} {name!r}: a Kubernetes name has lower-case letters, digits, "
                                  "'-' and '.', and starts and ends with a letter or digit (RFC 1123)")
    return name


def check_namespace(ns: str) -> str:
    """An RFC 1123 label (what a namespace is named), else refused."""
    if len(ns) > 63 or not _LABEL.fullmatch(ns):
        raise UnsafeArgumentError(f"refusing namespace {ns!r}: a namespace has lower-case letters, digits and '-' "
                                  "(RFC 1123 label, at most 63 characters)")
    return ns


def check_context(ctx: str) -> str:
    """A kubeconfig context name without shell syntax (`kind-gpu`, `arn:aws:eks:...:cluster/x`, `gke_p_z_c`)."""
    if not _CONTEXT.fullmatch(ctx):
        raise UnsafeArgumentError(f"refusing context {ctx!r}: it contains characters a shell would interpret")
    return ctx


@dataclass(frozen=True)
class K8sTarget:
    """What `k8s:KIND/NAME` names: kind is `pod`, `deployment` or `statefulset`."""

    kind: str
    name: str


def k8s_target(text: str) -> K8sTarget | None:
    """`k8s:pod/NAME`, `k8s:deploy/NAME`, `k8s:sts/NAME` (`k8s:NAME`: a pod) -> K8sTarget; None for other targets."""
    scheme, sep, rest = text.partition(":")
    if not sep or scheme not in ("k8s", "kube", "kubernetes"):
        return None
    kind, slash, name = rest.partition("/")
    if not slash:
        kind, name = "pod", rest
    if kind.lower() not in KINDS:
        raise UnsafeArgumentError(f"refusing {text!r}: crashdoc reads k8s:pod/NAME, k8s:deploy/NAME and "
                                  "k8s:statefulset/NAME")
    kind = KINDS[kind.lower()]
    return K8sTarget(kind, check_k8s_name(name, f"{kind} name"))


def selector_of(workload: Mapping[str, Any]) -> str:
    """A Deployment's / StatefulSet's `spec.selector` as a `--selector` value (matchLabels, and matchExpressions
    In / NotIn / Exists / DoesNotExist), every key and value checked."""
    sel = (workload.get("spec") or {}).get("selector") or {}
    parts = []
    for key, value in sorted((sel.get("matchLabels") or {}).items()):
        parts.append(f"{_key(key)}={_value(value)}")
    for expr in sel.get("matchExpressions") or ():
        key, op, values = _key(expr.get("key", "")), expr.get("operator"), [_value(v) for v in expr.get("values") or ()]
        if op in ("In", "NotIn"):
            parts.append(f"{key} {op.lower()} ({','.join(values)})")
        elif op in ("Exists", "DoesNotExist"):
            parts.append(key if op == "Exists" else f"!{key}")
        else:
            raise InputError(f"the workload's selector has an operator crashdoc does not know: {op!r}")
    if not parts:
        raise InputError("the workload has no spec.selector: cannot tell which pods are its")
    return ",".join(parts)


def _key(key: Any) -> str:
    if not isinstance(key, str) or len(key) > 317 or not _LABEL_KEY.fullmatch(key):
        raise UnsafeArgumentError(f"refusing label key {key!r} from the cluster's answer")
    return key


def _value(value: Any) -> str:
    if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.fullmatch(value):
        raise UnsafeArgumentError(f"refusing label value {value!r} from the cluster's answer")
    return value


class Kubectl:
    """kubectl's command lines for one namespace and context, run through the runner."""

    def __init__(self, runner: Runner, namespace: str | None = None, context: str | None = None) -> None:
        self.runner = runner
        self.namespace = check_namespace(namespace) if namespace else None
        self.context = check_context(context) if context else None

    def base(self) -> list[str]:
        """`kubectl [--context C] [--namespace N]`."""
        out = ["kubectl"]
        if self.context:
            out += ["--context", self.context]
        if self.namespace:
            out += ["--namespace", self.namespace]
        return out

    def get_argv(self, kind: str, name: str) -> list[str]:
        """`kubectl get KIND NAME -o json`."""
        if kind not in KINDS.values():
            raise UnsafeArgumentError(f"refusing kind {kind!r}")
        return [*self.base(), "get", kind, check_k8s_name(name, f"{kind} name"), "-o", "json"]

    def pods_argv(self, selector: str) -> list[str]:
        """`kubectl get pods --selector SEL -o json` (the selector built by selector_of)."""
        return [*self.base(), "get", "pods", "--selector", selector, "-o", "json"]

    def events_argv(self, pod: str) -> list[str]:
        """`kubectl get events --field-selector involvedObject.name=POD -o json`."""
        return [*self.base(), "get", "events", "--field-selector", f"involvedObject.name={check_k8s_name(pod)}",
                "-o", "json"]

    def logs_argv(self, pod: str, container: str, previous: bool) -> list[str]:
        """`kubectl logs POD --container C [--previous] --timestamps --prefix`."""
        return [*self.base(), "logs", check_k8s_name(pod), "--container", check_k8s_name(container, "container name"),
                *(["--previous"] if previous else []), "--timestamps", "--prefix"]

    def where(self) -> str:
        """`namespace N, context C on HOST` for messages."""
        parts = [f"namespace {self.namespace}" if self.namespace else "the context's namespace"]
        if self.context:
            parts.append(f"context {self.context}")
        return ", ".join(parts) + (f" (kubectl on {self.runner.host})" if self.runner.host else "")

    def get_json(self, argv: Sequence[str], what: str) -> dict[str, Any]:
        """Run a `get ... -o json` and return the object (InputError with kubectl's own line when it fails)."""
        res = self.runner.run(argv, timeout=GET_TIMEOUT)
        if not res.ok:
            raise self.error(what, res.stderr_line() or f"exit status {res.returncode}")
        try:
            doc = json.loads(res.stdout.decode("utf-8", "replace"))
        except ValueError as exc:
            raise InputError(f"kubectl get {what}: the answer is not JSON ({exc})") from exc
        if not isinstance(doc, dict):
            raise InputError(f"kubectl get {what}: the answer is not a JSON object")
        return doc

    def error(self, what: str, line: str) -> InputError:
        """kubectl's failure as one line that names the next step."""
        low = line.lower()
        if "notfound" in low or "not found" in low:
            return KubernetesNotFoundError(f"kubectl: no {what} in {self.where()} ({line})")
        if "forbidden" in low:
            return InputError(f"kubectl get {what}: {line} (the account lacks RBAC rights to read it)")
        if "unable to connect" in low or "connection refused" in low or "does not exist" in low:
            return InputError(f"kubectl cannot reach the cluster ({self.where()}): {line}")
        return InputError(f"kubectl get {what} ({self.where()}): {line}")


@dataclass(frozen=True)
class Segment:
    """One run's log of one container, as spooled: its lines are lines `first`..`last` of the pod's log."""

    container: str
    init: bool
    previous: bool
    argv: tuple[str, ...]
    first: int
    last: int
    bytes: int
    error: str | None = None
    """kubectl's line when it could not give this log (the container never started, no previous run)."""
    tail: tuple[str, ...] = field(default=(), compare=False)
    """The segment's last lines (the phase a run was in when it was killed)."""


class PodLogs(ByteSource):
    """The logs of a pod's containers, one segment after another, spooled to one temporary file."""

    def __init__(self, kubectl: Kubectl, pod: str, wanted: Sequence[tuple[str, bool, bool]], label: str) -> None:
        """`wanted`: (container, is init container, previous run) in reading order."""
        self.kubectl, self.pod, self.wanted, self.label = kubectl, pod, tuple(wanted), label
        self.segments: list[Segment] = []
        self.bytes_read = 0

    def segment_at(self, lineno: int) -> Segment | None:
        """The segment line `lineno` of the pod's log belongs to."""
        return next((s for s in self.segments if s.first <= lineno <= s.last), None)

    @contextmanager
    def open(self) -> Iterator[BinaryIO]:
        """The pod's log (a container whose log kubectl cannot give is a segment with an error, not a failure)."""
        self.segments, self.bytes_read = [], 0
        with tempfile.TemporaryFile() as spool:
            n = 0
            for container, init, previous in self.wanted:
                argv = self.kubectl.logs_argv(self.pod, container, previous)
                streamed = self.kubectl.runner.stream(argv)
                first, size = n + 1, 0
                tail: deque[str] = deque(maxlen=TAIL_LINES)
                for line in streamed.lines:
                    if not line.endswith(b"\n"):
                        line += b"\n"
                    spool.write(line)
                    n += 1
                    size += len(line)
                    tail.append(_PREFIX.sub(b"", line, count=1).decode("utf-8", "replace").rstrip())
                res = streamed.result()
                err = None if res.ok else (res.stderr_line() or f"exit status {res.returncode}")
                self.bytes_read += size
                self.segments.append(Segment(container, init, previous, tuple(argv), first, n, size, err, tuple(tail)))
            spool.seek(0)
            yield spool
