"""Frozen data model of the knowledge base: rules, their examples, and a match result."""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field

from crashdoc.parse.exceptions import last_component, split_exception

CATEGORIES: tuple[str, ...] = (
    "dependency_version_mismatch", "missing_dependency", "abi_mismatch", "cuda_driver_mismatch",
    "gpu_oom", "kv_cache_insufficient", "gpu_unavailable", "nccl_distributed", "model_config",
    "model_files", "cli_config_error", "port_in_use", "host_resources", "modified_install",
    "kernel_compile_error", "engine_bug", "filesystem_permissions", "cpu_isa", "other",
)
ROLES: tuple[str, ...] = ("cause", "consequence")
EXAMPLE_KINDS: tuple[str, ...] = ("match", "no-match", "todo-match", "todo-no-match")
DEFAULT_PRIORITY = 50

#: A capture may only be pasted into a shell command when it consists of these characters.
_SAFE_VALUE = re.compile(r"^[\w.+\-/:@%,~=]+$")


@dataclass(frozen=True)
class Example:
    """One log excerpt embedded in a rule, with what the rule must do on it."""

    kind: str
    """``match``, ``no-match``, ``todo-match`` or ``todo-no-match``."""
    log: str
    """One or more raw log lines, prefixes included."""


@dataclass(frozen=True)
class Lookup:
    """Derive capture *name* from capture *source* through a small table (e.g. model type -> version)."""

    name: str
    source: str
    table: tuple[tuple[str, str], ...]

    def resolve(self, captures: dict[str, str]) -> str | None:
        """Return the table value for the source capture, or None when absent or unknown."""
        key = captures.get(self.source)
        return dict(self.table).get(key) if key is not None else None


class _Missing(dict[str, str]):
    """format_map helper that renders an unknown placeholder as ``<name>``."""

    def __missing__(self, key: str) -> str:
        return f"<{key}>"


def format_command(template: str | None, captures: dict[str, str]) -> str | None:
    """Fill *template* from *captures*; None when a capture is missing or unsafe for a shell."""
    if not template:
        return None
    names = {f for _, f, _, _ in string.Formatter().parse(template) if f}
    if any(n not in captures or not _SAFE_VALUE.match(captures[n]) for n in names):
        return None
    return template.format_map(captures)


@dataclass(frozen=True)
class Rule:
    """One knowledge-base rule, loaded from ``rules/<category>/<id>.yaml``."""

    id: str
    category: str
    role: str
    priority: int
    explanation: str
    fix_text: str | None
    fix_command: str | None
    fallback_command: str | None
    exceptions: tuple[str, ...]
    regexes: tuple[str, ...]
    ignore_case: bool
    references: tuple[str, ...]
    examples: tuple[Example, ...]
    lookups: tuple[Lookup, ...]
    path: str
    patterns: tuple[re.Pattern[str], ...] = field(compare=False, repr=False, hash=False)
    any_level: bool = False
    """The cause keeps its priority on an INFO/WARNING line (by default such a line yields to real errors)."""
    alone_category: str | None = None
    """A consequence that says something on its own: when nothing else is found, it is reported (low
    confidence) in this category ..."""
    alone_text: str | None = None
    """... with this next step (e.g. a lone watchdog timeout: a collective hang)."""

    @property
    def is_consequence(self) -> bool:
        """True for wrapper / cascade messages that are never the root cause."""
        return self.role == "consequence"

    def match(self, exception: str | None, message: str, line: str) -> RuleMatch | None:
        """Match this rule alone; *exception* is the (possibly dotted) type or None.

        With both ``exception`` and ``regex`` in the rule, both must hold. The regexes are
        searched in *message* first, then in *line*; the first regex that matches wins.
        """
        if self.exceptions:
            if last_component(exception) not in self.exceptions:
                return None
            if not self.patterns:
                return self._result({}, None)
        for text in (message, line):
            if not text:
                continue
            for pattern in self.patterns:
                found = pattern.search(text)
                if found:
                    captures = {k: v for k, v in found.groupdict().items() if v is not None}
                    return self._result(captures, found.group(0))
        return None

    def _result(self, captures: dict[str, str], matched_text: str | None) -> RuleMatch:
        """Build the RuleMatch: apply lookups, format the fix text and command."""
        for lookup in self.lookups:
            value = lookup.resolve(captures)
            if value is not None:
                captures[lookup.name] = value
        command = format_command(self.fix_command, captures)
        if command is None:
            command = format_command(self.fallback_command, captures)
        text = self.fix_text.format_map(_Missing(captures)) if self.fix_text else None
        return RuleMatch(self, captures, command, text, matched_text)


@dataclass(frozen=True)
class RuleMatch:
    """The best rule for one candidate error, with the fix filled in from the captures."""

    rule: Rule
    captures: dict[str, str] = field(hash=False)
    fix_command: str | None
    fix_text: str | None
    matched_text: str | None

    @property
    def category(self) -> str:
        """Shortcut for ``rule.category``."""
        return self.rule.category


def resolve_exception(exception: str | None, message: str, line: str) -> str | None:
    """Use *exception* when given, else the type that starts *message* or *line* (if any)."""
    if exception:
        return exception
    for text in (message, line):
        found, _ = split_exception(text or "")
        if found:
            return found
    return None
