"""The companion groups (data/groups.yaml): packages that must move together. Read once here, early, so that a
fix can pin a group together (analyze) and the environment checks can validate the same file (envdoctor)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from crashdoc import datafile
from crashdoc.kb.errors import RuleError

GROUPS_FILE = "groups.yaml"


class GroupsFileError(RuleError):
    """data/groups.yaml is not valid YAML, or not a mapping."""


def _canonical(name: str) -> str:
    from packaging.utils import canonicalize_name  # NOTE: imported when used: packaging costs a start 40 ms

    return str(canonicalize_name(name))


@lru_cache(maxsize=1)
def groups_data() -> Mapping[str, Any]:
    """The raw contents of data/groups.yaml (validated into a table by crashdoc.envdoctor.table)."""
    text = datafile.package_file("data", GROUPS_FILE).read_text(encoding="utf-8")
    try:
        data = datafile.load_yaml(text, cache=True)
    except datafile.YAMLError as exc:
        raise GroupsFileError(f"{GROUPS_FILE}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise GroupsFileError(f"{GROUPS_FILE}: expected a mapping at the top")
    return data


@lru_cache(maxsize=1)
def same_version_companions() -> Mapping[str, tuple[str, ...]]:
    """Anchor -> the members of its `same-version` group that a plain `pip install` can fetch (a member with an
    index of its own, such as flashinfer-jit-cache, is left to the text), all names PEP 503 normalised."""
    out: dict[str, tuple[str, ...]] = {}
    for group in groups_data().get("groups") or ():
        if not isinstance(group, dict) or group.get("kind") != "same-version" or not group.get("anchor"):
            continue
        own_index = {_canonical(str(k)) for k in (group.get("indexes") or {})}
        members = tuple(_canonical(str(m)) for m in group.get("members") or () if _canonical(str(m)) not in own_index)
        out[_canonical(str(group["anchor"]))] = members
    return out


def alias(name: str) -> str:
    """The distribution a log's name stands for (`flashinfer` -> `flashinfer-python`), normalised."""
    aliases = {_canonical(str(k)): _canonical(str(v)) for k, v in (groups_data().get("aliases") or {}).items()}
    return aliases.get(_canonical(name), _canonical(name))


@lru_cache(maxsize=1)
def optional_members() -> frozenset[str]:
    """Members of a same-version group that the anchor works without (`optional:` of the group): a fix may
    uninstall one when no release of it matches the anchor's version."""
    return frozenset(_canonical(str(m)) for group in groups_data().get("groups") or () if isinstance(group, dict)
                     for m in group.get("optional") or ())
