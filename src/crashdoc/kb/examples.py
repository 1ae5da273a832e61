"""Run the examples embedded in rules (semgrep-rules style ``ruleid`` / ``ok`` / ``todo``).

An example is a raw log excerpt. Each of its lines is stripped of prefixes
(:func:`crashdoc.kb.lines.strip_prefixes`), split into exception type and message, and
classified by the whole knowledge base. A ``match`` example passes when at least one line
is classified as *this* rule (so examples also test priority conflicts between rules); a
``no-match`` example passes when no line is. ``todo-*`` examples record known gaps: they are
reported, never failed.
"""

from __future__ import annotations

from dataclasses import dataclass

from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.kb.lines import split_exception, strip_prefixes
from crashdoc.kb.model import Example, Rule


@dataclass(frozen=True)
class ExampleResult:
    """Outcome of one example."""

    rule: Rule
    index: int
    example: Example
    passed: bool
    detail: str


def classify_line(kb: KnowledgeBase, raw: str) -> tuple[str, str | None]:
    """Classify one raw line; return (stripped text, id of the winning rule or None)."""
    text = strip_prefixes(raw)
    exception, message = split_exception(text)
    found = kb.classify(exception, message, text)
    return text, (found.rule.id if found else None)


def run_example(kb: KnowledgeBase, rule: Rule, index: int, example: Example) -> ExampleResult:
    """Run one example of *rule* against *kb*."""
    winners = [classify_line(kb, raw) for raw in example.log.splitlines() if raw.strip()]
    hits = [text for text, rid in winners if rid == rule.id]
    want_match = example.kind in ("match", "todo-match")
    passed = bool(hits) == want_match
    if passed:
        detail = "ok"
    elif want_match:
        others = sorted({rid for _, rid in winners if rid})
        detail = ("no line matched this rule" + (f"; lines went to {', '.join(others)}" if others else "")
                  + "; check the regex against the prefix-stripped line, or raise the priority")
    else:
        detail = f"line classified as this rule: {hits[0][:160]!r}; tighten the regex"
    return ExampleResult(rule, index, example, passed, detail)


def run_rule_examples(kb: KnowledgeBase, rule: Rule) -> list[ExampleResult]:
    """Run every example of *rule*."""
    return [run_example(kb, rule, i, ex) for i, ex in enumerate(rule.examples)]
