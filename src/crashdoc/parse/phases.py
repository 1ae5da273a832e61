"""THE phase table (data/phases.yaml, read once): the start phases, which phase a traceback's frames or a
process's last line put it in; the live watch builds its markers from the same document."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from crashdoc.datafile import load_yaml, package_file
from crashdoc.parse.traceback import Frame
from crashdoc.regex import Regex


@dataclass(frozen=True)
class Phase:
    """One start phase."""

    id: str
    title: str
    lines: tuple[Regex[str], ...]
    frames: tuple[Regex[str], ...]
    not_lines: tuple[Regex[str], ...] = ()
    """Lines that match `lines` but do not announce the phase (NCCL's `Connected all rings` is no server up)."""


@lru_cache(maxsize=1)
def load_document() -> dict[str, Any]:
    """data/phases.yaml as data: phases (lines, frames, and the watch's extras) and engines."""
    data = load_yaml(package_file("data", "phases.yaml").read_text("utf-8"), cache=True)
    return data if isinstance(data, dict) else {}


@lru_cache(maxsize=1)
def load_phases() -> tuple[Phase, ...]:
    """The packaged phase table."""
    data = load_document()
    return tuple(
        Phase(
            p["id"],
            p["title"],
            tuple(Regex(x) for x in p.get("lines") or ()),  # compiled when first searched
            tuple(Regex(x) for x in p.get("frames") or ()),
            tuple(Regex(x) for x in p.get("not") or ()),
        )
        for p in data["phases"]
    )


def phase_of_frames(frames: Sequence[Frame]) -> Phase | None:
    """The phase named by the innermost frame that names one."""
    phases = load_phases()
    for fr in reversed(frames):
        key = f"{fr.path}:{fr.func}"
        for ph in phases:
            if ph.id != "import" and any(rx.search(key) for rx in ph.frames):
                return ph
    if frames and all(f.func == "<module>" for f in frames[-3:]):
        return next(p for p in phases if p.id == "import")
    return None


def phase_of_line(text: str) -> Phase | None:
    """The phase a progress line announces, if any."""
    for ph in load_phases():
        if any(_found(rx, text) for rx in ph.lines) and not any(_found(rx, text) for rx in ph.not_lines):
            return ph
    return None


_META = frozenset("\\.^$*+?{}[]|()")
_PLAIN: dict[str, bool] = {}
"""Pattern -> it has no metacharacter (it matches itself only)."""


def _found(rx: Regex[str], text: str) -> bool:
    """`rx.search(text)` finds something; most phase lines are plain words, a substring test (nothing compiled)."""
    plain = _PLAIN.get(rx.pattern)
    if plain is None:
        plain = _PLAIN[rx.pattern] = rx.flags == 0 and _META.isdisjoint(rx.pattern)
    return rx.pattern in text if plain else rx.search(text) is not None
