"""How evidence enters one pass of the analysis (analyze/pipeline.py): the block scanner set up for a knowledge
base, then a byte stream through it (only hot lines decoded), or structured records one at a time."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, BinaryIO

from crashdoc.analyze.pipeline import Analysis
from crashdoc.analyze.values import SCAN_PATTERNS
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.parse.lines import LineParser, LogLine, parse_line
from crashdoc.parse.markers import MarkerClass
from crashdoc.parse.records import parse_json_lines
from crashdoc.parse.scan import Scanner
from crashdoc.sources.journal_export import entry_record, is_entry_line

JSON_RECORDS = MarkerClass("record", (r'"MESSAGE" ?: ?\[', r'"MESSAGE" ?: ?null'), before=0, after=0)
"""Journal records whose text a raw scan cannot see (a MESSAGE stored as bytes: control characters, non-UTF-8;
or omitted, over 4 KiB): always decoded."""


def make_scanner(kb: KnowledgeBase, json_lines: bool = False, fold_attempts: bool = True) -> Scanner:
    """A scanner whose hot lines include every rule's regex (and, for JSON lines, the records it cannot read);
    `fold_attempts`: attempts that repeat an earlier one are read only in their skeleton (parse/regions.py).

    NOTE: phase lines (progress bars, "Loading weights") are not hot: they are a large share of a healthy
    log, and a traceback's frames name its phase anyway; phase lines that are hot for another reason count.
    """
    values = MarkerClass("values", SCAN_PATTERNS, before=0, after=0)  # banners, logged arguments: analyze/values.py
    return Scanner(extra_patterns=tuple(kb.scan_patterns()), extra_classes=(values, JSON_RECORDS) if json_lines else (values,),
                   fold_attempts=fold_attempts)


def _record_lines(p: Analysis, lineno: int, rec: Mapping[str, Any]) -> list[LogLine]:
    lines = parse_json_lines(lineno, rec)
    if lines:
        p.json_records += 1
        if rec.get("MESSAGE", "") is None:
            p.omitted += 1
    return lines


def _feed(p: Analysis, lines: Iterable[LogLine]) -> None:
    for line in lines:
        p.feed(line, p.scanner.mask(line.text.encode("utf-8", "replace")))


def feed_records(p: Analysis, records: Iterable[Mapping[str, Any]]) -> None:
    """Structured records (journal entries), one at a time, then the end of the evidence."""
    lineno = 0
    for rec in records:
        lineno += 1
        _feed(p, _record_lines(p, lineno, rec))
    p.lines = lineno
    p.finish()


def feed_stream(p: Analysis, stream: BinaryIO, *, json_lines: bool) -> None:
    """A byte stream through the block scanner: only the hot lines and their windows are decoded and parsed.

    Text lines go to the line parser; JSON lines (journal export, docker json-file) and journal entry lines
    (sources/journal_export.py) are scanned raw like text, and only the hot records are decoded (raw-scan-first: a
    healthy record costs no decoding)."""
    parser = LineParser()
    for hot in p.scanner.lines(stream):
        if not json_lines:
            p.feed(parser.parse(hot.lineno, hot.data), hot.mask)
            continue
        data = hot.data.rstrip(b"\r")
        lines: list[LogLine] = []
        if data.startswith(b"{"):
            try:  # a raw non-UTF-8 byte inside a record must not lose the record
                rec = json.loads(data.decode("utf-8", "replace"))
            except ValueError:
                rec = None
            if isinstance(rec, dict):
                lines = _record_lines(p, hot.lineno, rec)
        elif is_entry_line(data):
            lines = _record_lines(p, hot.lineno, entry_record(data))
        _feed(p, lines or [parse_line(hot.lineno, data)])
    p.lines, p.bytes = p.scanner.stats.lines, p.scanner.stats.bytes
    p.finish()
