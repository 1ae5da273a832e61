"""parse/patternset.py: which of several patterns may match a text, in one hyperscan pass. It may say "maybe" where
Python's regex would not match, never "no" where it would; the format table's rows go through it (header and
line rows), and their answers must be those of trying every row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crashdoc.parse import formats
from crashdoc.parse.matcher import hyperscan_available
from crashdoc.parse.patternset import PatternSet
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
    assert ps.candidates("Killed é") is None  # not ASCII: every pattern is a candidate
    assert ps.candidates("CUDA\x1cerror") is None  # Python's \s takes the separators, hyperscan's does not


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
