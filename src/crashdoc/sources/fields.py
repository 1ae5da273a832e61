"""The one typed accessor for fields of structured records (journal export, docker json-file, JSON logging).

A record is untrusted JSON: any field may be a string, a number, null, a list, an object or a bool, and a
string of digits may be 40 digits long or made of non-ASCII digits (`"²"`.isdigit() is True, int() refuses
it). Every reader of a record asks here, so a field of the wrong type is absent, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crashdoc.regex import Regex

#: microseconds since the epoch accepted as a timestamp: 1970 up to the end of year 9999
USEC_MAX = 253_402_300_799_999_999
#: the kernel's PID_MAX_LIMIT (2^22)
PID_MAX = 4_194_304
_SURROGATE = Regex("[\ud800-\udfff]")


def text(rec: Mapping[str, Any], key: str) -> str | None:
    """The field as a string, or None when it is absent or of another type.

    journalctl writes a value that is not valid UTF-8 (or holds control characters) as a list of byte values;
    such a list (integers 0..255 only) is decoded with replacement characters."""
    return as_text(rec.get(key))


def as_text(value: Any) -> str | None:
    """A field's value as a string (see `text`); a lone surrogate (JSON `"\\ud800"`) becomes U+FFFD."""
    if isinstance(value, str):
        return value if value.isascii() else _no_surrogates(value)
    if isinstance(value, list) and all(type(v) is int and 0 <= v <= 255 for v in value):
        return bytes(value).decode("utf-8", "replace")
    return None


def _no_surrogates(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", value)
    return value


def first_text(rec: Mapping[str, Any], *keys: str) -> str | None:
    """The first of the fields that is a non-empty string."""
    for key in keys:
        value = text(rec, key)
        if value:
            return value
    return None


def number(value: str | None, high: int, low: int = 0) -> int | None:
    """A string of ASCII digits within [low, high] as an int; None for anything else (signs, spaces,
    superscripts, Arabic-Indic digits, more digits than `high` has)."""
    if not value or not value.isascii() or not value.isdigit() or len(value) > len(str(high)):
        return None
    n = int(value)
    return n if low <= n <= high else None


def digits(rec: Mapping[str, Any], key: str, high: int, low: int = 0) -> int | None:
    """A digits field (`_PID`, `N_RESTARTS`, `__REALTIME_TIMESTAMP`) checked for ASCII digits and range."""
    return number(text(rec, key), high, low)


def pid(rec: Mapping[str, Any], *keys: str) -> int | None:
    """The first of the fields that is a valid process id (1..PID_MAX)."""
    for key in keys:
        n = digits(rec, key, PID_MAX, 1)
        if n is not None:
            return n
    return None


def usec(rec: Mapping[str, Any], key: str = "__REALTIME_TIMESTAMP") -> int | None:
    """A journal timestamp in microseconds since the epoch, None when missing or out of range."""
    return digits(rec, key, USEC_MAX)


def iso_usec(us: int | None) -> str | None:
    """Microseconds since the epoch as ISO 8601 UTC (`2025-11-30T09:12:05.123456+00:00`); None for 0/None."""
    if not us or not 0 < us <= USEC_MAX:
        return None
    from datetime import datetime, timezone  # NOTE: only journal records carry one (a file's start skips it)

    try:
        return datetime.fromtimestamp(us / 1e6, tz=timezone.utc).isoformat(timespec="microseconds")
    except (OverflowError, OSError, ValueError):
        return None
