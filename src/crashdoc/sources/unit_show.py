"""`systemctl show` output -> values: properties, ExecStart= commands, Environment= assignments (secrets masked)."""

from __future__ import annotations

import re
import shlex
import signal
from collections.abc import Sequence
from dataclasses import dataclass

from crashdoc.regex import Regex

#: ExecMainCode values (siginfo si_code) as systemctl show prints them
CLD = {"0": None, "1": "exited", "2": "killed", "3": "dumped", "4": "trapped", "5": "stopped", "6": "continued"}


_SECRET = Regex(r"(TOKEN|SECRET|PASSW|PASSWD|API_?KEY|CREDENTIAL|PRIVATE|AUTH)", re.IGNORECASE)


_EXEC = Regex(r"path=(?P<path>[^;]*?) ; argv\[\]=(?P<argv>.*?) ; (?:flags|ignore_errors)=")


@dataclass(frozen=True)
class ExecCommand:
    """One ExecStart= command as systemd resolved it."""

    path: str
    """The binary systemd executes (absolute)."""
    argv: tuple[str, ...]
    """argv as systemctl prints it (words split on blanks: systemd does not quote them)."""


def parse_show(text: str) -> dict[str, list[str]]:
    """`KEY=value` lines of `systemctl show` into KEY -> values (a key may repeat, e.g. ExecStart)."""
    props: dict[str, list[str]] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key:
            props.setdefault(key, []).append(value)
    return props


def parse_exec(values: Sequence[str]) -> tuple[ExecCommand, ...]:
    """ExecStart values (`{ path=... ; argv[]=... ; ... }`) into commands."""
    out = []
    for value in values:
        for m in _EXEC.finditer(value):
            out.append(ExecCommand(path=m.group("path").strip(), argv=tuple(m.group("argv").split())))
    return tuple(out)


def parse_environment(value: str) -> tuple[str, ...]:
    """Environment= (`A=1 "B=x y"`) into assignments, with the values of secret-looking names masked."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    return tuple(mask_secret(w) for w in words)


def mask_secret(assignment: str) -> str:
    """`HF_TOKEN=hf_abc` -> `HF_TOKEN=***`; other assignments unchanged."""
    key, sep, _ = assignment.partition("=")
    return f"{key}=***" if sep and _SECRET.search(key) else assignment


def to_int(values: Sequence[str] | None) -> int | None:
    if not values or not values[-1].strip().lstrip("-").isdigit() or not values[-1].isascii():
        return None
    return int(values[-1])


def to_str(values: Sequence[str] | None) -> str | None:
    if not values:
        return None
    value = values[-1].strip()
    return value or None


def mask_env_line(key: str, value: str) -> str:
    """Mask secret values in an Environment= property line; other properties unchanged."""
    if key != "Environment":
        return value
    return " ".join(parse_environment(value))


def describe_exit(code: str | None, status: int | None) -> str | None:
    """`exit status 1`, `signal 9/KILL`, `signal 11/SEGV (core dumped)`; None when nothing ended yet."""
    if code is None or status is None:
        return None
    if code == "exited":
        return f"exit status {status}"
    try:
        name = signal.Signals(status).name.removeprefix("SIG")
    except ValueError:
        name = str(status)
    dumped = " (core dumped)" if code == "dumped" else ""
    return f"signal {status}/{name}{dumped}"
