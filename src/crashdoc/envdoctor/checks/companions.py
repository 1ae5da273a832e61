"""Companion groups (groups.yaml): packages that must move together, and the CUDA wheels under torch."""

from __future__ import annotations

import re

from crashdoc.envdoctor.facts import Dist, ProbeFacts, canonical
from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    EnvFinding,
    Subject,
    env_finding,
)
from crashdoc.envdoctor.reqs import exact_pin, requirements
from crashdoc.envdoctor.table import Group
from crashdoc.envdoctor.versions import (
    index_for,
    install_command,
    local,
    release,
    same_public,
    torch_build,
)
from crashdoc.envdoctor.words import listing
from crashdoc.model import Fix

NAME = "companions"
CATEGORY = "dependency_version_mismatch"
_CU_SUFFIX = re.compile(r"-cu(\d+)$")


def _installed(facts: ProbeFacts, dists: list[Dist]) -> str:
    return f"{', '.join(d.label for d in dists)} installed in {facts.home}"


def _evidence(dists: list[Dist]) -> tuple[str, ...]:
    return tuple(f"{d.label}  {d.path}" for d in dists)


def _pinned_target(ctx: CheckContext, group: Group, facts: ProbeFacts) -> tuple[str, Dist] | None:
    """The anchor's version an installed engine pins (vllm requires flashinfer-python==X), with that engine."""
    for pins in ctx.table.groups_of("pins"):
        engine = facts.dist(pins.anchor)
        if engine is not None and group.anchor in pins.members:
            pin = exact_pin(engine, group.anchor, facts.markers)
            if pin:
                return pin, engine
    return None


def _same_version(ctx: CheckContext, group: Group, facts: ProbeFacts) -> list[EnvFinding]:
    anchor = facts.dist(group.anchor)
    members = [d for d in (facts.dist(m) for m in group.members) if d is not None]
    if anchor is None or not members:
        return []
    pinned = _pinned_target(ctx, group, facts)
    target = pinned[0] if pinned else anchor.version.split("+")[0]
    off = [d for d in (anchor, *members) if not same_public(d.version, target)]
    if not off:
        return []
    group_dists = [anchor, *members]
    if pinned:
        message = (f"{pinned[1].label} requires {anchor.name}=={target}; installed: "
                   f"{', '.join(d.label for d in group_dists)}")
    else:
        verb = "is" if len(off) == 1 else "are"
        message = (f"{listing([d.label for d in off], 5)} {verb} installed next to {anchor.label}; "
                   "they are released together and must have the same version")
    specs = [(f"{d.name}=={target}", index_for(group.indexes, d.key, local(d.version))) for d in off]
    command = install_command(specs)
    notes = " ".join(group.fix_note.format(member=d.name) for d in off if d is not anchor and group.fix_note)
    reason = f"the version {pinned[1].label} requires" if pinned else f"the version of {anchor.name}"
    fix = Fix(f"install {listing([d.name for d in off], 5)} at {target}, {reason}, with the service's interpreter "
              f"({ctx.python} -m {command})" + (f"; {notes}" if notes else ""), command)
    subject = Subject(tuple(d.key for d in group_dists), (), _installed(facts, group_dists))
    return [env_finding(NAME, group.id, message, CATEGORY, fix, score=90, explanation=group.explanation,
                        evidence=_evidence(group_dists), host=ctx.runner.host, subject=subject)]


def _release_problem(group: Group, anchor: Dist, member: Dist, facts: ProbeFacts) -> tuple[str, str | None] | None:
    """(why, wanted spec) when `member` does not belong with `anchor`; metadata pins first, then the table."""
    row = group.releases.get(release(anchor.version), {})
    wanted = f"{member.name}=={row[member.key]}.*" if member.key in row else None
    pin = exact_pin(anchor, member.key, facts.markers)
    if pin:
        if same_public(member.version, pin):
            return None
        return f"{anchor.label} requires {member.name}=={pin}", f"{member.name}=={pin}"
    back = exact_pin(member, anchor.key, facts.markers)
    if back:
        if same_public(anchor.version, back):
            return None
        return f"{member.label} is built for {anchor.name} {back} (it requires {anchor.name}=={back})", wanted
    if member.key in row and release(member.version) != row[member.key]:
        return f"{anchor.name} {release(anchor.version)} goes with {member.name} {row[member.key]}", wanted
    return None


def _release_map(ctx: CheckContext, group: Group, facts: ProbeFacts) -> list[EnvFinding]:
    anchor = facts.dist(group.anchor)
    members = [d for d in (facts.dist(m) for m in group.members) if d is not None]
    if anchor is None or not members:
        return []
    _, variant = torch_build(anchor.version, facts.torch_build if anchor.key == "torch" else None)
    problems: list[tuple[Dist, str, str | None]] = []
    for member in members:
        problem = _release_problem(group, anchor, member, facts)
        label = local(member.version)
        if problem is None and member.key in group.same_variant and label and variant != "unknown" and label != variant:
            row = group.releases.get(release(anchor.version), {})
            wanted = f"{member.name}=={row[member.key]}.*" if member.key in row else f"{member.name}=={member.version.split('+')[0]}"
            problem = (f"{member.label} is a {label} build, {anchor.label} a {variant} build", wanted)
        if problem is not None:
            problems.append((member, *problem))
    if not problems:
        return []
    dists = [anchor, *members]
    message = f"{'; '.join(p[1] for p in problems)}"
    specs = [(p[2], index_for(group.indexes, p[0].key, variant)) for p in problems if p[2]]
    command = install_command(specs) if specs else None
    fix = Fix(f"install the {listing([p[0].name for p in problems])} built for {anchor.label}"
              + (f": {command}" if command else f" (see the {anchor.name} release notes for the matching versions)"),
              command)
    subject = Subject(tuple(d.key for d in dists), (), _installed(facts, dists))
    return [env_finding(NAME, group.id, message, CATEGORY, fix, score=85, explanation=group.explanation,
                        evidence=_evidence(dists), host=ctx.runner.host, subject=subject)]


def wheel_cuda_major(dist: Dist, version_is_cuda: frozenset[str]) -> str | None:
    """The CUDA major an nvidia-* wheel is for (`-cu12` suffix, or its version); None for other wheels."""
    if not dist.key.startswith("nvidia-"):
        return None
    m = _CU_SUFFIX.search(dist.key)
    if m:
        return m.group(1)
    return release(dist.version, 1) if dist.key in version_is_cuda else None


def _cuda_wheels(ctx: CheckContext, group: Group, facts: ProbeFacts) -> list[EnvFinding]:
    torch = facts.dist(group.anchor)
    if torch is None:
        return []
    cuda, _ = torch_build(torch.version, facts.torch_build)
    wheels = {d.key: (d, wheel_cuda_major(d, ctx.table.cuda.version_is_cuda)) for d in facts.active.values()}
    if cuda is None:
        return []
    off = [d for d, major in wheels.values() if major and major != cuda.split(".")[0]]
    if not off:
        return []
    users = {d.key: [o.name for o in facts.active.values() if o.key != torch.key and
                     any(canonical(r.name) == d.key for r in requirements(o, facts.markers))]
             for d in off}
    removable = [d.name for d in off if not users[d.key]]
    kept = [f"{d.name} (required by {', '.join(users[d.key])})" for d in off if users[d.key]]
    majors = sorted({wheels[d.key][1] or "" for d in off})
    message = (f"{torch.label} is built for CUDA {cuda}, but CUDA {'/'.join(majors)} wheels are installed too: "
               f"{listing([d.label for d in off], 4)}")
    command = f"pip uninstall -y {' '.join(removable)}" if removable else None
    text = "remove the CUDA wheels nothing needs" + (f" ({command})" if command else "")
    if kept:
        text += f"; {listing(kept, 4)}: install releases of those packages built for CUDA {cuda.split('.')[0]}"
    subject = Subject((torch.key, *(d.key for d in off)), (), _installed(facts, [torch, *off]))
    return [env_finding(NAME, group.id, message, CATEGORY, Fix(text, command), score=60, explanation=group.explanation,
                        evidence=_evidence([torch, *off]), host=ctx.runner.host, subject=subject)]


_KINDS = {"same-version": _same_version, "release-map": _release_map, "cuda-wheels": _cuda_wheels}


def run(ctx: CheckContext) -> CheckResult:
    """Check every group of groups.yaml whose anchor is installed ("pins" groups are read by requirements)."""
    facts = ctx.facts()
    found: list[EnvFinding] = []
    lines, data = [], {}
    for group in ctx.table.groups:
        handler = _KINDS.get(group.kind)
        present = [d for d in (facts.dist(n) for n in group.names) if d is not None]
        if handler is None or facts.dist(group.anchor) is None:
            continue
        data[group.id] = {d.name: d.version for d in present}
        if group.kind != "cuda-wheels" and len(present) > 1:
            lines.append(f"{group.id}: {', '.join(d.label for d in present)}")
        found.extend(handler(ctx, group, facts))
    return CheckResult(tuple(found), tuple(lines), data)


CHECK = EnvCheck(NAME, "companion packages that must move together (groups.yaml)", run, frozenset({"dists"}))
