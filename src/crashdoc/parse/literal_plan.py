"""The rule-literal plan of the block scanner (parse/scan.py): the stand-ins for the knowledge base's scanner
patterns in its block pass, which are their necessary literals (parse/literals.py), each with the patterns it
stands for; kept on disk beside the hyperscan databases."""

from __future__ import annotations

import functools
import hashlib
import marshal
from collections.abc import Sequence
from typing import TYPE_CHECKING

from crashdoc.cachedir import cache_dir, prune, replace_file, trusted
from crashdoc.parse.regex_parts import alternatives, runs

if TYPE_CHECKING:
    from crashdoc.parse.literals import Literals


def prefilter_patterns(patterns: Sequence[str]) -> list[Entry]:
    """The block pass's stand-ins for `patterns`, each with the patterns it stands for and whether it is a regex
    (else a literal): per top-level alternative of a pattern, its necessary literals (`(?i)` for a caseless set),
    or the alternative itself where it has no literal of MIN_LEN characters or only common words (parse/literals.py).
    Kept on disk beside the hyperscan databases (the analysis costs a few hundred ms)."""
    key = plan_key(patterns)
    d = cache_dir()
    path = d / f"literals-{key}.marshal" if d is not None else None
    if path is not None:
        try:
            if trusted(path):
                plan = marshal.loads(path.read_bytes())
                # NOTE: marshal keeps tuples and bools: the plan is used as read (a start converts nothing)
                if isinstance(plan, list) and all(type(e) is tuple and len(e) == 4 for e in plan):
                    return plan
        except (OSError, ValueError, TypeError, EOFError):
            pass
    out = _prefilter_patterns(patterns)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            replace_file(path, marshal.dumps(out))
            prune(path.parent, "literals-*.marshal", 8)
        except OSError:
            pass  # a read-only home: analysed at every start
    return out


@functools.cache
def _plan_key(patterns: tuple[str, ...]) -> str:
    return hashlib.sha256("\x00".join((str(LITERALS_VERSION), *patterns)).encode()).hexdigest()[:24]


def plan_key(patterns: Sequence[str]) -> str:
    """The digest of a rule-pattern list that names its literal plan (and, with the markers, its database)."""
    return _plan_key(tuple(patterns))


LITERALS_VERSION = 20
"""Bump when parse/literals.py changes what it finds (the cache key)."""


Needle = tuple[bytes, bool]
"""A literal a line must hold (ASCII lower case when caseless, the bool) for a merged pattern to be tried."""
Entry = tuple[str, tuple[str, ...], bool, tuple[tuple[Needle, ...], ...]]
"""(stand-in, the patterns it stands for, whether it is a regex, for each pattern the needles of the literals merged
into this stand-in that it stood behind (empty: the stand-in is a literal of its own))."""


def _prefilter_patterns(patterns: Sequence[str]) -> list[Entry]:
    out: dict[str, list[str]] = {}
    whole: set[str] = set()
    strings: dict[str, tuple[str, bool]] = {}  # literal stand-in -> (its string, caseless)
    for p in patterns:
        for branch in alternatives(p):
            lits, part = _stand_in(branch)
            if lits is None:
                out.setdefault(part, []).append(p)  # NOTE: found by the part itself, confirmed by the pattern
                whole.add(part)
                continue
            for s in sorted(lits.strings):
                k = ("(?i)" if lits.caseless else "") + _hs_literal(s)
                out.setdefault(k, []).append(p)
                strings[k] = (s, lits.caseless)
    behind = _merge_covered(out, strings)
    plan: list[Entry] = []
    for k, v in out.items():
        pats = tuple(sorted(set(v)))
        needles = behind.get(k, {})
        plan.append((k, pats, k in whole, tuple(tuple(sorted(needles.get(p, ()))) for p in pats)))
    return plan


MIN_COVER = 8
"""Bytes a literal needs to take the literals that contain it (a shorter one is a common word: `error`, `CUDA`)."""
MAX_TAKEN = 8
"""Literals one literal takes at most: each of its hits then tests at most this many needles more."""


def _merge_covered(out: dict[str, list[str]], strings: dict[str, tuple[str, bool]]) -> dict[str, dict[str, set[Needle]]]:
    """Leave out each literal that contains a shorter one of the plan (`does not match flashinfer version (`
    holds ` does not match flashinfer version `): a line with it has the shorter one too, whose hit now tries its
    patterns as well, each only on a line that holds the literal it stood behind (a needle: a substring test, so a
    short literal's hits do not run dozens of regexes; a literal takes at most MAX_TAKEN, and only one of MIN_COVER
    bytes takes any). The same lines are confirmed; the pass holds fewer literals (hyperscan's literal matcher slows
    with their number: 3,611 -> 2,579 for the built-in rules).

    Compared as bytes, caseless ones in ASCII lower case: hyperscan's `(?i)` folds ASCII only (a non-ASCII letter's
    two cases are two literals, parse/literals.py). Returns, per kept literal, the needles of its merged patterns."""
    kept: list[tuple[str, bytes, bool]] = []  # (stand-in, bytes as compared, caseless), shortest first
    behind: dict[str, dict[str, set[Needle]]] = {}
    own = {k: set(v) for k, v in out.items()}  # the patterns each literal stands for itself
    taken: dict[str, int] = {}  # literals merged into each cover
    for k in sorted(strings, key=lambda k: (len(strings[k][0].encode()), k)):
        s, caseless = strings[k]
        raw = s.encode()
        low = raw.lower()
        cover = next((c for c, cb, ci in kept if len(cb) >= MIN_COVER and taken.get(c, 0) < MAX_TAKEN
                      and (cb in low if ci else not caseless and cb in raw)), None)
        if cover is None:
            kept.append((k, low if caseless else raw, caseless))
            continue
        taken[cover] = taken.get(cover, 0) + 1
        for p in out.pop(k):
            if p not in own[cover]:
                behind.setdefault(cover, {}).setdefault(p, set()).add((low if caseless else raw, caseless))
                out[cover].append(p)
    return behind


def _stand_in(branch: str) -> tuple[Literals | None, str]:
    r"""What the block pass searches for one alternative: its necessary literals, else those of one of its runs
    between gaps (parse/regex_parts.py), else that run itself (a short regex whose rarest strings are shorter
    than MIN_LEN: `(?:>=|==) ?\d+\.\d`), else the alternative itself.

    NOTE: an alternative whose literals include a bare common word (`with`, `needs`, `please`) is no literal
    set: it would find most lines of a request log (each then checked in Python); searched as a whole regex,
    its gaps (`with\b[^\n]{0,60}?`) cost the pass as much as every other pattern together. Its runs, where one
    has rare strings, find the same lines at a literal's cost (a WARNING line saying what a kernel requires is
    one to keep)."""
    from crashdoc.parse.literals import necessary_literals  # NOTE: a start from the cache needs none

    lits = necessary_literals(branch)
    if lits is not None and not lits.weak:
        return lits, branch
    parts = runs(branch)
    if len(parts) == 1:
        return None, branch
    found = [(lt, r) for r in parts if (lt := necessary_literals(r)) is not None and not lt.weak]
    if found:
        return max(found, key=lambda f: f[0].shortest)
    short = [(lt, r) for r in parts if (lt := necessary_literals(r, 2)) is not None and not lt.weak]
    return None, max(short, key=lambda f: f[0].shortest)[1] if short else branch


def _hs_literal(s: str) -> str:
    """A literal string as a pattern both hyperscan and Python read the same way (bytes outside [A-Za-z0-9_]
    as \\xHH)."""
    return "".join(chr(b) if chr(b).isalnum() and b < 128 or b == 95 else f"\\x{b:02x}" for b in s.encode())
