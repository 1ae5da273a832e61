"""Candidate errors: the exceptions of every traceback and the error lines outside tracebacks, each classified
by the knowledge base (cause or consequence, category, fix) and given a ranking score."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol, cast

from crashdoc.analyze.embedded import embedded_cause
from crashdoc.kb.fill import format_command
from crashdoc.parse.errors import bare_exception, is_error_line
from crashdoc.parse.exceptions import is_exception_name, stating_line
from crashdoc.parse.incidents import announced, announces
from crashdoc.parse.lines import LogLine
from crashdoc.parse.traceback import Stack, Trace
from crashdoc.regex import Regex

SCORE_TRACEBACK, SCORE_ERROR_LINE, SCORE_TRUNCATED = 40, 30, 5  # errors no rule knows (a rule's priority: docs/RULES.md)
SCORE_LOGGED_HINT = 24
"""Ceiling for a cause rule hit on a line the engine logged at INFO/WARNING (unless the rule says any_level):
below an unknown traceback (40), an unknown error line (30) and a killed/aborted process (25)."""
SCORE_BARE = 29
"""An exception no rule knows that carries no message (`AssertionError` from `assert x is not None`): it says
only that a check failed, so an error line nearby that states why (a C++ library's `[E] ...`) beats it."""
CHAIN_PENALTY = 2
WARNING_PENALTY = 1

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


class Classifier(Protocol):
    """What the analysis needs from the knowledge base."""

    def classify(self, exception: str | None, message: str, line: str, frames: Sequence[str] = ()) -> Any:
        """Best rule match or None (*frames*: a traceback's frames as `path in func`)."""


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
    anchor: int | None = None
    """An incident's place in the input, next to its first line (whose own candidate has the same fingerprint):
    just before it when the incident is reported at a later, more specific line (the incident stands for it on
    a tie), just after it otherwise (the first line's own candidate, whose fix may have been completed from the
    lines after it, stands on a tie). The line after the first is the incident's own, never a candidate."""

    @property
    def order(self) -> int:
        """Position for tie-breaking: earlier wins."""
        return self.line.lineno if self.anchor is None else self.anchor


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
    """A candidate for one stack of a traceback chain, or for an incident (parse/incidents.py)."""
    if trace.kind == "incident" and stack.header is not None:
        return from_incident(kb, trace, stack, attempt, phase)
    if stack.truncated or not stack.lines:
        raised = _raised(kb, trace, stack, attempt, phase)
        if raised is not None:
            return raised
        stated = _stated(trace, stack, attempt, phase)
        if stated is not None:
            return stated
        line = stack.frames[-1].line if stack.frames and stack.frames[-1].line else stack.header
        assert line is not None
        return Candidate(line, None, "traceback cut off before its exception line", "truncated", attempt,
                         SCORE_TRUNCATED, "unknown", None, stack, trace, phase)
    stack = _cut_at_consequence(kb, stack)
    first = stack.lines[0]
    if stack.exc_type is None and first.level in ("INFO", "DEBUG", "TRACE"):
        # the "exception" line is information the program logged (a request that quotes a traceback): the
        # traceback text it follows was data, not a crash
        return Candidate(first, None, "traceback text inside a logged message", "truncated", attempt,
                         SCORE_TRUNCATED, "unknown", None, stack, trace, phase)
    frames = tuple(f"{f.path} in {f.func}" for f in stack.frames)
    match = embedded_cause(kb, kb.classify(stack.exc_type, stack.message, first.text.strip(), frames), stack.message)
    # (an "exception" line of no type is a line the traceback ended on, not a raised exception's: a copy cut
    # there or another process's line; a typed exception of the same standing comes first)
    base = SCORE_TRACEBACK - (stack.exc_type is None) if stack.message.strip() else SCORE_BARE
    score, role = _score(match, base)
    after = trace.stacks[position + 1] if position + 1 < len(trace.stacks) else None
    nxt = after.link if after is not None else None
    if stack.link == "cause" and role != "cause":
        score -= CHAIN_PENALTY  # "direct cause of the following": the later one wraps the earlier
    if nxt == "context" and role != "cause":
        score -= CHAIN_PENALTY  # "during handling of the above": the earlier one may be a handled probe
    if after is not None and nxt == "context" and _import_probe(stack, after):
        # `try: import x / except ImportError: raise OtherError(...)`: an optional-import probe the handler
        # turned into an unrelated error; a re-raise of the same family keeps the import error the cause
        score = min(score, SCORE_TRACEBACK - 1)
    line = stack.lines[stating_line([ln.text for ln in stack.lines])]
    matched = getattr(match, "matched_text", None) if match is not None else None
    if matched:
        head = matched.splitlines()[0] if matched.strip() else matched
        for ln in stack.lines:
            if head and head in ln.text:
                line = ln if ln is not first else line  # a count-only first line yields to the stating one
                break
    if line is first:  # NCCL's message goes on to its failed check after `Last error:` (its own words for it)
        line = next((b for a, b in zip(stack.lines, stack.lines[1:]) if b.text.strip() and a.text.rstrip().endswith("Last error:")), line)
    return Candidate(line, stack.exc_type, stack.message, "traceback", attempt, score, role, match, stack, trace, phase)


_HEADER_STATES = Regex(r"^[^:\n]{3,200}?: (?P<why>\S[^\n]{10,})")
"""A header's text before `Traceback (most recent call last)` that states the error after a wrapper's words:
vLLM's `Exception in worker W while processing method M: <str(e)>, Traceback ...`."""


def _stated(trace: Trace, stack: Stack, attempt: int, phase: str | None) -> Candidate | None:
    """A traceback cut before its exception line whose header states the error (a wrapper that prints `{e},
    {format_exc()}`): reported at the header, with what it states, instead of at its last frame."""
    header = stack.header
    if header is None or not trace.stacks or stack is not trace.stacks[0]:
        return None
    m = _HEADER_STATES.match(trace.intro)
    why = m.group("why").rstrip(" \t,;:.-") if m is not None else ""
    if len(why) < 11:
        return None
    return Candidate(header, None, why, "truncated", attempt, SCORE_TRUNCATED, "unknown", None, stack, trace,
                     phase)


_RAISE = Regex(r"raise\s+((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s*(?:\(\s*(?:[rRfFbBuU]{1,2})?(?:\"([^\"]*)\"|'([^']*)')?)?")


def _raised(kb: Classifier, trace: Trace, stack: Stack, attempt: int, phase: str | None) -> Candidate | None:
    """A traceback cut after its last frame whose code is `raise Type("...")`: that exception, at that line."""
    f = stack.frames[-1] if stack.frames else None
    m = _RAISE.match(f.code or "") if f is not None else None
    if f is None or m is None or not is_exception_name(m.group(1)):
        return None
    exc, msg = m.group(1), m.group(2) or m.group(3) or ""
    line = f.code_line or f.line
    assert line is not None
    match = kb.classify(exc, msg, line.text.strip())
    score, role = _score(match, SCORE_ERROR_LINE)
    return Candidate(line, exc, msg, "traceback", attempt, score, role, match, stack, trace, phase)


_WRAPPED = Regex(r"[a-z]+ ")
"""A line that goes on with the sentence of the line before it: a plain lowercase word, then a blank."""
_MODULE = Regex(r"No module named '([\w.]+)'|cannot import name '(\w+)' from '([\w.]+)'")


def _import_probe(stack: Stack, handler: Stack) -> bool:
    """An ImportError handled by raising an unrelated error: neither of the import family nor naming the module."""
    if (stack.exc_type or "").rsplit(".", 1)[-1] not in _IMPORT_ERRORS:
        return False
    if (handler.exc_type or "").rsplit(".", 1)[-1] in _IMPORT_ERRORS:
        return False
    m = _MODULE.search(stack.message)
    names = {n for n in (m.groups() if m else ()) if n}
    names |= {n.split(".")[0] for n in names}
    return not any(re.search(rf"\b{re.escape(n)}\b", handler.message) for n in names if len(n) > 2)


_NAMES = Regex(r"'([A-Za-z_][\w.-]{2,80})'|\"([A-Za-z_][\w.-]{2,80})\"|\b([A-Za-z_]\w*(?:[._-]\w+)+|[a-z]+_?[a-z0-9]*\d[a-z0-9]*)\b")


def names_same_object(earlier: str, later: str, typed: bool) -> bool:
    """Whether a later error names what an earlier one is about: a quoted name or a dotted / snake_case /
    digit-bearing identifier of the earlier message (`'flashinfer'`, `vllm._C`, `libcudart.so.12`), or — for an
    exception whose whole message is one name (`PackageNotFoundError: flashinfer`) — that name."""
    msg = earlier[:300]
    names = {n for m in _NAMES.finditer(msg) for n in m.groups() if n}
    if typed and re.fullmatch(r"[\w.-]{3,80}", msg.strip()):
        names.add(msg.strip())
    names = {n for n in names if len(n) >= 3 and not n.replace(".", "").isdigit()}
    return any(re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w-])", later) for n in names)


def _is_cause(m: Any) -> bool:
    return m is not None and m.rule.role == "cause"


def from_incident(kb: Classifier, trace: Trace, stack: Stack, attempt: int, phase: str | None = None) -> Candidate:
    """One candidate for an incident: its whole text classified, reported at its most specific line.

    The best cause wins: a rule on the whole text, else one on a single line (a follow-on line's own
    `Type: message`), the higher priority first. Without a cause the first line's own verdict stands (a
    follow-on consequence does not turn an unknown error into a wrapper). The line reported is the one the
    winning rule matched when that is not the first line (a rule lists its most direct wording first: Metal's
    `Insufficient Memory` before ggml's `command buffer failed`), else the line the incident says holds the cause
    (after `Last error:`, a `what():` ...), else the first line: a burst starts with its cause (measured: pointing
    at the first line that names an operation instead moved it to the consequence in every burst it changed)."""
    assert stack.header is not None
    lines = [stack.header, *stack.lines]
    texts = [ln.text.strip() for ln in lines]
    exc, msg = bare_exception(texts[0])
    per = [kb.classify(*bare_exception(t), t) for t in texts]
    # the whole text without the follow-on lines a consequence rule knows on their own (a teardown message, a
    # warning printed in between): those must not hide the cause the other lines state together
    core = [t for i, (t, m) in enumerate(zip(texts, per)) if i == 0 or m is None or m.rule.role != "consequence"]
    whole = kb.classify(exc, "".join([msg, *(_joint(a, b) + b for a, b in zip(core, core[1:]))]), texts[0])
    best, at = (whole, None) if _is_cause(whole) else (per[0], 0)
    for i, m in enumerate(per):
        if i + 1 < len(texts) and announces(texts[i]):
            continue  # `terminate called after throwing ...`: the line it announces says why
        if _is_cause(m) and (not _is_cause(best) or m.rule.priority > best.rule.priority):
            best, at = m, i
    if at is None:  # the whole text's rule: the line its match starts on
        matched = (getattr(best, "matched_text", None) or "").strip()
        head = matched.splitlines()[0][:24] if matched else ""  # (the start: a match may run over a wrapped break)
        at = next((i for i, t in enumerate(texts) if head and head in t), 0)
        while at and not texts[at].startswith(head) and _joint(texts[at - 1], texts[at]) == " ":
            at -= 1  # a sentence the source wrapped (`...: the number of sizes` / `provided (1) must be ...`)
    if at == 0 and (best is None or _is_cause(best)):
        at = announced(lines) or stating_line([ln.text for ln in lines])
    elif at and per[0] is None and exc is not None and names_same_object(msg, texts[at], True):
        at = 0  # `PackageNotFoundError: x` then `x ... is not installed`: the first states it, the rule explains
    score, role = _score(best, SCORE_ERROR_LINE)
    return Candidate(lines[at], exc, stack.message, "line", attempt, score, role, _filled(best, exc, stack.message),
                     stack, trace, phase, anchor=lines[0].lineno + (-1 if at else 1))


def _joint(before: str, line: str) -> str:
    """How a follow-on line joins the line before it: a blank where it goes on with a sentence the source wrapped
    (a plain lowercase word after a line that ends in a word), so a rule's words may span the break; else a newline."""
    return " " if before[-1:].isalnum() and _WRAPPED.match(line) else "\n"


def _filled(m: Any, exc: str | None, message: str) -> Any:
    """The winning rule matched again on the incident's whole text, when that fills its fix command where the
    line alone left the fallback (a Python version printed on a follow-on line)."""
    rule = getattr(m, "rule", None)
    if rule is None or not getattr(rule, "fix_command", None) or format_command(rule.fix_command, m.captures):
        return m
    again = rule.match(exc, message, "")
    if again is None or format_command(rule.fix_command, again.captures) is None:
        return m
    return replace(m, captures=again.captures, fix_command=again.fix_command, fix_text=again.fix_text)


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
    m = _RAISE.match(text) if text.startswith("raise") else None
    if m is not None and text.startswith("(", m.end(1)):
        return None  # a `raise X(` statement: a traceback's source line that lost its indentation, not a message
    exc, msg = bare_exception(text)
    match = kb.classify(exc, msg, text)
    if is_error or _is_cause(match):
        # a line a cause rule knows may go on to quote the error it is about; a line of no error level that a
        # consequence rule knows (`this can cause errors like OSError: ...`, SGLang's `Ignore import error when
        # loading ...: No module named ...` in a healthy start) names an error that may come or did no harm
        match = embedded_cause(kb, match, text)
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
