"""Fix completion: a rule's command that needs a value the error line lacks (a Python version, a package name)
takes it from the lines printed after the error; a command the message itself writes for its reader is taken
(through the same safety rules as a capture) where the rule's own command only looks."""

from __future__ import annotations

import dataclasses
import re
import shlex
import string

from crashdoc.analyze.candidates import Candidate
from crashdoc.kb.fill import fill_command, format_command, known_packages
from crashdoc.kb.model import CONTEXT_VALUES
from crashdoc.regex import Regex

CONTEXT_LINES = 12
"""Lines after an error searched for values its fix command needs."""


def fix_incomplete(cand: Candidate) -> bool:
    """True when the rule's own command could not be filled from the error line: its fallback was used, or it
    names a value only the lines after the error give (CONTEXT_VALUES)."""
    m = cand.match
    command = getattr(m.rule, "fix_command", None) if m is not None else None
    if not command:
        return False
    if not getattr(m.rule, "fallback_command", None) and not _names(command) & CONTEXT_VALUES:
        return False
    return format_command(command, m.captures) is None


def complete_fix(cand: Candidate, ctx: list[str]) -> Candidate:
    """Match the same rule on the error plus the lines after it (and add what a parser printed under its error,
    `context_values`): the candidate with that fix when it fills the command, else the candidate as it was."""
    m = cand.match
    again = m.rule.match(cand.exception, "\n".join([cand.message, *ctx]), cand.line.text.strip())
    if again is not None:
        extra = context_values(again.captures, ctx)
        if extra:
            again = m.rule.render({**extra, **again.captures}, again.matched_text)
    if again is not None and again.fix_command and not fix_incomplete(dataclasses.replace(cand, match=again)):
        return dataclasses.replace(cand, match=dataclasses.replace(
            m, captures=again.captures, fix_command=again.fix_command, fix_text=again.fix_text))
    return cand


def _names(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


#: clap (Rust launchers: TGI) under "invalid value 'X' for '--flag'": the values it accepts, and its suggestion
_POSSIBLE = Regex(r"\[possible values: (?P<values>[^\]\n]{1,200})\]")
_TIP = Regex(r"\btip: a similar value exists: '(?P<suggested>[^'\n]{1,100})'")


def context_values(captures: dict[str, str], ctx: list[str]) -> dict[str, str]:
    """Values a parser prints under its error: `suggested` (clap's "a similar value exists") and, when the option
    is a switch (its possible values are `true, false`), `flag_env`: the variable clap read it from (an option
    with `env` is named by its long name upper-cased; on a command line a switch takes no value, so an invalid
    value of one came from the environment). Log text: the rule's command fills them through the capture filter."""
    text = "\n".join(ctx)
    out: dict[str, str] = {}
    tip = _TIP.search(text)
    if tip:
        out["suggested"] = tip.group("suggested")
    possible = _POSSIBLE.search(text)
    flag = captures.get("flag", "")
    if possible and flag.startswith("--") and {v.strip() for v in possible.group("values").split(",")} == {"true", "false"}:
        out["flag_env"] = flag[2:].upper().replace("-", "_")
    return out


#: commands that only look (their output is for the reader, nothing changes): a rule's fix of this kind gives
#: way to a remedy the message itself writes
_CHECK = Regex(
    r"\s*(?:(?:pip3?|python3? -m pip|uv pip) (?:check|list|show|freeze|index)\b"
    r"|(?:ls|ss|cat|grep|df|du|free|lsof|nvidia-smi|journalctl|dmesg|id|stat|ulimit|which|env|printenv)(?:\s|$)"
    r"|python3? -c\b)")


def is_check(command: str) -> bool:
    """True for a command that only inspects the host (`pip check`, `ss -ltnp`, `nvidia-smi`)."""
    return _CHECK.match(command) is not None


#: a command the message writes for its reader: in backticks, or (a pip install, an export) quoted after
#: "run"/"try"/"use"/"by"/"with"; a quoted bare flag is more often named than prescribed ("use '--shm-size' flag
#: to control ...", "try '--help'")
_WRITTEN = Regex(r"`(?P<tick>[^`\n]{2,300})`|\b(?:[Rr]un|[Tt]ry|[Uu]se|by|with|[Ee]xecute)[: ]+"
                      r"['\"](?P<quoted>(?:pip3?|python3? -m pip|uv pip|export) [^'\"\n]{1,300})['\"]")
_PIP = (("pip", "install"), ("pip3", "install"), ("python", "-m", "pip", "install"),
        ("python3", "-m", "pip", "install"), ("uv", "pip", "install"))
#: pip options a written command may keep (no index URL: a log must not choose where packages come from)
_PIP_OPTIONS = frozenset({"-U", "--upgrade", "--no-deps", "--force-reinstall", "--pre", "--no-build-isolation",
                          "--no-cache-dir", "--upgrade-strategy"})
_SPEC = r"(?:===?|>=|<=|~=|!=|<|>)[A-Za-z0-9.*+\-]+"
_REQUIREMENT = Regex(rf"(?P<name>[A-Za-z0-9][A-Za-z0-9._\-]*)(?:\[[A-Za-z0-9_,\-]+\])?(?:{_SPEC}(?:,{_SPEC})*)?")
_VARIABLE = Regex(r"[A-Z_][A-Z0-9_]*=[\w.+\-/:@%,~]*")
_FLAG = Regex(r"--[a-z][a-z0-9\-_]*(?:=[\w.+\-/:@%,~]+)?")


def _pip_install(words: list[str]) -> str | None:
    from packaging.utils import canonicalize_name  # NOTE: imported when used (start-up cost, issue 12)

    for head in _PIP:
        if tuple(words[:len(head)]) == head:
            args = words[len(head):]
            break
    else:
        return None
    names = []
    for i, word in enumerate(args):
        if word.startswith("-"):
            if word not in _PIP_OPTIONS:
                return None
            continue
        if i and args[i - 1] == "--upgrade-strategy":
            if word not in ("eager", "only-if-needed"):
                return None
            continue
        found = _REQUIREMENT.fullmatch(word)
        if found is None or canonicalize_name(found.group("name")) not in known_packages():
            return None  # a name a log wrote must be a known distribution (kb/model.py fill_command)
        names.append(word)
    return shlex.join(["pip", "install", *args]) if names else None


def _safe_written(span: str) -> str | None:
    """The span as a command when it is one the knowledge base lets a log suggest: a pip install of known
    distributions (plain options only), `export VAR=value` / `unset VAR`, or an engine flag with its value."""
    try:
        words = shlex.split(span)
    except ValueError:
        return None
    if not words or any(w in (";", "&&", "||", "|", ">", "<") or "$" in w or "`" in w for w in words):
        return None
    if words[0] == "export" and len(words) >= 2 and all(_VARIABLE.fullmatch(w) for w in words[1:]):
        return shlex.join(words)
    if words[0] == "unset" and len(words) >= 2 and all(re.fullmatch(r"[A-Za-z_]\w*", w) for w in words[1:]):
        return shlex.join(words)
    if words[0].startswith("--"):
        if words[0] in ("--help", "--version"):
            return None  # they only inform
        values = [w.partition("=")[2] if w.startswith("-") else w for w in words]
        ok = all(_FLAG.fullmatch(w) if w.startswith("-") else (i and not words[i - 1].count("="))
                 for i, w in enumerate(words))
        # a value goes through the filter of a rule's captures (shell-safe, no option, no system directory)
        safe = all(fill_command("{v}", {"v": v})[0] is not None for v in values if v)
        return shlex.join(words) if ok and safe else None
    return _pip_install(words)


def written_command(text: str) -> str | None:
    """The first command the message writes for its reader ("Run `pip install X`", "try `--enforce-eager`"),
    through the same safety rules as a rule's captures; None when it writes none that passes."""
    for found in _WRITTEN.finditer(text or ""):
        command = _safe_written(found.group("tick") or found.group("quoted"))
        if command is not None:
            return command
    return None
