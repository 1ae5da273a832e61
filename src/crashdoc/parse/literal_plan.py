"""The rule-literal plan of the block scanner (parse/scan.py): the stand-ins for the knowledge base's scanner
patterns in its block pass, which are their necessary literals (parse/literals.py), each with the patterns it
stands for; kept on disk beside the hyperscan databases."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence

from crashdoc.parse.literals import alternatives, necessary_literals
from crashdoc.parse.matcher import cache_dir


def prefilter_patterns(patterns: Sequence[str]) -> list[tuple[str, list[str], bool]]:
    """The block pass's stand-ins for `patterns`, each with the patterns it stands for and whether it is a regex
    (else a literal): per top-level alternative of a pattern, its necessary literals (`(?i)` for a caseless set),
    or the alternative itself where it has no literal of MIN_LEN characters or only common words (parse/literals.py).
    Kept on disk beside the hyperscan databases (the analysis costs a few hundred ms)."""
    key = hashlib.sha256(repr((LITERALS_VERSION, tuple(patterns))).encode()).hexdigest()[:24]
    d = cache_dir()
    path = d / f"literals-{key}.json" if d is not None else None
    if path is not None:
        try:
            return [(lit, pats, bool(whole)) for lit, pats, whole in json.loads(path.read_text())]
        except (OSError, ValueError, TypeError):
            pass
    out = _prefilter_patterns(patterns)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(out))
            os.replace(tmp, path)
            for old in sorted(path.parent.glob("literals-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[8:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only home: analysed at every start
    return out


LITERALS_VERSION = 8
"""Bump when parse/literals.py changes what it finds (the cache key)."""


def _prefilter_patterns(patterns: Sequence[str]) -> list[tuple[str, list[str], bool]]:
    out: dict[str, list[str]] = {}
    whole: set[str] = set()
    for p in patterns:
        for branch in alternatives(p):
            lits = necessary_literals(branch)
            if lits is not None and lits.weak:
                # NOTE: an alternative whose literals include a bare common word (`with`, `needs`, `please`) is not
                # searched for on every line (it would find most lines of a request log, or cost more than all the
                # markers as a regex): it classifies the lines the markers and the other rules make hot
                continue
            if lits is None:
                out.setdefault(branch, []).append(p)  # NOTE: found by the branch itself, confirmed by the pattern
                whole.add(branch)
                continue
            for s in sorted(lits.strings):
                out.setdefault(("(?i)" if lits.caseless else "") + _hs_literal(s), []).append(p)
    return [(k, sorted(set(v)), k in whole) for k, v in out.items()]


def _hs_literal(s: str) -> str:
    """A literal string as a pattern both hyperscan and Python read the same way (bytes outside [A-Za-z0-9_]
    as \\xHH)."""
    return "".join(chr(b) if chr(b).isalnum() and b < 128 or b == 95 else f"\\x{b:02x}" for b in s.encode())
