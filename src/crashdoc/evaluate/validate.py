"""`crashdoc rules validate`: every rule file's schema, id clashes with the packaged rules, the linear-time check of
every regex (kb/redos.py) and the lints that run examples through the production pipeline (evaluate/lint.py) —
an evaluation of the knowledge base, so it lives beside `rules test`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from crashdoc.evaluate.lint import optional_problems, wording_problems
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.kb.loader import load_dirs, package_rules_dir, user_rule_dirs
from crashdoc.kb.model import Rule
from crashdoc.kb.redos import slow_line


def validate(dirs: list[Path] | None = None) -> list[str]:
    """Validate rule files; return problems as ``"path: problem; how to fix"`` (empty = valid).

    ``dirs=None`` validates the packaged rules and the ``$CRASHDOC_RULES`` directories. Given
    *dirs*, those are validated, with ids also checked for clashes with the packaged rules.
    """
    package = (package_rules_dir(), False)
    if dirs is None:
        chosen = [package] + [(d, True) for d in user_rule_dirs()]
        result = load_dirs(chosen)
        ours = [r for r in result.rules if r.path.startswith(str(package[0]))]
        return (list(result.problems) + _slow(result.rules) + wording_problems(ours)
                + _lints(result.rules, result.rules))
    user = [(Path(d), True) for d in dirs]
    result = load_dirs(user)
    packaged_rules = load_dirs([package]).rules
    packaged = {r.id: r.path for r in packaged_rules}
    clashes = [f"{r.path}: rule id '{r.id}' is already used by the packaged rule {packaged[r.id]}; "
               "choose another id (and rename the file)" for r in result.rules if r.id in packaged]
    problems = list(result.problems)
    whole = [r for r in packaged_rules if r.id not in {u.id for u in result.rules}] + list(result.rules)
    return problems + clashes + _slow(result.rules) + _lints(result.rules, whole)


def _lints(rules: Sequence[Rule], whole: Sequence[Rule]) -> list[str]:
    """The optional-part lint (evaluate/lint.py) on *rules*, the examples classified by the knowledge base *whole*.
    (The two-wordings lint holds the packaged rules only: a site's own rule may well know one product.)"""
    return optional_problems(KnowledgeBase.from_rules(list(whole)), rules)


def _slow(rules: Sequence[Rule]) -> list[str]:
    """Regexes that are not linear-time on adversarial lines (kb/redos.py)."""
    out = []
    for rule in rules:
        for i, rx in enumerate(rule.regexes):
            slow = slow_line(rx, re.IGNORECASE if rule.ignore_case else 0)
            if slow:
                out.append(f"{rule.path}: match.regex[{i}] is not linear-time ({slow}); remove nested or "
                           "overlapping quantifiers, bound a run ({0,400}) or start it at a word boundary")
    return out
