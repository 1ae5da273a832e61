"""apply_to_diagnosis: the environment confirms or questions the log's root cause, and fills in when the log
has no clear error."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta

from crashdoc.envdoctor.facts import canonical
from crashdoc.envdoctor.interface import EnvReport, Subject
from crashdoc.envdoctor.table import load_table
from crashdoc.envdoctor.words import ago
from crashdoc.model import Diagnosis, Finding

#: log category -> environment categories that can explain it
RELATED: dict[str, frozenset[str]] = {
    "dependency_version_mismatch": frozenset({"dependency_version_mismatch"}),
    "abi_mismatch": frozenset({"dependency_version_mismatch", "abi_mismatch", "modified_install"}),
    "missing_dependency": frozenset({"missing_dependency", "dependency_version_mismatch"}),
    "modified_install": frozenset({"modified_install"}),
    "cuda_driver_mismatch": frozenset({"cuda_driver_mismatch", "gpu_unavailable", "dependency_version_mismatch"}),
    "gpu_unavailable": frozenset({"gpu_unavailable", "cuda_driver_mismatch", "dependency_version_mismatch"}),
    "gpu_oom": frozenset({"gpu_unavailable"}),
    "kv_cache_insufficient": frozenset({"gpu_unavailable"}),
    "nccl_distributed": frozenset({"host_resources"}),
    "host_resources": frozenset({"host_resources"}),
    "port_in_use": frozenset({"port_in_use"}),
    "kernel_compile_error": frozenset({"dependency_version_mismatch", "cuda_driver_mismatch", "modified_install"}),
}
#: categories about the host rather than packages: an environment finding matches without naming a package
HOST_CATEGORIES = frozenset({"gpu_unavailable", "cuda_driver_mismatch", "gpu_oom", "kv_cache_insufficient",
                             "nccl_distributed", "host_resources", "port_in_use"})
PACKAGE_CATEGORIES = frozenset({"dependency_version_mismatch", "abi_mismatch", "missing_dependency"})
#: an environment finding must score this much to become the root cause of a log without a clear error
CAUSE_SCORE = 50
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]")
_VERSION = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)*(?:(?:\.post|\.dev|rc|a|b)\d+)?(?:\+[\w.]+)?")
_SITE = re.compile(r"site-packages/(\S+?\.\w+)\b")


def _text(rc: Finding) -> str:
    return "\n".join([rc.line, rc.message, rc.where.frame or "", *(e.text for e in rc.evidence)])


def mentioned_packages(rc: Finding, installed: Iterable[str]) -> set[str]:
    """Installed distributions the root cause names, directly or by an alias (`flashinfer`)."""
    table = load_table()
    names = {canonical(w) for w in _WORD.findall(f"{rc.message} {rc.line}")}
    names |= {table.resolve(n) for n in names}
    names |= {table.resolve(m.split("/")[0]) for m in _SITE.findall(_text(rc))}
    return names & set(installed)


def _site_paths(paths: Iterable[str]) -> set[str]:
    return {m.group(1) for p in paths for m in [_SITE.search(p)] if m}


def _matches(rc: Finding, report: EnvReport, names: set[str]) -> list[Finding]:
    related = RELATED.get(rc.category, frozenset({rc.category}))
    out = []
    for finding in report.findings:
        subject = report.subjects.get(finding.fingerprint, Subject())
        if finding.category not in related:
            continue
        if names & set(subject.packages) or (rc.category in HOST_CATEGORIES and finding.category in HOST_CATEGORIES):
            out.append(finding)
    return sorted(out, key=lambda f: -f.score)


def _patched_frames(rc: Finding, report: EnvReport) -> list[tuple[Finding, str]]:
    in_trace = _site_paths(_text(rc).split())
    out = []
    for finding in report.findings:
        if finding.category == "modified_install" and finding.role == "cause":
            for path in report.subjects.get(finding.fingerprint, Subject()).paths:
                if _site_paths([path]) & in_trace:
                    out.append((finding, path))
    return out


def _recent_note(report: EnvReport, packages: Iterable[str]) -> str:
    recent = report.facts.get("checks", {}).get("recent", {}).get("packages", [])
    keys = set(packages)
    notes = [f"{p['name']} {p['version']} installed {_ago(p['seconds_before_failure'])} the first failure"
             for p in recent if canonical(p["name"]) in keys and p.get("seconds_before_failure") is not None
             and abs(p["seconds_before_failure"]) <= 2 * 86400]
    return f"; {'; '.join(notes)}" if notes else ""


def _ago(seconds: float) -> str:
    return f"{ago(seconds)} {'before' if seconds >= 0 else 'after'}"


def _version_note(rc: Finding, report: EnvReport, subject: Subject) -> str:
    if rc.category not in PACKAGE_CATEGORIES:
        return ""
    packages = report.facts.get("packages", {})
    installed = {v.split("+")[0] for n, v in packages.items() if canonical(n) in subject.packages}
    logged = {v.split("+")[0] for v in _VERSION.findall(rc.message)}
    gone = sorted(logged - installed)
    return f" (the log names {', '.join(gone)}: the versions changed since)" if gone and installed else ""


def verdict(rc: Finding, report: EnvReport) -> tuple[str | None, Finding | None]:
    """What the environment says about a root cause from the log, and the environment finding behind it."""
    packages = report.facts.get("packages", {})
    names = mentioned_packages(rc, (canonical(n) for n in packages))
    matches = _matches(rc, report, names)
    if matches:
        best = matches[0]
        subject = report.subjects.get(best.fingerprint, Subject())
        text = (f"confirmed by the environment: {subject.summary or best.message}"
                f"{_version_note(rc, report, subject)}{_recent_note(report, subject.packages)}")
        return text, best
    patched = _patched_frames(rc, report)
    if patched:
        finding, path = patched[0]
        return f"questioned by the environment: the traceback runs through {path}, which was modified after install", finding
    if rc.category in PACKAGE_CATEGORIES and names:
        labels = [f"{n} {v}" for n, v in packages.items() if canonical(n) in names]
        where = report.facts.get("interpreter", {}).get("prefix") or report.facts.get("python")
        return (f"questioned by the environment: {', '.join(sorted(labels))} installed in {where} show no such "
                f"problem now{_recent_note(report, names)}"), None
    return None, None


def is_weak(rc: Finding | None) -> bool:
    """True when the log has no clear error: no root cause, a consequence, or an unclassified generic one."""
    return rc is None or rc.role != "cause" or (rc.rule is None and rc.category in ("other", ""))


def apply_to_diagnosis(diag: Diagnosis, report: EnvReport) -> Diagnosis:
    """The diagnosis with the environment's word on its root cause, its findings, section and skipped checks.

    A root cause from the log is confirmed (its fix then uses the installed versions) or questioned. When the
    log has no clear error, the strongest environment finding that can cause a crash becomes the root cause.
    """
    rc = diag.root_cause
    others = [f for f in diag.findings if f is not rc]
    env = list(report.findings)
    if rc is not None and rc.source != "environment":
        text, backing = verdict(rc, report)
        if text:
            fix = backing.fix if backing is not None and backing.fix.command and text.startswith("confirmed") else rc.fix
            rc = replace(rc, confirmation=text, fix=fix)
    if is_weak(rc):
        causes = [f for f in env if f.role == "cause" and f.score >= CAUSE_SCORE]
        if causes:
            if rc is not None:
                others.insert(0, rc)
            top = causes[0]
            env.remove(top)
            subject = report.subjects.get(top.fingerprint, Subject())
            rc = replace(top, confirmation=f"found in the environment ({subject.summary or top.message}); "
                                           "the log shows no clear error")
    findings = ([rc] if rc is not None else []) + others + env
    sections = tuple(s for s in diag.sections if s.key != report.section.key) + (report.section,)
    return replace(diag, root_cause=rc, findings=tuple(findings), sections=sections,
                   skipped=diag.skipped + report.skipped)


def environment_diagnosis(report: EnvReport, source: str | None = None) -> Diagnosis:
    """The report alone as a Diagnosis, for `crashdoc env`: the strongest cause-grade finding (if any) first."""
    causes = [f for f in report.findings if f.role == "cause" and f.score >= CAUSE_SCORE]
    return Diagnosis(
        source=source or report.section.title,
        root_cause=causes[0] if causes else None,
        findings=report.findings,
        summary=f"{len(report.findings)} environment finding{'s' if len(report.findings) != 1 else ''}"
        + (f", {len(report.skipped)} not checked" if report.skipped else ""),
        sections=(report.section,),
        skipped=report.skipped,
    )


_FORMATS: tuple[tuple[str, bool], ...] = (("%b %d %H:%M:%S", True), ("%m-%d %H:%M:%S", True),
                                          ("%Y-%m-%d %H:%M:%S", False), ("%d/%m/%Y %H:%M:%S", False))


def parse_time(text: str, now: datetime | None = None) -> datetime | None:
    """A log timestamp (ISO 8601, journald `Nov 30 12:48:02`, vLLM `11-30 12:48:02`) as a datetime, or None.

    Times without a year get the current one (the previous one if that puts them in the future).
    """
    text = text.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        pass
    now = now or datetime.now()
    short = re.sub(r"\.\d+$", "", text)
    for fmt, yearless in _FORMATS:
        try:
            parsed = datetime.strptime(f"{now.year} {short}" if yearless else short, f"%Y {fmt}" if yearless else fmt)
        except ValueError:
            continue
        if yearless and parsed - now > timedelta(days=1):
            parsed = parsed.replace(year=now.year - 1)
        return parsed
    return None


def since_from_diagnosis(diag: Diagnosis) -> datetime | None:
    """The start of the first failed attempt, as a datetime (naive times are the host's local time)."""
    for attempt in diag.attempts:
        if attempt.outcome not in ("running", "exited 0") and attempt.started:
            parsed = parse_time(attempt.started)
            if parsed is not None:
                return parsed
    return None
