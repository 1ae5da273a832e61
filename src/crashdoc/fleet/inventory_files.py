"""Reading an Ansible inventory file, INI or YAML, and the group_vars/ and host_vars/ folders beside it."""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from crashdoc.datafile import load_yaml
from crashdoc.errors import InputError
from crashdoc.fleet.inventory import Group, Inventory, expand, split_port

_SECTION = re.compile(r"\[([^\]:\s]+)(?::(vars|children|hosts))?\]\s*(?:[#;].*)?")


def _value(text: str) -> Any:
    """An INI value as Ansible reads it: a Python literal when it is one (2222, True, "x"), else the text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def _hosts_of_line(where: str, line: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """One INI host line: `pattern [key=value ...]` -> (host, its variables) per host of the pattern."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from exc
    if not words:
        return
    variables: dict[str, Any] = {}
    for w in words[1:]:
        key, sep, val = w.partition("=")
        if not sep or not key:
            raise InputError(f"{where}: expected key=value after the host name, got {w!r}")
        variables[key] = _value(val)
    for name in expand(words[0]):
        host, port = split_port(name)
        yield host, ({"ansible_port": port} if port is not None else {}) | variables


def parse_ini(text: str, source: str = "inventory") -> Inventory:
    """Read an INI inventory: `[group]`, `[group:vars]`, `[group:children]`, hosts before any section
    are `ungrouped`; `#` and `;` start comments."""
    inv = Inventory()
    inv.group("all")
    group, kind = "ungrouped", "hosts"
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{source}:{n}"
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            m = _SECTION.fullmatch(line)
            if m is None:
                raise InputError(f"{where}: not a section header: {line[:80]!r}")
            group, kind = m.group(1), m.group(2) or "hosts"
            inv.group(group)
            continue
        if kind == "hosts":
            for host, variables in _hosts_of_line(where, line):
                inv.add_host(group, host, variables)
        elif kind == "children":
            child = line.split()[0]
            inv.group(child)
            if child not in inv.group(group).children:
                inv.group(group).children.append(child)
        else:
            key, sep, val = line.partition("=")
            if not sep:
                raise InputError(f"{where}: expected key=value in [{group}:vars], got {line[:80]!r}")
            inv.group(group).vars[key.strip()] = _value(val.strip())
    _ungrouped(inv)
    return inv


def parse_yaml(text: str, source: str = "inventory") -> Inventory:
    """Read a YAML inventory: top-level groups, each with `hosts:`, `children:` and `vars:`."""
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise InputError(f"{source}: not valid YAML: {str(exc).splitlines()[0]}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(f"{source}: a YAML inventory is a mapping of groups")
    if "plugin" in data:
        raise InputError(f"{source}: an inventory plugin ({data['plugin']}) needs Ansible: "
                         "export it with `ansible-inventory -i FILE --list -y > hosts.yml` first")
    inv = Inventory()
    inv.group("all")
    for name, body in data.items():
        _yaml_group(inv, str(name), body, source)
    _ungrouped(inv)
    return inv


def _yaml_group(inv: Inventory, name: str, body: Any, source: str) -> None:
    group = inv.group(name)
    if body is None:
        return
    if not isinstance(body, dict):
        raise InputError(f"{source}: group {name!r} must be a mapping with hosts, children or vars")
    hosts = body.get("hosts") or {}
    if isinstance(hosts, list):  # not Ansible's form, but a common slip: accept a plain list of names
        hosts = dict.fromkeys(hosts)
    if not isinstance(hosts, dict):
        raise InputError(f"{source}: hosts of group {name!r} must be a mapping")
    for pattern, variables in hosts.items():
        if variables is not None and not isinstance(variables, dict):
            raise InputError(f"{source}: variables of host {pattern!r} must be a mapping")
        for host_name in expand(str(pattern)):
            host, port = split_port(host_name)
            inv.add_host(name, host, ({"ansible_port": port} if port is not None else {}) | (variables or {}))
    group_vars = body.get("vars") or {}
    if not isinstance(group_vars, dict):
        raise InputError(f"{source}: vars of group {name!r} must be a mapping")
    group.vars.update(group_vars)
    children = body.get("children") or {}
    if not isinstance(children, dict):
        raise InputError(f"{source}: children of group {name!r} must be a mapping")
    for child, child_body in children.items():
        if str(child) not in group.children:
            group.children.append(str(child))
        _yaml_group(inv, str(child), child_body, source)


def _ungrouped(inv: Inventory) -> None:
    """Hosts in no group but `all` belong to `ungrouped`, as in Ansible; every top group is a child of all."""
    grouped = {h for g in inv.groups.values() if g.name not in ("all", "ungrouped") for h in g.hosts}
    for h in inv.groups.get("all", Group("all")).hosts:
        if h not in grouped:
            inv.add_host("ungrouped", h)
    inv.group("all").hosts = []
    loose = inv.group("ungrouped")
    loose.hosts = [h for h in loose.hosts if h not in grouped]


def _vars_files(folder: Path, name: str) -> Iterable[Path]:
    """`group_vars/NAME`, `NAME.yml`, `NAME.yaml`, `NAME.json`, or the files of the folder `NAME/`."""
    for candidate in (folder / name, *(folder / f"{name}{ext}" for ext in (".yml", ".yaml", ".json"))):
        if candidate.is_file():
            yield candidate
        elif candidate.is_dir():
            yield from sorted(p for p in candidate.iterdir() if p.is_file() and p.suffix in (".yml", ".yaml", ".json"))


def _load_vars(path: Path) -> dict[str, Any]:
    try:
        data = load_yaml(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise InputError(f"{path}: cannot read variables: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(f"{path}: variables must be a mapping")
    return data


def load_inventory(path: str | Path) -> Inventory:
    """Read an inventory file (YAML when it looks like YAML, else INI) and its group_vars/host_vars folders."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read inventory {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    if p.suffix in (".yml", ".yaml", ".json") or _looks_like_yaml(text):
        inv = parse_yaml(text, str(path))
    else:
        inv = parse_ini(text, str(path))
    for g in list(inv.groups):
        for f in _vars_files(p.parent / "group_vars", g):
            inv.groups[g].vars.update(_load_vars(f))
    for h in inv.hosts:
        for f in _vars_files(p.parent / "host_vars", h):
            inv.host_vars[h] = inv.host_vars[h] | _load_vars(f)  # host_vars/ beat the inventory's own
    return inv


def _looks_like_yaml(text: str) -> bool:
    """An INI inventory never has a top-level `name:` line; a YAML one opens with `---` or a group mapping."""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        return line == "---" or (not line.startswith("[") and re.fullmatch(r"[\w.-]+:\s*(?:#.*)?", line) is not None)
    return False
