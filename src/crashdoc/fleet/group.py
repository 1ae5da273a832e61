"""Hosts grouped by the fingerprint of their root cause: `6 of 8 hosts: <cause> (node-01..04, 06, 07)`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from crashdoc.fleet.pool import FleetResult, HostResult
from crashdoc.model import Finding


@dataclass(frozen=True)
class CauseGroup:
    """Hosts whose diagnosis has the same root cause (or, with no fingerprint, no error at all)."""

    fingerprint: str | None
    """The root cause's fingerprint; None for the hosts whose evidence shows no error."""
    hosts: tuple[str, ...]
    root_cause: Finding | None
    """The root cause as the group's first host reported it."""


def groups(result: FleetResult) -> tuple[CauseGroup, ...]:
    """The diagnosed hosts grouped by root-cause fingerprint, largest group first (ties: first host given)."""
    order: list[str | None] = []
    members: dict[str | None, list[HostResult]] = {}
    for h in result.hosts:
        if h.status != "diagnosed" or h.diagnosis is None:
            continue
        root = h.diagnosis.root_cause
        key = (root.fingerprint or f"{root.exception}: {root.message}") if root is not None else None
        if key not in members:
            order.append(key)
            members[key] = []
        members[key].append(h)
    order.sort(key=lambda k: (k is None, -len(members[k])))  # stable: first seen wins a tie
    out = []
    for key in order:
        first = members[key][0].diagnosis
        out.append(CauseGroup(key, tuple(h.host for h in members[key]), first.root_cause if first else None))
    return tuple(out)


def cause_title(f: Finding | None, limit: int = 120) -> str:
    """A root cause in one short line: `RuntimeError: flashinfer-cubin version (0.6.3) does not match ...`."""
    if f is None:
        return "no error in the evidence"
    text = f"{f.exception}: {f.message}" if f.exception and not f.message.startswith(f.exception) else f.message
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_NUMBERED = re.compile(r"(.*?)(\d+)")


def compact_hosts(names: Sequence[str]) -> str:
    """Host names as a person writes them: `node-01..04, 06, 07, gpu-a` (runs of three or more numbers that
    share a prefix are a range; later numbers of a prefix drop it)."""
    parts: list[str] = []
    i = 0
    items = sorted(names, key=_natural)
    while i < len(items):
        m = _NUMBERED.fullmatch(items[i])
        if m is None:
            parts.append(items[i])
            i += 1
            continue
        prefix = m.group(1)
        nums = []
        while i < len(items):
            mm = _NUMBERED.fullmatch(items[i])
            if mm is None or mm.group(1) != prefix:
                break
            nums.append(mm.group(2))
            i += 1
        parts.extend(_runs(prefix, nums))
    return ", ".join(parts)


def _runs(prefix: str, nums: list[str]) -> list[str]:
    """`node-`, [01 02 03 04 06 07] -> `node-01..04`, `06`, `07`."""
    out: list[str] = []
    j = 0
    while j < len(nums):
        k = j
        while k + 1 < len(nums) and int(nums[k + 1]) == int(nums[k]) + 1:
            k += 1
        if k - j >= 2:
            out.append(f"{'' if out else prefix}{nums[j]}..{nums[k]}")
        else:
            for n in range(j, k + 1):
                out.append(f"{'' if out else prefix}{nums[n]}")
        j = k + 1
    return out


def _natural(name: str) -> tuple[object, ...]:
    """`node-2` before `node-10`."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))
