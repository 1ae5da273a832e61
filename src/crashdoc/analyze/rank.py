"""Folding copies (ranks, the logger + raw re-print) and ranking: per attempt, the highest-scoring error that is
not a known consequence wins, ties going to the earliest line; across attempts, identical verdicts fold."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from crashdoc.analyze.candidates import Candidate

CONSEQUENCE_FLOOR = -1000
MAX_FINDINGS = 12
_NORMALISE = re.compile(r"0x[0-9a-fA-F]+|\d+")


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
        c = self.first
        score = c.score + (CONSEQUENCE_FLOOR if c.role == "consequence" else 0)
        return (-score, c.order)


def fingerprint(c: Candidate) -> str:
    """Stable id of an error: type + message with numbers and addresses folded."""
    msg = c.message.splitlines()[0] if c.message else c.line.text.strip()
    base = f"{c.exception or ''}|{_NORMALISE.sub('#', msg[:400])}"
    return hashlib.sha1(base.encode("utf-8", "replace")).hexdigest()[:12]


def fold(cands: list[Candidate]) -> dict[int, list[Group]]:
    """Group candidates per attempt by fingerprint, each attempt's groups ranked best first."""
    per: dict[int, dict[str, tuple[Candidate, set[str], set[int], set[str]]]] = {}
    for c in sorted(cands, key=lambda c: c.order):
        fp = fingerprint(c)
        groups = per.setdefault(c.attempt, {})
        if fp not in groups:
            groups[fp] = (c, set(), set(), set())
        elif c.score > groups[fp][0].score:  # a copy a rule recognised better (e.g. the raw re-print)
            groups[fp] = (c, *groups[fp][1:])
        _, procs, ranks, streams = groups[fp]
        if c.line.process:  # only what the report needs is kept of each copy, not the copy
            procs.add(c.line.process)
        if c.line.rank is not None:
            ranks.add(c.line.rank)
        streams.add(c.line.stream)
    return {a: sorted((Group(fp, first, frozenset(p), frozenset(r), frozenset(s))
                       for fp, (first, p, r, s) in gs.items()), key=lambda g: g.key) for a, gs in per.items()}


def best_attempt(ranked: dict[int, list[Group]]) -> int | None:
    """The attempt to report: the strongest non-consequence verdict, the latest on a tie."""
    best: tuple[int, int] | None = None
    for a, groups in ranked.items():
        top = groups[0].first
        if top.role == "consequence":
            continue
        k = (top.score, a)
        if best is None or k > best:
            best = k
    return best[1] if best else None


