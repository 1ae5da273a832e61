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

#: Values a fix command may name that come from elsewhere in the log (filled by crashdoc.analyze.values): the
#: engine's pip distribution and version (start banner), the model id (logged arguments), the engine's upgrade
#: command, the installed release of the captured `package` when it is the engine.
LOG_VALUES: frozenset[str] = frozenset({"engine", "engine_version", "model", "engine_upgrade", "package_version"})

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

    def render(self, captures: dict[str, str], matched_text: str | None = None) -> RuleMatch:
        """The match this rule gives with these captures (values found elsewhere in the log added to its own)."""
        return self._result(dict(captures), matched_text)

    def _result(self, captures: dict[str, str], matched_text: str | None) -> RuleMatch:
        """Build the RuleMatch: apply lookups, format the fix text and command."""
        for lookup in self.lookups:
            value = lookup.resolve(captures)
            if value is not None:
                captures[lookup.name] = value
        command, refused = fill_command(self.fix_command, captures)
        if command is None:
            fallback = self.fallback_command
            if refused and fallback and _INSTALL.search(fallback):
                fallback = None  # the log named something else than the fallback would install: say so instead
            command, refused_fallback = fill_command(fallback, captures)
            refused = refused or refused_fallback
        text = self.fix_text.format_map(_Missing(captures)) if self.fix_text else None
        if command is None and refused:
            text = f"{text} {refused}" if text else refused
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
