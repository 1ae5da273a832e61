"""Refuse names that carry shell syntax before they reach any command line, local or remote."""

from __future__ import annotations

import re

from crashdoc.errors import UnsafeArgumentError

# systemd unit names: letters, digits, ":-_.\@" (systemd.unit(5)); we do not allow anything else.
_UNIT = re.compile(r"[A-Za-z0-9:_.@\\-]{1,255}")
_WORD = re.compile(r"[A-Za-z0-9._:@/+=,%-]{1,4096}")


def check_unit_name(name: str) -> str:
    """Return `name` if it is a valid systemd unit name, else raise UnsafeArgumentError."""
    if not _UNIT.fullmatch(name) or name.startswith("-"):
        raise UnsafeArgumentError(
            f"refusing unit name {name!r}: a unit name may only contain letters, digits and ':-_.@\\'"
        )
    return name


def check_word(value: str, what: str) -> str:
    """Return `value` if it is a plain word (no spaces, quotes, $, ;, |, &, backticks), else refuse it."""
    if not _WORD.fullmatch(value) or value.startswith("-"):
        raise UnsafeArgumentError(f"refusing {what} {value!r}: it contains characters a shell would interpret")
    return value
