"""Every redaction pattern is linear-time on adversarial lines (long word, dotted and digit runs, repeated
separators), as rule regexes are: the redactor runs on every string of every report."""

from __future__ import annotations

import re

import pytest

from crashdoc.kb.redos import slow_line
from crashdoc.report.redact import patterns


@pytest.mark.parametrize("pat", patterns(), ids=lambda p: p.kind)
def test_redaction_pattern_is_linear(pat) -> None:  # type: ignore[no-untyped-def]
    assert slow_line(pat.regex.pattern, pat.regex.flags & re.IGNORECASE) is None
