"""The one orchestrator: a source's evidence through the analysis into a Diagnosis (diagnose FILE, diagnose
UNIT and the per-attempt diagnosis of watch/run all come here)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from typing import Any, BinaryIO

from crashdoc.analyze.feed import feed_records, feed_stream, make_scanner
from crashdoc.analyze.pipeline import Analysis, diagnosis
from crashdoc.errors import InputError
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Diagnosis, Skipped
from crashdoc.sources.interface import ByteSource, EvidenceSource, RecordSource
from crashdoc.sources.journal_export import SEP, is_entry_line


def _load_kb(kb: KnowledgeBase | None) -> KnowledgeBase:
    if kb is not None:
        return kb
    return KnowledgeBase.load()


def _is_json(stream: BinaryIO) -> bool:
    """True when most of the first lines are records: JSON objects, or journal entry lines (a leading `Hint: ...`
    line from journalctl or a shell prompt does not make a journal export text)."""
    head = stream.peek(1 << 16)[: 1 << 16] if hasattr(stream, "peek") else b""
    lines = [ln for ln in head.split(b"\n")[:8] if ln.strip()]
    objects = 0
    for ln in lines:
        ln = ln.strip()
        if is_entry_line(ln) and SEP in ln:  # a journal entry line (a unit's attempts from journalctl -o export)
            objects += 1
            continue
        if not ln.startswith(b"{"):
            continue
        try:
            objects += isinstance(json.loads(ln.decode("utf-8", "replace")), dict)
        except ValueError:
            objects += ln is lines[-1].strip() and len(ln) >= 1000  # a long record cut by the peek
    return objects > 0 and objects * 2 >= len(lines)


def diagnose_stream(stream: BinaryIO, source: str, kb: KnowledgeBase | None = None) -> Diagnosis:
    """Read a whole log (text, journal JSON, docker json-file) and diagnose it."""
    kb = _load_kb(kb)
    json_lines = _is_json(stream)
    p = Analysis(kb, make_scanner(kb, json_lines=json_lines))
    feed_stream(p, stream, json_lines=json_lines)
    diag = diagnosis(p, source)
    problem = getattr(stream, "problem", None)
    if problem and p.lines == 0:
        raise InputError(f"{source}: {problem.split(';')[0]}; nothing could be read")
    if problem:
        diag = dataclasses.replace(diag, skipped=(*diag.skipped, Skipped("input", problem)))
    return diag


def run(source: EvidenceSource, kb: KnowledgeBase | None = None) -> Diagnosis:
    """Diagnose what a source holds: the one entry point of diagnose FILE, diagnose UNIT and watch/run."""
    if isinstance(source, ByteSource):
        with source.open() as stream:
            return diagnose_stream(stream, source.label, kb=kb)
    if isinstance(source, RecordSource):
        return diagnose_records(source.records(), source.label, kb=kb)
    raise TypeError(f"not an evidence source: {source!r}")


def diagnose_records(records: Iterable[Mapping[str, Any]], source: str, kb: KnowledgeBase | None = None) -> Diagnosis:
    """Diagnose structured records as they arrive (a journal query streamed from journalctl): nothing is
    re-encoded, and nothing holds all of them."""
    kb = _load_kb(kb)
    p = Analysis(kb, make_scanner(kb))
    feed_records(p, records)
    return diagnosis(p, source)
