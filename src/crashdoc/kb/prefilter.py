"""Which rules can match a text at all, found in one hyperscan pass over it, so that `classify` runs the Python
regexes of those rules only (issue 12: about 500 regex searches per error line made 16 MB of distinct error
lines take minutes).

The prefilter may say "maybe" when Python's regex would not match (it never decides a match: the rule's own
regexes do), but it must never miss one. So it reads a text that is not ASCII as its shadow (parse/patternset.py:
hyperscan's `\\w`, `\\b` and `(?i)` are ASCII, Python's are Unicode), and it answers only for rules whose every
regex converts to the scanner's form; a rule matched by exception type or frames alone is always tried (that
costs a comparison, not a search)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from crashdoc.kb.model import Rule
from crashdoc.parse.matcher import ScanStats, compiled_database, hyperscan_available, new_scratch
from crashdoc.parse.patternset import PatternSet, scan_bytes, shadow_safe
from crashdoc.parse.scan_form import scan_form, to_scan_pattern
from crashdoc.regex import Regex

Plan = tuple[tuple[tuple[str, int], ...], frozenset[int]]
"""(scanner pattern, rule index) for every rule regex, and the indexes of the rules always tried."""


_LONG_REPEAT = Regex(r"(?<!\\)\{(\d+),(?:[2-9]\d|\d{3,})\}")
"""A bounded repeat of twenty or more (`[^\\n]{0,80}?`): unbounded in the prefilter and the gate (a superset, so
neither says "no" where the regex matches), since hyperscan compiles a long bounded repeat into a large,
slow-to-build state machine (the rules' prefilter: 2.4 -> 1.8 MB, read back at every start)."""


def plan(rules: Sequence[Rule]) -> Plan:
    """The prefilter's patterns for *rules*: plain data, kept in the compiled knowledge base (kb/cache.py)."""
    exprs: list[tuple[str, int]] = []
    always: set[int] = set()
    for i, rule in enumerate(rules):
        if not rule.regexes:
            always.add(i)
            continue
        converted = [to_scan_pattern(rx, rule.ignore_case) for rx in rule.regexes]
        if any(p is None for p in converted):
            always.add(i)
            continue
        exprs.extend((_LONG_REPEAT.sub(r"{\1,}", p), i) for p in converted if p is not None)
    return tuple(exprs), frozenset(always)


class Prefilter(PatternSet):
    """One hyperscan database of every rule regex, its id the rule's index (parse/patternset.py)."""

    def __init__(self, rules: Sequence[Rule], planned: Plan | None = None) -> None:
        """*planned*: `plan(rules)` when it is known already (from the cache)."""
        exprs, fixed = planned if planned is not None else plan(rules)
        super().__init__(exprs, fixed)


class Gate:
    """Whether any of a few patterns may occur in a text, in one hyperscan pass: a line no pattern can match is
    settled without running the Python regexes one by one (each an O(line) search). Like Prefilter it may say
    "maybe" when Python would not match, never "no" when it would: it answers only when every pattern converts to
    the scanner's form, and for a text that is not ASCII only when every pattern reads its shadow as Python reads
    the text (parse/patternset.py); otherwise it always says "maybe"."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        self._db: object = None
        self._built = False
        self._shadows = False
        """Whether the patterns read a shadow as Python reads its text."""
        self._local = threading.local()

    def _database(self) -> object:
        if not self._built:  # NOTE: built on first use (a cached load from disk): start-up pays nothing
            self._built = True
            # NOTE: the patterns are the caller's regexes, which Python compiles (when it needs them): a gate
            # answering from its cached database compiles none of them (hyperscan rejects what it cannot read)
            converted = [scan_form(_LONG_REPEAT.sub(r"{\1,}", p)) for p in self.patterns]
            if hyperscan_available() and converted and all(p is not None for p in converted):
                stats = ScanStats()
                try:
                    db = compiled_database(tuple((p, 0) for p in converted if p is not None), stats)
                except Exception:  # an accelerator only: without it every text is a "maybe"
                    db = None
                self._db = None if stats.skipped_patterns else db
                self._shadows = all(shadow_safe(p) for p in converted if p is not None)
        return self._db

    def maybe(self, text: str) -> bool:
        """False only when no pattern can match *text*."""
        db = self._database()
        if db is None:
            return True
        read = scan_bytes(text)
        if read is None or (read[1] and not self._shadows):
            return True
        data = read[0]
        hit: list[bool] = []

        def on_match(_ident: int, _start: int, _end: int, _flags: int, _ctx: object) -> bool:
            hit.append(True)
            return True  # one match settles it: stop the scan

        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = new_scratch(db)
        try:
            db.scan(data, match_event_handler=on_match, scratch=scratch)  # type: ignore[attr-defined]
        except Exception:  # NOTE: hyperscan reports the stopped scan as an error (ScanTerminated): a hit
            return True
        return bool(hit)
