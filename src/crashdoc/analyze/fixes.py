"""Fix completion: a rule's command that needs a value the error line lacks (a Python version, a package name)
takes it from the lines printed after the error."""

from __future__ import annotations

import dataclasses

from crashdoc.analyze.candidates import Candidate
from crashdoc.kb.model import format_command

CONTEXT_LINES = 12
"""Lines after an error searched for values its fix command needs."""


def fix_incomplete(cand: Candidate) -> bool:
    """True when the rule's own command could not be filled from the error line (its fallback was used)."""
    m = cand.match
    if m is None or not getattr(m.rule, "fix_command", None) or not getattr(m.rule, "fallback_command", None):
        return False
    return format_command(m.rule.fix_command, m.captures) is None


def complete_fix(cand: Candidate, ctx: list[str]) -> Candidate:
    """Match the same rule on the error plus the lines after it: the candidate with that fix when it fills the
    command, else the candidate as it was."""
    m = cand.match
    again = m.rule.match(cand.exception, "\n".join([cand.message, *ctx]), cand.line.text.strip())
    if again is not None and again.fix_command and not fix_incomplete(dataclasses.replace(cand, match=again)):
        return dataclasses.replace(cand, match=dataclasses.replace(
            m, captures=again.captures, fix_command=again.fix_command, fix_text=again.fix_text))
    return cand


