"""Whether this user may read the system journal, and journalctl's own complaints as one-line errors."""

from __future__ import annotations

import re

from crashdoc.sources.errors import JournalAccessError
from crashdoc.transport import CommandResult, Runner


def unknown_option(res: CommandResult) -> bool:
    err = res.stderr.decode("utf-8", "replace")
    return "unrecognized option" in err or "invalid option" in err or "Unknown option" in err


def option_named(err: str) -> str:
    m = re.search(r"(?:unrecognized|invalid|Unknown) option(?: --)? ?['‘`\"]?(-[-\w=]*|\w)", err)
    return m.group(1) if m else "an option crashdoc uses"


def check_access(runner: Runner) -> None:
    """Raise JournalAccessError when the user is neither root nor in a group that may read the system journal.

    journalctl does not always say so: a user without access reads their own user journal and exits 0.
    """
    try:
        uid = runner.run(["id", "-u"], timeout=30)
        groups = runner.run(["id", "-Gn"], timeout=30)
    except Exception:
        return
    if not uid.ok or uid.stdout.strip() == b"0":
        return
    names = set(groups.stdout.decode("utf-8", "replace").split())
    if names & {"systemd-journal", "adm", "wheel"}:
        return
    user = user_of(runner)
    raise JournalAccessError(
        f"{user} on {host_of(runner)} may not read the system journal (not root, not in group"
        f" systemd-journal): add it with `sudo usermod -aG systemd-journal {user if user != 'this user' else '$USER'}`"
        " and log in again, or connect as root"
    )


def host_of(runner: Runner) -> str:
    """The host without the user part, for `USER on HOST` messages."""
    return (runner.host or "this machine").rsplit("@", 1)[-1]


def user_of(runner: Runner) -> str:
    host = runner.host or ""
    if "@" in host:
        return host.split("@", 1)[0]
    if runner.host is None:
        import getpass

        try:
            return getpass.getuser()
        except (KeyError, OSError):
            return "this user"
    return "this user"
