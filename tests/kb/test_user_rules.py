"""User rule directories: --rules DIR (extra_dirs) and $CRASHDOC_RULES, valid and invalid."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crashdoc.errors import CrashdocError
from crashdoc.evaluate.validate import validate
from crashdoc.kb import KnowledgeBase, RuleError

VALID = """\
id: acme-license-server-down
category: other
role: cause
priority: 77
match:
  regex: 'ACME license server (?P<host>[\\w.-]+) unreachable'
explanation: The in-house license check could not reach its server.
fix:
  text: Start the license server on {host}.
  command: ping -c1 {host}
references: [https://example.com/acme]
examples:
  - match: |
      (APIServer pid=1) ERROR 01-01 00:00:00 [acme.py:1] RuntimeError: ACME license server lic.acme.lan unreachable
  - no-match: |
      INFO ACME license server lic.acme.lan reachable
"""


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRASHDOC_RULES", raising=False)


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_valid_user_rule_is_loaded_and_wins(tmp_path: Path) -> None:
    _write(tmp_path, "other/acme-license-server-down.yaml", VALID)
    assert validate([tmp_path]) == []
    kb = KnowledgeBase.load(extra_dirs=[tmp_path])
    found = kb.classify("RuntimeError", "ACME license server lic.acme.lan unreachable", "")
    assert found is not None and found.rule.id == "acme-license-server-down"
    assert found.fix_command == "ping -c1 lic.acme.lan"
    assert found.fix_text == "Start the license server on lic.acme.lan."
    assert found.captures == {"host": "lic.acme.lan"}


def test_rule_in_root_of_user_dir_is_accepted(tmp_path: Path) -> None:
    _write(tmp_path, "acme-license-server-down.yaml", VALID)
    assert validate([tmp_path]) == []


def test_invalid_user_rule_names_file_and_fix(tmp_path: Path) -> None:
    _write(tmp_path, "other/acme-license-server-down.yaml", VALID)
    bad = _write(tmp_path, "gpu_oom/broken-rule.yaml", VALID.replace("id: acme-license-server-down", "id: broken-rule")
                 .replace("category: other", "category: gpu_oops"))
    with pytest.raises(RuleError) as info:
        KnowledgeBase.load(extra_dirs=[tmp_path])
    message = str(info.value)
    assert str(bad) in message and "unknown category 'gpu_oops'" in message
    assert "gpu_oom" in message and "\n" not in message
    assert isinstance(info.value, CrashdocError)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("explanation: The in-house license check could not reach its server.\n", ""), "add one paragraph"),
        (("id: acme-license-server-down", "id: other-name"), "rename the file"),
        (("(?P<host>[\\w.-]+)", "(?P<host>[\\w.-]+"), "does not compile"),
        (("'ACME license server (?P<host>[\\w.-]+) unreachable'", "'(?P<host>x*)'"), "empty string"),
        (("  text: Start the license server on {host}.\n", ""), "add 'fix:' with 'text:"),
        (("  - no-match: |\n      INFO ACME license server lic.acme.lan reachable\n", ""), "'- no-match: |'"),
        (("role: cause", "role: root"), "role: cause"),
        (("priority: 77", "priority: 700"), "0 to 100"),
        (("  command: ping -c1 {host}", "  command: ping -c1 {hostname}"), "{hostname}"),
        (("'ACME license server (?P<host>[\\w.-]+) unreachable'", "'ACME (?=license) (?P<host>x)'"), "lookahead"),
        (("'ACME license server", "'^ACME license server"), "remove the anchor"),
        (("category: other", "category: gpu_oom"), "move it to gpu_oom/"),
        (("references: [https://example.com/acme]", "refs: []"), "unknown field 'refs'"),
    ],
)
def test_validation_messages_say_how_to_fix(tmp_path: Path, change: tuple[str, str], expected: str) -> None:
    old, new = change
    assert old in VALID
    path = _write(tmp_path, "other/acme-license-server-down.yaml", VALID.replace(old, new))
    problems = validate([tmp_path])
    assert problems, "expected a problem"
    assert any(expected in p and p.startswith(str(path)) for p in problems), problems


def test_yaml_syntax_error_is_reported_with_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "other/acme-license-server-down.yaml", VALID.replace("role: cause", "role: [cause"))
    problems = validate([tmp_path])
    assert len(problems) == 1 and problems[0].startswith(f"{path}: YAML syntax error at line")


def test_duplicate_of_packaged_id_is_rejected(tmp_path: Path) -> None:
    text = VALID.replace("acme-license-server-down", "cuda-out-of-memory").replace("category: other", "category: gpu_oom")
    _write(tmp_path, "gpu_oom/cuda-out-of-memory.yaml", text)
    assert any("already used by the packaged rule" in p for p in validate([tmp_path]))
    with pytest.raises(RuleError, match="duplicate rule id 'cuda-out-of-memory'"):
        KnowledgeBase.load(extra_dirs=[tmp_path])


def test_missing_user_dir_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RuleError, match="does not exist"):
        KnowledgeBase.load(extra_dirs=[tmp_path / "nope"])


def test_env_var_adds_rule_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _write(first, "other/acme-license-server-down.yaml", VALID)
    _write(second, "other/acme-two.yaml", VALID.replace("acme-license-server-down", "acme-two")
           .replace("ACME license server", "ACME two"))
    monkeypatch.setenv("CRASHDOC_RULES", os.pathsep.join([str(first), str(second)]))
    kb = KnowledgeBase.load()
    assert kb.get("acme-license-server-down") is not None and kb.get("acme-two") is not None
    assert validate(None) == []
    from crashdoc.evaluate.examples import test_rules

    assert test_rules(kb).failed == []
