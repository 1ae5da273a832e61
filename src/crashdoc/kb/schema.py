"""Validate one parsed rule file and build a :class:`Rule` from it.

Every problem is reported as ``"<path>: <what is wrong>; <how to fix it>"`` so that a rule
author (or a user with a rule directory) can repair the file without reading this code.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.utils import canonicalize_name

from crashdoc.kb.checks import as_list, check_placeholders, check_regexes
from crashdoc.kb.context import WORDINGS, Override, Upstream
from crashdoc.kb.context_checks import check_overrides, check_upstream, check_wordings
from crashdoc.kb.model import (
    CATEGORIES,
    CONTEXT_VALUES,
    DEFAULT_PRIORITY,
    EXAMPLE_KINDS,
    LOG_VALUES,
    ROLES,
    Example,
    Lookup,
    Rule,
)
from crashdoc.kb.redos import linear_start
from crashdoc.regex import Regex

FIELDS = ("id", "category", "role", "priority", "match", "explanation", "fix", "lookup",
          "references", "examples", "alone", "overrides", "wordings", "upstream")
_ID = Regex(r"^[a-z0-9][a-z0-9-]*$")
_EXC_NAME = Regex(r"^[A-Za-z_]\w*$")


def _check_examples(where: str, examples: Any) -> list[str]:
    """Examples: a list of one-key mappings; at least one match and one no-match."""
    if not isinstance(examples, list):
        return [f"{where}: missing field 'examples'; add a list with at least one '- match: |' "
                "and one '- no-match: |' log excerpt"]
    problems, kinds = [], []
    for i, item in enumerate(examples):
        found = [k for k in item if k in EXAMPLE_KINDS] if isinstance(item, dict) else []
        if len(found) != 1:
            problems.append(f"{where}: examples[{i}] must be a mapping with exactly one of "
                            f"{', '.join(EXAMPLE_KINDS)} (and optionally {', '.join(EXAMPLE_TAGS)})")
            continue
        kind, log = found[0], item[found[0]]
        for key in item:
            if key != kind and key not in EXAMPLE_TAGS:
                problems.append(f"{where}: examples[{i}] has unknown key '{key}'; use one of "
                                f"{', '.join(EXAMPLE_KINDS + EXAMPLE_TAGS)}")
        if not isinstance(log, str) or not log.strip():
            problems.append(f"{where}: examples[{i}] ({kind}) is empty; paste at least one log line")
        if "wording" in item and item["wording"] not in WORDINGS:
            problems.append(f"{where}: examples[{i}] has wording {item['wording']!r}; use one of "
                            f"{', '.join(sorted(WORDINGS))} (the project or platform whose words these are)")
        if "category" in item and (item["category"] not in CATEGORIES or kind != "match"):
            problems.append(f"{where}: examples[{i}].category must be a category and is for 'match' examples "
                            "(the category diagnose gives when an override applies)")
        kinds.append(kind)
    for need in ("match", "no-match"):
        if need not in kinds:
            problems.append(f"{where}: no '{need}' example; add '- {need}: |' followed by a log excerpt")
    return problems


EXAMPLE_TAGS: tuple[str, ...] = ("wording", "category")




def _check_lookup(where: str, lookup: Any, groups: set[str]) -> tuple[list[str], set[str]]:
    """lookup: {new_name: {from: capture, table: {key: value}}}."""
    if lookup is None:
        return [], set()
    if not isinstance(lookup, dict):
        return [f"{where}: 'lookup' must be a mapping name -> {{from: capture, table: {{...}}}}"], set()
    problems: list[str] = []
    for name, spec in lookup.items():
        if not (isinstance(spec, dict) and isinstance(spec.get("table"), dict) and spec.get("from")):
            problems.append(f"{where}: lookup.{name} needs 'from: <capture>' and 'table: {{key: value}}'")
        elif spec["from"] not in groups:
            problems.append(f"{where}: lookup.{name}.from names '{spec['from']}', which no regex captures; "
                            f"add (?P<{spec['from']}>...) to a regex")
    return problems, set(lookup)


def check_rule(data: Any, where: str, stem: str, folder: str | None) -> list[str]:
    """Return every problem of one parsed rule file (empty when the rule is valid).

    *folder* is the name of the directory holding the file, or None for a file placed directly
    in the root of a user rule directory (then the folder is not checked against the category).
    """
    if not isinstance(data, dict):
        return [f"{where}: the file must hold one YAML mapping (id:, category:, ...); see docs/RULES.md"]
    problems = [f"{where}: unknown field '{k}'; allowed fields are {', '.join(FIELDS)}"
                for k in data if k not in FIELDS]
    rid, category, role = data.get("id"), data.get("category"), data.get("role")
    if not isinstance(rid, str) or not _ID.match(rid):
        problems.append(f"{where}: missing or invalid 'id'; add 'id: {stem}' (lowercase letters, digits, '-')")
    elif rid != stem:
        problems.append(f"{where}: id '{rid}' differs from the file name; "
                        f"rename the file to {rid}.yaml or set 'id: {stem}'")
    if category not in CATEGORIES:
        what = "missing 'category'" if category is None else f"unknown category '{category}'"
        problems.append(f"{where}: {what}; use one of {', '.join(CATEGORIES)}")
    elif folder is not None and folder != category:
        problems.append(f"{where}: category '{category}' but the file is in folder '{folder}'; "
                        f"move it to {category}/ or fix the category")
    alone = data.get("alone")
    if alone is not None:
        if role != "consequence":
            problems.append(f"{where}: 'alone' is for consequence rules; remove it or set 'role: consequence'")
        if not isinstance(alone, dict) or alone.get("category") not in CATEGORIES or not isinstance(
                alone.get("text"), str) or set(alone) - {"category", "text"}:
            problems.append(f"{where}: 'alone' needs 'category' (one of the categories) and 'text' (the next step "
                            "when this consequence is the only error found)")
    if role not in ROLES:
        problems.append(f"{where}: missing or invalid 'role'; add 'role: cause' (or 'role: consequence' "
                        "for a wrapper message that is never the root cause)")
    priority = data.get("priority", DEFAULT_PRIORITY)
    if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 100:
        problems.append(f"{where}: priority must be an integer from 0 to 100; see docs/RULES.md for the scale")
    match = data.get("match")
    groups: set[str] = set()
    if not isinstance(match, dict) or not (match.get("exception") or match.get("regex") or match.get("frames")):
        problems.append(f"{where}: missing 'match'; add 'match:' with 'regex:', 'exception: [TypeName]' and/or "
                        "'frames:'")
    else:
        for key in match:
            if key not in ("exception", "regex", "frames", "ignore_case", "any_level", "type_required"):
                problems.append(f"{where}: unknown field 'match.{key}'; use exception, regex, frames, ignore_case, "
                                "any_level, type_required")
        for name in as_list(match.get("exception")):
            if not isinstance(name, str) or not _EXC_NAME.match(name):
                problems.append(f"{where}: match.exception '{name}' is not a type name; write the last "
                                "dotted component, e.g. OutOfMemoryError")
        if not isinstance(match.get("ignore_case", False), bool):
            problems.append(f"{where}: match.ignore_case must be true or false")
        for flag in ("any_level", "type_required"):
            if not isinstance(match.get(flag, False), bool):
                problems.append(f"{where}: match.{flag} must be true or false")
        flags = re.IGNORECASE if match.get("ignore_case") else 0
        found, groups = check_regexes(where, as_list(match.get("regex")), flags)
        problems += found
        problems += check_regexes(f"{where}: match.frames", as_list(match.get("frames")), 0)[0]
    lookup_problems, lookup_names = _check_lookup(where, data.get("lookup"), groups)
    problems += lookup_problems
    problems += check_overrides(where, data.get("overrides"), groups | lookup_names)
    problems += check_wordings(where, data.get("wordings"))
    explanation = data.get("explanation")
    if not isinstance(explanation, str) or not explanation.strip():
        problems.append(f"{where}: missing 'explanation'; add one paragraph saying what happened and why")
    fix = data.get("fix") or {}
    if not isinstance(fix, dict):
        problems.append(f"{where}: 'fix' must be a mapping with 'text:' and optional 'command:'")
        fix = {}
    for key in fix:
        if key not in ("text", "command", "fallback_command", "apply"):
            problems.append(f"{where}: unknown field 'fix.{key}'; use text, command, fallback_command, apply")
    problems += _check_apply(where, fix)
    if role == "cause" and not (isinstance(fix.get("text"), str) and fix["text"].strip()):
        problems.append(f"{where}: cause rule without 'fix.text'; add 'fix:' with 'text: <what to do>'")
    known = groups | lookup_names
    problems += check_placeholders(where, "fix.text", fix.get("text"), known)
    problems += check_placeholders(where, "fix.command", fix.get("command"), known | LOG_VALUES | CONTEXT_VALUES)
    problems += check_placeholders(where, "fix.fallback_command", fix.get("fallback_command"), known | LOG_VALUES)
    refs = data.get("references", [])
    if not isinstance(refs, list) or any(not (isinstance(r, str) and r.startswith("http")) for r in refs):
        problems.append(f"{where}: 'references' must be a list of http(s) URLs")
    problems += check_upstream(where, data.get("upstream"))
    return problems + _check_examples(where, data.get("examples"))




#: the only commands `fix.apply: safe` may mark: one pip install of pinned packages (`NAME==VERSION`)
SAFE_COMMAND = Regex(r"pip install(?: \{?[A-Za-z0-9._-]+\}?==\{?[\w.+-]+\}?)+(?: --index-url https://[\w./{}+-]+)?")


def _check_apply(where: str, fix: dict[str, Any]) -> list[str]:
    """`fix.apply` is `safe` or `manual`; `safe` only on a pinned pip install (crashdoc fix runs it)."""
    value = fix.get("apply", "manual")
    if value not in ("safe", "manual"):
        return [f"{where}: 'fix.apply' is {value!r}; use safe (crashdoc fix may run the command) or manual"]
    if value == "safe" and not (isinstance(fix.get("command"), str) and SAFE_COMMAND.fullmatch(fix["command"])):
        return [f"{where}: 'fix.apply: safe' needs a 'fix.command' of the form `pip install NAME==VERSION`"
                " (a companion pin); mark other fixes manual"]
    return []


def build_rule(data: dict[str, Any], where: str) -> Rule:
    """Build a Rule from a mapping that :func:`check_rule` accepted."""
    match, fix = data["match"], data.get("fix") or {}
    flags = re.IGNORECASE if match.get("ignore_case") else 0
    regexes = tuple(as_list(match.get("regex")))
    lookups = tuple(
        Lookup(name, spec["from"], tuple((str(k), str(v)) for k, v in spec["table"].items()))
        for name, spec in (data.get("lookup") or {}).items()
    )
    examples = tuple(Example(kind, item[kind], item.get("wording"), item.get("category"))
                     for item in data["examples"] for kind in item if kind in EXAMPLE_KINDS)
    overrides = tuple(
        Override(tuple((str(k), str(v)) for k, v in o["when"].items()), o["category"], o.get("text"),
                 o.get("command"), " ".join(o["explanation"].split()) if o.get("explanation") else None)
        for o in data.get("overrides") or ())
    return Rule(
        id=data["id"], category=data["category"], role=data["role"],
        priority=int(data.get("priority", DEFAULT_PRIORITY)),
        explanation=" ".join(data["explanation"].split()),
        fix_text=fix.get("text"), fix_command=fix.get("command"),
        fallback_command=fix.get("fallback_command"), fix_apply=str(fix.get("apply", "manual")),
        exceptions=tuple(as_list(match.get("exception"))), regexes=regexes,
        ignore_case=bool(match.get("ignore_case", False)),
        any_level=bool(match.get("any_level", False)),
        type_required=bool(match.get("type_required", False)),
        alone_category=(data.get("alone") or {}).get("category"), alone_text=(data.get("alone") or {}).get("text"),
        references=tuple(data.get("references") or ()), examples=examples, lookups=lookups,
        path=where, patterns=tuple(Regex.compile(linear_start(rx), flags) for rx in regexes),
        frames=tuple(Regex.compile(rx) for rx in as_list(match.get("frames"))),
        overrides=overrides, single_wording=(data.get("wordings") or {}).get("single"),
        upstream=tuple(
            Upstream(url=e["url"], project=canonicalize_name(e["project"]), affected=str(e["affected"]),
                     fixed_in=str(e["fixed_in"]) if e.get("fixed_in") is not None else None,
                     when=re.compile(linear_start(e["when"])) if e.get("when") else None,
                     workaround=e.get("workaround"))
            for e in data.get("upstream") or ()),
    )
