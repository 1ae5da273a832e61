"""Make rule regexes usable by the hot-line scanner (hyperscan, or Python ``re`` as fallback).

Hyperscan implements a subset of PCRE. Rule regexes must therefore avoid (the validator
rejects them, and :func:`to_scan_pattern` skips a pattern that still has one):

* lookarounds ``(?=`` ``(?!`` ``(?<=`` ``(?<!``, atomic groups ``(?>``, conditionals ``(?(``;
* backreferences ``\\1`` ``(?P=name)`` ``\\g<name>``;
* possessive quantifiers ``*+`` ``++`` ``?+`` ``{n}+``;
* ``\\A``, ``\\Z``, ``\\G`` and inline comments ``(?#``.

Named groups ``(?P<name>...)`` are allowed in rules (they become captures) and are turned
into plain groups ``(...)`` for the scanner, which never needs the captured text.
"""

from __future__ import annotations

import re
from functools import cache


def _walk(regex: str) -> tuple[str, str | None]:
    """Rewrite named groups as plain groups; return (pattern, first unsupported construct or None)."""
    out: list[str] = []
    i, n, in_class = 0, len(regex), False
    while i < n:
        ch = regex[i]
        if ch == "\\" and i + 1 < n:
            nxt = regex[i + 1]
            if not in_class and (nxt in "123456789" or nxt == "g"):
                return regex, "a backreference"
            if not in_class and nxt in "AZG":
                return regex, f"\\{nxt}"
            out.append(regex[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
            # a ']' right after '[' or '[^' is a literal member of the class
            for lead in ("^]", "]", "^"):
                if regex.startswith(lead, i + 1):
                    out.append(lead)
                    i += len(lead)
                    break
            i += 1
            continue
        if ch == "(" and regex.startswith("(?", i):
            rest = regex[i + 2:i + 4]
            if rest.startswith("P<"):
                end = regex.find(">", i)
                out.append("(")
                i = end + 1
                continue
            for token, name in (("P=", "a backreference"), ("=", "a lookahead"), ("!", "a lookahead"),
                                ("<=", "a lookbehind"), ("<!", "a lookbehind"), (">", "an atomic group"),
                                ("(", "a conditional group"), ("#", "an inline comment")):
                if rest.startswith(token):
                    return regex, name
        if ch in "*+?}" and i + 1 < n and regex[i + 1] == "+":
            return regex, "a possessive quantifier"
        out.append(ch)
        i += 1
    return "".join(out), None


def unsupported_construct(regex: str) -> str | None:
    """Name the first construct of *regex* the scanner cannot compile, or None."""
    return _walk(regex)[1]


def scan_form(regex: str) -> str | None:
    """*regex* without named groups, or None when it has a construct the scanner cannot compile; unlike
    `to_scan_pattern`, not compiled by Python: for a regex Python compiles as it is (a code constant), whose
    scanner form only loses group names (a start then compiles nothing to get it)."""
    pattern, bad = _walk(regex)
    return None if bad else pattern


@cache
def to_scan_pattern(regex: str, ignore_case: bool = False) -> str | None:
    """Return *regex* without named groups (``(?i)`` prefixed if needed), or None to skip it."""
    pattern = scan_form(regex)
    if pattern is None:
        return None
    if ignore_case:
        pattern = "(?i)" + pattern
    try:
        re.compile(pattern)
    except re.error:
        return None
    return pattern


def exception_pattern(names: tuple[str, ...]) -> str:
    """Scanner pattern for a rule matched by exception type only: the bare type names."""
    return r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b"
