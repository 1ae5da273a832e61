"""Install integrity: files of the serving packages that differ from their RECORD, are missing, or unlisted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crashdoc.envdoctor.facts import Dist, ProbeFacts
from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    EnvFinding,
    Subject,
    env_finding,
)
from crashdoc.envdoctor.versions import index_for, install_command, local
from crashdoc.envdoctor.words import ago, listing, plural, size, when
from crashdoc.model import Fix, Skipped

NAME = "integrity"
MODIFIED_EXPLANATION = (
    "pip records a hash of every file it installs (RECORD in the .dist-info); a file whose content differs was "
    "changed after the install: a debugging patch left behind, a partial upgrade, a file system error. The "
    "service runs that code, not the released one."
)
UNLISTED_EXPLANATION = (
    "Files inside a package directory that no installed package's RECORD lists were put there by hand or left by "
    "an older install; Python imports them like the package's own modules."
)


def _note(entry: Mapping[str, Any], dist: Dist, facts: ProbeFacts) -> str:
    if "mtime" not in entry:
        return "missing"
    parts = []
    if entry.get("reason") == "size":
        parts.append(f"{entry['size']} bytes instead of {entry['expected_size']}")
    if dist.installed and entry["mtime"] > dist.installed + 1:
        parts.append(f"edited {when(entry['mtime'], facts.utc_offset)}, "
                     f"{ago(entry['mtime'] - dist.installed)} after install")
    return ", ".join(parts) or "content differs"


def _reinstall(ctx: CheckContext, dist: Dist) -> str:
    spec = f"{dist.name}=={dist.version}"
    return install_command([(spec, index_for(ctx.table.indexes, dist.key, local(dist.version)))],
                           ("--force-reinstall", "--no-deps"))


def _modified(ctx: CheckContext, dist: Dist, pkg: Mapping[str, Any], facts: ProbeFacts) -> EnvFinding:
    entries = list(pkg["modified"]) + list(pkg["missing"])
    count = pkg["modified_count"] + pkg["missing_count"]
    shown = [f"{e['abspath']} ({_note(e, dist, facts)})" for e in entries]
    verb = "differs" if count == 1 else "differ"
    message = f"{plural(count, 'file')} of {dist.label} {verb} from what was installed (RECORD): {listing(shown, 3)}"
    command = _reinstall(ctx, dist)
    host = f" --host {ctx.runner.host}" if ctx.runner.host else ""
    see = "" if "patches" in ctx.selected else \
        f"; to see what changed against the index's wheel: crashdoc env{host} --python {ctx.python} --check patches"
    fix = Fix(f"reinstall {dist.label} to restore its files ({ctx.python} -m {command}); keep a copy first if "
              f"the change is wanted{see}", command)
    paths = tuple(e["abspath"] for e in entries)
    summary = f"{listing([e['abspath'] for e in entries], 2)} of {dist.label} modified after install in {facts.home}"
    return env_finding(NAME, f"modified:{dist.key}", message, "modified_install", fix, score=80,
                       explanation=MODIFIED_EXPLANATION, evidence=tuple(shown[:20]), host=ctx.runner.host,
                       subject=Subject((dist.key,), paths, summary))


def _unlisted(ctx: CheckContext, dist: Dist, pkg: Mapping[str, Any], facts: ProbeFacts) -> EnvFinding:
    paths = [e["abspath"] for e in pkg["unlisted"]]
    message = (f"{plural(pkg['unlisted_count'], 'file')} in the package directories of {dist.label} "
               f"{'is' if pkg['unlisted_count'] == 1 else 'are'} not in any RECORD: {listing(paths, 3)}")
    fix = Fix("remove them unless they are meant to be there (pip never removes files it did not install): "
              + listing(paths, 5), None)
    return env_finding(NAME, f"unlisted:{dist.key}", message, "modified_install", fix, score=30, role="unknown",
                       explanation=UNLISTED_EXPLANATION, evidence=tuple(paths[:20]), host=ctx.runner.host,
                       subject=Subject((dist.key,), tuple(paths), f"{listing(paths, 2)} added to {dist.label}"))


def run(ctx: CheckContext) -> CheckResult:
    """Read the probe's RECORD verification and report each package with modified, missing or unlisted files."""
    facts = ctx.facts()
    section = facts.section("integrity")
    found: list[EnvFinding] = []
    skipped = [Skipped(f"integrity of {s['name']}", s["reason"]) for s in section.get("skipped", ())]
    for pkg in section["packages"]:
        dist = facts.dist(pkg["name"])
        if dist is None:
            continue
        if pkg["modified_count"] or pkg["missing_count"]:
            found.append(_modified(ctx, dist, pkg, facts))
        if pkg["unlisted_count"]:
            found.append(_unlisted(ctx, dist, pkg, facts))
    pkgs = section["packages"]
    hashed = sum(p["hashed_bytes"] for p in pkgs)
    changed = sum(p["modified_count"] + p["missing_count"] for p in pkgs)
    line = (f"integrity: {plural(len(pkgs), 'package')} ({sum(p['hashed_files'] for p in pkgs)} files, {size(hashed)}) "
            f"checked against RECORD in {section['seconds']:.1f} s: {plural(changed, 'modified file')}, "
            f"{plural(sum(p['unlisted_count'] for p in pkgs), 'unlisted file')}")
    if not pkgs:
        line = f"integrity: none of {', '.join(ctx.table.verify) if ctx.verify == 'serving' else ctx.verify} installed"
    data = {"seconds": section["seconds"], "workers": section.get("workers"), "bytes": hashed,
            "packages": {p["name"]: {k: p[k] for k in ("version", "hashed_files", "hashed_bytes", "seconds",
                                                       "modified_count", "missing_count", "unlisted_count")}
                         for p in pkgs}}
    return CheckResult(tuple(found), (line,), data, tuple(skipped))


CHECK = EnvCheck(NAME, "installed files of the serving packages against their RECORD hashes (--verify all: every "
                 "package)", run, frozenset({"dists", "integrity"}))
