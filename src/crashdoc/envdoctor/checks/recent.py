"""What changed recently: packages installed or upgraded in the last days, set against the first failure."""

from __future__ import annotations

from crashdoc.envdoctor.facts import Dist, ProbeFacts
from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    Subject,
    env_finding,
)
from crashdoc.envdoctor.words import ago, listing, when
from crashdoc.model import Fix

NAME = "recent"
MAX_LINES = 12


def _relative(dist: Dist, since: float | None, facts: ProbeFacts) -> str:
    assert dist.installed is not None
    if since is None:
        return f"installed {ago(facts.now - dist.installed)} ago ({when(dist.installed, facts.utc_offset)})"
    side = "before" if dist.installed <= since else "after"
    return f"installed {ago(since - dist.installed)} {side} the first failure ({when(dist.installed, facts.utc_offset)})"


def _unchanged_companions(ctx: CheckContext, dist: Dist, facts: ProbeFacts) -> list[str]:
    """Companions of `dist` installed well before it (an hour or more): the half of the group that did not move."""
    out = []
    for group in ctx.table.groups:
        if group.kind in ("same-version", "release-map") and dist.key in group.names:
            for name in group.names:
                other = facts.dist(name)
                if other and other.installed and dist.installed and other.installed < dist.installed - 3600:
                    out.append(f"{other.label} unchanged for {ago(facts.now - other.installed)}")
    return out


def run(ctx: CheckContext) -> CheckResult:
    """List packages installed in the last `recent_days` (groups.yaml), newest first, relative to the failure."""
    facts = ctx.facts()
    since = ctx.since_epoch()
    window = ctx.table.recent_days * 86400
    dated = [d for d in facts.active.values() if d.installed is not None]
    recent = sorted((d for d in dated if facts.now - (d.installed or 0) <= window), key=lambda d: -(d.installed or 0))
    lines = []
    for dist in recent[:MAX_LINES]:
        extra = _unchanged_companions(ctx, dist, facts)
        lines.append(f"{dist.label} {_relative(dist, since, facts)}" + (f"; {'; '.join(extra)}" if extra else ""))
    if len(recent) > MAX_LINES:
        lines.append(f"... and {len(recent) - MAX_LINES} more packages installed in the last {ctx.table.recent_days:g} days")
    if not recent:
        newest = max(dated, key=lambda d: d.installed or 0, default=None)
        lines.append(f"no package installed in the last {ctx.table.recent_days:g} days"
                     + (f" (newest: {newest.label}, {when(newest.installed or 0, facts.utc_offset)})" if newest else ""))
    found = []
    after = [d for d in dated if since is not None and (d.installed or 0) > since + 1]
    if after:
        labels = [f"{d.label} ({_relative(d, since, facts)})" for d in sorted(after, key=lambda d: d.installed or 0)]
        found.append(env_finding(
            NAME, "after-failure", f"the environment changed after the first failure: {listing(labels, 4)}",
            "other", Fix("the checks see the environment as it is now, not as it was when the service failed; "
                         "compare with the versions the log names", None),
            score=20, role="unknown", host=ctx.runner.host,
            subject=Subject(tuple(d.key for d in after), (), f"changed after the first failure: "
                            f"{listing([d.label for d in after], 4)}")))
    data = {"since": when(since, facts.utc_offset) if since is not None else None,
            "packages": [{"name": d.name, "version": d.version, "installed": when(d.installed or 0, facts.utc_offset),
                          "seconds_before_failure": round(since - (d.installed or 0)) if since is not None else None}
                         for d in recent]}
    return CheckResult(tuple(found), tuple(lines), data)


CHECK = EnvCheck(NAME, "packages installed or upgraded recently (dist-info times), against the first failure",
                 run, frozenset({"dists"}))
