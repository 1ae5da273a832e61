"""Kinds of unknown error (data/error_kinds.yaml): each row's examples, linear-time patterns, and the category an
unknown error of a kind gets in a real diagnosis (ranking unchanged)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from crashdoc.datafile import load_yaml, package_file
from crashdoc.kb.kinds import kind_of, kinds
from crashdoc.kb.redos import slow_line

ROWS = load_yaml(package_file("data", "error_kinds.yaml").read_text(encoding="utf-8"))["rows"]


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_examples(row: dict) -> None:
    for ex in row["examples"]:
        text = ex.get("match", ex.get("no-match"))
        found = kind_of(text)
        if "match" in ex:
            assert found is not None and found.id == row["id"], text
        else:
            assert found is None or found.id != row["id"], text


@pytest.mark.parametrize("kind", kinds(), ids=[k.id for k in kinds()])
def test_patterns_are_linear(kind) -> None:  # type: ignore[no-untyped-def]
    assert slow_line(kind.pattern.pattern) is None


def _diagnose(tmp_path: Path, text: str) -> dict:
    log = tmp_path / "x.log"
    log.write_text(text)
    p = subprocess.run([sys.executable, "-m", "crashdoc", "diagnose", str(log), "--format", "json"],
                       capture_output=True, text=True, check=False)
    return json.loads(p.stdout)["root_cause"]


TB = ("(EngineCore_DP0 pid=7) ERROR 09-30 15:18:57 [core.py:720] Traceback (most recent call last):\n"
      '(EngineCore_DP0 pid=7) ERROR 09-30 15:18:57 [core.py:720]   File "/opt/venv/lib/python3.12/site-packages/'
      'acme_engine/runner.py", line 88, in step\n'
      "(EngineCore_DP0 pid=7) ERROR 09-30 15:18:57 [core.py:720]     out = table[i]\n"
      "(EngineCore_DP0 pid=7) ERROR 09-30 15:18:57 [core.py:720] {exc}\n")


def test_an_unknown_logic_error_is_an_engine_bug(tmp_path: Path) -> None:
    rc = _diagnose(tmp_path, TB.format(exc="IndexError: index 13 is out of bounds for dimension 0 with size 1"))
    assert rc["rule"] is None and rc["category"] == "engine_bug"
    assert "program's own logic" in rc["explanation"] and rc["lineno"] == 4


def test_another_unknown_error_stays_other(tmp_path: Path) -> None:
    rc = _diagnose(tmp_path, TB.format(exc="acme_engine.FrobError: the frobnicator refused the widget"))
    assert rc["rule"] is None and rc["category"] == "other"


def test_an_unknown_general_error_in_engine_code_is_an_engine_bug(tmp_path: Path) -> None:
    rc = _diagnose(tmp_path, TB.format(exc="RuntimeError: the frobnicator refused the widget"))
    assert rc["rule"] is None and rc["category"] == "engine_bug"


def test_a_request_the_engine_refused_stays_other(tmp_path: Path) -> None:
    """A validation error addressed to the client is no engine bug: the engine answered that request and went on."""
    rc = _diagnose(tmp_path, TB.format(exc="ValueError: This model's maximum context length is 4096 tokens. However, "
                                            "your request has 5000 input tokens. Please reduce the length of the input."))
    assert rc["rule"] is None and rc["category"] == "other" and rc["fix"]["text"].startswith("No rule knows this error")


@pytest.mark.parametrize(("path", "category"), [("sglang/srt/mem_cache/radix_cache.py", "engine_bug"),
                                                ("myapp/serve.py", "other")])
def test_a_relative_path_of_a_source_checkout_is_engine_code(tmp_path: Path, path: str, category: str) -> None:
    """`File "sglang/srt/..."` (the engine run from its checkout's parent) is the engine's code; the user's own is not."""
    tb = TB.replace("/opt/venv/lib/python3.12/site-packages/acme_engine/runner.py", path)
    rc = _diagnose(tmp_path, tb.format(exc="AssertionError: parent does not have child key, ()"))
    assert rc["rule"] is None and rc["category"] == category
