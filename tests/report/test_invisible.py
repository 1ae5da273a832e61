"""Zero-width and bidi characters from log text never reach a report, in any format (a look-alike package name
in a fix, a line that reads differently than it is)."""

from __future__ import annotations

import io

import pytest

from crashdoc.parse.text import INVISIBLE
from crashdoc.report import render
from tests.parse.helpers import diagnose

LOG = "ModuleNotFoundError: No module named 'flash\u200binfer\u202e_x'\n"


@pytest.mark.parametrize("fmt", ["terminal", "markdown"])
def test_no_invisible_character_in_a_report_for_people(fmt: str) -> None:
    out = io.StringIO()
    render(diagnose(LOG), fmt, out, 100)
    assert "No module named" in out.getvalue() and not INVISIBLE.search(out.getvalue())


def test_the_json_keeps_the_evidence_but_no_fix_command_carries_one() -> None:
    d = diagnose(LOG)  # JSON is data: the line stays as it was; a command never takes such a value
    assert d.root_cause is not None and INVISIBLE.search(d.root_cause.line)
    assert d.root_cause.fix.command is None or not INVISIBLE.search(d.root_cause.fix.command)
