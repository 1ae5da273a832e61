"""Functions behind ``crashdoc rules list|validate|test`` (the CLI only prints their results)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crashdoc.kb.examples import run_rule_examples
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.kb.loader import load_dirs, package_rules_dir, user_rule_dirs


@dataclass(frozen=True)
class TestReport:
    """Result of running every rule example."""

    __test__ = False  # not a pytest test class

    passed: int
    failed: list[str] = field(default_factory=list)
    """One line per failing example: ``path: example N (kind): what went wrong; how to fix``."""
    todo: list[str] = field(default_factory=list)
    """Known gaps: ``todo-match`` examples that do not match yet, ``todo-no-match`` that still match."""

    @property
    def ok(self) -> bool:
        """True when no example failed."""
        return not self.failed


def list_rules(kb: KnowledgeBase) -> list[dict[str, Any]]:
    """One dict per rule, in precedence order (JSON-serialisable)."""
    return [
        {
            "id": r.id, "category": r.category, "role": r.role, "priority": r.priority,
            "exception": list(r.exceptions), "regex": list(r.regexes),
            "fix_text": r.fix_text, "fix_command": r.fix_command,
            "references": list(r.references), "path": r.path,
        }
        for r in kb.rules
    ]


def validate(dirs: list[Path] | None = None) -> list[str]:
    """Validate rule files; return problems as ``"path: problem; how to fix"`` (empty = valid).

    ``dirs=None`` validates the packaged rules and the ``$CRASHDOC_RULES`` directories. Given
    *dirs*, those are validated, with ids also checked for clashes with the packaged rules.
    """
    package = (package_rules_dir(), False)
    if dirs is None:
        chosen = [package] + [(d, True) for d in user_rule_dirs()]
        return list(load_dirs(chosen).problems)
    user = [(Path(d), True) for d in dirs]
    result = load_dirs(user)
    packaged = {r.id: r.path for r in load_dirs([package]).rules}
    clashes = [f"{r.path}: rule id '{r.id}' is already used by the packaged rule {packaged[r.id]}; "
               "choose another id (and rename the file)" for r in result.rules if r.id in packaged]
    problems = list(result.problems)
    return problems + clashes


def test_rules(kb: KnowledgeBase) -> TestReport:
    """Run every example of every rule in *kb* (see :mod:`crashdoc.kb.examples`)."""
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
