"""The inventory rows coverage works on, and the frozen results it returns."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crashdoc.kb.inventory import INVENTORY_DIR, read_rows

OUTCOMES = ("classified", "wrong", "unknown")


@dataclass(frozen=True)
class Message:
    """One labelled row of the inventory."""

    project: str
    version: str
    file: str
    line: int
    kind: str
    exception: str | None
    template: str
    category: str
    role: str


@dataclass(frozen=True)
class MessageResult:
    """One message, its renderings and what the knowledge base made of them."""

    message: Message
    renderings: tuple[str, ...]
    rules: tuple[str | None, ...]
    """The rule that classified each rendering (None: no rule)."""
    outcome: str


@dataclass(frozen=True)
class ProjectCoverage:
    project: str
    version: str
    messages: int
    classified: int
    wrong: int
    unknown: int


@dataclass(frozen=True)
class Totals:
    projects: int
    messages: int
    classified: int
    wrong: int
    unknown: int


@dataclass(frozen=True)
class Family:
    """Messages of one labelled category that share their first words: a candidate for one rule."""

    category: str
    words: str
    unknown: int
    wrong: int
    projects: tuple[str, ...]
    example: str
    """One rendered message of the family (a real template with sample values)."""
    got: tuple[str, ...]
    """Rules that classified members of the family wrongly."""


@dataclass(frozen=True)
class CoverageReport:
    projects: tuple[ProjectCoverage, ...]
    totals: Totals
    families: tuple[Family, ...]
    """The largest families of unclassified messages, operator-relevant categories first (see FAMILY_ORDER)."""
    consequences_as_causes: int
    """Consequence messages that a cause rule matched (they could be ranked as a root cause)."""
    results: tuple[MessageResult, ...]


def load_inventory(directory: Path | str = INVENTORY_DIR, project: str | None = None) -> list[Message]:
    """The labelled rows (category not null) of every `*.jsonl` in *directory*, or of one project."""
    out: list[Message] = []
    for row in read_rows(Path(directory)):
        exc = row.get("exception")
        if not row.get("category") or not row.get("template"):
            continue
        if project is not None and row["project"] != project:
            continue
        out.append(Message(str(row["project"]), str(row.get("version") or ""), str(row.get("file") or ""),
                           int(str(row.get("line") or 0)), str(row.get("kind") or ""),
                           exc if isinstance(exc, str) else None,
                           str(row["template"]), str(row["category"]), str(row.get("role") or "cause")))
    return out
