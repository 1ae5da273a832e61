"""What kind of error an unknown error is: for an error no rule and no engine message of the inventory knows,
its kind (data/error_kinds.yaml: an error of the program's own logic, a failed assertion of a compiled library)
names the category it most likely belongs to, where "other" would say nothing.

Measured on the root causes no rule knew in the dev set and sixteen extra sets (~45): "other" was the right
category for 4 of them, an engine bug for 15; of the 12 of the kinds below, 7 were engine bugs (3 a model's
config, 1 an engine argument, 1 other). The table was written from the kinds of error, not from those cases."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from crashdoc.datafile import load_yaml, package_file
from crashdoc.regex import Regex


@dataclass(frozen=True)
class Kind:
    """One kind of error (a row of data/error_kinds.yaml)."""

    id: str
    category: str
    pattern: Regex
    why: str


@cache
def kinds() -> tuple[Kind, ...]:
    """The rows of data/error_kinds.yaml, in order."""
    data = load_yaml(package_file("data", "error_kinds.yaml").read_text(encoding="utf-8"), cache=True)
    return tuple(Kind(r["id"], r["category"], Regex(r["pattern"]), " ".join(r["why"].split())) for r in data["rows"])


def kind_of(line: str) -> Kind | None:
    """The first kind whose pattern is in *line* (an error's first line), or None."""
    return next((k for k in kinds() if k.pattern.search(line) is not None), None)
