"""A Python warning is a warning whatever its words say; a rule's explanation is filled from its captures."""

from __future__ import annotations

import io
import re

from crashdoc.investigate import diagnose_stream
from crashdoc.kb import KnowledgeBase
from crashdoc.kb.model import RuleMatch
from crashdoc.parse.errors import is_error_line, line_level
from crashdoc.parse.lines import parse_line

DRIVER_WARNING = ("/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py:138: UserWarning: CUDA initialization: "
                  "The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver.")


def diagnose(text: str):  # type: ignore[no-untyped-def]
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test")  # type: ignore[arg-type]


def test_a_python_warning_line_states_the_warning_level() -> None:
    line = parse_line(1, DRIVER_WARNING)
    assert line.level is None  # no logger header: the level comes from the warnings module's own format
    assert line_level(line) == "WARNING" and not is_error_line(line)
    plain = parse_line(2, "ValueError: Warning: this is the message of an error")
    assert line_level(plain) is None and is_error_line(plain)


def test_the_exception_that_ended_the_process_outranks_a_warning_a_rule_knows() -> None:
    d = diagnose(
        f"{DRIVER_WARNING}\n"
        "ValueError: The checkpoint you are trying to load has model type `starcoder2` but Transformers does not "
        "recognize this architecture. This could be because of an issue with the checkpoint, or because your "
        "version of Transformers is out of date.\n"
    )
    assert d.root_cause is not None and "starcoder2" in d.root_cause.line
    assert d.root_cause.category == "dependency_version_mismatch"


def test_a_warning_alone_is_still_reported_as_a_finding() -> None:
    d = diagnose(f"{DRIVER_WARNING}\n")
    assert any("NVIDIA driver on your system is too old" in f.line for f in d.findings)


def test_an_explanation_is_filled_from_the_captures() -> None:
    kb = KnowledgeBase.load()
    msg = ("Free memory on device cuda:0 (7.34/139.72 GiB) on startup is less than desired GPU memory utilization "
           "(0.9, 125.75 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.")
    found = kb.classify("ValueError", msg, "ValueError: " + msg)
    assert found is not None and found.rule.id == "free-memory-less-than-utilization"
    assert "{free}" in found.rule.explanation  # the template ...
    assert "only 7.34 of 139.72 GiB" in found.explanation and "{" not in found.explanation  # ... and the report's text
    cut = kb.classify("ValueError", "Free memory on device cuda:7 (174.24/178.35 GiB) on startup is less than desired",
                      "ValueError: Free memory on device cuda:7 (174.24/178.35 GiB) on startup is less than desired")
    assert cut is not None and cut.rule.id == "free-memory-less-than-utilization"  # a line wrapped after its start


def test_every_explanation_renders_without_captures() -> None:
    """A placeholder the match did not capture reads `<name>`; no template raises or shows a raw `{name}`."""
    for rule in KnowledgeBase.load().rules:
        text = RuleMatch(rule, {}, None, None, None).explanation
        assert re.search(r"\{[a-z_][a-z0-9_]*\}", text) is None, rule.id


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
