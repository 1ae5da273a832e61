"""Versions that exist: the releases of a package that the service's own pip can install, asked of that pip
(`PYTHON -m pip index versions NAME`), so its configuration decides the index (pip.conf, PIP_INDEX_URL,
--find-links folders). A fix that pins a companion at a version the index does not have is replaced by the
alternative (an optional companion uninstalled, or the group pinned at the newest version all its members
have), and the text says why; when pip cannot be asked, the text says the version was not checked."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from crashdoc.kb.companions import optional_members, same_version_companions
from crashdoc.transport import Runner

#: pip resolves against the index: a remote index may be slow
INDEX_TIMEOUT = 120.0
_AVAILABLE = re.compile(r"^Available versions: (?P<versions>.*)$", re.M)
_NOT_FOUND = re.compile(r"No matching distribution found for", re.I)
#: pip says "No matching distribution" offline too: these say the index was not reached (then: not checked)
_UNREACHED = re.compile(r"Retrying \(|NewConnectionError|Failed to establish|Could not fetch URL|name resolution|"
                        r"Network is unreachable|Connection refused|ConnectTimeout|ReadTimeout|ProxyError|SSLError|"
                        r"Max retries exceeded", re.I)
_PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._\-]*)==(?P<version>[\w.+!\-]+)")


@dataclass(frozen=True)
class Versions:
    """What the index answered for one package."""

    name: str
    versions: tuple[str, ...] | None
    """Newest first; () when the index has none; None when pip could not be asked."""
    why_not: str = ""
    """Why the index could not be asked (pip missing, offline)."""


def available(runner: Runner, python: str, name: str) -> Versions:
    """The releases of *name* the interpreter's pip can install (pre-releases included)."""
    # one retry: with none, pip says nothing of a connection that failed
    argv = [python, "-m", "pip", "index", "versions", "--pre", "--disable-pip-version-check", "--retries", "1",
            "--timeout", "15", name]
    try:
        res = runner.run(argv, timeout=INDEX_TIMEOUT)
    except Exception as exc:  # a transport error: not checked, and the report says why
        return Versions(name, None, str(exc))
    out = res.stdout.decode("utf-8", "replace")
    found = _AVAILABLE.search(out)
    if res.ok and found:
        return Versions(name, tuple(v.strip() for v in found.group("versions").split(",") if v.strip()))
    err = res.stderr.decode("utf-8", "replace")
    unreached = _UNREACHED.search(err)
    if unreached:
        return Versions(name, None, f"the index was not reached ({unreached.group(0)})")
    if _NOT_FOUND.search(err):
        return Versions(name, ())
    return Versions(name, None, res.stderr_line() or f"exit status {res.returncode}")


def _has(versions: tuple[str, ...], version: str) -> bool:
    try:
        wanted = Version(version)
        return any(Version(v) == wanted for v in versions)
    except InvalidVersion:
        return version in versions


def _newest_common(*lists: tuple[str, ...]) -> str | None:
    """The newest version every list has (local labels ignored)."""
    def key(v: str) -> Version | None:
        try:
            return Version(Version(v).public)
        except InvalidVersion:
            return None
    sets = [{key(v) for v in vs} - {None} for vs in lists]
    common = set.intersection(*sets) if sets else set()
    return str(max(common)) if common else None  # type: ignore[type-var]


@dataclass(frozen=True)
class Checked:
    """A fix command after the index check."""

    command: str | None
    note: str


def check_pins(runner: Runner, python: str, command: str) -> Checked | None:
    """Check each `NAME==VERSION` of `PYTHON -m pip install ...` against the index that pip uses; None when the
    command pins nothing (nothing to check)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if words[:4] != [python, "-m", "pip", "install"]:
        return None
    pins = [(canonicalize_name(m.group("name")), m.group("version"))
            for m in map(_PIN.fullmatch, words[4:]) if m is not None]
    if not pins:
        return None
    answers: dict[str, Versions] = {name: available(runner, python, name) for name, _ in pins}
    unknown = [a for a in answers.values() if a.versions is None]
    if unknown:
        return Checked(command, f"The pinned versions were not checked against the package index "
                                f"(`{python} -m pip index versions {unknown[0].name}` failed: {unknown[0].why_not}).")
    missing = [(n, v) for n, v in pins if not _has(answers[n].versions or (), v)]
    if not missing:
        listed = ", ".join(f"{n} {v}" for n, v in pins)
        return Checked(command, f"Checked: {listed} {'is' if len(pins) == 1 else 'are'} on the index this pip uses.")
    name, version = missing[0]
    newest = (answers[name].versions or ("none",))[0]
    why = f"{name} {version} is not on the index this pip uses (its newest there: {newest})"
    for anchor, members in same_version_companions().items():
        if name not in members:
            continue
        if name in optional_members():
            return Checked(shlex.join([python, "-m", "pip", "uninstall", "-y", name]),
                           f"{why}, and {anchor} works without the optional {name}: uninstall it instead (or pin "
                           f"both to a version that has a {name} release).")
        group = (anchor, *members)
        versions = {n: answers[n].versions if n in answers else available(runner, python, n).versions
                    for n in group}
        if any(v is None for v in versions.values()):
            break
        common = _newest_common(*(v or () for v in versions.values()))
        if common is None:
            break
        return Checked(shlex.join([python, "-m", "pip", "install", *(f"{n}=={common}" for n in group)]),
                       f"{why}: {anchor} is pinned back to {common}, the newest version all of "
                       f"{', '.join(group)} have.")
    return Checked(command, f"{why}: check the version before running the command.")
