"""The corpus measures, as ../shared/corpus/FORMAT.md defines them (the judge's scorer is the reference).

- root-cause hit: the reported line contains the case's key or one of its `also_keys`;
- decoy first: the reported line contains a decoy and none of the keys;
- fix hit: `fix_command` (one command or a list of equally good ones) matches the reported command — by
  package==version pairs when the expected command pins versions, else by key tokens in any order.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

_PIN = re.compile(r"([A-Za-z0-9_.\-]+)==([A-Za-z0-9_.+\-]+)")
_COMMENT = re.compile(r"(^|\s)#.*$", re.M)
_SHORT_SWITCH = re.compile(r"-[A-Za-z]{1,2}")
_WORD = re.compile(r"[A-Za-z0-9_.\-]+")
_ENV_NAME = re.compile(r"[A-Z0-9_]+")
# words that carry no meaning for "the same command": privilege, shell builtins, separators
_NOISE_WORDS = frozenset({";", "sudo", "export", "env", "-m"})
# programs that are the same tool for the purpose of a fix
_PROGRAM_ALIASES = {"pip3": "pip", "apt": "apt-get", "python3": "python", "uv": "pip"}


def pins(cmd: str | None) -> set[tuple[str, str]]:
    """package==version pairs named by a command, package names normalised."""
    return {(a.lower().replace("_", "-"), b) for a, b in _PIN.findall(cmd or "")}


def key_tokens(cmd: str | None) -> set[str]:
    """The tokens that make two commands the same fix: program, subcommand, packages, VAR=value, flags and
    their values, paths. Comments, `sudo`/`export` and one-letter switches do not count."""
    text = _COMMENT.sub("", cmd or "").replace("&&", " ; ").replace("|", " ; ")
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    out: set[str] = set()
    for word in words:
        if word in _NOISE_WORDS or _SHORT_SWITCH.fullmatch(word):
            continue
        if word.startswith("--") and "=" in word:
            flag, value = word.split("=", 1)
            out.update((flag, value))
            continue
        word = _PROGRAM_ALIASES.get(word, word)
        if _WORD.fullmatch(word) and not word.startswith("-") and not _ENV_NAME.fullmatch(word):
            word = word.lower().replace("_", "-")
        out.add(word)
    return out


def fix_matches(expected: str | Sequence[str] | None, got: str | None) -> bool | None:
    """Whether the reported command is one of the expected ones; None when the case expects none."""
    if not expected:
        return None
    wanted = [expected] if isinstance(expected, str) else list(expected)
    return any(_one_fix_matches(w, got) for w in wanted if w)


def _one_fix_matches(expected: str, got: str | None) -> bool:
    want = pins(expected)
    if want:
        return want <= pins(got)
    need = key_tokens(expected)
    return bool(need) and need <= key_tokens(got)


def root_cause_hit(line: str, keys: Sequence[str]) -> bool:
    """The reported line states the root error: it holds one of the case's keys."""
    return bool(line) and any(k and k in line for k in keys)


def decoy_first(line: str, keys: Sequence[str], decoys: Sequence[str]) -> bool:
    """A consequence was reported as the root: the line holds a decoy and none of the keys."""
    return bool(line) and any(d and d in line for d in decoys) and not root_cause_hit(line, keys)
