"""Necessary literals of a regex: a set of strings one of which every match contains.

The block scanner cannot afford hundreds of rule regexes over every byte of a gigabyte log (each one slows the
pass); it looks for the rules' necessary literals instead (a few hundred strings: one literal pass), and runs the
rule regexes themselves only on the lines where one occurs (parse/scan.py). A literal set is a prefilter: it may
say "maybe" where the regex does not match, never "no" where it does.

The analysis walks Python's parse of the pattern (the rules' scanner patterns are Python-compatible,
parse/scan_form.py): a run of literals and small character classes is a set of exact strings; an alternation unites
its branches; a repetition of at least one keeps its body's literals; anything else (`.`, `\\w`, a negated or
large class, an optional part) ends a run. A run also reaches into the part that ends it when every match of that
part starts with one of a few strings (`needs (?:a )?(?:SM ?\\d|Hopper)` holds `needs SM`, `needs a Hopper` ...), and
the next run starts from the strings every match of it ends with. Of all the runs of a pattern the best one
(longest shortest string) is its literal set. Under `(?i)` the strings are lower case and searched caselessly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

try:  # NOTE: the parser behind `re`; renamed in Python 3.11 (the old name warns)
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef,unused-ignore]
    import sre_parse as _p  # type: ignore[no-redef,unused-ignore]

CAP = 64
"""Most exact strings one run may stand for (a cross product of small classes grows fast)."""
REACH_CAP = 256
"""Most strings of a run joined to the first strings of the part that ends it (each is longer and rarer)."""
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
        """True when one of the strings is a word ordinary lines are full of (`with`, `please `), or such a word
        and one character more (`or 1`: in `ERROR 1` caselessly): the set would find most lines of a request log
        or of an error-dense one (a phrase of such words, `Try using`, is rare enough)."""
        return any(len(s.split()) < 2 and _common(s) or len(s.split()) == 2 and len(_rare(s)) == 1 for s in self.strings)


@dataclass(frozen=True)
class _Info:
    exact: frozenset[str] | None
    """Every string the part matches, when there are few (the empty string included when it may be empty)."""
    req: frozenset[str] | None
    """Strings one of which every match of the part contains (None: nothing known)."""
    pre: frozenset[str] = frozenset({""})
    """Strings one of which every match starts with (when not exact; `{""}`: nothing known)."""
    suf: frozenset[str] = frozenset({""})
    """Strings one of which every match ends with (when not exact; `{""}`: nothing known)."""

    @property
    def first(self) -> frozenset[str]:
        return self.exact if self.exact is not None else self.pre

    @property
    def last(self) -> frozenset[str]:
        return self.exact if self.exact is not None else self.suf


_NOTHING = frozenset({""})
_NONE = _Info(None, None)
_EMPTY = _Info(frozenset({""}), None)


def necessary_literals(pattern: str, min_len: int = MIN_LEN) -> Literals | None:
    """The best literal set of `pattern`, or None when it has none (or none of `min_len` characters or more).
    Runs reach into the parts that end them only when the plain runs give no set or a weak one (a joined set is
    longer and rarer, but has many more strings for the block pass to search)."""
    try:
        parsed = _p.parse(pattern)
    except Exception:  # NOTE: not a Python pattern: no literals known, the pattern is scanned whole
        return None
    lits = _literals(parsed, min_len, 0)
    return _literals(parsed, min_len, REACH_CAP) if lits is None or lits.weak else lits


def _literals(parsed: Any, min_len: int, reach_cap: int) -> Literals | None:
    found: list[bool] = []
    info = _seq(list(parsed), bool(parsed.state.flags & _c.SRE_FLAG_IGNORECASE), found, reach_cap)
    best = info.exact if info.exact is not None else info.req
    if not best or "" in best:
        return None
    lits = Literals(frozenset(best), any(found))
    return lits if lits.shortest >= min_len else None


COMMON = frozenset(["error", "errors", "failed", "failure", "fail", "failing", "use", "used", "using", "please", "version", "versions", "need", "needs", "install", "installed", "could", "not", "cannot", "can't", "unable", "invalid", "expected", "supported", "not", "supported", "set", "setting", "try", "enable", "disable", "found", "warning", "the", "and", "for", "with", "model", "request", "requests", "start", "started", "starting", "loading", "load", "process", "memory", "time", "timeout", "available", "detected", "check", "file", "path", "value", "values", "in", "the", "for", "by", "this", "that", "a", "an", "of", "to", "is", "are", "be", "it", "on", "at", "or", "you", "your", "yet", "only", "port", "all", "new", "when", "must", "should", "may", "can", "will", "has", "have", "was", "were", "more", "less", "than", "into", "from", "per", "out", "up", "down", "run", "running", "server", "client", "user", "data", "size"])
"""Words ordinary log lines and prompts are full of: a literal made of them only is a last resort."""


def _rare(s: str) -> str:
    """The characters of `s` outside its common words and blanks."""
    return "".join(w for w in s.lower().split() if w.strip(":;,\"`)[]{}-") not in COMMON)


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


def _cross(a: frozenset[str], b: frozenset[str], cap: int = CAP) -> frozenset[str] | None:
    if len(a) * len(b) > cap:
        return None
    return frozenset(x + y for x in a for y in b)


def _seq(items: list[tuple[Any, Any]], icase: bool, found: list[bool], reach_cap: int) -> _Info:
    cur: frozenset[str] = _NOTHING  # every text the run so far matched ends with one of these
    start = _NOTHING  # every match of the sequence starts with one of these
    growing = True  # `start` grows while the items before were exact
    cands: list[frozenset[str]] = []
    broken = False
    for op, av in items:
        info = _item(op, av, icase, found, reach_cap)
        if growing:
            grown = _cross(start, info.first)
            start = grown if grown is not None else start
            growing = grown is not None and info.exact is not None
        if info.exact is not None:
            joined = _cross(cur, info.exact)
            if joined is not None:
                cur = joined
                continue
        broken = True
        cands.append(cur)
        if info.first != _NOTHING:  # NOTE: the run goes on into the part's first strings, contiguous with it
            reach = _cross(cur, info.first, reach_cap)
            if reach is not None:
                cands.append(reach)
        if info.exact is None and info.req is not None:
            cands.append(info.req)
        cur = info.last if len(info.last) <= CAP else _NOTHING
    if not broken:
        return _Info(cur, cur if "" not in cur else None)
    cands.append(cur)
    return _Info(None, _best(cands), _heads(start) if len(start) <= CAP else _NOTHING, cur)


def _chars(c: int, icase: bool, found: list[bool]) -> frozenset[str]:
    ch = chr(c)
    if icase and ch.lower() != ch.upper():
        found.append(True)
        if not ch.isascii():
            return frozenset({ch.lower(), ch.upper()})
        return frozenset({ch.lower()})
    return frozenset({ch})


def _item(op: Any, av: Any, icase: bool, found: list[bool], reach_cap: int) -> _Info:
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
        return _seq(list(body), sub_icase, found, reach_cap)
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _seq(list(av), icase, found, reach_cap)
    if op is _c.BRANCH:
        infos = [_seq(list(b), icase, found, reach_cap) for b in av[1]]
        if all(i.exact is not None for i in infos):
            union = frozenset().union(*(i.exact for i in infos if i.exact is not None))
            if len(union) <= CAP:
                return _Info(union, union if "" not in union else None)
        reqs = [i.exact if i.exact is not None and "" not in i.exact else i.req for i in infos]
        firsts = _union(i.first for i in infos)
        lasts = _union(i.last for i in infos)
        if any(r is None for r in reqs):
            return _Info(None, None, firsts, lasts)
        return _Info(None, frozenset().union(*(r for r in reqs if r is not None)), firsts, lasts)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        lo, hi, body = av
        info = _seq(list(body), icase, found, reach_cap)
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
        return _Info(None, req, info.first, info.last)  # NOTE: one or more: a match starts and ends as the body
    return _NONE  # ANY, NOT_LITERAL, CATEGORY, GROUPREF ...


def _union(sets: Iterator[frozenset[str]]) -> frozenset[str]:
    """The union of the sets, or nothing known when one is (`{""}` in it) or it grows past CAP."""
    out: set[str] = set()
    for s in sets:
        if "" in s:
            return _NOTHING
        out |= s
        if len(out) > CAP:
            return _NOTHING
    return _heads(frozenset(out))


def _heads(s: frozenset[str]) -> frozenset[str]:
    """A prefix set without the strings another of it starts (`SM` covers `SM_`): as true, and fewer to join."""
    kept: list[str] = []
    for x in sorted(s, key=len):
        if not any(x.startswith(k) for k in kept):
            kept.append(x)
    return frozenset(kept)
