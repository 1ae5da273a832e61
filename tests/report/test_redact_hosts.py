"""`--redact-hosts`: host names and IP addresses replaced by stable pseudonyms in every format; off by default;
the report says so (in `skipped`, so the JSON contract stays crashdoc.diagnosis/1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from crashdoc.model import Diagnosis, Evidence, Finding, Fix, UnitFacts, Where
from crashdoc.report.json import schema_text
from crashdoc.report.redact import HostMapper, host_rules, redact_diagnosis
from tests.support.cli import run_cli

PRIVATE = ("gpu-node-07", "10.0.0.12", "172.31.4.7", "mirror.corp.example", "trainer-0.internal", "fd00::7")
LOG = """\
Nov 30 09:12:50 gpu-node-07 vllm[41237]: (APIServer pid=41237) INFO vLLM API server on http://0.0.0.0:8000
Nov 30 09:12:51 gpu-node-07 vllm[41237]: (RayWorkerWrapper pid=2211, ip=172.31.4.7) INFO MASTER_ADDR=trainer-0.internal
Nov 30 09:12:52 gpu-node-07 vllm[41237]: Traceback (most recent call last):
Nov 30 09:12:52 gpu-node-07 vllm[41237]:   File "/srv/app.py", line 3, in <module>
Nov 30 09:12:52 gpu-node-07 vllm[41237]: ConnectionError: gpu-node-07:41473 (bound to 0.0.0.0:8000) cannot reach 10.0.0.12:29500 or [fd00::7]:29500 via https://mirror.corp.example/simple (pip install nvidia-cudnn-cu12==9.1.0.70 from huggingface.co)
"""


@pytest.mark.parametrize(("text", "hosts"), host_rules().examples)
def test_host_examples(text: str, hosts: tuple[str, ...]) -> None:
    h = HostMapper()
    h.learn(text)
    out = h.text(text)
    for host in hosts:
        assert host not in out, out
    assert h.count == len(hosts), (h.names, h.addresses)  # nothing else taken for a host
    if not hosts:
        assert out == text


def test_the_same_host_gets_the_same_pseudonym_everywhere() -> None:
    rc = Finding("Nov 30 09:12:52 gpu7 vllm[1]: RuntimeError: peer 10.0.0.5 lost", 1, "RuntimeError",
                 "peer 10.0.0.5 lost", "other", Fix("ssh gpu7 and check 10.0.0.5, then 10.0.0.6"),
                 where=Where(host="gpu7"), evidence=(Evidence(1, "gpu7: 10.0.0.6 10.0.0.5"),))
    diag = Diagnosis("unit vllm.service on root@gpu7", rc, (rc,),
                     unit=UnitFacts("vllm.service", "root@gpu7:2222", None, None, None, False, None, None, ""))
    out, secrets = redact_diagnosis(diag, hosts=True)
    assert secrets == 0 and out.root_cause is not None and out.unit is not None
    assert out.root_cause.where.host == "host-1" and out.unit.host == "root@host-1:2222"
    assert out.source == "unit vllm.service on root@host-1"
    assert out.root_cause.message == "peer ip-1 lost"
    assert out.root_cause.fix.text == "ssh host-1 and check ip-1, then ip-2"
    assert out.root_cause.evidence[0].text == "host-1: ip-2 ip-1"
    assert out.skipped[-1].what == "host names and IP addresses"
    assert "1 host name and 2 IP addresses" in out.skipped[-1].reason


@pytest.fixture
def log(tmp_path: Path) -> Path:
    p = tmp_path / "hosts.log"
    p.write_text(LOG, "utf-8")
    return p


@pytest.mark.parametrize("fmt", ["terminal", "json", "markdown"])
def test_every_format_hides_hosts_with_the_flag_and_only_with_it(log: Path, fmt: str) -> None:
    plain = run_cli("diagnose", str(log), "--format", fmt, "--width", "400")
    assert plain.status == 0, plain.stderr
    assert all(h in plain.stdout for h in PRIVATE[:2]), "off by default"
    r = run_cli("diagnose", str(log), "--format", fmt, "--width", "400", "--redact-hosts")
    assert r.status == 0, r.stderr
    for host in PRIVATE:
        assert host not in r.stdout, f"{host} in the {fmt} report"
    for public in ("0.0.0.0", "huggingface.co", "9.1.0.70"):
        assert public in r.stdout
    assert "--redact-hosts" in r.stdout  # the report says so
    assert re.search(r"host-1\b", r.stdout) and re.search(r"ip-1\b", r.stdout)
    if fmt == "json":
        jsonschema.validate(r.json, json.loads(schema_text()))
        text = json.dumps(r.json)
        assert r.json["root_cause"]["where"]["host"] == "host-1"
        assert text.count("ip-1") >= 2  # the same address, the same pseudonym in every field


def test_redact_hosts_without_secret_redaction(log: Path, tmp_path: Path) -> None:
    p = tmp_path / "secret.log"
    p.write_text(LOG.replace("ConnectionError:", "ConnectionError: token=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"), "utf-8")
    r = run_cli("diagnose", str(p), "--format", "json", "--no-redact", "--redact-hosts")
    assert "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567" in r.stdout and r.json["redactions"] == 0
    assert "gpu-node-07" not in r.stdout and "10.0.0.12" not in r.stdout
