"""Which of several regexes may match a text, in one hyperscan pass: the caller then runs the Python regexes of
those only (each Python search over a line costs microseconds; a hundred of them per error line made 16 MB of
distinct error lines take minutes, issue 12).

The answer may say "maybe" where Python's regex would not match (the caller's own search decides), never "no"
where it would: it answers only for ASCII text without the separators \\x1c-\\x1f (hyperscan's `\\w`, `\\b`,
`\\s` and `(?i)` are ASCII, Python's are Unicode, and Python's `\\s` takes those separators), the database is
multi-line (`^`/`$` also match at inner line ends: a superset), and a pattern hyperscan cannot compile is
always a candidate. Used by the knowledge base (kb/prefilter.py: which rules) and by the error-format table
(parse/formats.py: which header and line rows)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from crashdoc.parse.matcher import ScanStats, compiled_database, hyperscan_available, new_scratch

_UNSEEN = re.compile("[\x1c-\x1f]")
"""ASCII that Python's `\\s` matches and hyperscan's does not (the file, group, record and unit separators)."""


class PatternSet:
    """One hyperscan database of (scanner pattern, id) pairs; ids in `always` are candidates whatever the text."""

    def __init__(self, exprs: tuple[tuple[str, int], ...], always: frozenset[int] = frozenset()) -> None:
        self.always = always
        self.db: object = None
        self._local = threading.local()
        if not hyperscan_available() or not exprs:
            return
        stats = ScanStats()
        try:
            self.db = compiled_database(exprs, stats)
        except Exception:  # NOTE: an accelerator only: without it every id is a candidate
            self.db = None
            return
        skipped = set(stats.skipped_patterns)
        self.always = always | {i for p, i in exprs if p in skipped}

    def candidates(self, *texts: str) -> frozenset[int] | None:
        """The ids whose pattern may match one of *texts* (as if each were searched on its own), or None when every
        id must be tried (no database, or a text that is not ASCII)."""
        db = self.db
        if db is None:
            return None
        for t in texts:
            if not t.isascii() or (not t.isprintable() and _UNSEEN.search(t) is not None):
                return None
        try:
            scratch, found, on_match = self._local.state
        except AttributeError:  # hyperscan's scratch space is per thread (a fleet diagnoses hosts in threads)
            scratch, found, on_match = self._local.state = self._state(db)
        found.clear()
        # NOTE: the texts in one scan, a newline between them: a pattern that matches one of them matches there
        # too (`^`/`$` hold at the newline in a multi-line database); a match across the newline only adds a
        # candidate. One call instead of one per text: the call costs more than the bytes.
        text = texts[0] if len(texts) == 1 else "\n".join(t for t in texts if t)
        if text:
            db.scan(text.encode(), match_event_handler=on_match, scratch=scratch)  # type: ignore[attr-defined]
        return self.always.union(found) if found else self.always

    @staticmethod
    def _state(db: object) -> tuple[object, set[int], Callable[[int, int, int, int, object], None]]:
        found: set[int] = set()
        add = found.add

        def on_match(ident: int, _start: int, _end: int, _flags: int, _ctx: object) -> None:
            add(ident)

        return new_scratch(db), found, on_match
