"""Which of several regexes may match a text, in one hyperscan pass: the caller then runs the Python regexes of
those only (each Python search over a line costs microseconds; a hundred of them per error line made 16 MB of
distinct error lines take minutes, issue 12).

The answer may say "maybe" where Python's regex would not match (the caller's own search decides), never "no"
where it would. Hyperscan reads bytes: its `\\w`, `\\b`, `\\s` and `(?i)` are ASCII, Python's are Unicode (and Python's
`\\s` takes the separators \\x1c-\\x1f: a text holding one makes every pattern a candidate). ASCII text is scanned
as it is. Any other text is scanned as its shadow (`shadow`): each other character replaced by one ASCII character
of its own kind for Python's regexes (a word character, a digit, a blank, or neither; a letter Python's `(?i)`
equates with an ASCII one, `K` or `ſ`, by that letter), so a pattern that matches the text matches the shadow at
the same character offsets. That holds for a pattern made of ASCII, not verbose, whose negated classes accept each
stand-in where they accept what it stands for (`shadow_safe`); the others are candidates on such a text whatever
it says. The database is multi-line (`^`/`$`
also match at inner line ends: a superset), and a pattern hyperscan cannot compile is always a candidate. Used by
the knowledge base (kb/prefilter.py: which rules) and by the error-format table (parse/formats.py: which header
and line rows)."""

from __future__ import annotations

import codecs
import functools
import re
import string
import threading
from collections.abc import Callable

from crashdoc.parse.matcher import ScanStats, compiled_database, hyperscan_available, new_scratch
from crashdoc.parse.regex_parts import negated_classes

_UNSEEN = re.compile("[\x1c-\x1f]")
"""ASCII that Python's `\\s` matches and hyperscan's does not (the file, group, record and unit separators)."""
_WORD, _DIGIT, _BLANK, _OTHER = "Q", "0", "\x0b", "~"
"""The shadow's stand-ins: a word character, a decimal digit, a blank (vertical tab: `\\s` in both, rare in a
class), and neither."""
_FOLDS = re.compile("(?i)[a-z]")
_UNSAFE = re.compile(r"\(\?[aiLmsux]*[ax]|\\(?:x[89a-fA-F]|u|U|N\{|[23][0-7]{2})")
"""The ASCII flag, the verbose flag (a `[` in a comment would hide a class from `shadow_safe`), or an escape for a
character beyond ASCII: a pattern with one may read the shadow differently."""


@functools.lru_cache(maxsize=4096)
def _stand_in(c: str) -> str:
    """The ASCII character `c` (not ASCII) stands for in a shadow."""
    if _FOLDS.fullmatch(c):  # (K, ſ, ı, İ: what Python's case folding equates with an ASCII letter)
        return next(a for a in string.ascii_lowercase if re.fullmatch(f"(?i){a}", c))
    if c.isdecimal():
        return _DIGIT
    if c.isalnum():
        return _WORD
    return _BLANK if c.isspace() else _OTHER


def _shadow_run(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return "".join(map(_stand_in, err.object[err.start : err.end])), err.end


codecs.register_error("crashdoc.shadow", _shadow_run)


def shadow(text: str) -> bytes:
    """`text` as ASCII bytes, each other character replaced by its stand-in."""
    return text.encode("ascii", "crashdoc.shadow")


def scan_bytes(text: str) -> tuple[bytes, bool] | None:
    """What hyperscan reads for `text`, and whether it is a shadow: the text itself when it is ASCII, its shadow
    otherwise; None when it holds a separator \\x1c-\\x1f (Python's `\\s` takes them, no scan reads them so)."""
    if not text.isprintable() and _UNSEEN.search(text) is not None:
        return None
    return (text.encode(), False) if text.isascii() else (shadow(text), True)


@functools.lru_cache(maxsize=8192)
def shadow_safe(pattern: str) -> bool:
    """Whether every match of `pattern` on a text is a match on its shadow (see the module's note): the pattern is
    ASCII, has no ASCII flag nor an escape beyond ASCII, and each negated class that accepts a character accepts
    its stand-in (`[^~]` takes `“`, but not the `~` standing for it; `[^a-z]` takes the Kelvin sign, not `k`)."""
    if not pattern.isascii() or _UNSAFE.search(pattern):
        return False
    for cls in negated_classes(pattern):
        for flags in (0, re.IGNORECASE):
            try:
                rx = re.compile(cls, flags)
            except re.error:
                return False
            if any(rx.fullmatch(c) and not rx.fullmatch(_stand_in(c)) for c in _KINDS):
                return False
    return True


_KINDS = ("é", "\u0663", "\xa0", "\u201c", "\u212a", "\u017f", "\u0131", "\u0130")
"""A character of each kind the shadow tells apart: a letter, a digit, a blank, neither, and the letters Python's
case folding equates with an ASCII one."""


class PatternSet:
    """One hyperscan database of (scanner pattern, id) pairs; ids in `always` are candidates whatever the text."""

    def __init__(self, exprs: tuple[tuple[str, int], ...], always: frozenset[int] = frozenset()) -> None:
        self.always = always
        self.exprs = exprs
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
        id must be tried (no database, or a text holding a separator \\x1c-\\x1f)."""
        db = self.db
        if db is None:
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
        read = scan_bytes(text)
        if read is None:
            return None
        data, shadowed = read
        always = self.always | self._unsafe if shadowed else self.always
        if data:
            db.scan(data, match_event_handler=on_match, scratch=scratch)  # type: ignore[attr-defined]
        return always.union(found) if found else always

    @functools.cached_property
    def _unsafe(self) -> frozenset[int]:
        """The ids with a pattern that may read a shadow differently (`shadow_safe`): worked out on the first text
        that needs a shadow."""
        return frozenset(i for p, i in self.exprs if not shadow_safe(p))

    @staticmethod
    def _state(db: object) -> tuple[object, set[int], Callable[[int, int, int, int, object], None]]:
        found: set[int] = set()
        add = found.add

        def on_match(ident: int, _start: int, _end: int, _flags: int, _ctx: object) -> None:
            add(ident)

        return new_scratch(db), found, on_match
