"""The packaged knowledge base: every rule validates, every example passes, and lint checks.

The lint checks are our version of semgrep-rules' meta-rules: unique ids, id == file stem,
folder == category, no regex matching "", fix text on every cause rule, coverage of every
category, and fix texts that only use captures every regex provides.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from pathlib import Path

import pytest

from crashdoc.evaluate.examples import test_rules
from crashdoc.evaluate.validate import validate
from crashdoc.kb import CATEGORIES, KnowledgeBase
from crashdoc.kb.commands import list_rules


@pytest.fixture(autouse=True)
def _no_user_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRASHDOC_RULES", raising=False)


def test_every_packaged_rule_validates() -> None:
    assert validate(None) == []


def test_every_rule_example_passes(kb: KnowledgeBase) -> None:
    report = test_rules(kb)
    for gap in report.todo:
        print("todo:", gap)
    assert report.failed == []
    assert report.passed >= 2 * len(kb.rules)


def test_rule_count_and_category_coverage(kb: KnowledgeBase) -> None:
    assert len(kb.rules) >= 80
    causes = Counter(r.category for r in kb.rules if r.role == "cause")
    missing = [c for c in CATEGORIES if causes[c] == 0]
    assert missing == [], f"categories without a cause rule: {missing}"


def test_ids_files_and_folders(kb: KnowledgeBase) -> None:
    ids = [r.id for r in kb.rules]
    assert len(ids) == len(set(ids))
    for rule in kb.rules:
        path = Path(rule.path)
        assert path.stem == rule.id
        assert path.parent.name == rule.category


def test_no_regex_matches_the_empty_string(kb: KnowledgeBase) -> None:
    for rule in kb.rules:
        for pattern in rule.patterns:
            assert pattern.search("") is None, rule.id


def test_cause_rules_have_fix_text_and_references(kb: KnowledgeBase) -> None:
    for rule in kb.rules:
        if rule.role == "cause":
            assert rule.fix_text and rule.fix_text.strip(), rule.id
        assert rule.references, f"{rule.id}: add at least one upstream URL"
        assert rule.explanation.strip(), rule.id


def test_fix_text_placeholders_are_always_captured(kb: KnowledgeBase) -> None:
    """A placeholder in fix.text must be filled whichever regex matched (else '<name>' shows)."""
    for rule in kb.rules:
        names = {f for _, f, _, _ in string.Formatter().parse(rule.fix_text or "") if f}
        lookups = {lk.name: lk.source for lk in rule.lookups}
        for pattern in rule.patterns:
            groups = set(pattern.groupindex)
            for name in names:
                source = lookups.get(name, name)
                assert source in groups, f"{rule.id}: regex {pattern.pattern!r} lacks (?P<{source}>...)"
        if not rule.patterns:
            assert not names, f"{rule.id}: exception-only rule cannot use captures in fix.text"


def test_consequence_rules_cover_the_reference_wrappers(kb: KnowledgeBase) -> None:
    wrappers = [
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
        "Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.",
        "WorkerProc failed to start.",
        "EngineCore failed to start.",
        "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
        "RuntimeError: Engine process failed to start. See stack trace for the root cause.",
        "Exception in worker VllmWorkerProcess while processing method init_device.",
        "Request chatcmpl-1 failed (engine dead).",
        "Received sigquit from a child process. It usually means the child failed.",
        "Rank 0 scheduler is dead. Please check if there are relevant logs.",
        "ValueError: TP rank 1 could finish the model loading, but there are other ranks that didn't finish loading.",
        "Exception: Capture cuda graph failed: something odd happened",
        "Error: ShardCannotStart",
        "Shard 0 failed to start",
        "Shard terminated rank=1",
        "MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD with errorcode 1.",
        "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE)",
        "Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources.",
        "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL.",
        "Fatal Python error: _enter_buffered_busy: could not acquire lock for <_io.BufferedWriter name='<stdout>'>",
        "ollama.service: Failed with result 'exit-code'.",
        "ollama.service: Main process exited, code=exited, status=1/FAILURE",
        "inkypi.service: Deactivated successfully.",
        "An ExecStart= process belonging to unit ollama.service has exited.",
        "ollama.service: Start request repeated too quickly.",
        "Active: failed (Result: exit-code) since Wed 2021-02-24 17:32:24 +07; 5s ago",
        "A worker died or was killed while executing a task by an unexpected system error.",
        "1 replicas that have taken more than 30s to be scheduled.",
        "During handling of the above exception, another exception occurred:",
        "UserWarning: Triton is not supported on current platform, roll back to CPU.",
        "Found ulimit of 20000 and failed to automatically increase with error current limit exceeds maximum limit.",
        "VLLM_CPU_NUM_OF_RESERVED_CPU is less than the minimum requirement: 2 cores",
    ]
    for text in wrappers:
        found = kb.classify(None, text, text)
        assert found is not None and found.rule.role == "consequence", (text, found and found.rule.id)


def test_list_rules_is_serialisable(kb: KnowledgeBase) -> None:
    import json

    rows = list_rules(kb)
    assert len(rows) == len(kb.rules)
    json.dumps(rows)
    assert {"id", "category", "role", "priority", "regex", "path"} <= set(rows[0])


def test_rule_files_use_only_known_top_level_keys() -> None:
    root = Path(__file__).resolve().parents[2] / "src" / "crashdoc" / "rules"
    for path in root.rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        keys = re.findall(r"^([a-z_]+):", text, flags=re.M)
        assert keys[0] == "id", f"{path}: start the file with 'id:'"
