"""Folding copies (ranks, the logger + raw re-print) and ranking: per attempt, the highest-scoring error that is
not a known consequence wins, ties going to the earliest line; across attempts, identical verdicts fold."""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace

from crashdoc.analyze.candidates import SCORE_ERROR_LINE, SCORE_TRACEBACK, Candidate, names_same_object
from crashdoc.parse.phases import load_phases
from crashdoc.parse.traceback import Stack
from crashdoc.regex import Regex

CONSEQUENCE_FLOOR = -1000
MAX_FINDINGS = 12
_NORMALISE = Regex(r"0x[0-9a-fA-F]+|\d+")


@dataclass(frozen=True)
class Group:
    """Copies of one error inside one attempt."""

    fingerprint: str
    first: Candidate
    """The copy that represents the group (the first, or a copy a rule recognised better)."""
    processes: frozenset[str] = frozenset()
    ranks: frozenset[int] = frozenset()
    streams: frozenset[str] = frozenset()

    @property
    def key(self) -> tuple[int, int]:
        """Sort key: score (consequences last), then input position."""
        return _key(self.first)


def fingerprint(c: Candidate) -> str:
    """Stable id of an error: type + message with numbers and addresses folded."""
    msg = c.message.splitlines()[0] if c.message else c.line.text.strip()
    base = f"{c.exception or ''}|{_NORMALISE.sub('#', msg[:400])}"
    return hashlib.sha1(base.encode("utf-8", "replace")).hexdigest()[:12]


def fold(cands: list[Candidate]) -> dict[int, list[Group]]:
    """Group candidates per attempt by fingerprint, each attempt's groups ranked best first (see Folder)."""
    per: dict[int, Folder] = {}
    for c in sorted(cands, key=lambda c: c.order):
        per.setdefault(c.attempt, Folder()).add(c)
    return {a: f.ranked() for a, f in per.items()}


class Folder:
    """The groups of one attempt, built from its candidates fed in input order (`Candidate.order`).

    A copy replaces a group's representative when a rule recognised it better (a higher score), except that a
    consequence-role copy never replaces a copy of another role. The links of one traceback chain never fold
    into each other: the k-th link with a given fingerprint folds only with other chains' k-th link.
    `prune(n)` keeps the n best groups by the ranking's key (a group's key only improves as copies come, so a
    dropped group never outranks the n kept) and counts the others in `dropped`."""

    def __init__(self) -> None:
        self.groups: dict[str, tuple[Candidate, set[str], set[int], set[str]]] = {}
        self.dropped = 0
        """Groups pruned away (distinct errors beyond the bound: counted, not kept)."""

    def add(self, c: Candidate) -> None:
        """One candidate; candidates come in input order."""
        fp = _chain_key(c, fingerprint(c))
        groups = self.groups
        if fp not in groups:
            groups[fp] = (c, set(), set(), set())
        elif _better_copy(c, groups[fp][0]):  # a copy a rule recognised better (e.g. the raw re-print)
            groups[fp] = (c, *groups[fp][1:])
        _, procs, ranks, streams = groups[fp]
        if c.line.process:  # only what the report needs is kept of each copy, not the copy
            procs.add(c.line.process)
        if c.line.rank is not None:
            ranks.add(c.line.rank)
        streams.add(c.line.stream)

    def prune(self, n: int) -> None:
        """Keep the n best groups (by Group.key); count the rest."""
        if len(self.groups) <= n:
            return
        keep = sorted(self.groups, key=lambda fp: _key(self.groups[fp][0]))[:n]
        self.dropped += len(self.groups) - n
        self.groups = {fp: self.groups[fp] for fp in keep}

    def ranked(self) -> list[Group]:
        """The groups, best first (a line cut short counted in the group of the error it begins: `_uncut`)."""
        return named_cause(sorted(_uncut([Group(fp, first, frozenset(p), frozenset(r), frozenset(s))
                                          for fp, (first, p, r, s) in self.groups.items()]), key=lambda g: g.key))


CUT_MIN, CUT_MAX = 24, 512
"""Characters (from, to) a line no rule knows must have to be taken for a cut copy of a longer line a rule knows."""


def _uncut(groups: list[Group]) -> list[Group]:
    """An error no rule knows whose line is the start of an error a rule knows (numbers aside: a cause that ranks above
    it, or a consequence that says what it means on its own) is a copy cut short (an excerpt, a terminal's
    width, one rank's `[Rank 3] Watchdog caught col`): it joins that error's group (its processes and ranks
    counted there) instead of standing as an unknown error of its own. Texts are compared on their first CUT_MAX
    characters, sorted, one bisection each."""
    known = sorted((_NORMALISE.sub("#", g.first.line.text.strip()[:CUT_MAX]), i) for i, g in enumerate(groups)
                   if g.first.match is not None and (g.first.role == "cause" or g.first.match.rule.alone_category))
    if not known:
        return groups
    texts = [t for t, _ in known]
    kept = dict(enumerate(groups))
    for i, g in enumerate(groups):
        raw = g.first.line.text.strip()
        if g.first.match is not None or not CUT_MIN <= len(raw) <= CUT_MAX:
            continue
        text = _NORMALISE.sub("#", raw)
        j = bisect.bisect_right(texts, text)
        if j < len(texts) and texts[j].startswith(text):
            k = known[j][1]
            whole = kept[k]
            if whole.key < g.key or whole.first.role != "cause":
                # a cause that already ranks above it (the verdict stays, the count grows), or a consequence that
                # says what it means on its own (a watchdog timeout: analyze/findings.py `lone_consequence`)
                kept[k] = replace(whole, processes=whole.processes | g.processes, ranks=whole.ranks | g.ranks,
                                  streams=whole.streams | g.streams)
                del kept[i]
    return list(kept.values())


SETTLE = 2048
"""Candidates of an open attempt held as they came before those that can no longer be preceded are folded."""
HOLD = 8 * SETTLE
"""Candidates that wait for the horizon, at most."""
GROUP_LIMIT = 1024
"""Groups (distinct errors) one attempt keeps at most; the report shows MAX_FINDINGS of them."""


class Pending:
    """The candidates of one open attempt in bounded memory: the recent ones as they came (a traceback's come
    when it ends, after later lines' own), the older ones folded in input order into at most GROUP_LIMIT
    groups. Below the bound, `ranked()` is what `fold` of every candidate gives."""

    def __init__(self) -> None:
        self.recent: list[Candidate] = []
        self.folder = Folder()
        self._next = SETTLE

    def add(self, c: Candidate, horizon: Callable[[], int]) -> None:
        """One candidate; `horizon()`: a line number no candidate still to come is before."""
        self.recent.append(c)
        if len(self.recent) >= self._next:
            self.settle(horizon())
            self._next = len(self.recent) + SETTLE  # a long open traceback: sort again only after as many more

    def settle(self, horizon: int | None) -> None:
        """Fold the candidates before `horizon` (None: all of them), then prune to GROUP_LIMIT groups."""
        self.recent.sort(key=lambda c: c.order)  # stable: copies on one line keep their arrival order
        cut = len(self.recent)
        if horizon is not None:
            cut = next((i for i, c in enumerate(self.recent) if c.order >= horizon), cut)
            # a traceback that never ends (its process died mid-print) holds the horizon back: past HOLD the
            # oldest are folded anyway (a copy that comes after a later-numbered one then represents its group
            # only if it is better)
            cut = max(cut, len(self.recent) - HOLD)
        for c in self.recent[:cut]:
            self.folder.add(c)
        del self.recent[:cut]
        self.folder.prune(GROUP_LIMIT)

    def ranked(self) -> list[Group]:
        """Every candidate folded: the attempt's groups, best first."""
        self.settle(None)
        return self.folder.ranked()


def _key(c: Candidate) -> tuple[int, int]:
    """Group.key of a group represented by c."""
    score = c.score + (CONSEQUENCE_FLOOR if c.role == "consequence" else 0)
    return (-score, c.order)


NAMED_WINDOW = 6
"""How many lines before the top error an earlier error may stand that names the same object."""
def named_cause(groups: list[Group]) -> list[Group]:
    """The earlier of two errors a few lines apart that name the same package or object is the later one's cause
    (`PackageNotFoundError: flashinfer`, then `flashinfer with minimum required version ... is not installed`):
    it is reported, at its own line, with the later one's rule for the category and the fix. Only an exception
    no rule knows yields its line this way, and only to a cause rule's verdict."""
    if len(groups) < 2:
        return groups
    top = groups[0].first
    if top.role != "cause":
        return groups
    best = None
    for g in groups[1:]:
        c = g.first
        gap = top.line.lineno - c.line.lineno
        if not (0 < gap <= NAMED_WINDOW) or c.role != "unknown" or c.exception is None:
            continue
        if c.line.process != top.line.process or c.score < SCORE_ERROR_LINE:
            continue
        earlier = (c.message or c.line.text).split("\n")[0]
        if (best is None or c.order < best.first.order) and names_same_object(
                earlier, top.message or top.line.text, c.exception is not None):
            best = g
    if best is None:
        return groups
    moved = replace(best, first=replace(best.first, score=top.score, role=top.role, match=top.match))
    return sorted([moved if g is best else g for g in groups], key=lambda g: g.key)


def _better_copy(c: Candidate, rep: Candidate) -> bool:
    if c.role == "consequence" and rep.role != "consequence":
        return False
    return c.score > rep.score or (c.role == "cause" and rep.role == "consequence")


def _chain_key(c: Candidate, fp: str) -> str:
    """`fp` for the first stack of its trace with that fingerprint; a distinct id for a later link of the same
    chain that repeats it (`RuntimeError: X` raised from `RuntimeError: X`)."""
    if c.trace is None or c.stack is None or len(c.trace.stacks) < 2:
        return fp
    st = c.stack  # the candidate's stack may be a trimmed copy of the trace's (same frames and first line)
    pos = next((i for i, s in enumerate(c.trace.stacks)
                if s is st or (s.frames is st.frames and s.lines[:1] == st.lines[:1])), 0)
    mine = _stack_text(c.stack)
    k = sum(1 for s in c.trace.stacks[:pos] if _stack_text(s) == mine)
    return fp if k == 0 else hashlib.sha1(f"{fp}#{k}".encode()).hexdigest()[:12]


def _stack_text(s: Stack) -> tuple[str | None, str]:
    return s.exc_type, (s.message.splitlines() or [""])[0]

SERVING = next((p.title for p in load_phases() if p.id == "serving"), None)
"""The title of the serving phase (data/phases.yaml): errors there are request errors, not start failures."""
FIRST_FAILURE_SCORE = SCORE_TRACEBACK
"""An attempt whose top error scores this much (a known cause, or an exception no rule knows) is a failure in its
own right: the first such attempt is the root of a crash loop, whatever later attempts print (an earlier failure
often leaves GPU memory, a port or a lock behind, and every later attempt then fails on that)."""


def attempt_key(top: Candidate, index: int, failed: bool) -> tuple[int, int, int] | None:
    """How strongly an attempt's top error speaks for the whole loop (higher wins; None: only consequences).

    Decisive attempts — the service manager says the attempt failed, and its top error scores FIRST_FAILURE_SCORE
    or more outside the serving phase — beat the others, the earliest first; among the rest the strongest wins,
    the latest on a tie (a request error while serving, before a restart by hand, is not a start failure).
    The attempt index is always the last element."""
    if top.role == "consequence":
        return None
    if failed and top.score >= FIRST_FAILURE_SCORE and top.phase != SERVING:
        return (1, -index, index)
    return (0, top.score, index)


def best_attempt(ranked: dict[int, list[Group]], failed: Callable[[int], bool]) -> int | None:
    """The attempt to report: the first decisive failure, else the strongest verdict (see attempt_key)."""
    keys = [k for a, groups in ranked.items() if (k := attempt_key(groups[0].first, a, failed(a))) is not None]
    return max(keys)[-1] if keys else None


