"""Declared requirements of installed distributions, evaluated with the target's markers (no extras)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

from packaging.markers import UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier
from packaging.version import InvalidVersion, Version

from crashdoc.envdoctor.facts import Dist, canonical


@lru_cache(maxsize=4096)
def _parse(text: str) -> Requirement | None:
    try:
        return Requirement(text)
    except (InvalidRequirement, InvalidSpecifier):
        return None


def requirements(dist: Dist, markers: Mapping[str, str]) -> list[Requirement]:
    """The requirements of `dist` that apply on the target (markers true with no extra requested)."""
    env = {**markers, "extra": ""}
    out = []
    for text in dist.requires:
        req = _parse(text)
        if req is None:
            continue
        if req.marker is not None:
            try:
                if not req.marker.evaluate(env):
                    continue
            except (UndefinedComparison, UndefinedEnvironmentName):  # be lenient, as pip is
                continue
        out.append(req)
    return out


def satisfied(req: Requirement, version: str) -> bool | None:
    """Whether `version` meets the requirement's specifier (pre-releases allowed); None when unparsable."""
    try:
        return req.specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return None


def exact_pin(dist: Dist, name: str, markers: Mapping[str, str]) -> str | None:
    """The version `dist` pins `name` to with a single `==X` (no wildcard), or None."""
    key = canonical(name)
    for req in requirements(dist, markers):
        if canonical(req.name) == key:
            specs = list(req.specifier)
            if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
                return specs[0].version
    return None


def spec_text(req: Requirement) -> str:
    """`name[extras]<specifier>` without the marker, for a pip command."""
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    return f"{req.name}{extras}{req.specifier}"


def closure(roots: Iterable[Dist], active: Mapping[str, Dist], markers: Mapping[str, str]) -> list[Dist]:
    """`roots` and every installed distribution they require, transitively."""
    seen: dict[str, Dist] = {}
    todo = list(roots)
    while todo:
        dist = todo.pop()
        if dist.key in seen:
            continue
        seen[dist.key] = dist
        for req in requirements(dist, markers):
            dep = active.get(canonical(req.name))
            if dep is not None and dep.key not in seen:
                todo.append(dep)
    return sorted(seen.values(), key=lambda d: d.key)
