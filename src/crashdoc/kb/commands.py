"""Functions behind ``crashdoc rules list|validate`` (`rules test` is crashdoc.evaluate.examples) (the CLI only prints their results)."""

from __future__ import annotations

from typing import Any

from crashdoc.kb.knowledge import KnowledgeBase


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
