"""KnowledgeBase.classify semantics: precedence, captures, fix formatting, exception matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from crashdoc.kb import KnowledgeBase
from crashdoc.kb.fill import format_command


def test_founding_case_gives_versioned_fix(kb: KnowledgeBase) -> None:
    msg = ("flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4). Please install the "
           "same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check.")
    found = kb.classify("RuntimeError", msg, "RuntimeError: " + msg)
    assert found is not None
    assert found.rule.id == "flashinfer-cubin-version-mismatch"
    assert found.rule.category == "dependency_version_mismatch" and found.rule.role == "cause"
    assert found.captures == {"cubin": "0.6.3", "flashinfer": "0.6.4"}
    assert found.fix_command == "pip install flashinfer-cubin==0.6.4"
    assert "flashinfer-python==0.6.3" in (found.fix_text or "")
    assert found.matched_text and found.matched_text.startswith("flashinfer-cubin version (0.6.3)")


def test_jit_cache_keeps_cuda_variant(kb: KnowledgeBase) -> None:
    msg = "flashinfer-jit-cache version (0.6.14+cu130) does not match flashinfer version (0.6.12)."
    found = kb.classify("RuntimeError", msg, msg)
    assert found is not None
    assert found.fix_command == "pip install flashinfer-jit-cache==0.6.12 --index-url https://flashinfer.ai/whl/cu130"


def test_model_type_table_and_fallback(kb: KnowledgeBase) -> None:
    known = kb.classify("KeyError", "'qwen3_moe'", "KeyError: 'qwen3_moe'")
    assert known is not None and known.fix_command == "pip install --upgrade 'transformers>=4.51.0'"
    text = ("The checkpoint you are trying to load has model type `brand_new` but Transformers does not "
            "recognize this architecture.")
    unknown = kb.classify("ValueError", text, text)
    assert unknown is not None and unknown.fix_command == "pip install --upgrade transformers"


def test_python_version_from_context(kb: KnowledgeBase) -> None:
    line = "/tmp/t/cuda_utils.c:6:10: fatal error: Python.h: No such file or directory"
    bare = kb.classify(None, line, line)
    assert bare is not None and bare.fix_command == "apt-get install -y python3-dev"
    ctx = line + "\n/opt/venv/lib/python3.12/site-packages/fla/utils/_device.py:100: UserWarning"
    versioned = kb.classify(None, ctx, line)
    assert versioned is not None and versioned.fix_command == "apt-get install -y python3.12-dev"


def test_cause_inside_a_wrapper_beats_the_wrapper(kb: KnowledgeBase) -> None:
    text = "Capture cuda graph failed: CUDA out of memory. Tried to allocate 448.00 MiB."
    found = kb.classify("Exception", text, "Exception: " + text)
    assert found is not None and found.rule.category == "gpu_oom" and found.rule.role == "cause"
    odd = kb.classify("Exception", "Capture cuda graph failed: weird", "Exception: Capture cuda graph failed: weird")
    assert odd is not None and odd.rule.role == "consequence"


def test_exception_is_compared_by_last_component(kb: KnowledgeBase) -> None:
    found = kb.classify("torch.cuda.OutOfMemoryError", "allocation failed", "x")
    assert found is not None and found.rule.id == "out-of-memory-exception"
    assert found.matched_text is None
    assert kb.classify("RuntimeError", "allocation failed", "x") is None


def test_exception_taken_from_the_text_when_not_given(kb: KnowledgeBase) -> None:
    found = kb.classify(None, "MemoryError: Unable to allocate 2 GiB", "MemoryError: Unable to allocate 2 GiB")
    assert found is not None and found.rule.id == "host-memory-error"


def test_regex_searched_in_message_then_line(kb: KnowledgeBase) -> None:
    found = kb.classify(None, "nothing here", "OSError: [Errno 28] No space left on device")
    assert found is not None and found.rule.id == "disk-full"


def test_unknown_text_gives_none(kb: KnowledgeBase) -> None:
    assert kb.classify(None, "all good", "all good") is None
    assert kb.classify(None, "", "") is None


def test_missing_or_unsafe_capture_gives_no_command() -> None:
    assert format_command("pip install x=={v}", {}) is None
    assert format_command("pip install x=={v}", {"v": "1.0; rm -rf /"}) is None
    assert format_command("pip install x=={v}", {"v": "1.0.post1+cu121"}) == "pip install x==1.0.post1+cu121"
    assert format_command(None, {"v": "1"}) is None


def _rule(root: Path, rid: str, priority: int, role: str) -> None:
    fix = "fix:\n  text: do it\n" if role == "cause" else ""
    (root / "other").mkdir(parents=True, exist_ok=True)
    (root / "other" / f"{rid}.yaml").write_text(
        f"id: {rid}\ncategory: other\nrole: {role}\npriority: {priority}\n"
        f"match:\n  regex: 'zzq-sentinel'\nexplanation: test rule\n{fix}references: [https://example.com]\n"
        "examples:\n  - match: 'zzq-sentinel'\n  - no-match: 'other'\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("rules", "winner"),
    [
        ([("zz-a", 40, "cause"), ("zz-b", 60, "consequence")], "zz-b"),
        ([("zz-a", 60, "consequence"), ("zz-b", 60, "cause")], "zz-b"),
        ([("zz-b", 60, "cause"), ("zz-a", 60, "cause")], "zz-a"),
    ],
)
def test_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: list[tuple[str, int, str]],
                    winner: str) -> None:
    monkeypatch.delenv("CRASHDOC_RULES", raising=False)
    for rid, priority, role in rules:
        _rule(tmp_path, rid, priority, role)
    kb = KnowledgeBase.load(extra_dirs=[tmp_path])
    found = kb.classify(None, "zzq-sentinel", "zzq-sentinel")
    assert found is not None and found.rule.id == winner
    assert [m.rule.id for m in kb.classify_all(None, "zzq-sentinel", "")][0] == winner
