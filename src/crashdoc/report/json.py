"""JSON report: the contract other tools read (`root_cause`, `findings`, `attempts`, ...)."""

from __future__ import annotations

import dataclasses
import json as _json
from typing import Any, TextIO

from crashdoc.model import Diagnosis, Finding
from crashdoc.report.interface import Renderer


def finding_dict(f: Finding) -> dict[str, Any]:
    """One finding in the JSON shape of the contract."""
    d = dataclasses.asdict(f)
    d["evidence"] = [{"lineno": e.lineno, "text": e.text} for e in f.evidence]
    return d


def to_dict(diag: Diagnosis) -> dict[str, Any]:
    """The whole diagnosis as plain JSON-able data."""
    out: dict[str, Any] = {
        "source": diag.source,
        "root_cause": finding_dict(diag.root_cause) if diag.root_cause else None,
        "summary": diag.summary,
        "findings": [finding_dict(f) for f in diag.findings],
        "attempts": [dataclasses.asdict(a) for a in diag.attempts],
        "skipped": [dataclasses.asdict(s) for s in diag.skipped],
        "input": {"lines": diag.lines_read, "bytes": diag.bytes_read},
    }
    for sec in diag.sections:
        out[sec.key] = {"title": sec.title, "lines": list(sec.lines), **dict(sec.data)}
    return out


class JsonRenderer(Renderer):
    """One JSON object on one write, for machines (`jq`, the scorer)."""

    def render(self, diag: Diagnosis, out: TextIO) -> None:
        """Write the JSON object and a newline."""
        out.write(_json.dumps(to_dict(diag), indent=2, ensure_ascii=True, default=str))
        out.write("\n")
