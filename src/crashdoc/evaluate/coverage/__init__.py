"""`crashdoc rules coverage`: how much of the engines' own message inventory the knowledge base classifies.

The inventory (`src/crashdoc/data/inventory/*.jsonl`, see its README) lists the error messages the engines'
source can emit, each with a bulk label (category, cause or consequence). For every labelled message this module
renders the template with plausible sample values (a number, a path, a name, chosen by the words around each
`{}`), writes it the way that project logs it — an error line with the project's own prefix and, for Python
`raise`/`assert` sites, also as the last line of a small traceback — and classifies each rendering through the
production path (:func:`crashdoc.evaluate.examples.classify_text`: the parser of `crashdoc diagnose`, then the
knowledge base on every item).

Per rendering the outcome is `classified` (a rule of the labelled category matched; for a `consequence`
message a consequence rule), `wrong` (a rule of another category, or a cause rule for a consequence, or a
consequence rule for a cause) or `unknown` (no rule). A message is `wrong` when any rendering is wrong,
`classified` when every rendering is, `unknown` otherwise. Identical renderings are classified once.

Only the rules count: the inventory fallback of `diagnose` (an error no rule knows takes its message family's
category, kb/inventory.py) would find every inventory message in itself, so it is not part of this measure.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from crashdoc.evaluate.coverage.classify import classify_messages
from crashdoc.evaluate.coverage.model import (
    INVENTORY_DIR,
    OUTCOMES,
    CoverageReport,
    Family,
    Message,
    MessageResult,
    ProjectCoverage,
    Totals,
    load_inventory,
)
from crashdoc.evaluate.coverage.render import renderings
from crashdoc.evaluate.coverage.samples import fill
from crashdoc.kb.knowledge import KnowledgeBase

__all__ = ["INVENTORY_DIR", "OUTCOMES", "CoverageReport", "Family", "Message", "MessageResult", "ProjectCoverage",
           "Totals", "classify_messages", "coverage", "family_key", "fill", "iter_unclassified", "load_inventory",
           "render_text", "renderings", "summarise", "to_json"]


#: Families are listed operator-relevant categories first; plain-assert engine bugs last.
FAMILY_ORDER = ("cli_config_error", "model_config", "dependency_version_mismatch", "missing_dependency", "gpu_oom",
                "kv_cache_insufficient", "nccl_distributed", "model_files", "gpu_unavailable",
                "cuda_driver_mismatch", "port_in_use", "host_resources", "filesystem_permissions", "abi_mismatch",
                "cpu_isa", "kernel_compile_error", "modified_install", "other", "engine_bug")
_FAMILY_WORDS = re.compile(r"[A-Za-z][A-Za-z_'-]*")


def family_key(template: str, n: int = 3) -> str:
    """The first *n* words of a template, lower-case, placeholders dropped: `No module named {}` -> `no module named`."""
    words = [w.lower() for w in _FAMILY_WORDS.findall(template.replace("{}", " "))]
    return " ".join(words[:n]) or "(placeholders only)"


def _families(results: list[MessageResult], limit: int) -> tuple[Family, ...]:
    groups: dict[tuple[str, str], list[MessageResult]] = defaultdict(list)
    for res in results:
        if res.outcome != "classified":
            groups[(res.message.category, family_key(res.message.template))].append(res)
    fams = []
    for (category, words), members in groups.items():
        wrong = [m for m in members if m.outcome == "wrong"]
        got = Counter(r for m in wrong for r in m.rules if r)
        fams.append(Family(category, words, len(members) - len(wrong), len(wrong),
                           tuple(sorted({m.message.project for m in members})),
                           members[0].renderings[0], tuple(r for r, _ in got.most_common(3))))
    rank = {c: i for i, c in enumerate(FAMILY_ORDER)}
    fams.sort(key=lambda f: (f.category == "engine_bug", -(f.unknown + f.wrong), rank.get(f.category, 99), f.words))
    return tuple(fams[:limit])


def summarise(results: list[MessageResult], family_limit: int = 25) -> CoverageReport:
    """Per-project counts, totals and the worst families of already classified messages."""
    per: dict[str, Counter[str]] = defaultdict(Counter)
    versions: dict[str, str] = {}
    consequences_as_causes = 0
    for res in results:
        m = res.message
        per[m.project][res.outcome] += 1
        versions.setdefault(m.project, m.version)
        if m.role == "consequence" and res.outcome == "wrong":
            consequences_as_causes += 1
    projects = tuple(ProjectCoverage(p, versions[p], sum(c.values()), c["classified"], c["wrong"], c["unknown"])
                     for p, c in sorted(per.items()))
    totals = Totals(len(projects), sum(p.messages for p in projects), sum(p.classified for p in projects),
                    sum(p.wrong for p in projects), sum(p.unknown for p in projects))
    return CoverageReport(projects, totals, _families(results, family_limit), consequences_as_causes, tuple(results))


def _xid_names(directory: Path) -> dict[int, str]:
    path = directory / "cuda.jsonl"
    names: dict[int, str] = {}
    if path.exists():
        for raw in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(raw) if raw.strip() else {}
            if row.get("kind") == "xid" and row.get("name"):
                names[int(row["line"])] = row["name"]
    return names


def coverage(kb: KnowledgeBase, project: str | None = None, *, directory: Path | str = INVENTORY_DIR,
             family_limit: int = 25) -> CoverageReport:
    """Classify every labelled inventory message (of one *project*, or all) and summarise the outcome.

    Raises ValueError when *project* names no project of the inventory.
    """
    directory = Path(directory)
    messages = load_inventory(directory, project)
    if project is not None and not messages:
        known = sorted({m.project for m in load_inventory(directory)})
        raise ValueError(f"no labelled messages for project {project!r}; use one of {', '.join(known)}")
    return summarise(classify_messages(kb, messages, _xid_names(directory)), family_limit)


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def render_text(report: CoverageReport, families: int = 15) -> str:
    """The terminal report: one row per project, the totals, then the largest unclassified families."""
    head = f"{'project':<16} {'version':<30} {'messages':>8} {'classified':>16} {'wrong':>6} {'unknown':>7}"
    lines = [head, "-" * len(head)]
    for p in report.projects:
        lines.append(f"{p.project:<16} {p.version[:30]:<30} {p.messages:>8} {p.classified:>8} "
                     f"{_pct(p.classified, p.messages):>7} {p.wrong:>6} {p.unknown:>7}")
    t = report.totals
    lines.append("-" * len(head))
    lines.append(f"{'total':<16} {str(t.projects) + ' projects':<30} {t.messages:>8} {t.classified:>8} "
                 f"{_pct(t.classified, t.messages):>7} {t.wrong:>6} {t.unknown:>7}")
    lines.append(f"consequence messages matched by a cause rule: {report.consequences_as_causes}")
    shown = report.families[:families]
    if shown:
        lines.append("")
        lines.append("largest unclassified families (category, first words: unknown/wrong, projects; example):")
        for f in shown:
            got = f"  wrongly -> {', '.join(f.got)}" if f.got else ""
            lines.append(f"  {f.category:<28} {f.words!r}: {f.unknown}/{f.wrong}  ({', '.join(f.projects)}){got}")
            lines.append(f"      {f.example.splitlines()[-1][:150]}")
    return "\n".join(lines)


def to_json(report: CoverageReport) -> dict[str, object]:
    """`{"projects": [...], "totals": {...}, "consequences_as_causes": N, "families": [...]}`."""
    return {
        "projects": [{"project": p.project, "version": p.version, "messages": p.messages,
                      "classified": p.classified, "wrong": p.wrong, "unknown": p.unknown} for p in report.projects],
        "totals": {"projects": report.totals.projects, "messages": report.totals.messages,
                   "classified": report.totals.classified, "wrong": report.totals.wrong,
                   "unknown": report.totals.unknown},
        "consequences_as_causes": report.consequences_as_causes,
        "families": [{"category": f.category, "words": f.words, "unknown": f.unknown, "wrong": f.wrong,
                      "projects": list(f.projects), "example": f.example, "got": list(f.got)}
                     for f in report.families],
    }


def iter_unclassified(report: CoverageReport, category: str | None = None) -> Iterator[MessageResult]:
    """The messages not classified to their category (for writing rules)."""
    for res in report.results:
        if res.outcome != "classified" and (category is None or res.message.category == category):
            yield res
