"""Shared by the parse tests: a text through the traceback builder, or through the whole diagnosis."""

from __future__ import annotations

import io

from crashdoc.investigate import diagnose_stream
from crashdoc.model import Diagnosis
from crashdoc.parse.lines import parse_line
from crashdoc.parse.traceback import Trace, TracebackBuilder


def build(text: str) -> list[Trace]:
    """The tracebacks the builder makes of `text`, one line at a time, then closed."""
    b = TracebackBuilder()
    out: list[Trace] = []
    for i, raw in enumerate(text.splitlines(), 1):
        out.extend(b.feed(parse_line(i, raw)))
    out.extend(b.close())
    return out


def diagnose(text: str) -> Diagnosis:
    """`crashdoc diagnose` on `text`, in-process."""
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test")  # type: ignore[arg-type]
