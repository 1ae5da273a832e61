"""`crashdoc rules test`: every example embedded in a rule, run through the production pipeline.

An example is a raw log excerpt. It goes through the same parser as `crashdoc diagnose` (prefixes, tracebacks)
and every item the parser yields — each exception of a traceback chain, each line outside a traceback — is
classified by the whole knowledge base, as the candidate stage does (so examples also test priority conflicts
between rules). A `match` example passes when one item is classified as this rule and, for a cause rule, when
`diagnose` on the excerpt names this rule as the root cause; a `no-match` example passes when no item is this
rule. `todo-*` examples record known gaps: they are reported, never failed.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from crashdoc.analyze.candidates import from_stack
from crashdoc.investigate import diagnose_stream
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.kb.model import Example, Rule
from crashdoc.parse.errors import bare_exception
from crashdoc.parse.lines import LineParser
from crashdoc.parse.traceback import Trace, TracebackBuilder, text_before_header


@dataclass(frozen=True)
class Classified:
    """One item of an excerpt as the pipeline sees it: its text and the rule that classified it."""

    text: str
    rule: str | None
    category: str | None = None
    """The category the match gives: the rule's, or that of an override its captures select (a chain or
    arguments override is decided by `diagnose` only)."""


@dataclass(frozen=True)
class ExampleResult:
    """Outcome of one example."""

    rule: Rule
    index: int
    example: Example
    passed: bool
    detail: str


@dataclass(frozen=True)
class TestReport:
    """Result of running every rule example."""

    __test__ = False  # not a pytest test class

    passed: int
    failed: list[str] = field(default_factory=list)
    """One line per failing example: `path: example N (kind): what went wrong; how to fix`."""
    todo: list[str] = field(default_factory=list)
    """Known gaps: `todo-match` examples that do not match yet, `todo-no-match` that still match."""

    @property
    def ok(self) -> bool:
        """True when no example failed."""
        return not self.failed


def _stacks(kb: KnowledgeBase, trace: Trace) -> list[Classified]:
    out = []
    for i, stack in enumerate(trace.stacks):
        if stack.truncated or not stack.lines:
            continue
        cand = from_stack(kb, trace, stack, i, 1)
        m = cand.match
        out.append(Classified(cand.line.text.strip(), m.rule.id if m else None, m.category if m else None))
    return out


def classify_text(kb: KnowledgeBase, text: str) -> list[Classified]:
    """Parse an excerpt as `diagnose` does and classify every exception and every line outside a traceback."""
    parser, builder = LineParser(), TracebackBuilder()
    items: list[Classified] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = parser.parse(lineno, raw)
        for trace in builder.feed(line):
            items += _stacks(kb, trace)
        if line.lineno in builder.consumed:
            builder.consumed.clear()
            head = text_before_header(line)
            if head is None:
                continue
            line = head
        stripped = line.text.strip()
        if not stripped:
            continue
        exc, msg = bare_exception(stripped)
        found = kb.classify(exc, msg, stripped)
        items.append(Classified(stripped, found.rule.id if found else None, found.category if found else None))
    for trace in builder.close():
        items += _stacks(kb, trace)
    return items


def _root_rule(kb: KnowledgeBase, text: str) -> tuple[str | None, str | None]:
    """The rule and the category `diagnose` names as the root cause of the excerpt."""
    diag = diagnose_stream(io.BufferedReader(io.BytesIO(text.encode("utf-8"))), "example", kb=kb)
    return (diag.root_cause.rule, diag.root_cause.category) if diag.root_cause else (None, None)


def run_example(kb: KnowledgeBase, rule: Rule, index: int, example: Example) -> ExampleResult:
    """Run one example of `rule` against `kb`."""
    items = classify_text(kb, example.log)
    hits = [c.text for c in items if c.rule == rule.id]
    want_match = example.kind in ("match", "todo-match")
    passed = bool(hits) == want_match
    detail = "ok"
    if not passed and want_match:
        others = sorted({c.rule for c in items if c.rule})
        detail = ("no line matched this rule" + (f"; lines went to {', '.join(others)}" if others else "")
                  + "; check the regex against the prefix-stripped line, or raise the priority")
    elif not passed:
        detail = f"line classified as this rule: {hits[0][:160]!r}; tighten the regex"
    elif want_match and rule.role == "cause":
        root, category = _root_rule(kb, example.log)
        want = example.category or rule.category
        if root != rule.id:
            passed = False
            detail = (f"the line matches, but `crashdoc diagnose` on the example names {root or 'no root cause'}"
                      " as the root cause; check the priority or the line's level")
        elif category != want:
            passed = False
            detail = (f"`crashdoc diagnose` gives category {category}, the example expects {want}; check the "
                      "rule's overrides (or the example's `category:`)")
    return ExampleResult(rule, index, example, passed, detail)


def run_rule_examples(kb: KnowledgeBase, rule: Rule) -> list[ExampleResult]:
    """Run every example of `rule`."""
    return [run_example(kb, rule, i, ex) for i, ex in enumerate(rule.examples)]


def test_rules(kb: KnowledgeBase) -> TestReport:
    """Run every example of every rule in `kb`."""
    passed, failed, todo = 0, [], []
    for rule in kb.rules:
        for result in run_rule_examples(kb, rule):
            label = f"{rule.path}: example {result.index + 1} ({result.example.kind})"
            if result.example.kind.startswith("todo-"):
                if not result.passed:
                    todo.append(f"{label}: known gap, {result.detail}")
                else:
                    todo.append(f"{label}: now passes; turn it into a '{result.example.kind[5:]}' example")
            elif result.passed:
                passed += 1
            else:
                failed.append(f"{label}: {result.detail}")
    return TestReport(passed, failed, todo)


test_rules.__test__ = False  # type: ignore[attr-defined]  # a library function, not a pytest test
