"""Functions behind ``crashdoc rules list|validate`` (`rules test` is crashdoc.evaluate.examples) (the CLI only prints their results)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.kb.loader import load_dirs, package_rules_dir, user_rule_dirs


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
