"""Values a fix needs that its error line does not hold, taken from elsewhere in the log: the engine and its
version (the start banner), the model id (the logged arguments); and the fix commands completed with them.

A rule's command may name `{engine}` (the engine's pip distribution), `{engine_version}`, `{model}` and
`{engine_upgrade}` (the engine's own upgrade command, from the table below). The values are log text: they go
through the same safety filter as a rule's captures (kb/model.py `fill_command`), and a capture of the rule wins
over a value of the log. `{engine_upgrade}` is not log text: it is this module's command for a known engine.
Then a command that pins (or requires `>=`) the anchor of a same-version companion group (data/groups.yaml)
pins the companions at that version too.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import string
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from crashdoc.analyze.fixes import is_check, written_command
from crashdoc.analyze.rank import Group
from crashdoc.datafile import load_yaml, package_file
from crashdoc.kb.companions import alias, same_version_companions
from crashdoc.kb.model import LOG_VALUES, Rule
from crashdoc.kb.prefilter import Gate
from crashdoc.regex import Regex

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version


@dataclass(frozen=True)
class Engine:
    """How a serving engine shows itself in a log, and how it is upgraded."""

    dist: str | None
    """Its pip distribution (None: not installed with pip)."""
    upgrade: str | None
    """The command that installs its newest release."""


ENGINES = {
    "vllm": Engine("vllm", "pip install --upgrade vllm"),
    "sglang": Engine("sglang", "pip install --upgrade sglang"),
    "lmdeploy": Engine("lmdeploy", "pip install --upgrade lmdeploy"),
    "aphrodite": Engine("aphrodite-engine", "pip install --upgrade aphrodite-engine"),
    "ollama": Engine(None, "curl -fsSL https://ollama.com/install.sh | sh"),
    "tgi": Engine(None, "docker pull ghcr.io/huggingface/text-generation-inference:latest"),
}
#: when several engines show (SGLang and LMDeploy import vLLM's code), the one that runs is the first here
PRECEDENCE = ("sglang", "lmdeploy", "aphrodite", "ollama", "tgi", "vllm")

_VERSION = r"v?(?P<engine_version>\d+\.\d+(?:\.\d+)*(?:[.+\-]?(?:post|dev|rc)\d*)?(?:\+[\w.]+)?)"
#: (engine, pattern): a start banner that names the engine (and its version when the group is there)
BANNERS: tuple[tuple[str, str], ...] = (
    ("vllm", r"\bvLLM API server version " + _VERSION),
    ("vllm", r"\bInitializing an? (?:V1 )?LLM engine \(" + _VERSION + r"\) with config"),
    ("sglang", r"\b(?:SGLang|sglang) (?:version|v)[ :=]*" + _VERSION),
    ("lmdeploy", r"\blmdeploy(?: version)?[ :=]+" + _VERSION + r"\b"),
    ("ollama", r"msg=\"Listening on \S+ \(version " + _VERSION + r"\)"),
    ("ollama", r"\bollama version is " + _VERSION),
)
#: (engine, pattern): a trace of the engine without its version (its package path, its logger, its launcher)
SIGNS: tuple[tuple[str, str], ...] = (
    ("sglang", r"(?:site|dist)-packages/sglang/|\bsglang\.(?:launch_server|srt)\b"),
    ("lmdeploy", r"(?:site|dist)-packages/lmdeploy/| - lmdeploy - (?:INFO|WARNING|ERROR)\b|\[TM\]\[(?:ERROR|WARNING)\]"),
    ("aphrodite", r"(?:site|dist)-packages/aphrodite/"),
    ("ollama", r"\blevel=(?:INFO|WARN|ERROR) source=\w+\.go:\d+ msg=|\bllama runner process\b"),
    ("tgi", r"\btext_generation_(?:launcher|router|server)\b"),
    ("vllm", r"(?:site|dist)-packages/vllm/|\bvllm\.entrypoints\b|\((?:EngineCore_DP\d+|APIServer) pid=\d+\)"),
)
#: the model the service was started with, as its arguments are logged
MODEL_ARGS: tuple[str, ...] = (
    r"""non-default args: \{[^{}]{0,2000}?'model': '(?P<model>[^'\s]{1,300})'""",
    r"""\bNamespace\([^()]{0,4000}?\bmodel='(?P<model>[^'\s]{1,300})'""",
    r"""\bServerArgs\(model_path='(?P<model>[^'\s]{1,300})'""",
    r"""\bArgs \{ model_id: "(?P<model>[^"\s]{1,300})\"""",
    r"""(?:^|\s)--model(?:-path|-id)?[= ](?P<model>[\w.\-]+/[\w.\-]+)(?:\s|$)""",
)
_BANNERS = [(e, Regex(p)) for e, p in BANNERS]
_SIGNS = [(e, Regex(p)) for e, p in SIGNS]
_MODELS = [Regex(p) for p in MODEL_ARGS]
#: one pass that most lines fail: only a line it finds is searched pattern by pattern
_ANY_BANNER = Regex("|".join(re.sub(r"\(\?P<\w+>", "(?:", p) for _, p in BANNERS))
_ANY_SIGN = Regex("|".join(f"(?:{p})" for _, p in SIGNS))
_ANY_MODEL = Regex("|".join(re.sub(r"\(\?P<\w+>", "(?:", p) for p in MODEL_ARGS))
_GATE = Gate([p for _, p in BANNERS] + [p for _, p in SIGNS] + list(MODEL_ARGS))
#: for the hot-line scanner: a line with a value is parsed even when no rule knows it
SCAN_PATTERNS: tuple[str, ...] = (
    r"vLLM API server version ", r"LLM engine \(v\d", r"(?:SGLang|sglang) (?:version|v)[ :=]*\d", r"lmdeploy(?: version)?[ :=]+v?\d",
    r"msg=\"Listening on \S+ \(version ", r"ollama version is ", r"non-default args: \{", r"Namespace\(",
    r"ServerArgs\(model_path=", r"Args \{ model_id: ", r"(?:^|\s)--model(?:-path|-id)?[= ]",
)


class LogValues:
    """The values seen so far in one pass over the evidence (the first banner and model win)."""

    def __init__(self) -> None:
        self.engines: set[str] = set()
        self.banner: tuple[str, str | None] | None = None
        self.model: str | None = None
        self.args: str | None = None
        """The line that logged the service's arguments (the first), for rules that ask where a value came from."""

    def feed(self, text: str) -> None:
        """Take what one line of the log says."""
        if (self.banner is None or self.model is None) and not _GATE.maybe(text):
            return  # no value pattern occurs in the line (one hyperscan pass): most lines of a log
        if self.banner is None and _ANY_BANNER.search(text):
            for engine, pattern in _BANNERS:
                found = pattern.search(text)
                if found:
                    self.banner = (engine, found.groupdict().get("engine_version"))
                    break
        if self.model is None and _ANY_MODEL.search(text):
            for pattern in _MODELS:
                found = pattern.search(text)
                if found:
                    self.model = found.group("model")
                    self.args = text[:8192]
                    break
        if self.banner is None and _ANY_SIGN.search(text):
            self.engines.update(engine for engine, pattern in _SIGNS if engine not in self.engines and pattern.search(text))

    def engine(self) -> str | None:
        """The engine that runs: the banner's, else the first by PRECEDENCE among those the log shows."""
        if self.banner is not None:
            return self.banner[0]
        return next((e for e in PRECEDENCE if e in self.engines), None)

    def release_of(self, project: str) -> str | None:
        """The host's release of *project* when the start banner shows it (the engine's own version)."""
        engine = self.engine()
        if self.banner is None or engine is None or not self.banner[1]:
            return None
        dist = ENGINES[engine].dist
        return self.banner[1] if dist is not None and _canonical(dist) == _canonical(project) else None

    def may_run(self, project: str) -> bool:
        """False when the log shows an engine other than *project* (a project that is no engine: True)."""
        engine = self.engine()
        if engine is None or _canonical(project) not in {_canonical(e.dist) for e in ENGINES.values() if e.dist}:
            return True
        dist = ENGINES[engine].dist
        return dist is not None and _canonical(dist) == _canonical(project)

    def captures(self) -> dict[str, str]:
        """The values as captures for a rule's command (only those known)."""
        out: dict[str, str] = {}
        engine = self.engine()
        if engine is not None and ENGINES[engine].dist:
            out["engine"] = ENGINES[engine].dist or ""
            if self.banner is not None and self.banner[1]:
                out["engine_version"] = self.banner[1]
        if self.model:
            out["model"] = self.model
        return out


def _canonical(name: str) -> str:
    from packaging.utils import canonicalize_name  # NOTE: imported when used (start-up cost, issue 12)

    return str(canonicalize_name(name))


def _names(template: str | None) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template or "") if f}


def complete(g: Group, values: LogValues) -> Group:
    """The group with its fix completed: a command that names log values filled from them (the rule's own
    captures first), then pinned together with its same-version companions."""
    c = g.first
    m = c.match
    if m is None or not hasattr(m, "rule"):
        return g
    rule = m.rule
    if (_names(rule.fix_command) | _names(rule.fallback_command)) & LOG_VALUES:
        engine = values.engine()
        upgrade = ENGINES[engine].upgrade if engine is not None else None
        if upgrade:
            rule = dataclasses.replace(
                rule, fix_command=(rule.fix_command or "").replace("{engine_upgrade}", upgrade) or None,
                fallback_command=(rule.fallback_command or "").replace("{engine_upgrade}", upgrade) or None)
        found = values.captures()
        if "engine_version" in found and _canonical(m.captures.get("package", "")) == _canonical(found["engine"]):
            found["package_version"] = found["engine_version"]  # the installed engine's own release, reinstalled
        again = rule.render({**found, **m.captures}, m.matched_text, getattr(m, "override", None))
        m = dataclasses.replace(m, fix_command=again.fix_command, fix_text=again.fix_text)
    known = known_bug(rule, c.message, c.line.text, values)
    if known is not None:
        text, command = known
        m = dataclasses.replace(m, fix_text=f"{text} {m.fix_text}" if m.fix_text else text,
                                fix_command=command or m.fix_command)
    elif m.fix_command is None or is_check(m.fix_command):
        written = written_command(c.message) or written_command(c.line.text)
        if written is not None:
            m = dataclasses.replace(m, fix_command=written)
    engine = values.engine()
    if engine is not None and m.fix_command and m.fix_command.startswith("--"):
        spoken = engine_flag(m.fix_command, engine)
        if spoken != m.fix_command:
            m = dataclasses.replace(m, fix_command=spoken)
    pinned = with_companions(m.fix_command)
    if pinned != m.fix_command:
        m = dataclasses.replace(m, fix_command=pinned)
    if m is c.match:
        return g
    return dataclasses.replace(g, first=dataclasses.replace(c, match=m))


@lru_cache(maxsize=1)
def _engine_flags() -> dict[str, dict[str, str]]:
    data = load_yaml(package_file("data", "engine_flags.yaml").read_text(encoding="utf-8")) or {}
    return {str(e): {str(k): str(v) for k, v in (t or {}).items()} for e, t in data.items()}


def engine_flag(command: str, engine: str) -> str:
    """A vLLM flag (`--max-model-len 8192`) as *engine*'s launcher spells the same option (SGLang
    `--context-length 8192`); unchanged when the engine has no entry for it (data/engine_flags.yaml)."""
    table = _engine_flags().get(engine) or {}
    for vllm_flag, theirs in sorted(table.items(), key=lambda kv: -len(kv[0])):  # `--dtype half` before `--dtype`
        if command == vllm_flag or command.startswith(vllm_flag + " ") or command.startswith(vllm_flag + "="):
            return theirs + command[len(vllm_flag):]
    return command


def _release(text: str) -> Version | None:
    from packaging.version import InvalidVersion, Version  # NOTE: imported when used (start-up cost, issue 12)

    try:
        return Version(text)
    except InvalidVersion:
        return None


def _releases(affected: SpecifierSet) -> str:
    """`==0.4.0.*` as `0.4.0.*`, `<=0.1.12` as it is."""
    specs = list(affected)
    return specs[0].version if len(specs) == 1 and specs[0].operator == "==" else str(affected)


def known_bug(rule: Rule, message: str, line: str, values: LogValues) -> tuple[str, str | None] | None:
    """The rule's known upstream bug for this error, as (text, command): with the host's release known and
    affected, "a known bug, fixed in P F; this host runs V" and the upgrade to F; with it unknown, the
    condition and the confirmed workaround (or the upgrade). None when no entry applies (or the host's release
    is outside every entry's range)."""
    for bug in rule.upstream:
        if not bug.applies(message, line):
            continue
        if not values.may_run(bug.project):
            continue  # the log shows another engine: not this project's bug
        from packaging.specifiers import SpecifierSet  # NOTE: imported when used (start-up cost, issue 12)

        affected = SpecifierSet(bug.affected)
        host = values.release_of(bug.project)
        version = _release(host) if host else None
        fixed = f", fixed in {bug.project} {bug.fixed_in}" if bug.fixed_in else ""
        upgrade = f"pip install {bug.project}=={bug.fixed_in}" if bug.fixed_in else None
        if version is not None:
            if not affected.contains(version, prereleases=True):
                continue
            return (f"A known {bug.project} bug ({bug.url}){fixed}; this host runs {host}"
                    + ("." if upgrade else f"; no release fixes it yet, the workaround is `{bug.workaround}`."),
                    upgrade or bug.workaround)
        return (f"If this host runs {bug.project} {_releases(affected)}, this is a known bug ({bug.url}){fixed}"
                + (f"; the confirmed workaround is `{bug.workaround}`." if bug.workaround else "."),
                bug.workaround or upgrade)
    return None


_REQUIREMENT = Regex(r"(?P<name>[A-Za-z0-9][\w.\-]*)(?P<op>==|>=)(?P<version>\d[\w.+\-]*)")
_UPGRADE = frozenset({"-U", "--upgrade"})


def with_companions(command: str | None) -> str | None:
    """`pip install flashinfer-python>=0.6.4` -> `pip install flashinfer-python==0.6.4 flashinfer-cubin==0.6.4`:
    a pin or a minimum of a same-version group's anchor pins its members at that version too (a minimum becomes
    a pin: `>=` could fetch an anchor release its members do not match). Other commands are returned as given."""
    if not command or "pip" not in command or any(s in command for s in ("&&", "|", ";")):
        return command
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if "install" not in words[:4] or not any(w in ("pip", "pip3") or w.endswith("/pip") for w in words[:3]):
        return command
    groups = same_version_companions()
    out: list[str] = []
    added = False
    named = {alias(r.group("name")) for r in map(_REQUIREMENT.fullmatch, words) if r is not None}
    for word in words:
        found = _REQUIREMENT.fullmatch(word)
        anchor = alias(found.group("name")) if found else ""
        if found is None or anchor not in groups:
            out.append(word)
            continue
        version = found.group("version")
        members = [f"{m}=={version}" for m in groups[anchor] if m not in named]
        out += [f"{anchor}=={version}", *members]
        added = True
    if not added:
        return command
    return shlex.join(w for w in out if w not in _UPGRADE)
