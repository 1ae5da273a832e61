"""The lints of `crashdoc rules validate` (optional parts stay optional, two wordings) and the rules' overrides
(keyed on a capture, on the chain, on the logged arguments), each through the production pipeline."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from crashdoc.evaluate.lint import optional_parts, shortened, wording_problems
from crashdoc.evaluate.validate import validate
from crashdoc.investigate import diagnose_stream
from crashdoc.kb import KnowledgeBase
from crashdoc.kb.loader import load_dirs


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRASHDOC_RULES", raising=False)


def _rule(rid: str, regex: str, priority: int, examples: str, extra: str = "") -> str:
    return (f"id: {rid}\ncategory: other\nrole: cause\npriority: {priority}\nmatch:\n  regex: '{regex}'\n"
            f"explanation: A test rule.\nfix:\n  text: Do the thing.\nreferences: [https://example.com/x]\n"
            f"{extra}examples:\n{examples}")


def _write(root: Path, rid: str, text: str) -> None:
    (root / "other").mkdir(parents=True, exist_ok=True)
    (root / "other" / f"{rid}.yaml").write_text(text, encoding="utf-8")


def _diagnose(kb: KnowledgeBase, text: str) -> tuple[str | None, str | None, str | None]:
    diag = diagnose_stream(io.BufferedReader(io.BytesIO(text.encode("utf-8"))), "test", kb=kb)
    rc = diag.root_cause
    return (rc.rule, rc.category, rc.fix.text) if rc else (None, None, None)


def test_optional_parts_are_the_question_mark_quantified_atoms_and_groups() -> None:
    rx = r"errors? in (?P<x>\w+)(?: \[pid (\d+)\])?[ab]{0,1}c*d+"
    parts = [rx[s:e] for s, e in optional_parts(rx)]
    assert parts == ["s?", r"(?: \[pid (\d+)\])?", "[ab]{0,1}"]  # `*` and `+` are runs, not optional fields
    assert optional_parts(r"\(?(?i:x)") == [(0, 3)]
    assert optional_parts(r"a\?b[?]c") == []  # escaped or in a class: literal question marks


def test_shortened_drops_each_matched_optional_part_then_all_of_them() -> None:
    got = shortened(r"errors? in (?P<x>\w+)(?: \[pid (\d+)\])?", 0, "x errors in foo [pid 12] y")
    assert [t for _, t in got] == ["x error in foo [pid 12] y", "x errors in foo y", "x error in foo y"]
    assert shortened(r"errors? in (\w+)(?: \[pid (\d+)\])?", 0, "x error in foo") == []  # nothing optional matched


def test_an_optional_part_another_rule_needs_is_reported(tmp_path: Path) -> None:
    example = "  - match: |\n      ERROR ACME license server lic.acme.lan unreachable\n  - no-match: |\n      INFO ok\n"
    _write(tmp_path, "acme-license-down", _rule("acme-license-down", r"ACME (?:license )?server \S+ unreachable",
                                                70, example))
    # a more specific rule takes the line once "license " is gone: the first rule's regex calls it optional,
    # but without it the first rule no longer classifies its own example
    other = "  - match: |\n      ERROR ACME server db.acme.lan unreachable\n  - no-match: |\n      INFO ok\n"
    _write(tmp_path, "acme-server-down", _rule("acme-server-down", r"ACME server \S+ unreachable", 75, other))
    problems = validate([tmp_path])
    assert len(problems) == 1, problems
    assert "acme-license-down.yaml: example 1 without the optional part 'license '" in problems[0]
    assert "goes to acme-server-down" in problems[0]


def test_an_optional_part_nothing_else_needs_passes(tmp_path: Path) -> None:
    example = "  - match: |\n      ERROR ACME license server lic.acme.lan unreachable\n  - no-match: |\n      INFO ok\n"
    _write(tmp_path, "acme-license-down", _rule("acme-license-down", r"ACME (?:license )?server \S+ unreachable",
                                                70, example))
    assert validate([tmp_path]) == []


def _loaded(tmp_path: Path, extra: str, tags: tuple[str, str]) -> list[str]:
    examples = (f"  - match: |\n      ERROR ACME one\n    wording: {tags[0]}\n"
                f"  - match: |\n      ERROR ACME two\n    wording: {tags[1]}\n  - no-match: |\n      INFO ok\n")
    _write(tmp_path, "acme-x", _rule("acme-x", r"ACME (?:one|two)", 70, examples, extra))
    result = load_dirs([(tmp_path, True)])
    assert result.problems == ()
    return wording_problems(result.rules)


def test_wordings_lint_wants_two_wordings_or_a_declared_single_one(tmp_path: Path) -> None:
    assert _loaded(tmp_path, "", ("vllm", "tgi")) == []
    problems = _loaded(tmp_path, "", ("vllm", "vllm"))
    assert len(problems) == 1 and "one wording (only vllm)" in problems[0]
    assert _loaded(tmp_path, "wordings:\n  single: only ACME's own daemon says this\n", ("vllm", "vllm")) == []


def test_schema_rejects_bad_wordings_tags_and_overrides(tmp_path: Path) -> None:
    examples = ("  - match: |\n      ERROR ACME one\n    wording: vlm\n  - no-match: |\n      INFO ok\n"
                "    category: gpu_oom\n")
    extra = ("wordings: single\noverrides:\n  - when: {nothere: 'x', chain: '('}\n    category: gpu_oops\n"
             "    text: Fix {missing}.\n")
    _write(tmp_path, "acme-x", _rule("acme-x", r"ACME (?P<what>one)", 70, examples, extra))
    text = "\n".join(load_dirs([(tmp_path, True)]).problems)
    assert "wording 'vlm'" in text
    assert "category must be a category and is for 'match' examples" in text
    assert "'wordings' must be {single:" in text
    assert "when.nothere is neither a capture" in text
    assert "when.chain" in text and "does not compile" in text
    assert "'category' must be one of" in text
    assert "uses {missing}" in text


def test_the_packaged_rules_pass_both_lints(kb: KnowledgeBase) -> None:
    assert wording_problems(kb.rules) == []
    singles = [r for r in kb.rules if r.single_wording]
    several = [r for r in kb.rules if not r.is_consequence and not r.single_wording]
    assert singles and several  # both kinds exist: the lint is not satisfied by declaring everything single


def test_capture_override_permission_denied_on_a_shared_object(kb: KnowledgeBase) -> None:
    missing = _diagnose(kb, "ImportError: libnuma.so.1: cannot open shared object file: No such file or directory\n")
    denied = _diagnose(kb, "ImportError: libnuma.so.1: cannot open shared object file: Permission denied\n")
    assert missing[:2] == ("shared-library-not-found", "missing_dependency")
    assert denied[:2] == ("shared-library-not-found", "filesystem_permissions")
    assert denied[2] is not None and "may not read it" in denied[2] and "libnuma.so.1" in denied[2]


TORCHVISION = """\
Traceback (most recent call last):
  File "/srv/venv/lib/python3.11/site-packages/torchvision/extension.py", line 6, in <module>
    torch.ops.load_library(lib_path)
  File "/srv/venv/lib/python3.11/site-packages/torch/_ops.py", line 1350, in load_library
    ctypes.CDLL(path)
OSError: libc10_cuda.so: cannot open shared object file: No such file or directory
"""


def test_chain_override_missing_torch_cuda_library_under_a_companion(kb: KnowledgeBase) -> None:
    assert _diagnose(kb, TORCHVISION)[1] == "dependency_version_mismatch"
    alone = TORCHVISION.replace("torchvision/extension.py", "myapp/ops.py")
    assert _diagnose(kb, alone)[1] == "missing_dependency"  # no companion in the chain: a missing library


ARGS = "(APIServer pid=1) INFO 12-01 10:00:00 [utils.py:253] non-default args: {'model': 'org/m'%s}\n"
UNKNOWN = "(APIServer pid=1) ERROR 12-01 10:00:01 [core.py:1] ValueError: Unknown quantization method: %s. Must be one of ['awq', 'fp8'].\n"


def test_args_override_unknown_quantization_from_the_command_line(kb: KnowledgeBase) -> None:
    cli = _diagnose(kb, ARGS % ", 'quantization': 'awq_v3'" + UNKNOWN % "awq_v3")
    checkpoint = _diagnose(kb, ARGS % "" + UNKNOWN % "awq_v3")
    other_value = _diagnose(kb, ARGS % ", 'quantization': 'fp8'" + UNKNOWN % "awq_v3")
    assert cli[:2] == ("quantization-config-mismatch", "cli_config_error")
    assert cli[2] is not None and "`awq_v3` was given on the command line" in cli[2]
    assert checkpoint[:2] == ("quantization-config-mismatch", "model_config")
    assert other_value[1] == "model_config"  # the flag named another method: this one came from the checkpoint


def test_a_declared_single_wording_contradicted_by_the_examples_is_reported(tmp_path: Path) -> None:
    problems = _loaded(tmp_path, "wordings:\n  single: only ACME says this\n", ("vllm", "tgi"))
    assert len(problems) == 1 and "declares one wording" in problems[0]


def test_classify_text_reports_the_category_a_capture_override_gives(kb: KnowledgeBase) -> None:
    from crashdoc.evaluate.examples import classify_text

    items = classify_text(kb, "ImportError: libnuma.so.1: cannot open shared object file: Permission denied\n")
    assert [(c.rule, c.category) for c in items if c.rule] == [("shared-library-not-found", "filesystem_permissions")]
