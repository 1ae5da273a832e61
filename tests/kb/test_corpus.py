"""Classify the root-cause line of every dev-corpus case and compare with its ground truth.

Corpus location: ``$CRASHDOC_CORPUS`` or ``../shared/corpus/dev`` next to the repository. Each
case is ``cases/<id>.log`` + ``cases/<id>.json``; the line containing ``root_cause.key`` is
stripped of prefixes by the production parser, classified, and its category compared with the case's category (at
least 90% must agree). No decoy line may be classified as a cause rule with a higher priority
than the key line's (the ranker would then prefer the decoy).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from crashdoc.kb import KnowledgeBase, RuleMatch
from crashdoc.parse.errors import bare_exception
from crashdoc.parse.lines import parse_line
from tests.support.shared import shared_reason

REPO = Path(__file__).resolve().parents[2]


def _corpus_dir() -> Path:
    """Where the dev corpus is (skip the test when it is absent)."""
    env = os.environ.get("CRASHDOC_CORPUS")
    root = Path(env) if env else REPO.parent / "shared" / "corpus" / "dev"
    cases = root / "cases" if (root / "cases").is_dir() else root
    if not cases.is_dir() or not any(cases.glob("*.json")):
        pytest.skip(shared_reason(root))
    return cases


def _classify(kb: KnowledgeBase, raw: str) -> RuleMatch | None:
    text = parse_line(1, raw).text.strip()
    exception, message = bare_exception(text)
    return kb.classify(exception, message, text)


def _line_with(lines: list[str], needle: str) -> str | None:
    return next((line for line in lines if needle in line), None)


def _score(found: RuleMatch | None, unmatched: int) -> int:
    """Rank score of a line as the ranker sees it; consequences never win (-1)."""
    if found is None:
        return unmatched
    return -1 if found.rule.is_consequence else found.rule.priority


def test_corpus_categories_and_decoys(kb: KnowledgeBase) -> None:
    cases = sorted(_corpus_dir().glob("*.json"))
    hits, misses, decoy_problems = 0, [], []
    for meta_path in cases:
        case = json.loads(meta_path.read_text(encoding="utf-8"))
        log = meta_path.with_suffix(".log").read_text(encoding="utf-8", errors="replace").splitlines()
        key_line = _line_with(log, case["root_cause"]["key"])
        assert key_line is not None, f"{case['id']}: key not found in its log"
        found = _classify(kb, key_line)
        got = found.rule.category if found and not found.rule.is_consequence else None
        if got == case["category"]:
            hits += 1
        else:
            rule = found.rule.id if found else None
            misses.append(f"{case['id']}: want {case['category']}, got {got} (rule {rule})")
        key_score = _score(found, 40)
        for decoy in case.get("decoys", []):
            line = _line_with(log, decoy)
            if line is None or line == key_line:
                continue
            d = _classify(kb, line)
            if d is not None and not d.rule.is_consequence and d.rule.priority > key_score:
                decoy_problems.append(f"{case['id']}: decoy {decoy!r} -> {d.rule.id} ({d.rule.priority}) "
                                      f"outranks the key ({key_score})")
    print(f"\ncorpus: {hits}/{len(cases)} categories right")
    for miss in misses:
        print("  miss:", miss)
    assert not decoy_problems, "\n".join(decoy_problems)
    assert hits >= 0.9 * len(cases), "\n".join(misses)
