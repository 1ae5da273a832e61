"""Rules that say where an error was raised (`match.frames`): searched in the innermost frames of a traceback,
combined with `exception`/`regex` when the rule has them, through the production pipeline."""

from __future__ import annotations

from pathlib import Path

from crashdoc.kb import KnowledgeBase
from crashdoc.kb.schema import check_rule
from tests.parse.helpers import diagnose

RULE = """\
id: qx-raised-in-the-planner
category: engine_bug
role: cause
priority: 45
match:
  frames: ['/qx/planner/\\w+\\.py in ']
{extra}
explanation: The QX planner failed.
fix:
  text: Report it to QX.
references: [https://example.com/qx]
examples:
  - match: |
      x
  - no-match: |
      y
"""


def _tb(*frames: str, exc: str = "IndexError: map::at") -> str:
    body = "".join(f'  File "{path}", line 1, in {func}\n    call()\n' for path, func in frames)
    return f"Traceback (most recent call last):\n{body}{exc}\n"


def _kb(tmp_path: Path, extra: str = "") -> KnowledgeBase:
    (tmp_path / "engine_bug").mkdir(exist_ok=True)
    (tmp_path / "engine_bug" / "qx-raised-in-the-planner.yaml").write_text(RULE.format(extra=extra))
    return KnowledgeBase.load(extra_dirs=(tmp_path,))


def test_a_frames_rule_matches_any_error_raised_there(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    frames = ("/srv/app/main.py in main", "/srv/qx/planner/lower.py in lower")
    assert kb.classify("IndexError", "map::at", "IndexError: map::at", frames).rule.id == "qx-raised-in-the-planner"
    assert kb.classify("IndexError", "map::at", "IndexError: map::at", frames[:1]) is None


def test_only_the_innermost_frames_count(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    frames = ("/srv/qx/planner/lower.py in lower", *(f"/srv/app/m{i}.py in f{i}" for i in range(8)))
    assert kb.classify("IndexError", "map::at", "IndexError: map::at", frames) is None


def test_frames_and_a_regex_must_both_hold(tmp_path: Path) -> None:
    kb = _kb(tmp_path, "  regex: 'map::at'")
    frames = ("/srv/qx/planner/lower.py in lower",)
    assert kb.classify("IndexError", "map::at", "IndexError: map::at", frames) is not None
    assert kb.classify("IndexError", "list index out of range", "IndexError: list index out of range", frames) is None


def test_a_bad_frames_pattern_is_refused() -> None:
    import yaml

    data = yaml.safe_load(RULE.format(extra=""))
    data["match"]["frames"] = ["(unclosed"]
    assert any("match.frames" in p for p in check_rule(data, "qx.yaml", "qx-raised-in-the-planner", "engine_bug"))


def test_the_packaged_compiler_rule_knows_an_internal_error_raised_in_triton_s_backend() -> None:
    d = diagnose(_tb(("/srv/app/main.py", "main"), ("/venv/lib/python3.11/site-packages/triton/compiler/compiler.py",
                                                   "compile"),
                     ("/venv/lib/python3.11/site-packages/triton/backends/amd/compiler.py", "make_llir")))
    assert d.root_cause is not None and d.root_cause.category == "kernel_compile_error"
    d = diagnose(_tb(("/srv/app/main.py", "main"), ("/srv/app/loader.py", "load")))
    assert d.root_cause is not None and d.root_cause.category == "other"
