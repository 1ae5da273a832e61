"""A rule's explanation is filled from its captures; a rule that knows only an error's shape takes the category of
what it carries."""

from __future__ import annotations

import io
import re

from crashdoc.investigate import diagnose_stream
from crashdoc.kb import KnowledgeBase
from crashdoc.kb.model import RuleMatch


def diagnose(text: str):  # type: ignore[no-untyped-def]
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test")  # type: ignore[arg-type]


def test_an_explanation_is_filled_from_the_captures() -> None:
    kb = KnowledgeBase.load()
    msg = ("Free memory on device cuda:0 (7.34/139.72 GiB) on startup is less than desired GPU memory utilization "
           "(0.9, 125.75 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.")
    found = kb.classify("ValueError", msg, "ValueError: " + msg)
    assert found is not None and found.rule.id == "free-memory-less-than-utilization"
    assert "{free}" in found.rule.explanation  # the template ...
    assert "only 7.34 of 139.72 GiB" in found.explanation and "{" not in found.explanation  # ... and the report's text
    cut = "Free memory on device cuda:7 (174.24/178.35 GiB) on startup is less than desired"
    found = kb.classify("ValueError", cut, "ValueError: " + cut)  # a line wrapped after its start
    assert found is not None and found.rule.id == "free-memory-less-than-utilization"


def test_every_explanation_renders_and_keeps_a_shells_placeholders() -> None:
    """A placeholder the match did not capture reads `<name>` (as in a fix text); a `${name}` the explanation quotes
    from a template stays as it is; an override's explanation is filled the same way."""
    rules = KnowledgeBase.load().rules
    for rule in rules:
        for override in (None, *rule.overrides):
            text = RuleMatch(rule, {}, None, None, None, override).explanation
            assert re.search(r"(?<!\$)\{[a-z_][a-z0-9_]*\}", text) is None, rule.id
            assert "$<" not in text, rule.id
    template = next(r for r in rules if r.id == "config-template-unfilled")
    assert "${" in RuleMatch(template, {}, None, None, None).explanation


def test_a_rule_of_category_other_takes_the_kind_of_what_it_carries() -> None:
    """An uncaught C++ exception's `what():` is known by its shape only (rule cpp-exception-what, category other):
    a failed check of the library's own names the category (engine_bug), as for an error no rule knows."""
    d = diagnose(
        "terminate called after throwing an instance of 'tvm::runtime::InternalError'\n"
        "  what():  [02:38:42] /workspace/tvm/src/runtime/object.cc:110: InternalError: Check failed: "
        "type_table_[allocated_tindex].allocated_slots == 0U (3 vs. 0) : Conflicting static index 12\n"
    )
    assert d.root_cause is not None and d.root_cause.rule == "cpp-exception-what"
    assert d.root_cause.category == "engine_bug" and "engine_bug is the likeliest" in d.root_cause.explanation
    assert d.root_cause.confidence == "medium"  # the rule knew the shape; the category is a guess from the kind
    plain = diagnose("terminate called after throwing an instance of 'std::runtime_error'\n"
                     "  what():  unable to open the model directory\n")
    assert plain.root_cause is not None and plain.root_cause.category == "other"  # a kind that names nothing
