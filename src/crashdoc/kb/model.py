"""Frozen data model of the knowledge base: rules, their examples, and a match result."""

from __future__ import annotations

import posixpath
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files

from crashdoc.kb.regex import Regex
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

#: Who words a message: the engines and libraries of the message inventory, and the platforms whose loaders and
#: C libraries word the same failure differently. A `match` example names one (`wording: tgi`); a cause rule
#: shows at least two, or declares `wordings: {single: <why>}` (docs/RULES.md).
WORDINGS: frozenset[str] = frozenset({
    "vllm", "sglang", "tgi", "tensorrt-llm", "tritonserver", "llamacpp", "ollama", "lmdeploy", "openllm", "localai",
    "aphrodite", "exllama", "flashinfer", "torch", "nccl", "cuda", "nvidia-driver", "transformers", "huggingface_hub",
    "safetensors", "triton", "xformers", "flash-attn", "deepspeed", "ray", "pip", "python", "numpy", "gcc", "clang", "ninja",
    "setuptools", "go", "rust", "systemd", "docker", "kubernetes", "linux", "macos", "windows", "glibc", "musl",
    "kernel",
})
#: the keys of an override's `when:` that are not captures: every message of the chain, the logged arguments
CONTEXT_KEYS: tuple[str, ...] = ("chain", "args")
#: Values a fix command may name that come from elsewhere in the log (filled by crashdoc.analyze.values): the
#: engine's pip distribution and version (start banner), the model id (logged arguments), the engine's upgrade
#: command, the installed release of the captured `package` when it is the engine.
LOG_VALUES: frozenset[str] = frozenset({"engine", "engine_version", "model", "engine_upgrade", "package_version"})
#: Values a fix command may name that the lines printed after the error give (crashdoc.analyze.fixes
#: `context_values`): clap's suggested value, and the variable a switch with an invalid value was read from.
CONTEXT_VALUES: frozenset[str] = frozenset({"suggested", "flag_env"})

#: A capture may only be pasted into a shell command when it consists of these characters.
_SAFE_VALUE = re.compile(r"^[\w.+\-/:@%,~=]+$")


@dataclass(frozen=True)
class Example:
    """One log excerpt embedded in a rule, with what the rule must do on it."""

    kind: str
    """``match``, ``no-match``, ``todo-match`` or ``todo-no-match``."""
    log: str
    """One or more raw log lines, prefixes included."""
    wording: str | None = None
    """Whose wording of the class this excerpt shows (`vllm`, `tgi`, `macos`, ...; see WORDINGS)."""
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


class _Missing(dict[str, str]):
    """format_map helper that renders an unknown placeholder as ``<name>``."""

    def __missing__(self, key: str) -> str:
        return f"<{key}>"


#: Directories a fix must never name from a log (a chown of /etc); the trees under the pseudo file systems too.
_SYSTEM_DIRS = frozenset({
    "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/lost+found", "/media",
    "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/snap", "/srv", "/sys", "/tmp", "/usr", "/usr/bin",
    "/usr/include", "/usr/lib", "/usr/lib64", "/usr/libexec", "/usr/local", "/usr/local/bin", "/usr/local/lib",
    "/usr/local/share", "/usr/sbin", "/usr/share", "/usr/src", "/var", "/var/cache", "/var/lib", "/var/log",
    "/var/run", "/var/spool", "/var/tmp", "/run/user", "/dev/shm", "/etc/systemd", "/etc/systemd/system",
})
_PSEUDO_TREES = ("/proc/", "/sys/", "/dev/")
#: an install command in a template: what follows is package names (options aside)
_INSTALL = re.compile(r"(?:\bpip3?|\buv pip|\bapt-get|\bapt|\bdnf|\byum|\bconda|\bmamba) install\b")
_OPTION_WITH_VALUE = frozenset({"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-r",
                                "--requirement", "-c", "--constraint", "-t", "--target", "--python", "-o"})
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]*")


def _normalise(name: str) -> str:
    """PEP 503 normalised (packaging's canonicalize_name, imported when a fix names a package: not at every start)."""
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


@lru_cache(maxsize=1)
def known_packages() -> frozenset[str]:
    """Distributions a fix may install by a name taken from a log (data/known_packages.txt), normalised."""
    text = (files("crashdoc") / "data" / "known_packages.txt").read_text("utf-8")
    return frozenset(_normalise(ln.split("#", 1)[0].strip()) for ln in text.splitlines() if ln.split("#", 1)[0].strip())


def _system_path(value: str) -> bool:
    """A value that names a system directory (or climbs with `..`): no fix may act on it."""
    if not value.startswith("/"):
        return False
    if ".." in value.split("/"):
        return True
    path = "/" + posixpath.normpath(value).lstrip("/")
    return path in _SYSTEM_DIRS or path.startswith(_PSEUDO_TREES)


def _unknown_packages(template: str, captures: dict[str, str]) -> list[str]:
    """Names in the template's install commands that a capture filled and that are not known distributions."""
    out: list[str] = []
    for segment in re.split(r"&&|\|\|?|;", template):
        found = _INSTALL.search(segment)
        if not found:
            continue
        words = segment[found.end():].split()
        for i, word in enumerate(words):
            if word.startswith("-") or (i and words[i - 1] in _OPTION_WITH_VALUE):
                continue
            if "{" not in re.split(r"[<>=~!@\[;]", word.strip("'\""), maxsplit=1)[0]:
                continue  # the name is the rule's own text (`x=={v}`): only a version came from the log
            value = word.format_map(captures).strip("'\"")
            name = _NAME.match(value)
            if name is None or _normalise(name.group(0)) not in known_packages():
                out.append(name.group(0) if name else value)
    return out


def fill_command(template: str | None, captures: dict[str, str]) -> tuple[str | None, str | None]:
    """Fill *template* from *captures*: the command, or None and why not (None when there is nothing to say:
    no template, a missing capture, a value unsafe for a shell).

    Log text is untrusted: a capture must be shell-safe, must not begin with `-` (an option), must not name a
    system directory, and a package name pasted into an install command must be a known distribution."""
    if not template:
        return None, None
    names = {f for _, f, _, _ in string.Formatter().parse(template) if f}
    if any(n not in captures or not _SAFE_VALUE.match(captures[n]) for n in names):
        return None, None
    for n in sorted(names):
        if captures[n].startswith("-"):
            return None, f"The value `{captures[n]}` came from the log and looks like an option: no command is suggested."
        if _system_path(captures[n]):
            return None, (f"The path `{captures[n]}` came from the log and is a system directory: no command is "
                          "suggested for it; check which directory the service really needs.")
    unknown = _unknown_packages(template, captures)
    if unknown:
        return None, (f"The package name `{unknown[0]}` came from the log and was not verified (it is not a known "
                      "distribution): check its real name on pypi.org or in the engine's documentation before "
                      "installing anything.")
    return template.format_map(captures), None


def format_command(template: str | None, captures: dict[str, str]) -> str | None:
    """Fill *template* from *captures*; None when a capture is missing, unsafe for a shell, or refused (see
    `fill_command`)."""
    return fill_command(template, captures)[0]


_PLACEHOLDER = re.compile(r"\$\{(\w+)\}")


@dataclass(frozen=True)
class MatchContext:
    """What a rule may see beyond the error it matched (an override's `chain:` and `args:`)."""

    chain: tuple[str, ...] = ()
    """Every message of the error's traceback chain (`Type: message`) and its frames (`path in function`), or
    every line of an incident; a lone error line is its own chain."""
    args: str | None = None
    """The attempt's logged arguments (the engine's `non-default args: {...}`, `Namespace(...)`, a command
    line), when the log shows them."""


@dataclass(frozen=True)
class Override:
    """Another category (and fix) for what the rule matched, when a capture or the context says so: a shared
    object the loader may not read is a permission problem, not a missing library."""

    when: tuple[tuple[str, str], ...]
    """(key, regex) pairs, all of which must hold: a capture name (searched in its value), `chain` (searched in
    every message of the chain) or `args` (the logged arguments). `${name}` in a regex is the capture's value,
    escaped."""
    category: str
    fix_text: str | None = None
    fix_command: str | None = None
    explanation: str | None = None

    @property
    def needs_context(self) -> bool:
        """True when a condition looks beyond the captures (it is decided where the chain and arguments are known)."""
        return any(key in CONTEXT_KEYS for key, _ in self.when)

    def holds(self, captures: dict[str, str], context: MatchContext | None) -> bool:
        """Whether every condition holds; a condition on a missing capture or an unknown context does not."""
        for key, template in self.when:
            names = _PLACEHOLDER.findall(template)
            if any(n not in captures for n in names):
                return False
            pattern = _when_pattern(_PLACEHOLDER.sub(lambda m: re.escape(captures[m.group(1)]), template))
            if key == "chain":
                texts: tuple[str, ...] = context.chain if context is not None else ()
            elif key == "args":
                texts = (context.args,) if context is not None and context.args else ()
            else:
                texts = (captures[key],) if key in captures else ()
            if not any(pattern.search(t) for t in texts):
                return False
        return True


@lru_cache(maxsize=512)
def _when_pattern(source: str) -> re.Pattern[str]:
    return re.compile(source)
@dataclass(frozen=True)
class Upstream:
    """A known upstream bug behind a rule's message: where it is tracked, which releases have it, which fixed it."""

    url: str
    """The issue or pull request (https)."""
    project: str
    """The distribution whose releases have the bug (`vllm`, `sglang`), PEP 503 normalised."""
    affected: str
    """Its affected releases as a PEP 440 specifier (`<0.5.3`, `>=0.4.0,<0.4.2`)."""
    fixed_in: str | None = None
    """The first release with the fix (None: not fixed in a release, only worked around)."""
    when: re.Pattern[str] | None = field(default=None, compare=False, repr=False, hash=False)
    """Which of the rule's messages is this bug (searched in the error's message and line); None: all of them."""
    workaround: str | None = None
    """The command that gets past the bug without the fixed release (pinning the dependency back), as confirmed
    upstream: the fix when the host's release is unknown."""

    def applies(self, message: str, line: str) -> bool:
        """True when the error is this bug's message."""
        return self.when is None or any(self.when.search(t) for t in (message, line) if t)


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
            if refused and fallback and _INSTALL.search(fallback):
                fallback = None  # the log named something else than the fallback would install: say so instead
            command, refused_fallback = fill_command(fallback, captures)
            refused = refused or refused_fallback
        text = fix_text.format_map(_Missing(captures)) if fix_text else None
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
        """The rule's explanation, or its override's."""
        if self.override is not None and self.override.explanation:
            return self.override.explanation
        return self.rule.explanation


def resolve_exception(exception: str | None, message: str, line: str) -> str | None:
    """Use *exception* when given, else the type that starts *message* or *line* (if any)."""
    if exception:
        return exception
    for text in (message, line):
        found, _ = split_exception(text or "")
        if found:
            return found
    return None
