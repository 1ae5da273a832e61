"""What the engines' own source says an error means: a message no rule knows, looked up in the message inventory
(`data/inventory/*.jsonl`, extracted from the engines' source by tools/inventory/), takes the category its
message family is labelled with there.

Only rows labelled by message family or by hand are used (`label_source` family / override): measured on the
root-cause lines of the dev and extra corpora, those labels named the right category in 44 of 51 lines they
matched, the labels given by file path (`module`) in 4 of 19. A template must carry enough literal text to be
recognised (MIN_LITERAL characters, its longest piece MIN_PIECE), and a line matches it when every literal piece
of the template occurs in the line in order (the placeholders `{}` stand for anything): linear in the line, no
regex."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from crashdoc.datafile import load_yaml

INVENTORY_DIR = Path(__file__).resolve().parents[1] / "data" / "inventory"
TRUSTED_LABELS = frozenset({"family", "override"})
MIN_LITERAL = 18
MIN_PIECE = 10


@dataclass(frozen=True)
class Known:
    """One labelled message of an engine's source."""

    project: str
    version: str
    file: str
    line: int
    template: str
    category: str
    pieces: tuple[str, ...]

    @property
    def literal(self) -> int:
        """How many literal characters the template has (the more, the more specific)."""
        return sum(len(p) for p in self.pieces)

    def found_in(self, text: str) -> bool:
        """Every literal piece occurs in *text*, in order."""
        at = 0
        for piece in self.pieces:
            at = text.find(piece, at)
            if at < 0:
                return False
            at += len(piece)
        return True


def read_rows(directory: Path = INVENTORY_DIR, having: tuple[str, ...] = ()) -> list[dict[str, object]]:
    """Every row of every `*.jsonl` of the inventory (one JSON object per line); with *having*, only the lines
    that contain one of these strings are decoded."""
    rows: list[dict[str, object]] = []
    for path in sorted(directory.glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            rows.extend(json.loads(raw) for raw in fh if raw.strip() and (not having or any(h in raw for h in having)))
    return rows


def _known(row: dict[str, object]) -> Known | None:
    category, template = row.get("category"), row.get("template")
    if row.get("label_source") not in TRUSTED_LABELS or row.get("role") != "cause":
        return None
    if not isinstance(category, str) or category == "other" or not isinstance(template, str):
        return None
    pieces = tuple(p.strip() for p in template.split("{}") if p.strip())
    if sum(map(len, pieces)) < MIN_LITERAL or max(map(len, pieces), default=0) < MIN_PIECE:
        return None
    return Known(str(row.get("project", "")), str(row.get("version") or ""), str(row.get("file") or ""),
                 int(str(row.get("line") or 0)), template, category, pieces)


@cache
def _index() -> tuple[tuple[str, tuple[Known, ...]], ...]:
    """The usable rows grouped by their longest literal piece (the cheap test before the ordered one); built
    once and kept in the compiled cache (kb/cache.py): decoding the inventory costs a start 0.1 s."""
    from crashdoc.kb.cache import built_once, content_key

    def key() -> str | None:
        try:
            return content_key((p.name, p.read_bytes()) for p in sorted(INVENTORY_DIR.glob("*.jsonl")))
        except OSError:
            return None

    index: tuple[tuple[str, tuple[Known, ...]], ...] = built_once(
        "inventory-index", [INVENTORY_DIR], key, _build_index, lambda v: isinstance(v, tuple))
    return index


def _build_index() -> tuple[tuple[str, tuple[Known, ...]], ...]:
    by: dict[str, list[Known]] = {}
    for row in read_rows(INVENTORY_DIR, having=tuple(f'"label_source": "{t}"' for t in TRUSTED_LABELS)):
        k = _known(row)
        if k is not None:
            by.setdefault(max(k.pieces, key=len), []).append(k)
    return tuple((piece, tuple(ks)) for piece, ks in by.items())


def lookup(text: str) -> Known | None:
    """The most specific labelled message of the engines' source that *text* states, or None."""
    best: Known | None = None
    for piece, ks in _index():
        if piece not in text:
            continue
        for k in ks:
            if (best is None or k.literal > best.literal) and k.found_in(text):
                best = k
    return best


@cache
def _advice() -> dict[str, str]:

    data = load_yaml((INVENTORY_DIR.parent / "category_advice.yaml").read_text(encoding="utf-8"))
    return {str(k): " ".join(str(v).split()) for k, v in data.items()}


def category_advice(category: str) -> str:
    """The general next step for a category (data/category_advice.yaml)."""
    return _advice().get(category, "")
