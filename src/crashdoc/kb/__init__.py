"""crashdoc knowledge base: rule files that classify a root error and turn it into a fix.

Public API (used by the ranker and the CLI)::

    from crashdoc.kb import KnowledgeBase, Rule, RuleMatch, RuleError
    kb = KnowledgeBase.load(extra_dirs=())
    m = kb.classify(exception, message, line)   # RuleMatch | None
    kb.scan_patterns()                          # regexes for the hot-line scanner

See docs/RULES.md for the rule format.
"""

from __future__ import annotations

from crashdoc.kb.errors import RuleError
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.kb.model import CATEGORIES, ROLES, Rule, RuleMatch

__all__ = ["CATEGORIES", "ROLES", "KnowledgeBase", "Rule", "RuleError", "RuleMatch"]
