"""journalctl's JSON records (`journalctl -o json`, one object a line): their fields as text, their times,
and the reading of an answer into records or into blocks of whole JSON lines."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from crashdoc.regex import Regex
from crashdoc.sources import fields as typed


def value(record: dict[str, Any], key: str) -> str | None:
    """A field as text: journalctl gives str, a list of byte values (non-UTF-8 / control chars) or null (> 4 KiB);
    any other type is absent (sources/fields.py)."""
    return typed.text(record, key)


def usec(record: dict[str, Any]) -> int:
    """__REALTIME_TIMESTAMP in microseconds (0 when absent, not ASCII digits or out of range)."""
    return typed.usec(record) or 0


def iso(us: int | None) -> str | None:
    """Microseconds since the epoch as ISO 8601 UTC (`2025-11-30T09:12:05.123456+00:00`)."""
    return typed.iso_usec(us)


def at(us: float) -> str:
    """A journalctl --since/--until argument for a time in microseconds (`@1732958400.123456`)."""
    return f"@{max(us, 0) / 1e6:.6f}"


@dataclass(frozen=True)
class Record:
    """One journal record: its fields as journalctl wrote them."""

    fields: dict[str, Any]

    @property
    def usec(self) -> int:
        """Realtime timestamp in microseconds."""
        return usec(self.fields)

    @property
    def cursor(self) -> str | None:
        """The record's cursor (unique), for de-duplication."""
        return typed.text(self.fields, "__CURSOR")

    def get(self, key: str) -> str | None:
        """A field as text (see `value`)."""
        return value(self.fields, key)


def record_of(line: bytes) -> Record | None:
    line = line.strip()
    if not line.startswith(b"{"):
        return None
    try:
        fields = json.loads(line)
    except ValueError:
        return None
    return Record(fields) if isinstance(fields, dict) else None


_CURSOR = Regex(rb'"__CURSOR" ?: ?"([^"\\]+)"|^__CURSOR=([^\x1e\n]+)', re.M)


def last_cursor(block: bytes) -> str | None:
    """The cursor of the last record in a block of whole JSON lines or entry lines (sources/journal_export.py),
    None when it has none."""
    start = block.rfind(b"\n", 0, len(block) - 1) + 1
    m = _CURSOR.search(block, start)
    return (m.group(1) or m.group(2)).decode("ascii", "replace") if m else None


def json_lines(block: bytes) -> tuple[bytes, int]:
    """The JSON lines of a block of whole lines (journalctl's `-- No entries --` and the like left out), and how
    many there are (two passes over the block: it is hundreds of MB for a long attempt)."""
    n = block.count(b"\n")
    if block.count(b"\n{") + (block[:1] == b"{") == n:
        return block, n
    lines = [line + b"\n" for line in block.split(b"\n") if line.startswith(b"{")]
    return b"".join(lines), len(lines)


def parse_records(data: bytes) -> Iterable[Record]:
    """journalctl -o json output (one object a line) into records; unparsable lines are skipped."""
    for line in data.splitlines():
        rec = record_of(line)
        if rec is not None:
            yield rec


def merge(records: Iterable[Record]) -> list[Record]:
    """De-duplicate by cursor and order by time (stable: records of one query keep journal order)."""
    seen: set[str] = set()
    out = []
    for rec in records:
        key = rec.cursor or json.dumps(rec.fields, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        out.append(rec)
    out.sort(key=lambda r: r.usec)
    return out
