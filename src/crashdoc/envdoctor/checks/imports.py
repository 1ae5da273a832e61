"""Opt-in: import each serving package in the target interpreter, one process each, and report what fails."""

from __future__ import annotations

import json

from crashdoc.envdoctor.errors import CheckSkipped
from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    EnvFinding,
    Subject,
    env_finding,
)
from crashdoc.errors import CrashdocError, TransportError
from crashdoc.model import Fix

NAME = "imports"
TIMEOUT = 300.0
SCRIPT = """\
import json, sys, traceback
try:
    __import__(sys.argv[1])
    out = {"ok": True}
except BaseException as exc:
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    out = {"ok": False, "exception": type(exc).__name__, "message": str(exc)[:4000],
           "frame": "%s:%d in %s" % (last.filename, last.lineno, last.name) if last else None}
sys.stdout.write("\\n" + json.dumps(out) + "\\n")
"""
_HINTS = (
    ("undefined symbol", "abi_mismatch"),
    ("does not match", "dependency_version_mismatch"),
    ("driver version is insufficient", "cuda_driver_mismatch"),
    ("no kernel image", "cuda_driver_mismatch"),
)


def _classify(exception: str, message: str) -> tuple[str, Fix | None]:
    """Category and fix from the knowledge base when it is there, else from a few plain hints."""
    try:
        from crashdoc.kb import KnowledgeBase  # the knowledge base is optional here
        match = KnowledgeBase.load().classify(exception=exception, message=message, line=f"{exception}: {message}")
    except (ImportError, CrashdocError):  # no knowledge base, or it cannot load: fall back to the hints
        match = None
    if match is not None:
        return match.category, Fix(match.fix_text or "see the rule's explanation", match.fix_command)
    for needle, category in _HINTS:
        if needle in message:
            return category, None
    if exception in ("ModuleNotFoundError", "ImportError"):
        return "missing_dependency", None
    return "other", None


def _import(ctx: CheckContext, module: str) -> dict[str, object]:
    try:
        result = ctx.runner.run([ctx.python, "-c", SCRIPT, module], timeout=TIMEOUT)
    except TransportError as exc:
        raise CheckSkipped(f"could not run {ctx.python}: {exc}") from exc
    for line in reversed(result.stdout.decode("utf-8", "replace").splitlines()):
        if line.startswith("{"):
            try:
                return dict(json.loads(line))
            except ValueError:
                break
    return {"ok": False, "exception": None, "frame": None,
            "message": f"the interpreter died (exit status {result.returncode}): {result.stderr_line()}"}


def run(ctx: CheckContext) -> CheckResult:
    """`import torch`, `import flashinfer`, `import vllm` ... each in a fresh process of the target interpreter."""
    facts = ctx.facts()
    found: list[EnvFinding] = []
    lines = []
    for dist_name, module in ctx.table.imports.items():
        dist = facts.dist(dist_name)
        if dist is None:
            continue
        out = _import(ctx, module)
        if out.get("ok"):
            lines.append(f"import {module}: ok")
            continue
        exception, message = out.get("exception"), str(out.get("message"))
        lines.append(f"import {module}: {exception}: {message.splitlines()[0] if message else ''}")
        category, fix = _classify(str(exception), message)
        found.append(env_finding(
            NAME, module, f"import {module} fails: {exception}: {message}", category,
            fix or Fix(f"read the error above; it is raised by {out.get('frame') or module}", None),
            score=88, host=ctx.runner.host, exception=str(exception) if exception else None,
            evidence=(f"{ctx.python} -c 'import {module}'", f"{exception}: {message}"),
            subject=Subject((dist.key,), (), f"import {module} fails in {facts.home}: {exception}")))
    return CheckResult(tuple(found), tuple(lines), {"imported": lines})


CHECK = EnvCheck(NAME, "import each serving package in the target interpreter and report the errors (slow; opt-in)",
                 run, frozenset({"dists"}), default=False)
