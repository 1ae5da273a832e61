"""Necessary literals of a regex: a set of strings one of which every match contains.

The block scanner cannot afford hundreds of rule regexes over every byte of a gigabyte log (each one slows the
pass); it looks for the rules' necessary literals instead (a few hundred strings: one literal pass), and runs the
rule regexes themselves only on the lines where one occurs (parse/scan.py). A literal set is a prefilter: it may
say "maybe" where the regex does not match, never "no" where it does.

The analysis walks Python's parse of the pattern (the rules' scanner patterns are Python-compatible,
kb/scan.py): a run of literals and small character classes is a set of exact strings; an alternation unites
its branches; a repetition of at least one keeps its body's literals; anything else (`.`, `\\w`, a negated or
large class, an optional part) ends a run. Of all the runs of a pattern the best one (longest shortest string) is
its literal set. Under `(?i)` the strings are lower case and searched caselessly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from crashdoc.regex import Regex

try:  # NOTE: the parser behind `re`; renamed in Python 3.11 (the old name warns)
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef,unused-ignore]
    import sre_parse as _p  # type: ignore[no-redef,unused-ignore]

CAP = 64
"""Most exact strings one run may stand for (a cross product of small classes grows fast)."""
MAX_CLASS = 6
"""Largest character class taken as a set of one-character strings."""
MIN_LEN = 4
"""Shortest useful literal: a shorter one occurs on too many ordinary lines to be worth a pass."""


@dataclass(frozen=True)
class Literals:
    """The literal set of one pattern."""

    strings: frozenset[str]
    caseless: bool

    @property
    def shortest(self) -> int:
        return min((len(s) for s in self.strings), default=0)

    @property
    def weak(self) -> bool:
        """True when one of the strings is a word ordinary lines are full of (`with`, `please `): the set would
        find most lines of a request log (a phrase of such words, `Try using`, is rare enough)."""
        return any(_common(s) and len(s.split()) < 2 for s in self.strings)


@dataclass(frozen=True)
class _Info:
    exact: frozenset[str] | None
    """Every string the part matches, when there are few (the empty string included when it may be empty)."""
    req: frozenset[str] | None
    """Strings one of which every match of the part contains (None: nothing known)."""


_NONE = _Info(None, None)
_EMPTY = _Info(frozenset({""}), None)


def necessary_literals(pattern: str) -> Literals | None:
    """The best literal set of `pattern`, or None when it has none (or none of MIN_LEN characters or more)."""
    try:
        parsed = _p.parse(pattern)
    except Exception:  # NOTE: not a Python pattern: no literals known, the pattern is scanned whole
        return None
    flags = parsed.state.flags
    found: list[bool] = []
    info = _seq(list(parsed), bool(flags & _c.SRE_FLAG_IGNORECASE), found)
    best = info.exact if info.exact is not None else info.req
    if not best or "" in best:
        return None
    lits = Literals(frozenset(best), any(found))
    if lits.shortest < MIN_LEN:
        return None
    return lits


COMMON = frozenset(["error", "errors", "failed", "failure", "fail", "failing", "use", "used", "using", "please", "version", "versions", "need", "needs", "install", "installed", "could", "not", "cannot", "can't", "unable", "invalid", "expected", "supported", "not", "supported", "set", "setting", "try", "enable", "disable", "found", "warning", "the", "and", "for", "with", "model", "request", "requests", "start", "started", "starting", "loading", "load", "process", "memory", "time", "timeout", "available", "detected", "check", "file", "path", "value", "values", "in", "the", "for", "by", "this", "that", "a", "an", "of", "to", "is", "are", "be", "it", "on", "at", "or", "you", "your", "yet", "only", "port", "all", "new", "when", "must", "should", "may", "can", "will", "has", "have", "was", "were", "more", "less", "than", "into", "from", "per", "out", "up", "down", "run", "running", "server", "client", "user", "data", "size"])
"""Words ordinary log lines and prompts are full of: a literal made of them only is a last resort."""


def _common(s: str) -> bool:
    words = s.lower().replace("'", " ").split()
    # NOTE: a word joined to an identifier's `_`, `.`, `(` or `=` (`enable_`, `.size(`) is code, not prose
    return all(not any(c in w for c in "_.(=") and w.strip(":;,\"`)[]{}-") in COMMON for w in words)


def _score(s: frozenset[str] | None) -> tuple[bool, bool, int, int]:
    if not s or "" in s:
        return (False, False, -1, 0)
    shortest = min(len(x) for x in s)
    return (shortest >= MIN_LEN, not any(_common(x) for x in s), shortest, -len(s))


def _best(cands: list[frozenset[str]]) -> frozenset[str] | None:
    good = [c for c in cands if c and "" not in c]
    return max(good, key=_score) if good else None


def _cross(a: frozenset[str], b: frozenset[str]) -> frozenset[str] | None:
    if len(a) * len(b) > CAP:
        return None
    return frozenset(x + y for x in a for y in b)


def _seq(items: list[tuple[Any, Any]], icase: bool, found: list[bool]) -> _Info:
    cur: frozenset[str] = frozenset({""})
    cands: list[frozenset[str]] = []
    broken = False
    for op, av in items:
        info = _item(op, av, icase, found)
        if info.exact is not None:
            joined = _cross(cur, info.exact)
            if joined is not None:
                cur = joined
                continue
            cands.append(cur)
            broken = True
            if len(info.exact) <= CAP:
                cur = info.exact
                continue
            cur = frozenset({""})
            continue
        broken = True
        cands.append(cur)
        if info.req is not None:
            cands.append(info.req)
        cur = frozenset({""})
    if not broken:
        return _Info(cur, cur if "" not in cur else None)
    cands.append(cur)
    return _Info(None, _best(cands))


def _chars(c: int, icase: bool, found: list[bool]) -> frozenset[str]:
    ch = chr(c)
    if icase and ch.lower() != ch.upper():
        found.append(True)
        if not ch.isascii():
            return frozenset({ch.lower(), ch.upper()})
        return frozenset({ch.lower()})
    return frozenset({ch})


def _item(op: Any, av: Any, icase: bool, found: list[bool]) -> _Info:
    if op is _c.LITERAL:
        return _Info(_chars(av, icase, found), None)
    if op is _c.IN:
        out: set[str] = set()
        for sub, val in av:
            if sub is _c.LITERAL:
                out |= _chars(val, icase, found)
            elif sub is _c.RANGE and val[1] - val[0] < MAX_CLASS:
                for c in range(val[0], val[1] + 1):
                    out |= _chars(c, icase, found)
            else:  # NEGATE, CATEGORY, a wide range
                return _NONE
            if len(out) > MAX_CLASS:
                return _NONE
        return _Info(frozenset(out), None)
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return _EMPTY  # zero width
    if op is _c.SUBPATTERN:
        _group, add, delete, body = av
        sub_icase = (icase or bool(add & _c.SRE_FLAG_IGNORECASE)) and not (delete & _c.SRE_FLAG_IGNORECASE)
        return _seq(list(body), sub_icase, found)
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _seq(list(av), icase, found)
    if op is _c.BRANCH:
        infos = [_seq(list(b), icase, found) for b in av[1]]
        if all(i.exact is not None for i in infos):
            union = frozenset().union(*(i.exact for i in infos if i.exact is not None))
            if len(union) <= CAP:
                return _Info(union, union if "" not in union else None)
        reqs = [i.exact if i.exact is not None and "" not in i.exact else i.req for i in infos]
        if any(r is None for r in reqs):
            return _NONE
        return _Info(None, frozenset().union(*(r for r in reqs if r is not None)))
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        lo, hi, body = av
        info = _seq(list(body), icase, found)
        if lo == 0:
            if hi == 1 and info.exact is not None:
                return _Info(info.exact | {""}, None)
            return _NONE
        if lo == hi and info.exact is not None:
            joined: frozenset[str] | None = frozenset({""})
            for _ in range(lo):
                joined = _cross(joined, info.exact) if joined is not None else None
            if joined is not None:
                return _Info(joined, joined if "" not in joined else None)
        req = info.exact if info.exact is not None and "" not in info.exact else info.req
        return _Info(None, req)
    return _NONE  # ANY, NOT_LITERAL, CATEGORY, GROUPREF ...


_GLOBAL_FLAGS = Regex(r"(?:\(\?[aiLmsux]+\))+")
_NUMBERED = Regex(r"\\[1-9]|\(\?P=|\(\?\(")
"""A back-reference or conditional: group numbers that a split would change."""


def alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern`, an outer group that spans a whole alternative opened up in turn:
    every match of one is a match of `pattern`, and each may have a literal set where their union has none good
    (one branch made of common words spoils the set of all). Leading global flags are carried to each; a pattern
    that does not split cleanly is returned whole."""
    if _NUMBERED.search(pattern):
        return [pattern]
    m = _GLOBAL_FLAGS.match(pattern)
    flags, body = (m.group(), pattern[m.end():]) if m else ("", pattern)
    out = [flags + b for b in _split(body)]
    try:
        for b in out:
            re.compile(b)
    except re.error:
        return [pattern]
    return out


def _structure(body: str) -> Iterator[tuple[int, str, int]]:
    """(offset, character, group depth after it) of each `(`, `)` and `|` of `body` that is syntax: escapes and
    character classes (where `]` first or escaped does not close the class) are stepped over."""
    level, i, n = 0, 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i += 2 if body[i + 1 : i + 2] == "^" else 1
            i += 1 if body[i : i + 1] == "]" else 0
            while i < n and body[i] != "]":
                i += 2 if body[i] == "\\" else 1
        elif c in "()|":
            level += {"(": 1, ")": -1, "|": 0}[c]
            yield i, c, level
        i += 1


def _split(body: str, depth: int = 0) -> list[str]:
    cuts = [i for i, c, level in _structure(body) if c == "|" and level == 0]
    parts = [body[a + 1 : b] for a, b in zip([-1, *cuts], [*cuts, len(body)])]
    out: list[str] = []
    for part in parts:
        inner = _group_body(part)
        out.extend(_split(inner, depth + 1) if inner is not None and depth < 4 else [part])
    return out


def _group_body(part: str) -> str | None:
    """The body of `(?:...)` or `(...)` when that group is the whole of `part`, else None."""
    head = 3 if part.startswith("(?:") else 1 if part.startswith("(") and not part.startswith("(?") else 0
    if not head or not part.endswith(")"):
        return None
    closed = next((i for i, c, level in _structure(part) if c == ")" and level == 0), None)
    return part[head:-1] if closed == len(part) - 1 else None
