"""The hosts of a fleet: from repeated --host, a --hosts file, an Ansible inventory and --limit, or the `Host`
entries of the user's ssh config. Each becomes a Target: the name reports show and how ssh reaches it."""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crashdoc.errors import InputError, UnsafeArgumentError
from crashdoc.fleet.inventory import CONNECTION_VARS, Inventory
from crashdoc.transport import parse_target


@dataclass(frozen=True)
class Target:
    """One host of the fleet."""

    name: str
    """What the report calls it: the inventory name, the ssh alias, or the --host text."""
    address: str | None
    """`[user@]host[:port]` for ssh; None for this machine (`ansible_connection=local`)."""


def target(text: str, name: str | None = None) -> Target:
    """A Target from `[user@]host[:port]`, validated (shell syntax is refused before any ssh runs)."""
    parse_target(text)
    return Target(name or text, text)


def read_hosts_file(path: str) -> list[Target]:
    """`--hosts FILE`: one `[user@]host[:port]` per line; `#` starts a comment, blank lines are skipped."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read --hosts {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            out.append(target(line))
        except UnsafeArgumentError as exc:
            raise UnsafeArgumentError(f"{path}:{n}: {exc}") from exc
    return out


def inventory_target(inv: Inventory, host: str) -> Target:
    """How Ansible would reach `host`: ansible_host / ansible_port / ansible_user, or local."""
    v = inv.variables(host)

    def var(kind: str) -> Any:
        return next((v[k] for k in CONNECTION_VARS[kind] if v.get(k) not in (None, "")), None)

    if str(var("connection") or "ssh") == "local":
        return Target(host, None)
    address = str(var("host") or host)
    if ":" in address and not address.startswith("["):
        address = f"[{address}]"  # IPv6
    user, port = var("user"), var("port")
    text = f"{user}@{address}" if user else address
    if port not in (None, "", 22):
        text += f":{port}"
    try:
        return target(text, host)
    except UnsafeArgumentError as exc:
        raise UnsafeArgumentError(f"inventory host {host}: {exc}") from exc


#: a term's subscript, as Ansible reads it: `gpu[0]`, `gpu[-1]`, `gpu[0:2]` and `gpu[1-3]` (both inclusive), `gpu[2:]`
_SUBSCRIPT = re.compile(r"(.+)\[(?:(-?[0-9]+)|([0-9]+)([:-])([0-9]*))\]")


def limit(inv: Inventory, pattern: str | None) -> list[str]:
    """The inventory hosts an Ansible pattern selects, in the order `ansible PATTERN --list-hosts` prints them.

    `all` / `*`, group or host names, wildcards (`gpu-*`), `~regex`, subscripts (`gpu[0:3]`), and terms joined
    by `:` or `,`: plain terms are a union, `&term` intersects, `!term` excludes (in that order, as Ansible
    applies them).
    """
    if not pattern:
        return inv.members("all")
    terms = [t.strip() for t in re.split(r",|:(?=[!&]?[^\d\]-])", pattern) if t.strip()]
    chosen: dict[str, None] = {}
    for t in [t for t in terms if t[0] not in "&!"] or ["all"]:
        chosen.update(dict.fromkeys(_term(inv, t)))
    for t in terms:
        if t[0] == "&":
            keep = set(_term(inv, t[1:]))
            chosen = {h: None for h in chosen if h in keep}
    for t in terms:
        if t[0] == "!":
            drop = set(_term(inv, t[1:]))
            chosen = {h: None for h in chosen if h not in drop}
    return list(chosen)


def _term(inv: Inventory, term: str) -> list[str]:
    """One term's hosts: the matching groups' hosts first, then hosts matched by name (Ansible's order)."""
    m = _SUBSCRIPT.fullmatch(term)
    if m is not None and not term.startswith("~"):
        hosts = _term(inv, m.group(1))
        if m.group(2) is not None:
            i = int(m.group(2))
            return hosts[i:i + 1] if i != -1 else hosts[-1:]
        start, end = int(m.group(3)), int(m.group(5)) if m.group(5) else len(hosts) - 1
        return hosts[start:end + 1]
    if term in ("all", "*"):
        return inv.members("all")
    if term.startswith("~"):
        try:
            rx = re.compile(term[1:])
        except re.error as exc:
            raise InputError(f"--limit {term!r}: not a regular expression: {exc}") from exc

        def match(name: str) -> bool:
            return rx.match(name) is not None
    else:

        def match(name: str) -> bool:
            return fnmatch.fnmatchcase(name, term)

    groups = [g for g in inv.groups if match(g)]
    found = [h for g in groups for h in inv.members(g)]
    if not groups or term[0] == "~" or any(c in term for c in ".?*["):
        found += [h for h in inv.hosts if match(h)]
    return list(dict.fromkeys(found))


def inventory_targets(inv: Inventory, pattern: str | None, source: str) -> list[Target]:
    """The targets `--limit PATTERN` selects; none is an error naming the groups there are."""
    hosts = limit(inv, pattern)
    if not hosts:
        groups = ", ".join(g for g in inv.groups if g not in ("all", "ungrouped")) or "none"
        raise InputError(f"--limit {pattern or 'all'}: no host of {source} matches (groups: {groups})")
    return [inventory_target(inv, h) for h in hosts]


def ssh_config_path(options: Sequence[str] = ()) -> Path:
    """The ssh config crashdoc's ssh reads: `-F FILE` in CRASHDOC_SSH_OPTIONS, else ~/.ssh/config."""
    words = [*shlex.split(os.environ.get("CRASHDOC_SSH_OPTIONS", "")), *options]
    for i, w in enumerate(words):
        if w == "-F" and i + 1 < len(words):
            return Path(words[i + 1]).expanduser()
        if w.startswith("-F") and len(w) > 2:
            return Path(w[2:]).expanduser()
    return Path("~/.ssh/config").expanduser()


def ssh_config_hosts(pattern: str, path: Path | None = None) -> list[Target]:
    """The `Host` aliases of an ssh config that match a wildcard pattern (`gpu-*`), in file order.

    Only literal aliases are hosts (a `Host gpu-*` line is a pattern for options, not a host); ssh itself
    resolves each alias (HostName, Port, User ...). `Include` lines are followed (globs, relative to ~/.ssh).
    """
    path = path or ssh_config_path()
    names: list[str] = []
    for alias in _aliases(path, depth=0):
        if fnmatch.fnmatchcase(alias, pattern) and alias not in names:
            names.append(alias)
    if not names:
        raise InputError(f"--ssh-hosts {pattern}: no Host alias in {path} matches")
    return [target(n) for n in names]


def _aliases(path: Path, depth: int) -> Iterable[str]:
    if depth > 8:
        return
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ssh config {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    for raw in text.splitlines():
        words = raw.split("#", 1)[0].replace("=", " ", 1).split()
        if len(words) < 2:
            continue
        key = words[0].lower()
        if key == "host":
            yield from (w for w in words[1:] if not any(c in w for c in "*?!"))
        elif key == "include":
            for inc in words[1:]:
                p = Path(inc).expanduser()
                if not p.is_absolute():
                    p = Path("~/.ssh").expanduser() / p
                for f in sorted(p.parent.glob(p.name)):
                    yield from _aliases(f, depth + 1)


def collect_targets(hosts: Sequence[str] = (), hosts_file: str | None = None, inventory: str | None = None,
                    pattern: str | None = None, ssh_hosts: str | None = None) -> list[Target]:
    """Every target the options name, in the order given, each name once (`--host` first, then `--hosts`,
    the inventory's, the ssh config's)."""
    if pattern and not inventory:
        raise InputError("--limit selects hosts of an inventory: give --inventory FILE too")
    found = [target(h) for h in hosts]
    if hosts_file:
        found += read_hosts_file(hosts_file)
    if inventory:
        from crashdoc.fleet.inventory_files import load_inventory

        found += inventory_targets(load_inventory(inventory), pattern, inventory)
    if ssh_hosts:
        found += ssh_config_hosts(ssh_hosts)
    unique: dict[str, Target] = {}
    for t in found:
        unique.setdefault(t.name, t)
    return list(unique.values())
