"""The data the checks read: companion groups (data/groups.yaml, read by crashdoc.kb.companions) and CUDA driver
facts (cuda.yaml), validated."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from crashdoc.datafile import load_yaml
from crashdoc.envdoctor.errors import TableError
from crashdoc.envdoctor.facts import canonical
from crashdoc.kb.companions import GroupsFileError, groups_data

KINDS = ("same-version", "release-map", "cuda-wheels", "pins")


@dataclass(frozen=True)
class Group:
    """Packages that must move together (one entry of groups.yaml)."""

    id: str
    kind: str
    anchor: str
    """Canonical name of the package the others follow."""
    members: tuple[str, ...] = ()
    explanation: str = ""
    fix_note: str = ""
    same_variant: tuple[str, ...] = ()
    releases: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    indexes: Mapping[str, str] = field(default_factory=dict)
    """Package -> index URL with `{variant}` (cu128, cpu) for fix commands."""

    @property
    def names(self) -> tuple[str, ...]:
        """Anchor and members."""
        return (self.anchor, *self.members)


@dataclass(frozen=True)
class CudaTable:
    """Minimum drivers per CUDA release, and which nvidia-* wheels tell the CUDA major by their version."""

    drivers: Mapping[str, str]
    minor_compat: Mapping[str, str]
    min_compute_capability: Mapping[str, str]
    torch_variants: tuple[str, ...]
    version_is_cuda: frozenset[str]


@dataclass(frozen=True)
class Table:
    """Everything in the data files."""

    serving: tuple[str, ...]
    verify: tuple[str, ...]
    aliases: Mapping[str, str]
    groups: tuple[Group, ...]
    cuda: CudaTable
    recent_days: float = 7.0
    imports: Mapping[str, str] = field(default_factory=dict)
    """Distribution -> module imported by the `imports` check."""

    def groups_of(self, kind: str) -> tuple[Group, ...]:
        """The groups of one kind."""
        return tuple(g for g in self.groups if g.kind == kind)

    @property
    def indexes(self) -> dict[str, str]:
        """Every group's package -> index URL template (`https://download.pytorch.org/whl/{variant}`)."""
        return {k: v for g in self.groups for k, v in g.indexes.items()}

    def resolve(self, name: str) -> str:
        """A name from a log or an import (`flashinfer`) as a distribution name (`flashinfer-python`)."""
        key = canonical(name)
        return self.aliases.get(key, key)


def _need(entry: Mapping[str, Any], key: str, where: str, kind: type) -> Any:
    if key not in entry:
        raise TableError(f"{where}: '{key}' is missing; add it (see the comment at the top of the file)")
    value = entry[key]
    if not isinstance(value, kind):
        raise TableError(f"{where}: '{key}' must be a {kind.__name__}, not {type(value).__name__}")
    return value


def _names(values: Any, where: str) -> tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise TableError(f"{where}: expected a list of package names")
    return tuple(canonical(v) for v in values)


def _group(entry: Any, where: str) -> Group:
    if not isinstance(entry, dict):
        raise TableError(f"{where}: a group is a mapping with id, kind, anchor")
    gid = _need(entry, "id", where, str)
    where = f"{where} ({gid})"
    kind = _need(entry, "kind", where, str)
    if kind not in KINDS:
        raise TableError(f"{where}: kind '{kind}' is unknown; use one of {', '.join(KINDS)}")
    releases = entry.get("releases") or {}
    if not isinstance(releases, dict) or not all(isinstance(v, dict) for v in releases.values()):
        raise TableError(f"{where}: 'releases' maps an anchor release (\"2.8\") to {{member: release}}")
    return Group(
        id=gid, kind=kind, anchor=canonical(_need(entry, "anchor", where, str)),
        members=_names(entry.get("members") or [], f"{where} members"),
        explanation=" ".join(str(entry.get("explanation", "")).split()),
        fix_note=" ".join(str(entry.get("fix_note", "")).split()),
        same_variant=_names(entry.get("same_variant") or [], f"{where} same_variant"),
        releases={str(k): {canonical(m): str(v) for m, v in row.items()} for k, row in releases.items()},
        indexes={canonical(k): str(v) for k, v in (entry.get("indexes") or {}).items()},
    )


def _load(name: str) -> Mapping[str, Any]:
    text = resources.files("crashdoc.envdoctor").joinpath(name).read_text(encoding="utf-8")
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise TableError(f"{name}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise TableError(f"{name}: expected a mapping at the top")
    return data


def parse_table(groups: Mapping[str, Any], cuda: Mapping[str, Any]) -> Table:
    """Validate the two data files' contents into a Table; TableError names the file and the field."""
    g, c = "groups.yaml", "cuda.yaml"
    cuda_table = CudaTable(
        drivers={str(k): str(v) for k, v in _need(cuda, "drivers", c, dict).items()},
        minor_compat={str(k): str(v) for k, v in _need(cuda, "minor_compat", c, dict).items()},
        min_compute_capability={str(k): str(v) for k, v in (cuda.get("min_compute_capability") or {}).items()},
        torch_variants=tuple(str(v) for v in cuda.get("torch_variants") or ()),
        version_is_cuda=frozenset(_names(cuda.get("version_is_cuda") or [], f"{c} version_is_cuda")),
    )
    groups_list = _need(groups, "groups", g, list)
    parsed = tuple(_group(entry, f"{g} groups[{i}]") for i, entry in enumerate(groups_list))
    ids = [p.id for p in parsed]
    if len(set(ids)) != len(ids):
        raise TableError(f"{g}: group ids must be unique: {ids}")
    return Table(
        serving=_names(_need(groups, "serving", g, list), f"{g} serving"),
        verify=_names(_need(groups, "verify", g, list), f"{g} verify"),
        aliases={canonical(k): canonical(v) for k, v in (groups.get("aliases") or {}).items()},
        groups=parsed,
        cuda=cuda_table,
        recent_days=float(groups.get("recent_days", 7)),
        imports={canonical(k): str(v) for k, v in (groups.get("imports") or {}).items()},
    )


@lru_cache(maxsize=1)
def load_table() -> Table:
    """The package's data files, read once."""
    try:
        groups = groups_data()
    except GroupsFileError as exc:
        raise TableError(str(exc)) from exc
    return parse_table(groups, _load("cuda.yaml"))
