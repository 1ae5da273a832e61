"""The knowledge base: every loaded rule, ordered by precedence, and the matching entry points."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from crashdoc.kb.cache import built_once, content_key
from crashdoc.kb.loader import _iter_files as iter_files
from crashdoc.kb.loader import (
    load_dirs,
    package_rules_dir,
    raise_on_problems,
    user_rule_dirs,
)
from crashdoc.kb.model import ANY_TYPE, Rule, RuleMatch, resolve_exception
from crashdoc.parse.exceptions import last_component
from crashdoc.parse.scan_form import exception_pattern, to_scan_pattern

if TYPE_CHECKING:
    from crashdoc.kb.loader import Location
    from crashdoc.kb.prefilter import Plan, Prefilter


def _content_key(dirs: list[tuple[Location, bool]]) -> str | None:
    """The cache key of these rule directories (every rule file's path and bytes), or None when one cannot be
    read (then the rules load the slow way and report the problem)."""
    files: list[tuple[str, bytes]] = []
    try:
        for root, is_user in dirs:
            files.append((f"root:{root}:{is_user}", b""))
            for entry, _ in iter_files(root):
                files.append((str(entry), entry.read_bytes()))
    except OSError:
        return None
    return content_key(files)


def _entry_name(dirs: list[tuple[Location, bool]]) -> str:
    """The cache entry of this set of rule directories (each set has its own: `--rules DIR` does not evict the
    packaged rules' entry; the prefix is not the `kb-` of the entries older crashdocs write and prune)."""
    return "knowledge-" + hashlib.sha256(repr([(str(root), user) for root, user in dirs]).encode()).hexdigest()[:16]


def precedence(rule: Rule) -> tuple[int, int, str]:
    """Sort key: highest priority first, then cause before consequence, then id."""
    return (-rule.priority, 1 if rule.is_consequence else 0, rule.id)


@dataclass(frozen=True)
class KnowledgeBase:
    """All rules (package + user), in precedence order."""

    rules: tuple[Rule, ...]

    @classmethod
    def load(cls, extra_dirs: tuple[str | Path, ...] | list[str | Path] = ()) -> KnowledgeBase:
        """Load the packaged rules plus *extra_dirs* and the ``$CRASHDOC_RULES`` directories.

        Raises RuleError (one line naming the file and the fix) on the first invalid rule,
        a missing user directory or a duplicate id.
        """
        dirs = [(package_rules_dir(), False)] + [(d, True) for d in user_rule_dirs(extra_dirs)]

        def build() -> dict[str, object]:
            result = load_dirs(dirs)
            raise_on_problems(result.problems)
            kb = cls.from_rules(result.rules)
            return {"rules": kb.rules, "scan_patterns": kb._scan_patterns, "prefilter": kb._prefilter_plan}

        value = built_once(_entry_name(dirs), [root for root, _ in dirs], lambda: _content_key(dirs), build,
                           lambda v: isinstance(v, dict) and v.keys() == {"rules", "scan_patterns", "prefilter"})
        kb = cls(value["rules"])
        kb.__dict__["_scan_patterns"] = value["scan_patterns"]  # the cached_properties, filled from the cache
        kb.__dict__["_prefilter_plan"] = value["prefilter"]
        return kb

    @classmethod
    def from_rules(cls, rules: tuple[Rule, ...] | list[Rule]) -> KnowledgeBase:
        """Build a knowledge base from already-loaded rules."""
        return cls(tuple(sorted(rules, key=precedence)))

    def get(self, rule_id: str) -> Rule | None:
        """The rule with this id, or None."""
        return next((r for r in self.rules if r.id == rule_id), None)

    def classify(self, exception: str | None, message: str, line: str, frames: Sequence[str] = ()) -> RuleMatch | None:
        """Return the best rule for one candidate error, or None.

        *exception*: the exception type (dotted or not) or None; when None, a type written at
        the start of *message* or *line* (``KeyError: 'x'``) is used. *message*: the exception
        message or the prefix-stripped line text (may be multi-line). *line*: the
        prefix-stripped line. *frames*: a traceback's frames (`path in func`, outermost first), for rules that
        say where the error was raised. Best = highest priority, then cause over consequence, then id.
        """
        exc = resolve_exception(exception, message or "", line or "")
        maybe = self._prefilter.candidates(message or "", line or "")
        # NOTE: only the rules one hyperscan pass says may match are visited, in precedence (index) order; a loop
        # over every rule that skips the others costs ~500 steps per error line
        rules = self.rules
        order = range(len(rules)) if maybe is None else sorted(maybe)
        last = last_component(exc)
        for i in order:
            rule = rules[i]
            if (rule.frames and not frames) or (rule.exceptions and last not in rule.exceptions and exc != ANY_TYPE):
                continue  # what Rule.match refuses first, without the call (most always-tried rules, most lines)
            found = rule.match(exc, message or "", line or "", frames)
            if found is not None:
                return found
        return None

    @cached_property
    def _prefilter(self) -> Prefilter:
        from crashdoc.kb.prefilter import Prefilter

        return Prefilter(self.rules, self._prefilter_plan)

    @cached_property
    def _prefilter_plan(self) -> Plan:
        from crashdoc.kb.prefilter import plan

        return plan(self.rules)

    def classify_all(self, exception: str | None, message: str, line: str) -> list[RuleMatch]:
        """Every matching rule, best first (for explanations and debugging)."""
        exc = resolve_exception(exception, message or "", line or "")
        found = (rule.match(exc, message or "", line or "") for rule in self.rules)
        return [m for m in found if m is not None]

    def scan_patterns(self) -> list[str]:
        """Every rule regex in scanner-safe form (see :mod:`crashdoc.parse.scan_form`), deduplicated (computed once).

        Rules that name exception types contribute ``\\b(?:TypeName)\\b`` instead of their regexes: they hold only
        on an error of those types, whose line names it.
        """
        return list(self._scan_patterns)

    @cached_property
    def _scan_patterns(self) -> tuple[str, ...]:
        out: list[str] = []
        for rule in self.rules:
            candidates = [to_scan_pattern(rx, rule.ignore_case) for rx in rule.regexes]
            if rule.exceptions:  # the rule holds only on an error of these types: their names make the line hot
                candidates = [exception_pattern(rule.exceptions)]  # (its regex alone also fires on INFO dumps)
            out.extend(p for p in candidates if p and p not in out)
        return tuple(out)
