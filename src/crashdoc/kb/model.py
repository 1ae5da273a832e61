"""Frozen data model of the knowledge base: rules, their examples, and a match result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from crashdoc.kb.context import MatchContext, Override, Upstream
from crashdoc.kb.fill import INSTALL, fill_command
from crashdoc.parse.exceptions import last_component, split_exception
from crashdoc.regex import Regex

CATEGORIES: tuple[str, ...] = (
    "dependency_version_mismatch", "missing_dependency", "abi_mismatch", "cuda_driver_mismatch",
    "gpu_oom", "kv_cache_insufficient", "gpu_unavailable", "nccl_distributed", "model_config",
    "model_files", "cli_config_error", "port_in_use", "host_resources", "modified_install",
    "kernel_compile_error", "engine_bug", "filesystem_permissions", "cpu_isa", "other",
)
ROLES: tuple[str, ...] = ("cause", "consequence")
EXAMPLE_KINDS: tuple[str, ...] = ("match", "no-match", "todo-match", "todo-no-match")
DEFAULT_PRIORITY = 50

#: Values a fix command may name that come from elsewhere in the log (filled by crashdoc.analyze.values): the
#: engine's pip distribution and version (start banner), the model id (logged arguments), the engine's upgrade
#: command, the installed release of the captured `package` when it is the engine.
LOG_VALUES: frozenset[str] = frozenset({"engine", "engine_version", "model", "engine_upgrade", "package_version"})
#: Values a fix command may name that the lines printed after the error give (crashdoc.analyze.fixes
#: `context_values`): clap's suggested value, and the variable a switch with an invalid value was read from.
CONTEXT_VALUES: frozenset[str] = frozenset({"suggested", "flag_env"})


@dataclass(frozen=True)
class Example:
    """One log excerpt embedded in a rule, with what the rule must do on it."""

    kind: str
    """``match``, ``no-match``, ``todo-match`` or ``todo-no-match``."""
    log: str
    """One or more raw log lines, prefixes included."""
    wording: str | None = None
    """Whose wording of the class this excerpt shows (`vllm`, `tgi`, `macos`, ...; see kb/context.py WORDINGS)."""
    category: str | None = None
    """The category `diagnose` must give this excerpt when it differs from the rule's (an override applies)."""


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


_PLACEHOLDER = Regex(r"(?<!\$)\{([a-z_][a-z0-9_]*)\}")
"""A rule text's placeholder for a capture."""


def _filled(text: str, captures: dict[str, str]) -> str:
    """A rule's text (its fix's, its explanation) with its `{name}` placeholders filled from the captures (`<name>`
    for one the match did not capture); other braces, and a shell's `${name}` quoted in it, stay as they are."""
    return _PLACEHOLDER.sub(lambda m: captures.get(m[1], f"<{m[1]}>"), text) if "{" in text else text


FRAME_DEPTH = 6
"""How many of a traceback's innermost frames a rule's `frames:` looks at."""


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
    patterns: tuple[Regex, ...] = field(compare=False, repr=False, hash=False)
    any_level: bool = False
    """The cause keeps its priority on an INFO/WARNING line (by default such a line yields to real errors)."""
    type_required: bool = False
    """The exception types are the rule's real test (its regex only says where: a path under site-packages): an
    error whose type was lost (ANY_TYPE) never matches it."""
    alone_category: str | None = None
    """A consequence that says something on its own: when nothing else is found, it is reported (low
    confidence) in this category ..."""
    alone_text: str | None = None
    """... with this next step (e.g. a lone watchdog timeout: a collective hang)."""
    frames: tuple[Regex, ...] = field(default=(), compare=False, repr=False, hash=False)
    """Where the exception was raised: one of these is searched in the innermost frames (`path in func`) of its
    traceback (an IndexError inside triton/compiler/ is Triton's compiler failing, whatever its message)."""
    fix_apply: str = "manual"
    """`safe`: `crashdoc fix` may run the command (a pip install/pin of a companion package the knowledge base
    knows); `manual` (the default): the fix is shown, never run."""
    overrides: tuple[Override, ...] = ()
    """Another category and fix when a capture or the context says so; the first that holds applies."""
    single_wording: str | None = None
    """Why the class has one wording only (`wordings: {single: ...}`): the message is one library's own."""
    upstream: tuple[Upstream, ...] = field(default=(), compare=False, hash=False)
    """Known upstream bugs that print this rule's message (analyze/values.py renders them with the host's release)."""

    @property
    def is_consequence(self) -> bool:
        """True for wrapper / cascade messages that are never the root cause."""
        return self.role == "consequence"

    def match(self, exception: str | None, message: str, line: str, frames: Sequence[str] = ()) -> RuleMatch | None:
        """Match this rule alone; *exception* is the (possibly dotted) type or None; *frames* the traceback's
        frames as `path in func`, outermost first.

        With several of ``exception``, ``regex`` and ``frames`` in the rule, all must hold. The regexes are
        searched in *message* first, then in *line*; the first regex that matches wins. ``frames`` is searched
        in the FRAME_DEPTH innermost frames.
        """
        if self.frames:
            inner = frames[-FRAME_DEPTH:]
            if not any(p.search(f) for f in inner for p in self.frames):
                return None
            if not self.exceptions and not self.patterns:
                return self._result({}, None)
        if self.exceptions:
            if exception == ANY_TYPE:
                if not self.patterns or self.type_required:
                    return None
            elif last_component(exception) not in self.exceptions:
                return None
            elif not self.patterns:
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

    def render(self, captures: dict[str, str], matched_text: str | None = None,
               override: Override | None = None) -> RuleMatch:
        """The match this rule gives with these captures (values found elsewhere in the log added to its own);
        *override*: one already chosen in context (else the first capture-only override that holds)."""
        return self._result(dict(captures), matched_text, override)

    def in_context(self, match: RuleMatch, context: MatchContext) -> RuleMatch:
        """*match* with the override that holds once the chain and the logged arguments are known."""
        if not self.overrides:
            return match
        chosen = next((o for o in self.overrides if o.holds(match.captures, context)), None)
        if chosen is match.override:
            return match
        return self._result(dict(match.captures), match.matched_text, chosen, decided=True)

    def _result(self, captures: dict[str, str], matched_text: str | None, override: Override | None = None,
                decided: bool = False) -> RuleMatch:
        """Build the RuleMatch: apply lookups, choose the override, format the fix text and command."""
        for lookup in self.lookups:
            value = lookup.resolve(captures)
            if value is not None:
                captures[lookup.name] = value
        if override is None and not decided:
            override = next((o for o in self.overrides if not o.needs_context and o.holds(captures, None)), None)
        fix_command, fix_text, fallback = self.fix_command, self.fix_text, self.fallback_command
        if override is not None and (override.fix_text or override.fix_command):
            fix_command, fix_text = override.fix_command, override.fix_text or fix_text
            fallback = None
        command, refused = fill_command(fix_command, captures)
        if command is None:
            if refused and fallback and INSTALL.search(fallback):
                fallback = None  # the log named something else than the fallback would install: say so instead
            command, refused_fallback = fill_command(fallback, captures)
            refused = refused or refused_fallback
        text = _filled(fix_text, captures) if fix_text else None
        if command is None and refused:
            text = f"{text} {refused}" if text else refused
        return RuleMatch(self, captures, command, text, matched_text, override)


@dataclass(frozen=True)
class RuleMatch:
    """The best rule for one candidate error, with the fix filled in from the captures."""

    rule: Rule
    captures: dict[str, str] = field(hash=False)
    fix_command: str | None
    fix_text: str | None
    matched_text: str | None
    override: Override | None = None
    """The rule's override that applied (its category and fix replace the rule's), if any."""

    @property
    def category(self) -> str:
        """The rule's category, or its override's."""
        return self.override.category if self.override is not None else self.rule.category

    @property
    def explanation(self) -> str:
        """The rule's explanation, or its override's, filled from the captures as the fix text is (`_filled`)."""
        text = self.override.explanation if self.override is not None and self.override.explanation else self.rule.explanation
        return _filled(text, self.captures)


ANY_TYPE = "*"
"""The exception type of an error whose type was lost (a wrapper quoting `str(e)`): a rule's `exception:` list
holds for it, but only a rule that also has a regex, and no `type_required`, can then match (`Rule.match`); a rule
that needs frames never does (a quoted error has none)."""


def resolve_exception(exception: str | None, message: str, line: str) -> str | None:
    """Use *exception* when given, else the type that starts *message* or *line* (if any)."""
    if exception:
        return exception
    for text in (message, line):
        found, _ = split_exception(text or "")
        if found:
            return found
    return None
