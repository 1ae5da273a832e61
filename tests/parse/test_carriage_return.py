"""A carriage return never hides an error: progress redraws keep their last state, but text before a redraw that
states an error is kept (shown with `\\x0d`)."""

from __future__ import annotations

from crashdoc.parse.text import clean
from tests.parse.helpers import diagnose


def test_progress_redraws_keep_their_last_state() -> None:
    assert clean("Loading:  10%|#   |\rLoading:  50%|##  |\rLoading: 100%|####|") == "Loading: 100%|####|"


def test_an_error_before_a_redraw_stays_visible() -> None:
    assert clean("RuntimeError: boom\rnothing to see") == "RuntimeError: boom\\x0dnothing to see"
    d = diagnose("RuntimeError: QX77 bad shard map\rnothing to see here\n")
    assert d.root_cause is not None and d.root_cause.exception == "RuntimeError"
    assert "QX77 bad shard map" in d.root_cause.message
