"""parse/patternset.py: which of several patterns may match a text, in one hyperscan pass. It may say "maybe" where
Python's regex would not match, never "no" where it would; the format table's rows go through it (header and
line rows), and their answers must be those of trying every row."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crashdoc.parse import formats
from crashdoc.parse.matcher import hyperscan_available
from crashdoc.parse.patternset import PatternSet, shadow_safe
from crashdoc.parse.prefixes import strip
from crashdoc.parse.text import clean

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted([*(ROOT / "tests" / "assets" / "logs").glob("*.log"), *(ROOT / "tests" / "corpus_extra" / "cases").glob("*.log")])

needs_hs = pytest.mark.skipif(not hyperscan_available(), reason="hyperscan wheel not installed")


@needs_hs
def test_candidates_never_miss_and_take_several_texts() -> None:
    ps = PatternSet(((r"^Killed\b", 0), (r"\bCUDA error\b", 1), (r"memory$", 2)))
    assert ps.candidates("a CUDA error here") == {1}
    assert ps.candidates("nothing", "Killed by signal") == {0}  # `^` holds at the start of the second text
    assert ps.candidates("out of memory", "x") == {2}  # `$` at the end of the first
    assert ps.candidates("plain line") == frozenset()
    assert ps.candidates("Killed é") == {0}  # not ASCII: read as its shadow, as Python reads the text
    assert ps.candidates("é") == frozenset()


@needs_hs
def test_a_shadow_keeps_what_python_matches_beyond_ascii() -> None:
    """Each kind of character outside ASCII stands for itself to the pattern that reads it: Python's Unicode
    `\\w`, `\\d`, `\\s` and `\\b`, its case folding (the Kelvin sign is a `k`); a separator \\x1c-\\x1f (Python's
    `\\s`, a record's start in a JSON text sequence) is read by no scan: every pattern is a candidate."""
    ps = PatternSet(((r"\bdonn\w+\b", 0), (r"rank \d+:", 1), (r"CUDA\serror", 2), (r"(?i)kelvin", 3), (r"^\w\W\w$", 4)))
    assert ps.candidates("données") == {0}
    assert ps.candidates("rank \u0663\u0661:") == {1}  # Arabic-Indic digits are Python's \d
    assert ps.candidates("CUDA\xa0error") == {2} and ps.candidates("CUDA\x1cerror") is None
    assert ps.candidates("\u212aELVIN") == {3}
    assert ps.candidates("中“文") == {4} and ps.candidates("中文") == frozenset()


@needs_hs
def test_a_pattern_that_reads_a_shadow_otherwise_is_tried_on_every_text_beyond_ascii() -> None:
    """A negated class that refuses a stand-in (`[^~]` takes `“`, not the `~` standing for it), a character beyond
    ASCII in the pattern or an escape for one: a candidate on every such text, answered by hyperscan on ASCII text."""
    ps = PatternSet(((r"a[^~]b", 0), (r"没有那个文件", 1), (r"x\xe9", 2), (r"plain", 3)))
    assert ps.candidates("a“b") == {0, 1, 2}
    assert ps.candidates("nothing é") == {0, 1, 2}
    assert ps.candidates("a~b") == frozenset() and ps.candidates("axb") == {0}
    assert [shadow_safe(p) for p, _ in ps.exprs] == [False, False, False, True]
    assert shadow_safe(r"[^\s'\"]+") and shadow_safe(r"(?i)[^a-z]") is False  # `[^a-z]` takes é, not its Q
    assert shadow_safe("(?x)x#[\n[^a-z]") is False  # verbose: a `[` in a comment would hide the class


_ALPHABET = "aZ09 _-:.\n\t\x1céÉ\u0663\xa0\u2003“…中\u212a\u017f\u0131\u0130"


@needs_hs
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=24))
def test_any_text_keeps_every_python_match(text: str) -> None:
    """Python's match on any text of mixed kinds is a candidate, for patterns of every construct the shadow must
    keep (categories and their negations, boundaries, classes, case folding, counted repeats)."""
    for p, i in _EACH_CONSTRUCT.exprs:
        if re.search(p, text):
            got = _EACH_CONSTRUCT.candidates(text)  # (None: a separator, every pattern a candidate)
            assert got is None or i in got, (p, text)


_CONSTRUCTS = (r"\w\s\d", r"[^ ]\b", r"(?i)k\W", r"[^a-z]{2}", r"\bZ\B", r"^.{3}$", r"\S+\s*\d", r"(?i)[s-z]{2}",
               r"[^\w\s]", r"\D\d", r"[^-:]\.", r"(?i)I\b", r"_\w", r"\W{2}", r"[0-9]", r"[^\n]$", r"\x1c",
               r"[\x0e-\x1f]", r"(?x) x  # [\n [^a-z]")


def _texts() -> list[str]:
    out: list[str] = []
    for path in LOGS:
        for raw in path.read_text("utf-8", "replace").splitlines()[:400]:
            out.append(clean(raw))
    out += [ex.line for f in formats.load_formats() for ex in f.examples]
    return out


def _head(text: str) -> tuple[str | None, dict[str, Any]]:
    f: dict[str, Any] = {}
    return formats.header(text, f), f


def test_format_rows_through_the_gate_answer_as_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts()
    gated_lines = [formats.line_format.__wrapped__(t.strip()) for t in texts]
    gated_heads = [_head(t) for t in texts]
    stripped = [strip(t, {}) for t in texts]
    off = PatternSet(())  # no database: every row tried, as before the gate
    monkeypatch.setattr(formats, "_line_gate", lambda: off)
    monkeypatch.setattr(formats, "_header_gate", lambda: off)
    assert [formats.line_format.__wrapped__(t.strip()) for t in texts] == gated_lines
    assert [_head(t) for t in texts] == gated_heads
    assert [strip(t, {}) for t in texts] == stripped
    assert any(f is not None for f in gated_lines) and any(h is not None for h, _ in gated_heads)


_EACH_CONSTRUCT = PatternSet(tuple((p, i) for i, p in enumerate(_CONSTRUCTS)))
