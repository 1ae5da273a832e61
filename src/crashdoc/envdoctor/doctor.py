"""check_environment: run the probe once, then every selected check; a check that cannot run is Skipped."""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from crashdoc.envdoctor.checks import CHECKS, DEFAULT_CHECKS
from crashdoc.envdoctor.errors import CheckSkipped, ProbeError
from crashdoc.envdoctor.facts import ProbeFacts, canonical, run_probe
from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    EnvFinding,
    EnvReport,
)
from crashdoc.envdoctor.table import Table, load_table
from crashdoc.errors import CrashdocError
from crashdoc.model import Section, Skipped
from crashdoc.transport import Runner

DEFAULT_PYTHON = "python3"


def select_checks(names: Sequence[str] | None) -> tuple[list[EnvCheck], list[Skipped]]:
    """The checks to run, in registry order; `default` and `all` stand for those sets; unknown names are Skipped."""
    if names is None:
        return [CHECKS[n] for n in DEFAULT_CHECKS], []
    wanted: set[str] = set()
    skipped = []
    for raw in names:
        for name in (n.strip() for n in raw.split(",")):
            if name == "all":
                wanted.update(CHECKS)
            elif name == "default":
                wanted.update(DEFAULT_CHECKS)
            elif name in CHECKS:
                wanted.add(name)
            elif name:
                close = difflib.get_close_matches(name, list(CHECKS), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                skipped.append(Skipped(f"check {name}", f"no check named '{name}'{hint}; "
                                                        "run `crashdoc env --list-checks`"))
    return [c for n, c in CHECKS.items() if n in wanted], skipped


def verify_names(verify: str, table: Table) -> list[str]:
    """`serving` -> the table's verify list, `all` -> `*`, `none` -> nothing, else comma-separated names."""
    if verify == "serving":
        return list(table.verify)
    if verify == "all":
        return ["*"]
    if verify == "none":
        return []
    return [canonical(n) for n in verify.split(",") if n.strip()]


def _request(checks: list[EnvCheck], verify: str, table: Table, workdir: str | None, port: int | None) -> dict[str, Any]:
    sections = sorted({s for c in checks for s in c.needs})
    return {"sections": sections, "verify": verify_names(verify, table), "workdir": workdir, "port": port}


def _run_check(check: EnvCheck, ctx: CheckContext) -> CheckResult:
    try:
        return check.run(ctx)
    except CheckSkipped as exc:
        return CheckResult(skipped=(Skipped(check.name, str(exc)),))
    except CrashdocError as exc:
        return CheckResult(skipped=(Skipped(check.name, str(exc)),))
    except Exception as exc:  # a bug in one check must not hide what the others found
        return CheckResult(skipped=(Skipped(check.name, f"failed inside crashdoc: {type(exc).__name__}: {exc}"),))


def _python_line(python: str, probe: ProbeFacts | None, error: str | None, host: str | None) -> str:
    where = f" on {host}" if host else ""
    if probe is None:
        return f"python {python}{where}: not inspected ({error})"
    py = probe.python
    env = f"venv {py['prefix']}" if py.get("venv") else f"prefix {py['prefix']}"
    return (f"Python {py['version']} at {py['executable']}{where} ({env}), {len(probe.active)} packages"
            + (f"; user site {py['user_site']} is on its path" if py.get("user_site") else ""))


def _facts(probe: ProbeFacts | None, python: str, host: str | None, data: dict[str, Any]) -> dict[str, Any]:
    facts: dict[str, Any] = {"python": python, "host": host}
    if probe is not None:
        facts["interpreter"] = {k: probe.python.get(k) for k in ("executable", "version", "prefix", "venv", "user_site")}
        facts["packages"] = {d.name: d.version for d in sorted(probe.active.values(), key=lambda d: d.key)}
        facts["shadowed"] = [{"name": d.name, "version": d.version, "path": d.path, "shadowed_by": d.shadowed_by}
                             for d in probe.dists if d.shadowed_by]
        facts["probe_seconds"] = probe.seconds
    facts["checks"] = data
    return facts


def check_environment(
    runner: Runner,
    python: str | None = None,
    *,
    checks: Sequence[str] | None = None,
    verify: str = "serving",
    since: datetime | None = None,
    workdir: str | None = None,
    port: int | None = None,
) -> EnvReport:
    """Check the Python environment `python` (default `python3`) and its host, through `runner`.

    `checks` names checks (or `default`, `all`); `verify` is `serving`, `all`, `none` or package names;
    `since` is the time of the first failed attempt; `workdir` the service's working directory (default: the
    current directory when local); `port` the serving port. Raises TransportError only when an ssh host cannot
    be reached at all; everything else that cannot be checked is in `skipped`.
    """
    table = load_table()
    selected, skipped = select_checks(checks)
    python = python or DEFAULT_PYTHON
    if workdir is None and runner.host is None:
        workdir = os.getcwd()
    request = _request(selected, verify, table, workdir, port)
    probe, probe_error = None, None
    if request["sections"]:
        try:
            probe = run_probe(runner, python, request)
        except ProbeError as exc:
            probe_error = str(exc)
            skipped.append(Skipped(f"python {python}", probe_error))
    ctx = CheckContext(runner, python, table, probe, probe_error, verify, since, workdir, port,
                       frozenset(c.name for c in selected))
    found: list[EnvFinding] = []
    lines = [_python_line(python, probe, probe_error, runner.host)]
    data: dict[str, Any] = {}
    for check in selected:
        result = _run_check(check, ctx)
        found.extend(result.findings)
        lines.extend(result.lines)
        skipped.extend(result.skipped)
        data[check.name] = result.data
    found.sort(key=lambda f: -f.finding.score)
    facts = _facts(probe, python, runner.host, data)
    title = f"Environment: {python}" + (f" on {runner.host}" if runner.host else "")
    section = Section("environment", title, tuple(lines), facts)
    return EnvReport(
        findings=tuple(f.finding for f in found), section=section, skipped=tuple(skipped), facts=facts,
        subjects={f.finding.fingerprint: f.subject for f in found},
    )
