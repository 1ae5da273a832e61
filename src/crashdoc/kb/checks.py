"""Checks of single fields shared by the rule schema: lists, regexes, and templates with placeholders."""

from __future__ import annotations

import re
import string
from typing import Any

from crashdoc.parse.scan_form import unsupported_construct

_PROBE = "The quick brown fox: 0.1.2 /usr/lib/x.so [Errno 1] (a) {b} 'c' \"d\""


def as_list(value: Any) -> list[Any]:
    """A scalar becomes a one-item list; None becomes an empty list."""
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def check_regexes(where: str, regexes: list[Any], flags: int, anchors: bool = False) -> tuple[list[str], set[str]]:
    """Compile each regex; return problems and the union of named groups (*anchors*: `^` allowed, for a regex
    searched in one value rather than in log lines)."""
    problems: list[str] = []
    groups: set[str] = set()
    for i, rx in enumerate(regexes):
        label = f"match.regex[{i}]" if len(regexes) > 1 else "match.regex"
        if not isinstance(rx, str) or not rx.strip():
            problems.append(f"{where}: {label} is empty or not a string; write a quoted regex")
            continue
        try:
            compiled = re.compile(rx, flags)
        except re.error as exc:
            problems.append(f"{where}: {label} does not compile ({exc}); fix the regex (single-quote it in YAML)")
            continue
        groups.update(compiled.groupindex)
        if rx.startswith("^") and not anchors:
            problems.append(f"{where}: {label} starts with '^'; remove the anchor, lines are searched after prefixes")
        found = compiled.search("") or compiled.search(_PROBE)
        if found is not None and found.group(0) == "":
            problems.append(f"{where}: {label} can match the empty string; make at least one character mandatory")
        bad = unsupported_construct(rx)
        if bad:
            problems.append(f"{where}: {label} uses {bad}, which the hot-line scanner cannot compile; "
                            "rewrite it without that construct (see docs/RULES.md)")
    return problems, groups


def check_placeholders(where: str, label: str, template: Any, known: set[str]) -> list[str]:
    """Check that *template* is a valid format string using only *known* capture names."""
    if template is None:
        return []
    if not isinstance(template, str):
        return [f"{where}: {label} must be a string; quote it"]
    try:
        names = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
    except ValueError as exc:
        return [f"{where}: {label} is not a valid template ({exc}); write literal braces as {{{{ and }}}}"]
    unknown = sorted(n for n in names if n not in known)
    if unknown:
        return [f"{where}: {label} uses {{{unknown[0]}}} but no regex has a group (?P<{unknown[0]}>...) "
                "and no lookup defines it; add the named group or remove the placeholder"]
    return []
