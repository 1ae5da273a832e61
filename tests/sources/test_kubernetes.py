"""The Kubernetes source without a cluster: recorded `kubectl get ... -o json` and `kubectl logs --timestamps
--prefix` answers (tests/assets/k8s/README.md says where each comes from) replayed through a recording runner;
the exact command lines kubectl is given, the report's opening line, the causes the pod's state and events show
(OOMKilled, a liveness probe killing a server still loading weights, Insufficient nvidia.com/gpu), the log's
own cause winning over the state, a Deployment's pods grouped by root cause, and names refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import crashdoc.transport as transport
from crashdoc.errors import UnsafeArgumentError
from crashdoc.investigate.workload import diagnose_k8s
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.sources.kubernetes import K8sTarget, Kubectl, KubernetesNotFoundError, k8s_target, selector_of
from crashdoc.transport import SshRunner, parse_target
from tests.sources.conftest import validate
from tests.support.cli import run_cli
from tests.support.runners import FakeRunner

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "k8s"
NS = ("kubectl", "--namespace", "llm")
OOM_POD, LIVE_POD, GPU_POD, STS_POD = ("vllm-llama-7d9c8b6f4-x2k9p", "vllm-llama-5cc594fd46-hg5rw",
                                       "vllm-llama-7d9c8b6f4-q8z4m", "vllm-kimi-0")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _asset(name: str) -> tuple[int, str, str]:
    return 0, (ASSETS / name).read_text(), ""


def get_pod(pod: str, base: tuple[str, ...] = NS) -> tuple[str, ...]:
    return (*base, "get", "pod", pod, "-o", "json")


def events(pod: str, base: tuple[str, ...] = NS) -> tuple[str, ...]:
    return (*base, "get", "events", "--field-selector", f"involvedObject.name={pod}", "-o", "json")


def logs(pod: str, container: str, previous: bool, base: tuple[str, ...] = NS) -> tuple[str, ...]:
    return (*base, "logs", pod, "--container", container, *(("--previous",) if previous else ()), "--timestamps",
            "--prefix")


def _oom_answers(base: tuple[str, ...] = NS) -> dict[tuple[str, ...], tuple[int, str, str]]:
    return {get_pod(OOM_POD, base): _asset("oom-crashloop.pod.json"),
            events(OOM_POD, base): _asset("oom-crashloop.events.json"),
            logs(OOM_POD, "vllm", True, base): _asset("oom-crashloop.vllm.previous.log")}


def _section(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["kubernetes"]  # type: ignore[no-any-return]


def test_pod_command_lines_are_exact_and_the_report_opens_with_the_state(kb: KnowledgeBase) -> None:
    base = ("kubectl", "--context", "kind-gpu", "--namespace", "llm")
    runner = FakeRunner(_oom_answers(base), host=None)
    diag = diagnose_k8s(runner, K8sTarget("pod", OOM_POD), namespace="llm", context="kind-gpu", kb=kb)
    # the container waits in CrashLoopBackOff and has not started again: no current log is asked for
    assert runner.calls == [get_pod(OOM_POD, base), events(OOM_POD, base), logs(OOM_POD, "vllm", True, base)]
    doc = validate(diag)
    sec = _section(doc)
    assert sec["lines"][0] == "CrashLoopBackOff, 14 restarts, last exit 137, OOMKilled by the container's 16Gi limit"
    rc = doc["root_cause"]
    assert (rc["rule"], rc["category"], rc["confidence"]) == ("oom-killer", "host_resources", "high")
    assert rc["where"]["process"] == "vllm" and "16Gi" in rc["fix"]["text"]
    assert doc["attempts"][-1]["outcome"] == "terminated (OOMKilled)"
    assert "sk-live-0d9f1c" not in json.dumps(doc)  # the pod spec's --api-key value is masked


def test_a_liveness_probe_killing_a_server_still_loading_weights_is_named(kb: KnowledgeBase) -> None:
    runner = FakeRunner({get_pod(LIVE_POD): _asset("liveness-loading.pod.json"),
                         events(LIVE_POD): _asset("liveness-loading.events.json"),
                         logs(LIVE_POD, "vllm", True): _asset("liveness-loading.vllm.previous.log"),
                         logs(LIVE_POD, "vllm", False): _asset("liveness-loading.vllm.current.log")}, host=None)
    diag = diagnose_k8s(runner, K8sTarget("pod", LIVE_POD), namespace="llm", kb=kb)
    assert runner.calls == [get_pod(LIVE_POD), events(LIVE_POD), logs(LIVE_POD, "vllm", True),
                            logs(LIVE_POD, "vllm", False)]
    doc = validate(diag)
    rc = doc["root_cause"]
    assert "liveness probe killed container vllm while it was still loading weights" in rc["message"]
    assert "startupProbe" in rc["fix"]["text"] and "(60s)" in rc["fix"]["text"]
    assert rc["category"] == "cli_config_error" and rc["confidence"] == "high"
    assert _section(doc)["lines"][0] == "running, not ready, 5 restarts, last exit 137, killed by its probe 5 times"


def test_a_pod_no_node_can_take_is_a_gpu_scheduling_failure_without_logs(kb: KnowledgeBase) -> None:
    runner = FakeRunner({get_pod(GPU_POD): _asset("pending-gpu.pod.json"),
                         events(GPU_POD): _asset("pending-gpu.events.json")}, host=None)
    diag = diagnose_k8s(runner, K8sTarget("pod", GPU_POD), namespace="llm", kb=kb)
    assert runner.calls == [get_pod(GPU_POD), events(GPU_POD)]  # nothing started: no kubectl logs
    doc = validate(diag)
    assert doc["root_cause"]["category"] == "gpu_unavailable"
    assert "Insufficient nvidia.com/gpu" in doc["root_cause"]["message"]
    assert _section(doc)["lines"][0].startswith("Pending: not scheduled (0/2 nodes are available: 1 Insufficient")


def test_a_statefulset_reads_init_container_and_previous_run_and_the_log_cause_wins(kb: KnowledgeBase) -> None:
    pod = json.loads((ASSETS / "flashinfer-sts.pod.json").read_text())
    answers = {(*NS, "get", "statefulset", "vllm-kimi", "-o", "json"): _asset("flashinfer-sts.statefulset.json"),
               (*NS, "get", "pods", "--selector", "app=vllm-kimi", "-o", "json"): (0, json.dumps({"items": [pod]}), ""),
               events(STS_POD): _asset("flashinfer-sts.events.json"),
               logs(STS_POD, "model-download", False): _asset("flashinfer-sts.model-download.current.log"),
               logs(STS_POD, "vllm", True): _asset("flashinfer-sts.vllm.previous.log")}
    runner = FakeRunner(answers, host=None)
    diag = diagnose_k8s(runner, K8sTarget("statefulset", "vllm-kimi"), namespace="llm", kb=kb)
    assert runner.calls == list(answers)
    doc = validate(diag)
    assert doc["root_cause"]["rule"] == "flashinfer-cubin-version-mismatch"
    assert doc["root_cause"]["fix"]["command"] == "pip install flashinfer-cubin==0.6.4"
    assert _section(doc)["groups"][0]["pods"] == [STS_POD]


def test_a_deployment_groups_its_failing_pods_by_root_cause(kb: KnowledgeBase) -> None:
    answers = {(*NS, "get", "deployment", "vllm-llama", "-o", "json"): _asset("vllm-llama.deployment.json"),
               (*NS, "get", "pods", "--selector", "app=vllm-llama", "-o", "json"): _asset("vllm-llama.pods.json"),
               **_oom_answers(),
               events("vllm-llama-7d9c8b6f4-m7c2d"): _asset("oom-crashloop.events.json"),
               logs("vllm-llama-7d9c8b6f4-m7c2d", "vllm", True): _asset("oom-crashloop.vllm.previous.log"),
               events(GPU_POD): _asset("pending-gpu.events.json")}
    runner = FakeRunner(answers, host="bastion")
    diag = diagnose_k8s(runner, K8sTarget("deployment", "vllm-llama"), namespace="llm", kb=kb)
    # the listed pods' JSON is used as it is: no `get pod` per pod, then each failing pod's events and logs
    assert runner.calls == [k for k in answers if k != get_pod(OOM_POD)][:2] + [
        events(OOM_POD), logs(OOM_POD, "vllm", True), events("vllm-llama-7d9c8b6f4-m7c2d"),
        logs("vllm-llama-7d9c8b6f4-m7c2d", "vllm", True), events(GPU_POD)]
    doc = validate(diag)
    groups = _section(doc)["groups"]
    assert [g["pods"] for g in groups] == [[OOM_POD, "vllm-llama-7d9c8b6f4-m7c2d"], [GPU_POD]]
    assert doc["root_cause"]["rule"] == "oom-killer"
    assert doc["summary"].startswith("2 of 3 failing pods: OOMKilled by the container's 16Gi limit")
    other = [f for f in doc["findings"] if f["category"] == "gpu_unavailable"]
    assert other and other[0]["where"]["process"] == GPU_POD
    assert doc["source"] == "deployment llm/vllm-llama (3 pods) via kubectl on bastion"


def test_names_and_selectors_are_checked_before_any_command_line() -> None:
    assert k8s_target("k8s:vllm-0") == K8sTarget("pod", "vllm-0")
    assert k8s_target("k8s:deploy/vllm") == K8sTarget("deployment", "vllm")
    assert k8s_target("k8s:sts/vllm") == K8sTarget("statefulset", "vllm")
    assert k8s_target("docker:vllm") is None and k8s_target("vllm.log") is None
    for bad in ("k8s:pod/Vllm", "k8s:pod/vllm;reboot", "k8s:pod/$(id)", "k8s:svc/vllm", "k8s:pod/-x"):
        with pytest.raises(UnsafeArgumentError):
            k8s_target(bad)
    runner = FakeRunner({}, host=None)
    for ns, ctx in (("llm prod", None), ("LLM", None), (None, "kind;id"), (None, "$(id)")):
        with pytest.raises(UnsafeArgumentError):
            Kubectl(runner, ns, ctx)
    assert Kubectl(runner, None, "arn:aws:eks:us-east-1:12:cluster/gpu").base() == [
        "kubectl", "--context", "arn:aws:eks:us-east-1:12:cluster/gpu"]
    sel = {"spec": {"selector": {"matchLabels": {"app": "vllm"}, "matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["gpu", "h100"]}, {"key": "canary", "operator": "DoesNotExist"}]}}}
    assert selector_of(sel) == "app=vllm,tier in (gpu,h100),!canary"
    with pytest.raises(UnsafeArgumentError):
        selector_of({"spec": {"selector": {"matchLabels": {"app": "x;reboot"}}}})


def test_kubectl_through_ssh_keeps_the_argv_one_word_each() -> None:
    ssh = SshRunner(parse_target("ops@bastion"))
    argv = ssh.ssh_argv(Kubectl(ssh, "llm").pods_argv("app=vllm,tier in (gpu,h100)"))
    assert argv[-1] == "kubectl --namespace llm get pods --selector 'app=vllm,tier in (gpu,h100)' -o json"


def test_a_pod_kubectl_does_not_know_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = FakeRunner({get_pod("vllm-9"): (1, "", 'Error from server (NotFound): pods "vllm-9" not found')}, host=None)
    with pytest.raises(KubernetesNotFoundError, match="no pod vllm-9 in namespace llm"):
        diagnose_k8s(missing, K8sTarget("pod", "vllm-9"), namespace="llm")
    hosts: list[str | None] = []

    def fake_runner_for(host: str | None, ssh_options: tuple[str, ...] = ()) -> FakeRunner:
        hosts.append(host)
        return missing if host is None else FakeRunner(_oom_answers(), host=host)

    monkeypatch.setattr(transport, "runner_for", fake_runner_for)
    res = run_cli("diagnose", "k8s:pod/vllm-9", "-n", "llm", "--no-history")
    assert res.status == 2 and res.stderr.count("\n") == 1 and "not found" in res.stderr
    ok = run_cli("diagnose", f"k8s:pod/{OOM_POD}", "--namespace", "llm", "--host", "ops@bastion", "--format", "json",
                 "--no-history")
    assert ok.status == 0 and hosts == [None, "ops@bastion"]
    assert ok.json["root_cause"]["rule"] == "oom-killer"
    bad = run_cli("diagnose", "k8s:pod/vllm;reboot", "--no-history")
    assert bad.status == 2 and "refusing pod name" in bad.stderr


def _scheduled_pod(waiting: dict[str, str]) -> str:
    """The pending pod's JSON, scheduled, its container waiting as `waiting` says."""
    doc = json.loads((ASSETS / "pending-gpu.pod.json").read_text())
    doc["spec"]["nodeName"] = "gpu-node-07"
    doc["spec"]["containers"][0]["image"] = "vllm/vllm-openai:v0.11.3"
    doc["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}],
                     "containerStatuses": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.3", "ready": False,
                                            "restartCount": 0, "started": False, "state": {"waiting": waiting}}]}
    return json.dumps(doc)


def _event_list(reason: str, message: str) -> str:
    doc = json.loads((ASSETS / "pending-gpu.events.json").read_text())
    doc["items"] = [{**doc["items"][0], "reason": reason, "message": message, "count": 4,
                     "involvedObject": {**doc["items"][0]["involvedObject"], "fieldPath": "spec.containers{vllm}"}}]
    return json.dumps(doc)


@pytest.mark.parametrize(("waiting", "event", "category", "words"), [
    ({"reason": "ImagePullBackOff", "message": 'Back-off pulling image "vllm/vllm-openai:v0.11.3"'},
     ("Failed", 'Failed to pull image "vllm/vllm-openai:v0.11.3": rpc error: code = NotFound desc = failed to pull and '
      'unpack image "docker.io/vllm/vllm-openai:v0.11.3": failed to resolve reference '
      '"docker.io/vllm/vllm-openai:v0.11.3": docker.io/vllm/vllm-openai:v0.11.3: not found'),
     "other", "image vllm/vllm-openai:v0.11.3 cannot be pulled (ImagePullBackOff): Failed to pull image"),
    ({"reason": "ContainerCreating"},
     ("FailedMount", 'MountVolume.SetUp failed for volume "model-cache" : persistentvolumeclaim "llama-70b-cache" '
      "not found"), "model_files", "a volume cannot be mounted: MountVolume.SetUp failed"),
    ({"reason": "CreateContainerConfigError", "message": 'secret "hf-token" not found'},
     ("Failed", 'Error: secret "hf-token" not found'), "cli_config_error",
     "container vllm cannot start (CreateContainerConfigError): secret \"hf-token\" not found"),
])
def test_a_container_that_never_starts_has_its_cause_in_the_state_and_events(
        kb: KnowledgeBase, waiting: dict[str, str], event: tuple[str, str], category: str, words: str) -> None:
    runner = FakeRunner({get_pod(GPU_POD): (0, _scheduled_pod(waiting), ""),
                         events(GPU_POD): (0, _event_list(*event), "")}, host=None)
    doc = validate(diagnose_k8s(runner, K8sTarget("pod", GPU_POD), namespace="llm", kb=kb))
    assert runner.calls == [get_pod(GPU_POD), events(GPU_POD)]
    assert doc["root_cause"]["category"] == category
    assert doc["root_cause"]["message"].startswith(words)
