"""The Markdown report is paste-ready: it renders through a CommonMark/GFM parser (markdown-it-py with tables,
strikethrough and bare-URL linkify, as GitHub does) with no HTML, link or image coming from log text, no
mention or issue reference in prose, no invisible characters, nothing hidden by a carriage return, the whole
key line in a fence, and the environment table in the shape of vLLM's bug-report template."""

from __future__ import annotations

import platform
import re
import sys
from pathlib import Path

import pytest

from crashdoc import __version__
from crashdoc.model import Diagnosis, Evidence, Finding, Fix, Section, Skipped, Where
from crashdoc.report.markdown import MarkdownRenderer, code, environment_rows, fence, prose
from tests.support.cli import ROOT, run_cli
from tests.support.markdown import assert_paste_ready

HOSTILE = [
    "<script>alert(1)</script>", "[x](http://evil)", "![i](http://x)", "@user", "#12", "``` `` `", "<b>bold</b>",
    "http://bare.example.com", "www.evil.org", "*em* _it_ ~~s~~ $x$ &amp; | \\", "a\u200bb\u200dc \u202eevil",
    "real error\rnothing to see", "evil.py", "1.",
]


def _hostile_log(tmp_path: Path) -> Path:
    log = tmp_path / "hostile.log"
    log.write_text("Nov 30 09:12:52 gpu7 vllm[4121]: Traceback (most recent call last):\n"
                   'Nov 30 09:12:52 gpu7 vllm[4121]:   File "/srv/app.py", line 3, in <module>\n'
                   f"Nov 30 09:12:52 gpu7 vllm[4121]: RuntimeError: {' '.join(HOSTILE)}\n", "utf-8")
    return log


def test_a_hostile_log_renders_with_nothing_interpreted(tmp_path: Path) -> None:
    r = run_cli("diagnose", str(_hostile_log(tmp_path)), "--format", "markdown")
    assert r.status == 0, r.stderr
    tokens = assert_paste_ready(r.stdout)
    fences = [t.content for t in tokens if t.type == "fence"]
    key = next(f for f in fences if "RuntimeError" in f and "|" not in f.split("RuntimeError")[0])
    assert "real error\\x0dnothing to see" in key  # the carriage return hides nothing
    for bad in ("<script>alert(1)</script>", "[x](http://evil)", "@user", "#12", "``` `` `"):
        assert bad in key  # shown literally, whole
    assert key.rstrip("\n").count("\n") == 0 and "…" not in key  # one line, never cut
    fence_line = next(ln for ln in r.stdout.splitlines() if ln.startswith("`") and ln.endswith("text"))
    assert fence_line == "````text"  # one backtick longer than the longest run in the line
    codes = " ".join(t.content for t in tokens if t.type == "code_inline")
    assert "@user" in codes and "#12" in codes and "http://bare.example.com" in codes


def test_the_founding_case_renders_cleanly_with_the_environment_table() -> None:
    r = run_cli("diagnose", "examples/founding-case.log", "--format", "markdown", cwd=ROOT)
    assert r.status == 0, r.stderr
    md = r.stdout
    tokens = assert_paste_ready(md)
    assert not re.search(r"(?<![`\w])#\d", md), "a #N reference GitHub would link"
    assert "attempt 2 of 5" in md and "- attempt 5 " in md
    cells = [t.content for t in tokens if t.type == "inline"]
    for row in ("engine", "torch", "CUDA (torch build)", "NVIDIA driver", "GPU", "Python"):
        assert cells[cells.index(row) + 1] == "not checked"
    assert f"crashdoc {__version__}" in md and "## Your current environment" in md and "## Describe the bug" in md
    line = ROOT.joinpath("examples/founding-case.log").read_text("utf-8").splitlines()[828]
    assert line + "\n" in [t.content for t in tokens if t.type == "fence"]  # the whole key line, as in the input
    assert "<details>" in md and "Evidence: 4 input lines" in md
    assert "\\-" not in md and "\\(" not in md and "\\." not in md  # prose is not escaped punctuation


def test_the_environment_table_is_filled_by_the_doctor() -> None:
    r = run_cli("diagnose", "examples/founding-case.log", "--python", sys.executable, "--format", "markdown", cwd=ROOT)
    assert r.status == 0, r.stderr
    tokens = assert_paste_ready(r.stdout)
    cells = [t.content for t in tokens if t.type == "inline"]
    python = cells[cells.index("Python") + 1]
    assert python.startswith(f"`{platform.python_version()}` at `") and sys.executable.split("/")[-1] in python
    assert "not checked" not in cells[cells.index("torch") + 1]  # the doctor looked: a version or "not installed"
    assert "<summary>Environment doctor:" in r.stdout


def _diag(**where: object) -> Diagnosis:
    rc = Finding("RuntimeError: boom @alice #7", 3, "RuntimeError", "boom @alice #7", "other",
                 Fix("see [docs](http://x) and FOO_BAR=1 (0.6.4).", "pip install x==1"),
                 where=Where(**where), evidence=(Evidence(3, "RuntimeError: boom @alice #7"),))  # type: ignore[arg-type]
    return Diagnosis("a.log", rc, (rc,))


def test_host_unit_pid_rank_and_version_are_shown() -> None:
    import io

    out = io.StringIO()
    MarkdownRenderer().render(_diag(host="gpu7", unit="vllm.service", pid=4121, rank=3, process="Worker_TP3", attempt=2), out)
    md = out.getvalue()
    assert_paste_ready(md)
    for row in ("| host | `gpu7` |", "| unit | `vllm.service` |", "| pid | `4121` |", "| rank | `3` |",
                "| process | `Worker_TP3` |", "| attempt | attempt 2 |"):
        assert row in md
    assert "**Fix:** see `[docs](http://x)` and `FOO_BAR=1` (0.6.4)." in md


def test_environment_rows_come_from_the_doctor() -> None:
    data = {"interpreter": {"version": "3.12.3", "executable": "/opt/venv/bin/python"},
            "packages": {"vllm": "0.11.0", "torch": "2.8.0+cu128", "flashinfer-python": "0.6.4"},
            "checks": {"gpu": {"gpus": [{"name": "NVIDIA H200", "driver": "570.86.10"}] * 8, "torch_cuda": "12.8"}}}
    diag = Diagnosis("a.log", None, sections=(Section("environment", "Environment", ("x",), data),))
    rows = dict(environment_rows(diag))
    assert rows == {"engine": "`vllm 0.11.0`", "torch": "`torch 2.8.0+cu128`", "CUDA (torch build)": "`12.8`",
                    "NVIDIA driver": "`570.86.10`", "GPU": "`8 x NVIDIA H200`",
                    "Python": "`3.12.3` at `/opt/venv/bin/python`"}
    no_smi = Diagnosis("a.log", None, sections=(Section("environment", "E", (), {"packages": {}, "checks": {"gpu": {}}}),),
                       skipped=(Skipped("gpu", "nvidia-smi is not installed on this machine"),))
    assert dict(environment_rows(no_smi))["GPU"] == "not checked (nvidia-smi is not installed on this machine)"
    assert dict(environment_rows(no_smi))["engine"] == "not checked"


@pytest.mark.parametrize(("text", "expected"), [
    ("plain words (0.6.4), pip install a==1.", "plain words (0.6.4), pip install a==1."),
    ("ping @user about #12", "ping `@user` about `#12`"),
    ("a `code span` stays", "a `code span` stays"),
    ("1. not a list", "`1.` not a list"),
    ("--- not a rule", "`---` not a rule"),
    ("(see config.json).", "(see `config.json`)."),
    ("e.g. this", "e.g. this"),
    ("x <b> y [z](http://e) w", "x `<b>` y `[z](http://e)` w"),
])
def test_prose_keeps_words_and_puts_active_ones_in_code(text: str, expected: str) -> None:
    assert prose(text) == expected


def test_code_and_fence_choose_a_longer_backtick_run() -> None:
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert code("a|b", table=True) == "`a\\|b`"
    assert fence(["x ```` y"]).startswith("`````text\n")
    assert fence(["bidi \u202eevil zero\u200bwidth \x1b[31mred"]) == "```text\nbidi evil zerowidth red\n```"


@pytest.mark.parametrize("fmt", ["terminal", "markdown"])
def test_the_headline_is_the_reported_line_of_a_several_line_error(fmt: str) -> None:
    """A C++ abort prints `terminate called after throwing ...` then `what(): <why>`: the reports' headline shows
    the line the analysis reported (the `what():` line), not the announcing first line (a real TensorRT-LLM log)."""
    log = ROOT / "tests" / "corpus_fortyfourth" / "cases" / "trtllm-trtllm-1586.log"
    r = run_cli("diagnose", str(log), "--format", fmt)
    assert r.status == 0, r.stderr
    head = next(ln for ln in (r.stdout.splitlines()[1:] if fmt == "terminal" else r.stdout.splitlines())
                if fmt == "markdown" and ln.startswith("**Root cause**") or fmt == "terminal" and ln.startswith("  "))
    assert "TllmXqaJit runtime error" in head, head
    assert "terminate called" not in head, head
