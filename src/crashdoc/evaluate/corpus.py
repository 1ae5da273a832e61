"""Scoring on a corpus folder, with the measures of evaluate/scoring.py (the judge's definition)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crashdoc.errors import InputError
from crashdoc.evaluate.scoring import decoy_first, fix_matches, root_cause_hit
from crashdoc.investigate import run
from crashdoc.kb import KnowledgeBase
from crashdoc.sources.file import FileSource


@dataclass(frozen=True)
class CaseResult:
    """One case's verdict."""

    id: str
    hit: bool
    decoy_first: bool
    category_ok: bool
    fix_ok: bool | None
    expected_category: str
    got_category: str | None
    got_line: str
    got_fix: str | None
    expected_fix: str | list[str] | None
    seconds: float


@dataclass(frozen=True)
class EvalReport:
    """Totals over a folder."""

    cases: tuple[CaseResult, ...]

    def totals(self) -> dict[str, Any]:
        """Counts and rates."""
        n = len(self.cases)
        fix = [c for c in self.cases if c.fix_ok is not None]
        rate = lambda k: round(k / n, 4) if n else 0.0  # noqa: E731
        hit = sum(c.hit for c in self.cases)
        cat = sum(c.category_ok for c in self.cases)
        return {
            "cases": n, "root_cause_hit": hit, "root_cause_rate": rate(hit), "category_hit": cat,
            "category_rate": rate(cat), "decoy_first": sum(c.decoy_first for c in self.cases),
            "fix_cases": len(fix), "fix_hit": sum(bool(c.fix_ok) for c in fix),
            "seconds": round(sum(c.seconds for c in self.cases), 2),
        }


def _case_dir(folder: Path) -> Path:
    if (folder / "cases").is_dir():
        return folder / "cases"
    return folder


def evaluate_dir(folder: Path, kb: KnowledgeBase | None = None) -> EvalReport:
    """Diagnose every case of a corpus folder in-process and score it."""
    cases_dir = _case_dir(folder)
    if not cases_dir.is_dir():
        raise InputError(f"{folder}: not a corpus folder (expected cases/<id>.log and <id>.json)")
    if kb is None:
        kb = KnowledgeBase.load()
    results = []
    for meta_path in sorted(cases_dir.glob("*.json")):
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
            keys = [meta["root_cause"]["key"], *(meta["root_cause"].get("also_keys") or [])]
            if not all(isinstance(k, str) for k in keys):
                raise TypeError("root_cause.key and also_keys must be strings")
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{meta_path}: not a case file in the corpus format ({exc})") from exc
        log = meta_path.with_suffix(".log")
        t0 = time.perf_counter()
        diag = run(FileSource(str(log)), kb=kb)
        rc = diag.root_cause
        line = rc.line if rc else ""
        fix_cmd = rc.fix.command if rc else None
        expected_fix = meta.get("fix_command")
        results.append(CaseResult(
            id=meta.get("id", meta_path.stem), hit=root_cause_hit(line, keys),
            decoy_first=decoy_first(line, keys, meta.get("decoys") or ()),
            category_ok=rc is not None and rc.category == meta.get("category"),
            fix_ok=fix_matches(expected_fix, fix_cmd),
            expected_category=meta.get("category", ""), got_category=rc.category if rc else None,
            got_line=line, got_fix=fix_cmd, expected_fix=expected_fix, seconds=time.perf_counter() - t0,
        ))
    return EvalReport(tuple(results))
