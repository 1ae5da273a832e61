"""An Ansible inventory as Ansible holds it: groups and children, host ranges, variables and their precedence
(the files are read by fleet/inventory_files.py).

Only what crashdoc needs to reach a host is kept: the inventory name, the groups (for `--limit`) and the
connection variables `ansible_host`, `ansible_port`, `ansible_user` (and their old `ansible_ssh_*` spellings)
and `ansible_connection` (`local` runs on this machine). Variables come from `[group:vars]` / `vars:`, from
the host's own line or mapping, and from `group_vars/` and `host_vars/` beside the inventory file; a child
group's variables win over its parent's, the host's own over any group's, as in Ansible.

Not read: dynamic inventory scripts and plugins (`plugin:` YAML), vaulted values, Jinja templates in values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from crashdoc.errors import InputError

#: `[01:08]`, `[a:f]`, `[1:20:2]` inside a host name
_RANGE = re.compile(r"\[([0-9]+|[a-zA-Z]):([0-9]+|[a-zA-Z])(?::([0-9]+))?\]")
#: the ranges one host line may expand to: a typo such as `node[1:99999]` is refused, not run
MAX_HOSTS = 10_000
CONNECTION_VARS = {
    "host": ("ansible_host", "ansible_ssh_host"),
    "port": ("ansible_port", "ansible_ssh_port"),
    "user": ("ansible_user", "ansible_ssh_user", "ansible_ssh_user_name"),
    "connection": ("ansible_connection",),
}


@dataclass
class Group:
    """One inventory group: its own hosts (in order), its child groups, its variables."""

    name: str
    hosts: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)
    vars: dict[str, Any] = field(default_factory=dict)


@dataclass
class Inventory:
    """Groups and hosts in inventory order; `all` holds every host, `ungrouped` those in no other group."""

    groups: dict[str, Group] = field(default_factory=dict)
    host_vars: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each host's own variables, in inventory order (the keys are every host)."""

    def group(self, name: str) -> Group:
        """The group called `name`, created when first named."""
        if name not in self.groups:
            self.groups[name] = Group(name)
        return self.groups[name]

    def add_host(self, group: str, name: str, variables: dict[str, Any] | None = None) -> None:
        """Put `name` in `group` (once) and merge its own variables."""
        g = self.group(group)
        if name not in g.hosts:
            g.hosts.append(name)
        self.host_vars.setdefault(name, {}).update(variables or {})

    @property
    def hosts(self) -> list[str]:
        """Every host, in the order the inventory names them."""
        return list(self.host_vars)

    def members(self, group: str) -> list[str]:
        """The hosts of `group` and of all its descendants, in Ansible's order: the group's own hosts, then
        its children's, then their children's, level by level (`all`: every host)."""
        if group not in self.groups:
            return []
        found: dict[str, None] = {}
        visited: set[str] = set()
        level = [group]
        while level:
            below: list[str] = []
            for name in level:
                if name in visited or name not in self.groups:
                    continue
                visited.add(name)
                found.update(dict.fromkeys(self.groups[name].hosts))
                below.extend(self.children(name))
            level = below
        return list(found)

    def children(self, group: str) -> list[str]:
        """A group's child groups; those of `all` are the groups no other group holds, `ungrouped` first."""
        if group != "all":
            return list(self.groups[group].children) if group in self.groups else []
        held = {c for g in self.groups.values() if g.name != "all" for c in g.children}
        tops = [g for g in self.groups if g != "all" and g not in held]
        return sorted(tops, key=lambda g: g != "ungrouped")

    def groups_of(self, host: str) -> list[str]:
        """The groups `host` belongs to, directly or through children, `all` first, then by depth and name."""
        depth = self._depths()
        names = [g for g in self.groups if g != "all" and host in self.members(g)]
        return ["all", *sorted(names, key=lambda g: (depth.get(g, 1), g))]

    def variables(self, host: str) -> dict[str, Any]:
        """The host's variables as Ansible merges them: `all`, then shallower groups, deeper ones, the host."""
        out: dict[str, Any] = {}
        for g in self.groups_of(host):
            out.update(self.groups[g].vars if g in self.groups else {})
        out.update(self.host_vars.get(host, {}))
        return out

    def _depths(self) -> dict[str, int]:
        """How deep each group sits below `all` (the longest path: a child's variables override its parents')."""
        depth: dict[str, int] = {}

        def walk(name: str, d: int, path: tuple[str, ...]) -> None:
            if name in path:
                return  # a cycle of children: Ansible refuses it, we just stop
            if depth.get(name, -1) >= d:
                return
            depth[name] = d
            for child in self.groups.get(name, Group(name)).children:
                walk(child, d + 1, (*path, name))

        parents = {c for g in self.groups.values() for c in g.children}
        for name in self.groups:
            if name not in parents:
                walk(name, 0 if name == "all" else 1, ())
        return depth


def expand(pattern: str) -> list[str]:
    """Expand Ansible host ranges: `node[01:03]` -> node01, node02, node03; `db-[a:c]`; `[1:9:2]` steps."""
    m = _RANGE.search(pattern)
    if m is None:
        return [pattern]
    lo, hi, step = m.group(1), m.group(2), int(m.group(3) or 1)
    if lo.isdigit() != hi.isdigit() or step < 1:
        raise InputError(f"host range {pattern!r}: both ends must be numbers or both letters")
    if lo.isdigit():
        width = len(lo) if lo.startswith("0") and len(lo) > 1 else 0
        a, b = int(lo), int(hi)
        if b < a or (b - a) // step >= MAX_HOSTS:
            raise InputError(f"host range {pattern!r}: {lo}..{hi} is empty or too large")
        values = [str(i).zfill(width) for i in range(a, b + 1, step)]
    else:
        if ord(hi) < ord(lo):
            raise InputError(f"host range {pattern!r}: {lo}..{hi} is empty")
        values = [chr(c) for c in range(ord(lo), ord(hi) + 1, step)]
    head, tail = pattern[: m.start()], pattern[m.end():]
    return [h for v in values for h in expand(head + v + tail)]


def split_port(name: str) -> tuple[str, int | None]:
    """`host:2222` -> (host, 2222), as an INI or YAML host key may carry a port; IPv6 only in brackets."""
    if name.startswith("["):
        inner, sep, rest = name[1:].partition("]")
        if sep and rest.startswith(":") and rest[1:].isdigit():
            return inner, int(rest[1:])
        return (inner, None) if sep and not rest else (name, None)
    host, sep, port = name.rpartition(":")
    if sep and port.isdigit() and ":" not in host:
        return host, int(port)
    return name, None
