"""`crashdoc completion bash|zsh|fish`: shell completion scripts made from the argument parser itself.

The parser (cli.build_parser) is read by introspection: every subcommand, its options, which options take a
value, their `choices`, and which values are paths (metavar FILE, DIR, PATH, JOURNAL). No dependency: the
three scripts are small, and a new option is completed the moment it is added to the parser.
zsh uses the bash script through zsh's own `bashcompinit`.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field

SHELLS = ("bash", "zsh", "fish")
_PATHY = re.compile(r"FILE|DIR|PATH|JOURNAL|REPORT", re.IGNORECASE)


@dataclass
class Option:
    """One option of a (sub)command."""

    flags: list[str]
    takes_value: bool
    choices: list[str] = field(default_factory=list)
    path: bool = False
    help: str = ""


@dataclass
class Command:
    """A subcommand (or the top level, name ""): its options, and the choices of its first positional."""

    name: str
    help: str
    options: list[Option]
    positional_choices: list[str]
    positional_path: bool


def _options(parser: argparse.ArgumentParser) -> tuple[list[Option], list[str], bool]:
    opts: list[Option] = []
    pos_choices: list[str] = []
    pos_path = False
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            continue
        choices = [str(c) for c in a.choices] if a.choices else []
        if a.option_strings:
            if a.help == argparse.SUPPRESS:
                continue
            metavar = str(a.metavar or a.dest)
            opts.append(Option(list(a.option_strings), a.nargs != 0, choices,
                               bool(_PATHY.search(metavar)) or a.dest in ("output", "report"), a.help or ""))
        elif not pos_choices and not pos_path:
            pos_choices, pos_path = choices, not choices
    return opts, pos_choices, pos_path


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """The top level (name "") and every subcommand of `parser`."""
    opts, _, _ = _options(parser)
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {c.dest: c.help or "" for s in subs for c in s._choices_actions}
    out = [Command("", parser.description or "", opts, [n for s in subs for n in s.choices], False)]
    for s in subs:
        for name, sub in s.choices.items():
            o, pc, pp = _options(sub)
            out.append(Command(name, helps.get(name, ""), o, pc, pp))
    return out


def _words(xs: list[str]) -> str:
    return " ".join(xs)


def bash(parser: argparse.ArgumentParser, prog: str = "crashdoc") -> str:
    """A bash completion function for `prog` (`eval "$(crashdoc completion bash)"`)."""
    cmds = commands(parser)
    fn = "_" + re.sub(r"\W", "_", prog)
    cases = []
    for c in cmds:
        values = []
        for o in c.options:
            if not o.takes_value:
                continue
            pat = "|".join(o.flags)
            if o.choices:
                values.append(f'        {pat}) COMPREPLY=($(compgen -W "{_words(o.choices)}" -- "$cur")); return;;')
            elif o.path:
                values.append(f'        {pat}) COMPREPLY=($(compgen -f -- "$cur")); return;;')
            else:
                values.append(f"        {pat}) return;;")
        flags = _words([f for o in c.options for f in o.flags])
        positional = _words(c.positional_choices)
        cases.append(f'    "{c.name}")\n      case "$prev" in\n' + "\n".join(values) + ("\n" if values else "")
                     + f'      esac\n      opts="{flags}"; positional="{positional}"; files={int(c.positional_path)};;')
    names = "|".join(c.name for c in cmds if c.name)
    return f"""# {prog} completion for bash: eval "$({prog} completion bash)" (or save it in
# /etc/bash_completion.d/{prog}); made from the argument parser of {prog}.
{fn}() {{
  local b=0 cmd="" i opts positional files
  [[ -n "${{ZSH_VERSION-}}" && ! -o ksharrays ]] && b=1  # zsh's bashcompinit: arrays count from 1
  local cur="${{COMP_WORDS[COMP_CWORD+b]}}" prev="${{COMP_WORDS[COMP_CWORD-1+b]}}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${{COMP_WORDS[i+b]}}" in
      {names}) cmd="${{COMP_WORDS[i+b]}}"; break;;
    esac
  done
  case "$cmd" in
{chr(10).join(cases)}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ -n "$positional" ]]; then
    COMPREPLY=($(compgen -W "$positional" -- "$cur"))
  elif [[ "$files" == 1 ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o bashdefault -o default -F {fn} {prog}
"""


def zsh(parser: argparse.ArgumentParser, prog: str = "crashdoc") -> str:
    """The bash function through zsh's bashcompinit (`eval "$(crashdoc completion zsh)"` in ~/.zshrc)."""
    return (f"# {prog} completion for zsh: eval \"$({prog} completion zsh)\" in ~/.zshrc\n"
            "autoload -U +X compinit && { (( $+functions[compdef] )) || compinit; }\n"
            "autoload -U +X bashcompinit && bashcompinit\n" + bash(parser, prog))


def _fish_quote(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(parser: argparse.ArgumentParser, prog: str = "crashdoc") -> str:
    """fish `complete` lines (`crashdoc completion fish > ~/.config/fish/completions/crashdoc.fish`)."""
    cmds = commands(parser)
    lines = [f"# {prog} completion for fish: {prog} completion fish > ~/.config/fish/completions/{prog}.fish",
             f"complete -c {prog} -f"]
    for c in cmds:
        cond = "__fish_use_subcommand" if not c.name else f"__fish_seen_subcommand_from {c.name}"
        if c.name:
            lines.append(f"complete -c {prog} -n '__fish_use_subcommand' -a {c.name} -d {_fish_quote(c.help[:80])}")
        for o in c.options:
            spec = []
            for f in o.flags:
                spec.append(f"-l {f[2:]}" if f.startswith("--") else f"-s {f[1:]}" if len(f) == 2 else f"-o {f[1:]}")
            if o.choices:
                spec.append(f"-x -a {_fish_quote(_words(o.choices))}")
            elif o.path:
                spec.append("-r -F")
            elif o.takes_value:
                spec.append("-x")
            lines.append(f"complete -c {prog} -n '{cond}' {' '.join(spec)} -d {_fish_quote(o.help[:80])}")
        if c.name and c.positional_choices:
            lines.append(f"complete -c {prog} -n '{cond}' -x -a {_fish_quote(_words(c.positional_choices))}")
        elif c.name and c.positional_path:
            lines.append(f"complete -c {prog} -n '{cond}' -F")
    return "\n".join(lines) + "\n"


def script(shell: str, parser: argparse.ArgumentParser, prog: str = "crashdoc") -> str:
    """The completion script for `shell` (bash, zsh, fish)."""
    return {"bash": bash, "zsh": zsh, "fish": fish}[shell](parser, prog)
