"""Scanner patterns: every rule regex turned into something Python re and hyperscan compile."""

from __future__ import annotations

import re

import pytest

from crashdoc.kb import KnowledgeBase
from crashdoc.parse.scan_form import to_scan_pattern, unsupported_construct


def test_scan_patterns_compile_with_python_re(kb: KnowledgeBase) -> None:
    patterns = kb.scan_patterns()
    assert len(patterns) >= len(kb.rules)
    for pattern in patterns:
        assert "(?P<" not in pattern
        re.compile(pattern)


def test_scan_patterns_compile_with_hyperscan(kb: KnowledgeBase) -> None:
    hyperscan = pytest.importorskip("hyperscan")
    pats = kb.scan_patterns()
    db = hyperscan.Database()
    db.compile(
        expressions=[p.encode() for p in pats],
        ids=list(range(len(pats))),
        elements=len(pats),
        flags=[hyperscan.HS_FLAG_MULTILINE] * len(pats),
    )
    hits: list[int] = []
    db.scan(b"RuntimeError: CUDA error: no kernel image is available for execution on the device\n",
            match_event_handler=lambda i, *_: hits.append(i))
    assert hits


def test_every_rule_regex_is_scannable(kb: KnowledgeBase) -> None:
    for rule in kb.rules:
        for rx in rule.regexes:
            assert to_scan_pattern(rx, rule.ignore_case) is not None, (rule.id, rx)


@pytest.mark.parametrize(
    ("regex", "expected"),
    [
        (r"a(?P<x>b)c", "a(b)c"),
        (r"[(?P<x>]y", "[(?P<x>]y"),
        (r"\(?P<x>", r"\(?P<x>"),
        (r"[]a](?P<n>\d+)", r"[]a](\d+)"),
    ],
)
def test_named_groups_become_plain_groups(regex: str, expected: str) -> None:
    assert to_scan_pattern(regex) == expected


@pytest.mark.parametrize(
    ("regex", "construct"),
    [(r"a(?=b)", "a lookahead"), (r"a(?!b)", "a lookahead"), (r"(?<=a)b", "a lookbehind"),
     (r"(?<!a)b", "a lookbehind"), (r"(a)\1", "a backreference"), (r"(?P<x>a)(?P=x)", "a backreference"),
     (r"(?>a)", "an atomic group"), (r"a++", "a possessive quantifier"), (r"a\Z", "\\Z"),
     (r"a[\d]", None), (r"(?i)abc", None)],
)
def test_unsupported_constructs_are_named(regex: str, construct: str | None) -> None:
    assert unsupported_construct(regex) == construct
    assert (to_scan_pattern(regex) is None) == (construct is not None)


def test_ignore_case_is_carried_into_the_pattern() -> None:
    assert to_scan_pattern("abc", ignore_case=True) == "(?i)abc"
