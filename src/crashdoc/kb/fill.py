"""Filling a rule's fix command from the captures of a log: log text is untrusted, so a value is pasted only
when it is shell-safe, names no system directory and, in an install command, a known distribution."""

from __future__ import annotations

import posixpath
import re
import string
from functools import lru_cache

from crashdoc.datafile import package_file
from crashdoc.regex import Regex

#: A capture may only be pasted into a shell command when it consists of these characters.
_SAFE_VALUE = Regex(r"^[\w.+\-/:@%,~=]+\Z")
#: ... or when it is a package with extras (`vllm[audio]`, `sglang[srt,http2]`): pasted in single quotes (a
#: shell would read the brackets as a pattern), which nothing in it can close.
_EXTRAS = Regex(r"[A-Za-z0-9][A-Za-z0-9._\-]*\[[A-Za-z0-9_\-]+(?:,[A-Za-z0-9_\-]+)*\]")

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
INSTALL = Regex(r"(?:\bpip3?|\buv pip|\bapt-get|\bapt|\bdnf|\byum|\bconda|\bmamba) install\b")
_OPTION_WITH_VALUE = frozenset({"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-r",
                                "--requirement", "-c", "--constraint", "-t", "--target", "--python", "-o"})
_NAME = Regex(r"[A-Za-z0-9][A-Za-z0-9._\-]*")


def _normalise(name: str) -> str:
    """PEP 503 normalised (packaging's canonicalize_name, imported when a fix names a package: not at every start)."""
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


@lru_cache(maxsize=1)
def known_packages() -> frozenset[str]:
    """Distributions a fix may install by a name taken from a log (data/known_packages.txt), normalised."""
    text = package_file("data", "known_packages.txt").read_text("utf-8")
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
        found = INSTALL.search(segment)
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
    quoting = {n: _contexts(template, n) for n in names}
    if any(n not in captures or not (_SAFE_VALUE.match(captures[n]) or _extras_pasteable(quoting[n], captures[n]))
           for n in names):
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
    pasted = {n: v if _SAFE_VALUE.match(v) or quoting[n] == {"'"} else f"'{v}'" for n, v in captures.items() if n in names}
    return template.format_map(pasted), None


def _extras_pasteable(quoting: set[str], value: str) -> bool:
    """A package with extras may be pasted where the template leaves its placeholder bare (it is single-quoted) or
    in single quotes (as it is), the same every time the placeholder occurs (`quoting`: `_contexts`); never inside
    double quotes."""
    return _EXTRAS.fullmatch(value) is not None and quoting in ({""}, {"'"})


def _contexts(template: str, name: str) -> set[str]:
    """The quoting around each `{name}` of the template: "'" or '"' (inside such quotes) or "" (bare)."""
    out: set[str] = set()
    quote, i, token = "", 0, "{" + name + "}"
    while i < len(template):
        if template.startswith(token, i):
            out.add(quote)
            i += len(token)
            continue
        ch = template[i]
        if ch in "'\"" and quote in ("", ch):
            quote = "" if quote == ch else ch
        i += 1
    return out


def format_command(template: str | None, captures: dict[str, str]) -> str | None:
    """Fill *template* from *captures*; None when a capture is missing, unsafe for a shell, or refused (see
    `fill_command`)."""
    return fill_command(template, captures)[0]
