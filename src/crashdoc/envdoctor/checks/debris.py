"""Debris: core files and large tensor dumps (*.pt) in /tmp, the working directory and the coredump store."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    EnvFinding,
    Subject,
    env_finding,
)
from crashdoc.envdoctor.words import ago, listing, plural, size, when
from crashdoc.model import Fix

NAME = "debris"
MIN_DUMP = 1 << 20          # tensor dumps smaller than this are not debris
LARGE_DUMPS = 1 << 30       # from this total on, dumps are reported as a disk problem
LISTED = 10                 # debris files listed one by one


def remove_command(paths: Sequence[str]) -> str:
    """The command that would remove `paths` (shown, never run by crashdoc)."""
    return "rm -f -- " + " ".join(shlex.quote(p) for p in paths)


def _listed(files: Sequence[Mapping[str, Any]], utc_offset: int, since: float | None, host: str | None) -> list[str]:
    """Each debris file with its size and time, and the command that would remove them all."""
    if not files:
        return []
    out = []
    for f in files[:LISTED]:
        rel = ""
        if since is not None:
            rel = ", after the first failure" if f["mtime"] >= since else ", before the first failure"
        out.append(f"  {f['path']} ({f['kind']}, {size(f['size'])}, {when(f['mtime'], utc_offset)}{rel})")
    if len(files) > LISTED:
        out.append(f"  and {len(files) - LISTED} more ({size(sum(f['size'] for f in files[LISTED:]))})")
    where = f" on {host}" if host else ""
    out.append(f"to remove them{where} (crashdoc does not): {remove_command([f['path'] for f in files])}")
    return out


def run(ctx: CheckContext) -> CheckResult:
    """Report core files (a native crash happened) and tensor dumps that fill the disk."""
    facts = ctx.facts()
    section = facts.section("debris")
    since = ctx.since_epoch()
    cores = [f for f in section["files"] if f["kind"] == "core"]
    dumps = [f for f in section["files"] if f["kind"] == "tensor dump" and f["size"] >= MIN_DUMP]
    found: list[EnvFinding] = []
    if cores:
        newest = cores[0]
        rel = ""
        if since is not None:
            rel = f", {ago(newest['mtime'] - since)} {'after' if newest['mtime'] >= since else 'before'} the first failure"
        paths = [c["path"] for c in cores]
        command = f"gdb -batch -ex bt {ctx.python} {newest['path']}" if not newest["path"].endswith(".zst") else "coredumpctl info"
        found.append(env_finding(
            NAME, "cores", f"{plural(len(cores), 'core file')}: {listing(paths, 3)}; newest "
            f"{when(newest['mtime'], facts.utc_offset)}{rel}", "other",
            Fix(f"a process crashed in native code (segfault, abort); read the stack of the newest ({command}), "
                "then remove the core files", command), score=35, role="unknown", host=ctx.runner.host,
            subject=Subject((), tuple(paths), f"core file {newest['path']}")))
    total = sum(d["size"] for d in dumps)
    if dumps and total >= LARGE_DUMPS:
        paths = [d["path"] for d in dumps]
        found.append(env_finding(
            NAME, "dumps", f"{plural(len(dumps), 'tensor dump')} take {size(total)}: {listing(paths, 3)}",
            "host_resources", Fix(f"remove the dumps you no longer need: {listing(paths, 5)}", remove_command(paths)),
            score=25, role="unknown", host=ctx.runner.host, subject=Subject((), tuple(paths), f"{size(total)} of dumps")))
    where = ", ".join(section["roots"])
    line = (f"debris in {where}: {plural(len(cores), 'core file')}, {plural(len(dumps), 'tensor dump')}"
            + (f" ({size(total)})" if dumps else ""))
    lines = [line, *_listed([*cores, *dumps], facts.utc_offset, since, ctx.runner.host)]
    if section.get("core_pattern"):
        lines.append(f"core files go to: {section['core_pattern']}")
    remove = remove_command([f["path"] for f in (*cores, *dumps)]) if cores or dumps else None
    return CheckResult(tuple(found), tuple(lines), {"cores": cores, "dumps": dumps, "core_pattern": section.get("core_pattern"),
                                                    "remove_command": remove})


CHECK = EnvCheck(NAME, "core files and large tensor dumps (*.pt) in /tmp and the working directory", run,
                 frozenset({"debris"}))
