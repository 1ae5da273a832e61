"""The report of a fleet: hosts grouped by root cause first, then each host briefly; JSON (`crashdoc.fleet/1`,
each host's diagnosis the single-host object) and Markdown too. Secrets are redacted per host, as a single-host
report redacts them; log text and error text never reach the terminal raw."""

from __future__ import annotations

import json as _json
from dataclasses import replace
from typing import Any, TextIO

from crashdoc import __version__
from crashdoc.datafile import package_file
from crashdoc.fleet import CauseGroup, FleetResult, HostResult, cause_title, compact_hosts, groups
from crashdoc.report.json import finding_dict, to_dict
from crashdoc.report.redact import Redactor, redact_diagnosis
from crashdoc.report.safe import safe

SCHEMA = "crashdoc.fleet/1"


def redact_fleet(result: FleetResult) -> tuple[FleetResult, dict[str, int]]:
    """Every host's diagnosis redacted as its own report would be, and error texts too; counts per host."""
    hosts, counts = [], {}
    for h in result.hosts:
        diag, n = redact_diagnosis(h.diagnosis) if h.diagnosis is not None else (None, 0)
        error = Redactor().text(h.error) if h.error else h.error
        hosts.append(replace(h, diagnosis=diag, error=error))
        counts[h.host] = n
    return replace(result, hosts=tuple(hosts)), counts


def counts(result: FleetResult) -> dict[str, int]:
    """How many hosts ended how: diagnosed with a root cause, without an error, unreachable, error."""
    out = {"hosts": len(result.hosts), "root_cause": 0, "no_error": 0, "unreachable": 0, "error": 0}
    for h in result.hosts:
        if h.status == "diagnosed":
            out["root_cause" if h.diagnosis is not None and h.diagnosis.root_cause else "no_error"] += 1
        else:
            out[h.status] += 1
    return out


def fleet_dict(result: FleetResult, redactions: dict[str, int] | None = None) -> dict[str, Any]:
    """The fleet as the `crashdoc.fleet/1` JSON object (data/schema/fleet-1.json)."""
    redactions = redactions or {}
    return {
        "schema": SCHEMA,
        "crashdoc": __version__,
        "target": result.what,
        "seconds": result.seconds,
        "forks": result.forks,
        "counts": counts(result),
        "hosts": [_host(h, redactions.get(h.host, 0)) for h in result.hosts],
        "groups": [_group(g) for g in groups(result)],
    }


def _host(h: HostResult, redactions: int) -> dict[str, Any]:
    return {
        "host": h.host,
        "address": h.target.address,
        "status": h.status,
        "seconds": h.seconds,
        "diagnosis": to_dict(h.diagnosis, redactions) if h.diagnosis is not None else None,
        "error": h.error,
    }


def _group(g: CauseGroup) -> dict[str, Any]:
    return {
        "fingerprint": g.fingerprint,
        "title": cause_title(g.root_cause, 300),
        "hosts": list(g.hosts),
        "root_cause": finding_dict(g.root_cause) if g.root_cause is not None else None,
    }


def headline(result: FleetResult) -> str:
    """`unit vllm.service on 4 hosts: 3 diagnosed, 1 unreachable (3.2 s wall, 10 forks)`."""
    c = counts(result)
    parts = [f"{c['root_cause'] + c['no_error']} diagnosed"]
    parts += [f"{c[k]} {k.replace('_', ' ')}" for k in ("unreachable", "error") if c[k]]
    return (f"{result.what} on {c['hosts']} host{'s' if c['hosts'] != 1 else ''}: {', '.join(parts)}"
            f" ({result.seconds:.1f} s wall, {result.forks} forks)")


def group_lines(result: FleetResult, limit: int = 160) -> list[str]:
    """One line per root cause, largest first, then the hosts without an answer:
    `2 of 4 hosts: RuntimeError: ... (node-01, 02)`, `node-03: ...`, `node-04: unreachable (...)`."""
    total = len(result.hosts)
    out = []
    for g in groups(result):
        title = safe(cause_title(g.root_cause, limit), limit)
        if len(g.hosts) == 1:
            out.append(f"{safe(g.hosts[0], 80)}: {title}")
        else:
            out.append(f"{len(g.hosts)} of {total} hosts: {title} ({safe(compact_hosts(g.hosts), 400)})")
    for status in ("unreachable", "error"):
        for h in (h for h in result.hosts if h.status == status):
            out.append(f"{safe(h.host, 80)}: {status} ({safe(h.error, limit)})")
    return out


def host_lines(h: HostResult, limit: int = 160) -> list[str]:
    """A host in two or three lines: status and cause, the fix, what the unit or container is doing."""
    took = f" ({h.seconds:.1f} s)"
    if h.diagnosis is None:
        return [f"{safe(h.host, 80)}  {h.status}: {safe(h.error, limit)}{took}"]
    d = h.diagnosis
    rc = d.root_cause
    out = [f"{safe(h.host, 80)}  {safe(cause_title(rc, limit), limit)}{took}"]
    if rc is not None:
        fix = rc.fix.command or rc.fix.text
        out.append(f"    {safe(rc.category, 40)} · fix: {safe(fix, limit)}")
    state = d.unit.summary if d.unit is not None else d.summary
    if state:
        out.append(f"    {safe(state, limit)}")
    return out


def render_terminal(result: FleetResult, out: TextIO, width: int | None = None) -> None:
    """Plain text: the headline, the groups, then each host briefly."""
    limit = max(60, (width or 120) - 10)
    lines = [f"crashdoc fleet: {safe(headline(result), 400)}", ""]
    lines += group_lines(result, limit)
    lines += ["", "hosts:"]
    for h in result.hosts:
        lines += ["  " + line for line in host_lines(h, limit)]
    lines += ["", "each host's full report: crashdoc diagnose TARGET --host HOST (or --format json for all of them)"]
    out.write("\n".join(lines) + "\n")


def render_markdown(result: FleetResult, out: TextIO) -> None:
    """A heading, the groups as a list, and a table of hosts (untrusted text in code spans)."""
    from crashdoc.report.markdown import code, prose

    lines = [f"## crashdoc fleet: {prose(headline(result))}", ""]
    lines += [f"- {prose(line, limit=400)}" for line in group_lines(result)]
    lines += ["", "| host | status | root cause or error | fix |", "|---|---|---|---|"]
    for h in result.hosts:
        rc = h.diagnosis.root_cause if h.diagnosis is not None else None
        what = cause_title(rc) if h.diagnosis is not None else (h.error or "")
        fix = (rc.fix.command or rc.fix.text) if rc is not None else ""
        lines.append(f"| {code(h.host, True)} | {h.status} | {code(what, True)} | {code(fix, True)} |")
    out.write("\n".join(lines) + "\n")


def render_fleet(result: FleetResult, fmt: str, out: TextIO, width: int | None = None, redact: bool = True) -> None:
    """Write the fleet report in `fmt` (terminal, json, markdown)."""
    per_host: dict[str, int] = {}
    if redact:
        result, per_host = redact_fleet(result)
    if fmt == "json":
        out.write(_json.dumps(fleet_dict(result, per_host), indent=2, ensure_ascii=True) + "\n")
    elif fmt == "markdown":
        render_markdown(result, out)
    else:
        render_terminal(result, out, width)


def schema_text() -> str:
    """The JSON Schema of `crashdoc.fleet/1`, as shipped in the package."""
    return package_file("data", "schema", "fleet-1.json").read_text("utf-8")
