"""Patches: what a modified install changed. For each package whose files differ from their RECORD, fetch the
same wheel from the service's index with the service's interpreter (`pip download --no-deps NAME==VERSION`,
through the runner: locally or over ssh) and show a unified diff of each modified file against the wheel's
copy, bounded in size, so a debugging patch (a `torch.save(...)` block, a `breakpoint()`) is visible.

Opt-in (`crashdoc env --check patches`, or `--check all`): it downloads a wheel, possibly hundreds of MB, onto
the service's host (into a temporary folder it removes); a read-only diagnosis does not do that unasked. An
index that cannot be reached is said in the report (a `skipped` entry), not an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

from crashdoc.envdoctor.errors import CheckSkipped
from crashdoc.envdoctor.interface import CheckContext, CheckResult, EnvCheck
from crashdoc.envdoctor.words import plural, size
from crashdoc.errors import TransportError
from crashdoc.model import Skipped

NAME = "patches"
MAX_PACKAGES = 5
MAX_FILES = 10
MAX_LINES = 80
"""Diff lines shown per file (the rest is counted)."""
MAX_BYTES = 4 << 20
"""Files larger than this are not diffed."""
FETCH_TIMEOUT = 600.0
#: added lines that look like debugging code
DEBUGGING = re.compile(r"\b(torch\.save|breakpoint\(\)|pdb\.set_trace|import pdb|print\(|np\.save|pickle\.dump)")


def request(ctx: CheckContext, section: Mapping[str, Any]) -> dict[str, Any]:
    """What the script on the host is asked: the modified and missing files of each package, with its RECORD."""
    facts = ctx.facts()
    packages = []
    for pkg in section["packages"]:
        dist = facts.dist(pkg["name"])
        if dist is None or not (pkg["modified_count"] or pkg["missing_count"]):
            continue
        files = [{"path": e["path"], "abspath": e["abspath"], "state": "modified"} for e in pkg["modified"]]
        files += [{"path": e["path"], "abspath": e["abspath"], "state": "missing"} for e in pkg["missing"]]
        packages.append({"name": dist.name, "version": dist.version, "dist_info": dist.path, "files": files[:MAX_FILES]})
    return {"packages": packages[:MAX_PACKAGES], "max_lines": MAX_LINES, "max_bytes": MAX_BYTES,
            "timeout": FETCH_TIMEOUT - 30}


def script(req: Mapping[str, Any]) -> bytes:
    """wheel_diff.py with the request in front of it, for `python -I -`."""
    source = resources.files("crashdoc.envdoctor").joinpath("wheel_diff.py").read_text(encoding="utf-8")
    return f"CRASHDOC_REQUEST = {json.dumps(json.dumps(dict(req)))}\n{source}".encode()


def fetch_and_diff(ctx: CheckContext, req: Mapping[str, Any]) -> dict[str, Any]:
    """Run the script with the service's interpreter through the runner; its JSON answer."""
    try:
        result = ctx.runner.run([ctx.python, "-I", "-"], timeout=FETCH_TIMEOUT, stdin=script(req))
    except TransportError as exc:
        raise CheckSkipped(f"could not run {ctx.python}: {exc}") from exc
    if not result.ok:
        raise CheckSkipped(f"{ctx.python} could not compare with the index: {result.stderr_line() or result.returncode}")
    try:
        answer: dict[str, Any] = json.loads(result.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        raise CheckSkipped(f"the comparison's answer is not JSON: {result.stdout[:200]!r}") from exc
    return answer


def _file_lines(f: Mapping[str, Any]) -> list[str]:
    head = f"{f['abspath']}: "
    if not f["diff"] and f["state"] not in ("modified", "missing"):
        return [head + f["state"]]
    if not f["diff"]:
        return [head + "same text as the wheel's copy (only bytes that are not text differ)"]
    added = [ln[1:].strip() for ln in f["diff"][2:] if ln.startswith("+")]
    debug = sorted({m.group(1) for ln in added for m in [DEBUGGING.search(ln)] if m})
    note = f"; added debugging code: {', '.join(debug)}" if debug else ""
    record = " (the wheel's copy is what was installed)" if f.get("matches_record") else \
        " (the wheel's copy differs from what RECORD says was installed: another build)" \
        if f.get("matches_record") is False else ""
    out = [f"{head}+{f['added']} -{f['removed']} lines against the wheel{record}{note}"]
    out += [f"  {ln}" for ln in f["diff"]]
    if f["omitted"]:
        out.append(f"  ... {f['omitted']} more diff lines not shown")
    return out


def _package_lines(p: Mapping[str, Any], where: str) -> tuple[list[str], list[Skipped]]:
    spec = f"{p['name']}=={p['version']}"
    if p.get("error"):
        why = "the index cannot be reached from " + where + " (offline?)" if p.get("offline") else "not fetched"
        return ([f"patches: {spec}: {why}: {p['error']}; the modified files are listed above, without a diff"],
                [Skipped(f"patch of {p['name']} {p['version']}", f"{why}: {p['error']}")])
    lines = [f"patches: {p['name']} {p['version']} against {p['wheel']} from the service's index "
             f"({size(p['bytes'])}, {p['seconds']:.1f} s), {plural(len(p['files']), 'file')}:"]
    for f in p["files"]:
        lines += _file_lines(f)
    return lines, []


def run(ctx: CheckContext) -> CheckResult:
    """Fetch each modified package's wheel from the service's index and diff its modified files."""
    section = ctx.facts().section("integrity")
    req = request(ctx, section)
    if not req["packages"]:
        return CheckResult(lines=("patches: no modified package to compare",), data={"packages": []})
    answer = fetch_and_diff(ctx, req)
    where = ctx.runner.host or "this machine"
    lines: list[str] = []
    skipped: list[Skipped] = []
    for p in answer.get("packages", ()):
        more, skips = _package_lines(p, where)
        lines += more
        skipped += skips
    return CheckResult((), tuple(lines), {"pip": answer.get("pip"), "packages": answer.get("packages", [])},
                       tuple(skipped))


CHECK = EnvCheck(NAME, "diff of each modified file against the same wheel from the service's index (downloads the "
                 "wheel: opt-in)", run, frozenset({"dists", "integrity"}), default=False)
