"""The redactor: every pattern's examples, and a log holding each kind of secret diagnosed in all three formats
through the CLI: no secret in any output, the same secret the same placeholder everywhere, fix commands intact."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from crashdoc.model import Attempt, Diagnosis, Evidence, Finding, Fix, Section, Skipped, UnitFacts, Where
from crashdoc.report import render
from crashdoc.report.redact import PLACEHOLDER, Redactor, patterns, redact_diagnosis
from tests.support.cli import run_cli

HF = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"
OPENAI = "sk-proj-Z9y8X7w6V5u4T3s2R1q0PpOoNn"
#: kind -> the secret values of that kind in LOG
SECRETS = {
    "hf-token": [HF],
    "openai-key": [OPENAI],
    "anthropic-key": ["sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345"],
    "github-token": ["ghp_1234567890abcdefghijABCDEFGHIJklmnop"],
    "aws-access-key": ["AKIAIOSFODNN7EXAMPLE"],
    "aws-secret-key": ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    "jwt": ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
    "bearer": ["abcDEF123ghiJKL456mno"],
    "api-key-header": ["9f8e7d6c5b4a3210"],
    "url-userinfo": ["s3cr3tPw0rd", "mirrorPw77"],
    "cli-secret": ["local-key-4242", "tok-other-9876"],
    "credential": ["hunter2xx", "opensesame99", "tk-12345678", "ak-87654321"],
    "secret-value": ["Zx81kQp0Lm2vTr7uYw3s9BnA4cDe"],
}
LOG = """\
Mar 02 10:00:00 gpu7 systemd[1]: Started vllm.service - vLLM.
Mar 02 10:00:01 gpu7 vllm[4242]: INFO 03-02 10:00:01 [api_server.py:1] vLLM API server version 0.11.0
Mar 02 10:00:01 gpu7 vllm[4242]: INFO 03-02 10:00:01 [api_server.py:2] args: Namespace(model='Qwen/Qwen3-8B', api_key='sk-proj-Z9y8X7w6V5u4T3s2R1q0PpOoNn', hf_token='hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567')
Mar 02 10:00:01 gpu7 vllm[4242]: ERROR 03-02 10:00:01 [cli.py:3] command: vllm serve Qwen/Qwen3-8B --api-key local-key-4242 --hf-token hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 --token=tok-other-9876
Mar 02 10:00:02 gpu7 vllm[4242]: ERROR 03-02 10:00:02 [hub.py:4] 401 Client Error: Authorization: Bearer abcDEF123ghiJKL456mno rejected for https://huggingface.co/api/models
Mar 02 10:00:02 gpu7 vllm[4242]: ERROR 03-02 10:00:02 [hub.py:5] request failed with X-Api-Key: 9f8e7d6c5b4a3210 header
Mar 02 10:00:02 gpu7 vllm[4242]: ERROR 03-02 10:00:02 [db.py:6] could not connect to postgres://vllm:s3cr3tPw0rd@db.internal:5432/app
Mar 02 10:00:02 gpu7 vllm[4242]: ERROR 03-02 10:00:02 [db.py:7] connection string rejected: host=db password=hunter2xx secret=opensesame99 token=tk-12345678 api_key=ak-87654321
Mar 02 10:00:02 gpu7 vllm[4242]: ERROR 03-02 10:00:02 [s3.py:8] The AWS Access Key Id AKIAIOSFODNN7EXAMPLE does not exist; AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
Mar 02 10:00:02 gpu7 vllm[4242]: ERROR 03-02 10:00:02 [auth.py:9] rejected JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U
Mar 02 10:00:02 gpu7 vllm[4242]: ERROR 03-02 10:00:02 [git.py:10] clone failed: GH_TOKEN=ghp_1234567890abcdefghijABCDEFGHIJklmnop ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345
Mar 02 10:00:02 gpu7 vllm[4242]: ERROR 03-02 10:00:02 [env.py:11] Environment=HF_ENDPOINT=https://alice:mirrorPw77@mirror.example.com MIRROR_KEY=Zx81kQp0Lm2vTr7uYw3s9BnA4cDe
Mar 02 10:00:03 gpu7 vllm[4242]: Traceback (most recent call last):
Mar 02 10:00:03 gpu7 vllm[4242]:   File "/opt/venv/lib/python3.12/site-packages/vllm/main.py", line 10, in <module>
Mar 02 10:00:03 gpu7 vllm[4242]:     serve(token="hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567")
Mar 02 10:00:03 gpu7 vllm[4242]: RuntimeError: flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4) for key sk-proj-Z9y8X7w6V5u4T3s2R1q0PpOoNn
Mar 02 10:00:04 gpu7 systemd[1]: vllm.service: Main process exited, code=exited, status=1/FAILURE
Mar 02 10:00:04 gpu7 systemd[1]: vllm.service: Failed with result 'exit-code'.
"""
ALL = [s for values in SECRETS.values() for s in values]


@pytest.mark.parametrize("case", [(p.kind, i, text, secrets) for p in patterns()
                                  for i, (text, secrets) in enumerate(p.examples)],
                         ids=lambda c: f"{c[0]}-{c[1]}")
def test_every_pattern_example(case: tuple[str, int, str, tuple[str, ...]]) -> None:
    kind, _, text, secrets = case
    out = Redactor().text(text)
    for s in secrets:
        assert s not in out, f"{kind}: {s!r} left in {out!r}"
    if secrets:
        assert PLACEHOLDER.search(out), out
    else:
        assert out == text, f"{kind}: nothing is secret in {text!r}, got {out!r}"


def test_every_pattern_has_a_positive_example() -> None:
    assert all(any(secrets for _, secrets in p.examples) for p in patterns())


def test_a_patterns_needs_hold_for_every_match() -> None:
    """`needs` lets a string skip a pattern (nothing compiled): sound only when every match contains one of them.
    The pattern's own necessary literals (parse/literals.py, any length) say so: each contains one of `needs`."""
    import crashdoc.parse.literals as literals

    for p in patterns():
        if not p.needs:
            continue
        caseless = bool(p.regex.flags & re.IGNORECASE)
        assert not caseless or all(n == n.lower() for n in p.needs), p.kind
        lits = literals.necessary_literals(p.regex.pattern, 1)
        assert lits is not None, f"{p.kind}: no literal every match holds, so no `needs` can be checked"
        for lit in lits.strings:
            assert any(n in (lit.lower() if caseless else lit) for n in p.needs), f"{p.kind}: {lit!r} holds none of {p.needs}"


def test_needs_skip_only_what_cannot_match() -> None:
    """A string without the needed text is left as it is; a caseless pattern's non-ASCII string is always searched
    (`ſ` folds to `s`), and one with the text is redacted."""
    cred = next(p for p in patterns() if p.kind == "credential")
    assert not cred.possible("nothing to see here") and cred.possible("MY_SECRET=x") and cred.possible("ſ")
    assert Redactor().text("db PASSWORD = hunter2hunter2") != "db PASSWORD = hunter2hunter2"
    hidden = "db paſſword = hunter2hunter2"  # re.IGNORECASE matches `ſ` as `s`: the skip must not hide it
    assert Redactor().text(hidden) == re.sub(r"(?<== )hunter2hunter2", "<redacted:credential:1>", hidden)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "secrets.log"
    path.write_text(LOG, "utf-8")
    return path


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "json"])
def test_no_secret_in_any_format(log: Path, fmt: str) -> None:
    r = run_cli("diagnose", str(log), "--format", fmt, "--width", "200")
    assert r.status == 0, r.stderr
    leaked = [s for s in ALL if s in r.stdout or s in r.stderr]
    assert not leaked, leaked
    assert "pip install flashinfer-cubin==0.6.4" in r.stdout  # the fix command is working text still
    if fmt == "json":
        assert r.json["redactions"] == len(ALL)
    else:
        assert f"{len(ALL)} secrets redacted" in r.stdout


def test_each_kind_has_its_placeholder_and_the_same_secret_reads_the_same(log: Path) -> None:
    doc = run_cli("diagnose", str(log), "--format", "json").json
    text = json.dumps(doc)
    for kind, values in SECRETS.items():
        found = set(re.findall(rf"<redacted:{kind}:(\d+)>", text))
        assert found == {str(i + 1) for i in range(len(values))}, (kind, found)
    rc = doc["root_cause"]
    assert rc["message"].endswith("for key <redacted:openai-key:1>")
    assert rc["line"].endswith("for key <redacted:openai-key:1>")
    assert '<redacted:hf-token:1>' in rc["where"]["frame"]  # the token of the frame ...
    cmd = next(f for f in doc["findings"] if "--hf-token" in f["message"])
    assert "--hf-token <redacted:hf-token:1>" in cmd["message"]  # ... is the one on the command line
    assert rc["fix"]["command"] == "pip install flashinfer-cubin==0.6.4"


def test_redact_false_keeps_the_text(log: Path) -> None:
    from crashdoc.investigate import run
    from crashdoc.sources.file import FileSource

    diag = run(FileSource(str(log)))
    plain, redacted = io.StringIO(), io.StringIO()
    render(diag, "json", plain, redact=False)
    render(diag, "json", redacted)
    assert all(s in plain.getvalue() for s in ALL)  # the log puts every secret into the report
    assert json.loads(plain.getvalue())["redactions"] == 0
    assert HF not in redacted.getvalue()


def test_every_model_string_is_redacted() -> None:
    rc = Finding(line=f"E {HF}", lineno=3, exception="RuntimeError", message=f"bad {HF}", category="other",
                 fix=Fix(f"rotate {OPENAI}", f"huggingface-cli login --token {HF}"),
                 where=Where(process="vllm", frame=f"x.py:1 in f: f({OPENAI!r})", unit="vllm.service"),
                 evidence=(Evidence(3, f"E {HF}"),), processes=(f"p-{HF}",), confidence_reason=OPENAI)
    other = Finding(line="password=hunter2xx", lineno=4, exception=None, message="password=hunter2xx",
                    category="other", fix=Fix("nothing"))
    unit = UnitFacts(unit="vllm.service", host=None, active_state="failed", sub_state="failed", n_restarts=3,
                     looping=False, python="/opt/venv/bin/python", working_directory=f"/srv/{HF}",
                     summary=f"ExecStart=vllm serve --api-key local-key-4242 {HF}")
    diag = Diagnosis(
        source=f"https://bob:pw12345@host/{HF}", root_cause=rc, findings=(rc, other),
        attempts=(Attempt(1, None, None, "failed", root_message=f"bad {HF}"),), summary=f"all failed {OPENAI}",
        sections=(Section("unit", "Unit", (f"ExecStart: vllm serve --hf-token {HF}",),
                          {"environment": [f"HF_TOKEN={HF}", "MIRROR_KEY=Zx81kQp0Lm2vTr7uYw3s9BnA4cDe"],
                           "n": 3, "nested": {"cmd": ("x", "--api-key", "local-key-4242")}}),),
        skipped=(Skipped(f"token {HF}", f"auth {OPENAI}"),), unit=unit)
    out, n = redact_diagnosis(diag)
    for secret in (HF, OPENAI, "hunter2xx", "pw12345", "local-key-4242", "Zx81kQp0Lm2vTr7uYw3s9BnA4cDe"):
        assert secret not in repr(out), secret
    assert n == 6
    assert out.root_cause is out.findings[0]  # renderers tell the root cause from the other findings by identity
    assert out.sections[0].data["n"] == 3 and out.root_cause is not None and out.root_cause.lineno == 3
    assert out.root_cause.fix.command == "huggingface-cli login --token <redacted:hf-token:1>"


def test_clean_text_is_unchanged() -> None:
    text = ("ERROR 03-02 [gpu_model_runner.py:1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
            "2.00 GiB; max_num_batched_tokens=8192 --max-num-seqs 256 https://docs.vllm.ai/en/latest/ "
            "pip install 'transformers>=4.56' flashinfer-python==0.6.4 VLLM_USE_V1=1 invocation 4f3c2a1b9e8d7c6b")
    r = Redactor()
    assert r.text(text) == text and r.count == 0
