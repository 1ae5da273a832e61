"""Candidate errors: the exceptions of every traceback and the error lines outside tracebacks, each classified
by the knowledge base (cause or consequence, category, fix) and given a ranking score."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol, cast

from crashdoc.parse.errors import bare_exception, is_error_line
from crashdoc.parse.lines import LogLine
from crashdoc.parse.traceback import Stack, Trace

# Ranking scores for errors no rule knows (a rule's priority replaces them; see docs/RULES.md).
SCORE_TRACEBACK = 40
SCORE_ERROR_LINE = 30
SCORE_TRUNCATED = 5
SCORE_LOGGED_HINT = 24
"""Ceiling for a cause rule hit on a line the engine logged at INFO/WARNING (unless the rule says any_level):
below an unknown traceback (40), an unknown error line (30) and a killed/aborted process (25)."""
CHAIN_PENALTY = 2
WARNING_PENALTY = 1

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


class Classifier(Protocol):
    """What the analysis needs from the knowledge base."""

    def classify(self, exception: str | None, message: str, line: str) -> Any:
        """Best rule match or None."""


@dataclass(frozen=True)
class Candidate:
    """One error seen in the evidence, before folding and ranking."""

    line: LogLine
    exception: str | None
    message: str
    kind: Kind
    """`traceback`, `line` or `truncated`."""
    attempt: int
    score: int
    role: Role
    match: Any = None
    stack: Stack | None = None
    trace: Trace | None = None
    phase: str | None = None

    @property
    def order(self) -> int:
        """Position for tie-breaking: earlier wins."""
        return self.line.lineno


Role = Literal["cause", "consequence", "unknown"]
"""A candidate's role: a rule says cause or consequence; no rule knew it: unknown."""
Kind = Literal["traceback", "line", "truncated"]
"""Where a candidate came from: an exception of a traceback, an error line, a traceback cut before its exception."""


def _score(match: Any, default: int) -> tuple[int, Role]:
    if match is None:
        return default, "unknown"
    role = str(match.rule.role)
    return int(match.rule.priority), cast(Role, role if role in ("cause", "consequence") else "unknown")


def from_stack(kb: Classifier, trace: Trace, stack: Stack, position: int, attempt: int,
               phase: str | None = None) -> Candidate:
    """A candidate for one stack of a traceback chain."""
    if stack.truncated or not stack.lines:
        line = stack.frames[-1].line if stack.frames and stack.frames[-1].line else stack.header
        assert line is not None
        return Candidate(line, None, "traceback cut off before its exception line", "truncated", attempt,
                         SCORE_TRUNCATED, "unknown", None, stack, trace, phase)
    stack = _cut_at_consequence(kb, stack)
    first = stack.lines[0]
    match = kb.classify(stack.exc_type, stack.message, first.text.strip())
    score, role = _score(match, SCORE_TRACEBACK)
    nxt = trace.stacks[position + 1].link if position + 1 < len(trace.stacks) else None
    if stack.link == "cause" and role != "cause":
        score -= CHAIN_PENALTY  # "direct cause of the following": the later one wraps the earlier
    if nxt == "context" and role != "cause":
        score -= CHAIN_PENALTY  # "during handling of the above": the earlier one may be a handled probe
    if nxt == "context" and (stack.exc_type or "").rsplit(".", 1)[-1] in _IMPORT_ERRORS:
        # `try: import x / except ImportError:` followed by another error: an optional-import probe
        score = min(score, SCORE_TRACEBACK - 1)
    line = first
    matched = getattr(match, "matched_text", None) if match is not None else None
    if matched:
        head = matched.splitlines()[0] if matched.strip() else matched
        for ln in stack.lines:
            if head and head in ln.text:
                line = ln
                break
    return Candidate(line, stack.exc_type, stack.message, "traceback", attempt, score, role, match, stack, trace, phase)


def _cut_at_consequence(kb: Classifier, stack: Stack) -> Stack:
    """A bare traceback's message ends at a non-indented line that a consequence rule knows on its own (the
    parent's one-line wrapper printed right after the worker's traceback): that line is not the message's."""
    if len(stack.lines) < 2 or stack.lines[0].loc is not None:
        return stack
    for i, ln in enumerate(stack.lines[1:], 1):
        text = ln.text.strip()
        if not ln.text[:1].isalpha():
            continue
        m = kb.classify(*bare_exception(text), text)
        if m is not None and m.rule.role == "consequence":
            parts = stack.message.split("\n")
            keep = max(1, len(parts) - (len(stack.lines) - i))
            return replace(stack, message="\n".join(parts[:keep]), lines=stack.lines[:i])
    return stack


def from_line(kb: Classifier, line: LogLine, attempt: int, hot_rule: bool, phase: str | None = None) -> Candidate | None:
    """A candidate for an error line outside any traceback, or a line a rule knows (even at INFO/WARNING)."""
    if line.level in ("DEBUG", "TRACE"):
        return None  # debug probes ("TPU platform is not available because: No module named ...") are not errors
    is_error = is_error_line(line)
    if not is_error and not hot_rule:
        return None
    text = line.text.strip()
    exc, msg = bare_exception(text)
    match = kb.classify(exc, msg, text)
    if match is None and not is_error:
        return None
    if match is not None and not is_error and match.rule.role != "cause":
        return None
    score, role = _score(match, SCORE_ERROR_LINE)
    if not is_error:
        score -= WARNING_PENALTY  # the same rule on a warning and on an error: the error line is the evidence
        if line.level in ("INFO", "WARNING") and match is not None and not getattr(match.rule, "any_level", False):
            # the engine itself said this is not an error: it explains the crash only when nothing else does
            score = min(score, SCORE_LOGGED_HINT)
    return Candidate(line, exc, msg, "line", attempt, score, role, match, phase=phase)
