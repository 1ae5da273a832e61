"""Declared requirements satisfied (what `pip check` does), from the serving packages down; engine pins."""

from __future__ import annotations

from packaging.requirements import Requirement

from crashdoc.envdoctor.facts import Dist, ProbeFacts, canonical
from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    EnvFinding,
    Subject,
    env_finding,
)
from crashdoc.envdoctor.reqs import closure, requirements, satisfied, spec_text
from crashdoc.envdoctor.table import Table
from crashdoc.envdoctor.versions import index_for, install_command, local
from crashdoc.envdoctor.words import listing, plural
from crashdoc.model import Fix

NAME = "requirements"


def _companion_pairs(table: Table) -> set[tuple[str, str]]:
    """(a, b) pairs inside one companion group, which the companions check reports better."""
    pairs: set[tuple[str, str]] = set()
    for group in table.groups:
        if group.kind in ("same-version", "release-map"):
            for a in group.names:
                pairs.update((a, b) for b in group.names if a != b)
    return pairs


def _missing(ctx: CheckContext, dist: Dist, reqs: list[Requirement], facts: ProbeFacts) -> EnvFinding:
    specs = [spec_text(r) for r in reqs]
    command = install_command([(s, None) for s in specs])
    return env_finding(
        NAME, f"missing:{dist.key}", f"{dist.label} requires {listing(specs, 6)}, "
        f"{'which is' if len(specs) == 1 else 'which are'} not installed", "missing_dependency",
        Fix(f"install {'it' if len(specs) == 1 else 'them'} with the service's interpreter ({ctx.python} -m {command})",
            command), score=75, evidence=(f"{dist.label}  {dist.path}",), host=ctx.runner.host,
        subject=Subject((dist.key, *(canonical(r.name) for r in reqs)), (),
                        f"{listing([r.name for r in reqs], 4)} missing from {facts.home}"))


def _conflict(ctx: CheckContext, dist: Dist, req: Requirement, have: Dist, facts: ProbeFacts) -> EnvFinding:
    spec = spec_text(req)
    index = index_for(ctx.table.indexes, have.key, local(have.version))
    command = install_command([(spec, index)])
    return env_finding(
        NAME, f"{dist.key}:{have.key}", f"{dist.label} requires {spec}, but {have.label} is installed",
        "dependency_version_mismatch",
        Fix(f"install a {req.name} that {dist.name} accepts ({ctx.python} -m {command}), or a {dist.name} release "
            f"made for {have.label}", command), score=70,
        evidence=(f"{dist.label}  {dist.path}", f"{have.label}  {have.path}"), host=ctx.runner.host,
        subject=Subject((dist.key, have.key), (), f"{dist.label}, {have.label} installed in {facts.home}"))


def _pinned(ctx: CheckContext, engine: Dist, off: list[tuple[Requirement, Dist | None]], facts: ProbeFacts,
            explanation: str) -> EnvFinding:
    wanted = [spec_text(r) for r, _ in off]
    have = [h.label if h else f"no {r.name}" for r, h in off]
    command = install_command([(spec_text(r), index_for(ctx.table.indexes, canonical(r.name), local(h.version) if h else None))
                               for r, h in off])
    dists = [engine, *(h for _, h in off if h)]
    return env_finding(
        NAME, f"pins:{engine.key}", f"{engine.label} was built against {listing(wanted, 6)}, but {listing(have, 6)} "
        f"{'is' if len(off) == 1 else 'are'} installed", "dependency_version_mismatch",
        Fix(f"put back the versions {engine.label} was built against ({ctx.python} -m {command}), or install the "
            f"{engine.name} release made for what is installed", command), score=85, explanation=explanation,
        evidence=tuple(f"{d.label}  {d.path}" for d in dists), host=ctx.runner.host,
        subject=Subject(tuple(d.key for d in dists), (), f"{', '.join(d.label for d in dists)} installed in {facts.home}"))


def run(ctx: CheckContext) -> CheckResult:
    """Check the requirements of the serving packages and all they require (every package when none is there)."""
    facts = ctx.facts()
    active = facts.active
    roots = [d for d in (facts.dist(n) for n in ctx.table.serving) if d is not None]
    scope = closure(roots, active, facts.markers) if roots else sorted(active.values(), key=lambda d: d.key)
    skip_pairs = _companion_pairs(ctx.table) if "companions" in ctx.selected else set()
    pins = {g.anchor: (set(g.members), g.explanation) for g in ctx.table.groups_of("pins")}
    found: list[EnvFinding] = []
    for dist in scope:
        pinned_off: list[tuple[Requirement, Dist | None]] = []
        missing: list[Requirement] = []
        for req in requirements(dist, facts.markers):
            key = canonical(req.name)
            have = active.get(key)
            if (dist.key, key) in skip_pairs or (have is not None and satisfied(req, have.version) is not False):
                continue
            if key in pins.get(dist.key, ((), ""))[0]:
                pinned_off.append((req, have))
            elif have is None:
                missing.append(req)
            else:
                found.append(_conflict(ctx, dist, req, have, facts))
        if missing:
            found.append(_missing(ctx, dist, missing, facts))
        if pinned_off:
            found.append(_pinned(ctx, dist, pinned_off, facts, pins[dist.key][1]))
    what = "the serving packages and what they require" if roots else "every installed package"
    verdict = "all satisfied" if not found else plural(len(found), "problem")
    lines = (f"requirements: {plural(len(scope), 'package')} checked ({what}): {verdict}",)
    return CheckResult(tuple(found), lines, {"checked": [d.name for d in scope], "problems": len(found)})


CHECK = EnvCheck(NAME, "declared requirements satisfied, like pip check (serving packages and their dependencies)",
                 run, frozenset({"dists"}))
