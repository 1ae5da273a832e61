"""`crashdoc diagnose` end to end: the JSON contract, exit statuses, hostile input, safe terminal output."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from tests.cli.helpers import ROOT, crashdoc

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
