"""Folded groups -> the model: a Finding per group (where, evidence, fix, confidence), the verdict of each attempt,
and the one-line summary across attempts."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from crashdoc.analyze.attempts import AttemptState
from crashdoc.analyze.candidates import SCORE_ERROR_LINE, Candidate
from crashdoc.analyze.rank import Group
from crashdoc.kb.kinds import Kind, kind_of
from crashdoc.model import Attempt, Evidence, Finding, Fix, Where
from crashdoc.parse.traceback import Frame

if TYPE_CHECKING:
    from crashdoc.kb.inventory import Known

MAX_EVIDENCE = 14


_ENGINE_DIRS = ("/vllm/", "/sglang/", "/text_generation_server/", "/tensorrt_llm/", "/lmdeploy/", "/ray/llm/")


UNKNOWN_FIX = (
    "No rule knows this error yet: read the evidence lines, check the frames above the error, and search the "
    "exact message in the engine's issue tracker. `crashdoc rules list` shows what is covered."
)


def engine_frame(frames: tuple[Frame, ...]) -> Frame | None:
    """The innermost frame in model code, else in engine code, else the innermost frame."""
    for pred in (
        lambda f: "/models/" in f.path and any(d in f.path for d in _ENGINE_DIRS),
        lambda f: any(d in f.path for d in _ENGINE_DIRS),
        lambda f: True,
    ):
        for f in reversed(frames):
            if pred(f):
                return f
    return None


def _frame_text(f: Frame | None) -> str | None:
    if f is None:
        return None
    name = f.path.rsplit("/", 1)[-1]
    code = f": {f.code}" if f.code else ""
    return f"{name}:{f.lineno} in {f.func}{code}"


def _evidence(c: Candidate, frame: Frame | None) -> tuple[Evidence, ...]:
    lines = [c.line]
    if c.stack is not None:
        st = c.stack
        if st.header is not None:
            lines.append(st.header)
        for f in (frame, st.frames[-1] if st.frames else None):
            if f is not None and f.line is not None:
                lines.append(f.line)
        lines.extend(st.lines[:6])
        if c.trace is not None:
            lines.extend(s.lines[0] for s in c.trace.stacks if s.lines and s is not st)
    seen: dict[int, Evidence] = {}
    for ln in lines:
        seen.setdefault(ln.lineno, Evidence(ln.lineno, ln.raw))
    return tuple(sorted(seen.values(), key=lambda e: e.lineno))[:MAX_EVIDENCE]


def to_finding(g: Group, attempt_no: int | None = None) -> Finding:
    """A folded group as a model Finding."""
    c, m = g.first, g.first.match
    frame = engine_frame(c.stack.frames) if c.stack is not None and c.stack.frames else None
    procs, ranks, streams = sorted(g.processes), sorted(g.ranks), g.streams
    carried = None
    if m is not None:
        fix = Fix(text=m.fix_text or "", command=m.fix_command)
        category, rule, explanation = m.category, m.rule.id, m.explanation
        if (category == "other" and m.rule.role == "cause" and m.matched_text
                and (carried := _kind(c, m.matched_text)) is not None and carried.category != "other"):
            # a rule that knows the error's shape but not its class (an uncaught C++ exception's `what():` line,
            # not the `terminate called ...` before it): the kind of what it matched names the category, as for an
            # error no rule knows
            category = carried.category
            explanation = f"{explanation} What it says is {carried.why}: {carried.category} is the likeliest category."
    elif (known := _known_message(c)) is not None:
        from crashdoc.kb.inventory import category_advice

        fix, category, rule = Fix(category_advice(known.category)), known.category, None
        explanation = (f"No rule knows this error, but {known.project}'s own source raises it ({known.file}:{known.line}:"
                       f" \"{known.template[:160]}\"), and crashdoc's message inventory labels that message "
                       f"{known.category}.")
    elif (kind := _kind(c)) is not None and kind.category != "other":  # (an "other" row keeps it unknown)
        from crashdoc.kb.inventory import category_advice

        fix, category, rule = Fix(category_advice(kind.category)), kind.category, None
        explanation = f"No rule knows this error, but it is {kind.why}: {kind.category} is the likeliest category."
    else:
        fix, category, rule, explanation = Fix(UNKNOWN_FIX), "other", None, ""
    where = Where(
        process=c.line.process, rank=c.line.rank, pid=c.line.pid, frame=_frame_text(frame),
        attempt=attempt_no or c.attempt, host=c.line.host, unit=c.line.unit, phase=c.phase,
    )
    confidence, reason = _confidence(c)
    if carried is not None:  # a guessed category: never more sure than medium
        confidence, reason = ("low" if confidence == "low" else "medium"), f"{reason}; the category is the kind of its message, a guess"
    return Finding(
        confidence=confidence, confidence_reason=reason,
        line=c.line.raw, lineno=c.line.lineno, exception=c.exception, message=c.message.strip()[:4000],
        category=category, fix=fix, where=where, role=c.role, rule=rule, score=c.score,
        explanation=explanation, evidence=_evidence(c, frame), count=len(streams),
        processes=tuple(procs), ranks=tuple(ranks), fingerprint=g.fingerprint,
    )


def _unknown_text(c: Candidate) -> str | None:
    """The first line of an error no rule knows (a traceback's exception or an error line), else None."""
    if c.role != "unknown" or c.kind == "truncated":
        return None
    return _first_line(f"{c.exception}: {c.message}" if c.exception else (c.message or c.line.text))


def _first_line(text: str) -> str:
    return text.split("\n")[0][:2000]


def _known_message(c: Candidate) -> Known | None:
    """The engines' message inventory on an error no rule knows."""
    if (text := _unknown_text(c)) is None:
        return None
    from crashdoc.kb.inventory import lookup  # NOTE: the message inventory is read only for an error no rule knows

    return lookup(text)


def _kind(c: Candidate, text: str | None = None) -> Kind | None:
    """The kind of an error no rule and no inventory message knows (kb/kinds.py), or of `text`, what a rule that
    knows only the error's shape matched."""
    raised = c.stack.frames[-1].path if c.stack is not None and c.stack.frames else None
    # NOTE: a path its poster elided (`.../managers/scheduler.py`) says nothing of whose code it is
    # (a path relative to a source checkout's parent, `sglang/srt/x.py`, is the engine's as much as `/sglang/`)
    if raised is not None and not raised.startswith("...") and not any(d in "/" + raised for d in ("-packages/", *_ENGINE_DIRS)):
        return None  # raised in the user's own program, not in an engine or a library
    text = _unknown_text(c) if text is None else _first_line(text)
    return kind_of(text) if text is not None else None


def lone_consequence(ranked: dict[int, list[Group]]) -> Finding | None:
    """When only consequences were found: the earliest one whose rule says what it means on its own (`alone`:
    a lone watchdog timeout is a collective hang; a process that died without a word was killed from outside),
    as a low-confidence root cause in that category with that next step; None when no such consequence."""
    lone = [g for gs in ranked.values() for g in gs
            if g.first.match is not None and g.first.match.rule.alone_category]
    if not lone:
        return None
    g = min(lone, key=lambda g: g.first.order)
    rule = g.first.match.rule
    f = to_finding(g)
    return replace(f, category=rule.alone_category, fix=Fix(rule.alone_text or f.fix.text), confidence="low",
                   confidence_reason=f"only consequences were found; rule {rule.id} on its own points to "
                                     f"{rule.alone_category}")


def logged_hint(c: Candidate) -> bool:
    """A rule hit on a line the program logged as information or a warning (and the rule does not say it is a
    cause at any level): it explains a failure when nothing better does, it is no failure by itself.

    NOTE: the logger's level only (`line.level`): a Python warnings-module line (`x.py:1: UserWarning: ...`) has
    none and is no hint; where an excerpt holds nothing else it is the failure (torch's CUDA initialization
    warning, then silence), and reading it as a warning lost such root causes (tests/corpus_fortysixth/README.md)."""
    return (c.match is not None and c.kind == "line" and c.line.level in ("INFO", "WARNING", "DEBUG")
            and not getattr(c.match.rule, "any_level", False))


def cut_crash(c: Candidate, last_seen: dict[str, int]) -> bool:
    """A traceback cut before its exception line that was printed as a crash (its header at no level, or at an
    error level), not logged as information, and the last its stream printed of what was read: the process
    failed even though the excerpt lost why (a stream that goes on printing, `Application startup complete`,
    did not)."""
    stack = c.stack if c.kind == "truncated" else None
    header = stack.header if stack is not None else None
    if stack is not None and header is None and stack.frames and stack.frames[-1].lineno == 0:
        header = stack.frames[0].line  # an excerpt that starts inside the traceback and stops inside a frame's line
    if stack is None or header is None or header.level in ("INFO", "WARNING", "DEBUG", "TRACE"):
        return False
    end = max([header.lineno, *(ln.lineno for f in stack.frames for ln in (f.line, f.code_line) if ln)])
    return last_seen.get(c.line.stream, 0) <= end


def _confidence(c: Candidate) -> tuple[str, str]:
    """How sure the verdict is, and why, in words a reader can check against the evidence."""
    m = c.match
    if c.role == "consequence":
        return "low", "only a consequence (a wrapper or teardown message) names it; the first error was not captured"
    if c.kind == "truncated":
        return "low", "the traceback was cut off before its exception line"
    if m is not None and logged_hint(c):
        return "low", f"rule {m.rule.id} matched a line the program logged at {c.line.level}, not as an error"
    if m is not None and c.kind == "line" and c.line.level in ("INFO", "WARNING", "DEBUG"):
        return "medium", (f"rule {m.rule.id} ({m.rule.category}) matched a line logged at {c.line.level}, "
                          "which this rule knows to be a cause at any level")
    if m is not None:
        where = "an exception" if c.kind == "traceback" else "an error line"
        return "high", f"rule {m.rule.id} ({m.rule.category}) matched {where}"
    if c.kind == "traceback":
        return "medium", f"an exception no rule knows ({c.exception or 'no type'}); the category is a guess"
    return "medium", "an error line no rule knows; the category is a guess"


def attempt_verdicts(states: list[AttemptState], ranked: dict[int, list[Group]]) -> tuple[Attempt, ...]:
    """model.Attempt per attempt, with the fingerprint and short form of its own root cause."""
    out = []
    for st in states:
        groups = ranked.get(st.index) or []
        top = groups[0].first if groups and groups[0].first.role != "consequence" else None
        cut = bool(groups) and groups[0].first.kind == "truncated"
        outcome = st.outcome or (
            "failed" if top is not None and top.score >= SCORE_ERROR_LINE
            else "cut off inside a traceback (still starting when captured?)" if cut
            else "no error seen"
        )
        if st.gave_up:
            outcome += "; systemd gave up (start request repeated too quickly)"
        out.append(
            Attempt(
                index=st.index, started=st.started, ended=st.ended, outcome=outcome,
                first_lineno=st.first_lineno, last_lineno=st.last_lineno, exit_status=st.exit_status,
                invocation_id=st.invocation, fingerprint=groups[0].fingerprint if top is not None else None,
                root_message=_short(top) if top is not None else None,
            )
        )
    return tuple(out)


def _short(c: Candidate) -> str:
    msg = (c.message.splitlines() or [""])[0]
    text = f"{c.exception}: {msg}" if c.exception else msg
    return text[:200]


def summary(attempts: tuple[Attempt, ...], root: Finding | None) -> str:
    """One line about the attempts: "all 12 attempts failed with the same error"."""
    if root is None or not attempts:
        return ""
    same = [a for a in attempts if a.fingerprint == root.fingerprint]
    n = len(attempts)
    if n == 1:
        return "1 start attempt in the log; it failed with this error" if same else ""
    if len(same) == n:
        return f"all {n} attempts failed with the same error"
    first = root.where.attempt
    later = [a for a in attempts if first is not None and a.index > first and a.fingerprint
             and not (a.outcome or "").startswith("cut off")]
    if first is not None and later and same and same[0].index == first and all(
            a.fingerprint != root.fingerprint for a in later):
        kinds = {a.fingerprint for a in later}
        what = f"with {later[0].root_message}" if len(kinds) == 1 and later[0].root_message else "with other errors"
        return (f"first failed at attempt {first} with this error; the later {len(later)} attempt"
                f"{'s' if len(later) != 1 else ''} fail {what}, most likely a consequence of the first failure")
    others = sorted({a.root_message or "" for a in attempts if a.fingerprint not in (None, root.fingerprint)})
    tail = f"; other attempts: {'; '.join(o for o in others[:3] if o)}" if others else ""
    return f"{len(same)} of {n} attempts failed with this error{tail}"
