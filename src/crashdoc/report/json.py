"""JSON report: the versioned contract other tools read (`crashdoc schema` prints its JSON Schema).

Every field is written here by name, so renaming a model field cannot change the contract silently, and
internal fields (ranking scores, where a finding came from) stay out of it. A change to the shape bumps
`SCHEMA`; data/schema/diagnosis-1.json describes version 1 and a test validates every report against it.
"""

from __future__ import annotations

import json as _json
from typing import TYPE_CHECKING, Any, TextIO

from crashdoc import __version__
from crashdoc.datafile import package_file
from crashdoc.model import Attempt, Diagnosis, Evidence, Finding, Fix, Skipped, Where
from crashdoc.report.interface import Renderer

if TYPE_CHECKING:
    from crashdoc.model import History, Section, State

SCHEMA = "crashdoc.diagnosis/1"


def _fix(f: Fix) -> dict[str, Any]:
    return {"command": f.command, "text": f.text}


def _where(w: Where) -> dict[str, Any]:
    return {"process": w.process, "rank": w.rank, "pid": w.pid, "frame": w.frame, "attempt": w.attempt,
            "host": w.host, "unit": w.unit, "phase": w.phase}


def _evidence(e: Evidence) -> dict[str, Any]:
    return {"lineno": e.lineno, "text": e.text}


def finding_dict(f: Finding) -> dict[str, Any]:
    """One finding in the contract's shape."""
    return {
        "line": f.line, "lineno": f.lineno, "exception": f.exception, "message": f.message,
        "category": f.category, "role": f.role, "rule": f.rule, "fix": _fix(f.fix), "where": _where(f.where),
        "explanation": f.explanation, "evidence": [_evidence(e) for e in f.evidence], "count": f.count,
        "ranks": list(f.ranks), "processes": list(f.processes), "fingerprint": f.fingerprint,
        "confirmation": f.confirmation, "confidence": f.confidence, "confidence_reason": f.confidence_reason,
    }


def attempt_dict(a: Attempt) -> dict[str, Any]:
    """One start attempt in the contract's shape."""
    return {
        "index": a.index, "started": a.started, "ended": a.ended, "outcome": a.outcome,
        "exit_status": a.exit_status, "invocation_id": a.invocation_id, "fingerprint": a.fingerprint,
        "root_message": a.root_message, "first_lineno": a.first_lineno, "last_lineno": a.last_lineno,
    }


def state_dict(st: State) -> dict[str, Any]:
    """The service's present in the contract's shape (units and containers)."""
    lf = st.last_failure
    last = None if lf is None else {
        "attempt": lf.attempt, "invocation_id": lf.invocation_id, "at": lf.at, "message": lf.message,
        "fingerprint": lf.fingerprint, "category": lf.category, "rule": lf.rule,
    }
    return {"now": st.now, "since": st.since, "ready": st.ready, "phase": st.phase, "recovered": st.recovered,
            "detail": st.detail, "last_failure": last}


def _skipped(s: Skipped) -> dict[str, Any]:
    return {"what": s.what, "reason": s.reason}


def _section(sec: Section) -> dict[str, Any]:
    return {"title": sec.title, "lines": list(sec.lines), **_plain(dict(sec.data))}


def history_dict(h: History) -> dict[str, Any]:
    """What the incident memory knew about the root cause (present only when the diagnosis was recorded)."""
    return {"fingerprint": h.fingerprint, "incident": h.incident, "summary": h.summary, "total": h.total,
            "seen_before": [{"host": p.host, "unit": p.unit, "at": p.at, "fix_command": p.fix_command,
                             "verdict": p.verdict} for p in h.seen_before]}


def _plain(value: Any) -> Any:
    """Facts as JSON values: tuples become lists, anything else unknown becomes its text."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def to_dict(diag: Diagnosis, redactions: int = 0) -> dict[str, Any]:
    """The whole diagnosis as the contract's JSON object; `redactions`: how many distinct secrets the redactor
    replaced in `diag` (0 when it did not run)."""
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "crashdoc": __version__,
        "source": diag.source,
        "root_cause": finding_dict(diag.root_cause) if diag.root_cause else None,
        "summary": diag.summary,
        "findings": [finding_dict(f) for f in diag.findings],
        "attempts": [attempt_dict(a) for a in diag.attempts],
        "skipped": [_skipped(s) for s in diag.skipped],
        "input": {"lines": diag.lines_read, "bytes": diag.bytes_read},
        "redactions": redactions,
    }
    if diag.state is not None:
        out["state"] = state_dict(diag.state)
    if diag.history is not None:
        out["history"] = history_dict(diag.history)
    for sec in diag.sections:
        out[sec.key] = _section(sec)
    return out


def schema_text() -> str:
    """The JSON Schema of the contract, as shipped in the package."""
    return package_file("data", "schema", "diagnosis-1.json").read_text("utf-8")


class JsonRenderer(Renderer):
    """One JSON object on one write, for machines (`jq`, the scorer)."""

    def render(self, diag: Diagnosis, out: TextIO) -> None:
        """Write the JSON object and a newline."""
        out.write(_json.dumps(to_dict(diag, self.redactions), indent=2, ensure_ascii=True))
        out.write("\n")
