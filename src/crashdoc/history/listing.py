"""`crashdoc history`: incidents as plain lines (the CLI sanitises them for the terminal) or as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crashdoc.history.memory import FixRecord, Incident, shown_time

SCHEMA = "crashdoc.history/1"
_VERDICT = {"fixed": "fixed (verified)", "not_fixed": "not fixed", "new_error": "a new error", None: "no verdict"}


def _fix_dict(f: FixRecord) -> dict[str, Any]:
    return {"id": f.id, "started": f.started, "command": f.command, "verdict": f.verdict,
            "verdict_at": f.verdict_at, "detail": f.detail, "commands": list(f.commands)}


def incident_dict(i: Incident) -> dict[str, Any]:
    """One incident in the listing's JSON shape."""
    return {"id": i.id, "first_seen": i.first_seen, "last_seen": i.last_seen, "diagnoses": i.diagnoses,
            "host": i.host, "unit": i.unit, "source": i.source, "fingerprint": i.fingerprint,
            "category": i.category, "rule": i.rule, "exception": i.exception, "message": i.message,
            "proposed_fix": i.proposed_fix, "fixes": [_fix_dict(f) for f in i.fixes]}


def to_json(incidents: Sequence[Incident], path: str) -> dict[str, Any]:
    """The listing as one JSON object."""
    return {"schema": SCHEMA, "path": path, "incidents": [incident_dict(i) for i in incidents]}


def lines(incidents: Sequence[Incident], path: str) -> list[str]:
    """The listing in words, newest first: one line per incident, one more per fix tried."""
    if not incidents:
        return [f"no incidents recorded in {path}"]
    out = []
    for i in incidents:
        what = f"{i.exception}: {i.message}" if i.exception else (i.message or "")
        times = f" ({i.diagnoses} diagnoses, last {shown_time(i.last_seen)})" if i.diagnoses > 1 else ""
        out.append(f"#{i.id} {shown_time(i.first_seen)} {i.host} {i.unit or '-'} [{i.category or 'other'}] "
                   f"{what[:160]}{times}")
        if i.proposed_fix and not i.fixes:
            out.append(f"    proposed: {i.proposed_fix}")
        for f in i.fixes:
            out.append(f"    fix {shown_time(f.started)}: {f.command} -> {_VERDICT.get(f.verdict, f.verdict)}"
                       + (f" ({f.detail})" if f.detail else ""))
    out.append(f"{len(incidents)} incident{'s' if len(incidents) != 1 else ''} from {path}")
    return out
