"""Checks of a rule's context parts (kb/context.py): its overrides, its wordings, its known upstream bugs."""

from __future__ import annotations

import re
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from crashdoc.kb.checks import as_list, check_placeholders, check_regexes
from crashdoc.kb.context import CONTEXT_KEYS
from crashdoc.kb.model import CATEGORIES, LOG_VALUES


def check_overrides(where: str, overrides: Any, groups: set[str]) -> list[str]:
    """overrides: [{when: {capture|chain|args: regex}, category: C, text?, command?, explanation?}]."""
    if overrides is None:
        return []
    if not isinstance(overrides, list):
        return [f"{where}: 'overrides' must be a list of {{when: {{...}}, category: ...}} mappings"]
    problems: list[str] = []
    for i, item in enumerate(overrides):
        label = f"{where}: overrides[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{label} must be a mapping with 'when:' and 'category:'")
            continue
        for key in item:
            if key not in ("when", "category", "text", "command", "explanation"):
                problems.append(f"{label} has unknown field '{key}'; use when, category, text, command, explanation")
        if item.get("category") not in CATEGORIES:
            problems.append(f"{label}: 'category' must be one of {', '.join(CATEGORIES)}")
        when = item.get("when")
        if not isinstance(when, dict) or not when:
            problems.append(f"{label}: 'when' must map a capture name, 'chain' or 'args' to a regex")
            continue
        for key, rx in when.items():
            if key not in CONTEXT_KEYS and key not in groups:
                problems.append(f"{label}: when.{key} is neither a capture of match.regex nor one of "
                                f"{', '.join(CONTEXT_KEYS)}; add (?P<{key}>...) to a regex or fix the name")
            if not isinstance(rx, str):
                problems.append(f"{label}: when.{key} must be a quoted regex")
                continue
            for name in re.findall(r"\$\{(\w+)\}", rx):
                if name not in groups:
                    problems.append(f"{label}: when.{key} uses ${{{name}}} but no regex captures it")
            problems += check_regexes(f"{label}: when.{key}", [re.sub(r"\$\{\w+\}", "x", rx)], 0, True)[0]
        for key in ("text", "command", "explanation"):
            if key in item and not isinstance(item[key], str):
                problems.append(f"{label}: '{key}' must be a string")
        problems += check_placeholders(label, "text", item.get("text"), groups)
        problems += check_placeholders(label, "command", item.get("command"), groups | LOG_VALUES)
    return problems


def check_wordings(where: str, wordings: Any) -> list[str]:
    """wordings: {single: <why the class has one wording>}."""
    if wordings is None:
        return []
    if not (isinstance(wordings, dict) and set(wordings) == {"single"} and isinstance(wordings["single"], str)
            and wordings["single"].strip()):
        return [f"{where}: 'wordings' must be {{single: <why this class is worded by one project only>}}"]
    return []


_UPSTREAM_KEYS = ("url", "project", "affected", "fixed_in", "when", "workaround")


def check_upstream(where: str, entries: Any) -> list[str]:
    """upstream: [{url, project, affected, fixed_in?, when?, workaround?}] (docs/RULES.md, Known upstream bugs)."""
    if entries is None:
        return []
    if not isinstance(entries, list):
        return [f"{where}: 'upstream' must be a list of {{url, project, affected, fixed_in}} entries"]
    problems: list[str] = []
    for i, entry in enumerate(entries):
        at = f"{where}: upstream[{i}]"
        if not isinstance(entry, dict):
            problems.append(f"{at} must be a mapping with url, project, affected and fixed_in or workaround")
            continue
        problems += [f"{at}: unknown field '{k}'; use {', '.join(_UPSTREAM_KEYS)}" for k in entry
                     if k not in _UPSTREAM_KEYS]
        if not (isinstance(entry.get("url"), str) and entry["url"].startswith("https://")):
            problems.append(f"{at}: 'url' must be the https URL of the upstream issue or pull request")
        if not (isinstance(entry.get("project"), str) and re.fullmatch(r"[A-Za-z0-9][\w.\-]*", entry["project"])):
            problems.append(f"{at}: 'project' must be the distribution whose releases have the bug (e.g. vllm)")
        try:
            affected = SpecifierSet(str(entry.get("affected") or ""))
            if not str(affected):
                raise InvalidSpecifier("empty")
        except InvalidSpecifier:
            problems.append(f"{at}: 'affected' must be a PEP 440 specifier of the releases with the bug (e.g. '<0.5.3')")
            affected = None
        fixed = entry.get("fixed_in")
        if fixed is None and not isinstance(entry.get("workaround"), str):
            problems.append(f"{at}: give 'fixed_in' (the first fixed release) or 'workaround' (a confirmed command)")
        if fixed is not None:
            try:
                version = Version(str(fixed))
                if affected is not None and affected.contains(version, prereleases=True):
                    problems.append(f"{at}: fixed_in {fixed} is inside 'affected' {affected}; one of them is wrong")
            except InvalidVersion:
                problems.append(f"{at}: 'fixed_in' {fixed!r} is not a release version (e.g. 0.5.3); quote it in YAML")
        if "when" in entry:
            problems += check_regexes(f"{at}.when", as_list(entry["when"]), 0)[0]
        if "workaround" in entry and not (isinstance(entry["workaround"], str) and entry["workaround"].strip()):
            problems.append(f"{at}: 'workaround' must be one shell command")
    return problems
