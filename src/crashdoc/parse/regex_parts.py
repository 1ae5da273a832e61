"""A regex's top-level parts, found on its text: the alternatives a `|` separates, and the runs between its gaps
(a wide class repeated without a small bound, `[^\\n]{0,60}?`, `.*`, `\\S+`). Every match of a pattern is a match
of one of its alternatives, and contains a match of each of its runs: the block scanner searches for these
smaller parts (parse/literal_plan.py) and confirms the whole pattern on the lines they find."""

from __future__ import annotations

import re
from collections.abc import Iterator

from crashdoc.regex import Regex

GAP = 16
"""A repeated wide class whose bound is at least this (or none) is a gap between runs."""

_GLOBAL_FLAGS = Regex(r"(?:\(\?[aiLmsux]+\))+")
_NUMBERED = Regex(r"\\[1-9]|\(\?P=|\(\?\(")
"""A back-reference or conditional: group numbers that a split would change."""
_QUANT = Regex(r"(?:[*+?]|\{(\d*)(,?)(\d*)\})[?+]?")


def alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern`, an outer group that spans a whole alternative opened up in turn:
    every match of one is a match of `pattern`, and each may have a literal set where their union has none good
    (one branch made of common words spoils the set of all). Leading global flags are carried to each; a pattern
    that does not split cleanly is returned whole."""
    if _NUMBERED.search(pattern):
        return [pattern]
    flags, body = _flags(pattern)
    out = [flags + b for b in _open(body)]
    return out if _all_compile(out) else [pattern]


def bars(body: str) -> list[str]:
    """`body` cut at its top-level `|` (`a|(b|c)|d` -> `a`, `(b|c)`, `d`)."""
    cuts = [i for i, c, level in _structure(body) if c == "|" and level == 0]
    return [body[a + 1 : b] for a, b in zip([-1, *cuts], [*cuts, len(body)])]


def runs(branch: str) -> list[str]:
    """The runs of one alternative between its top-level gaps, each a pattern of its own (leading global flags
    carried), or `[branch]` when it has no gap or does not cut cleanly."""
    flags, body = _flags(branch)
    if _NUMBERED.search(branch) or len(bars(body)) > 1:
        return [branch]
    out: list[str] = []
    cur: list[str] = []
    for atom, quant in _items(body):
        if _is_gap(atom, quant):
            out.append("".join(cur))
            cur = []
        else:
            cur.append(atom + quant)
    out.append("".join(cur))
    parts = [flags + r for r in out if r]
    return parts if len(out) > 1 and _all_compile(parts) else [branch]


def negated_classes(pattern: str) -> Iterator[str]:
    """The text of each negated character class of `pattern` (`[^"\\s]`), escapes stepped over."""
    for i, c, _ in _structure(pattern):
        if c == "[" and pattern.startswith("[^", i):
            yield pattern[i : _class_end(pattern, i) + 1]


def _flags(pattern: str) -> tuple[str, str]:
    m = _GLOBAL_FLAGS.match(pattern)
    return (m.group(), pattern[m.end():]) if m else ("", pattern)


def _all_compile(parts: list[str]) -> bool:
    try:
        for p in parts:
            re.compile(p)
    except re.error:
        return False
    return True


def _items(body: str) -> Iterator[tuple[str, str]]:
    """(atom, quantifier) of each top-level item: an escape, a class, a group or one character."""
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            j = i + (4 if body[i + 1 : i + 2] == "x" else 2)
        elif c == "[":
            j = _class_end(body, i) + 1
        elif c == "(":
            j = next((i + k + 1 for k, ch, lv in _structure(body[i:]) if ch == ")" and lv == 0), n)
        else:
            j = i + 1
        m = _QUANT.match(body, j)
        quant = m.group() if m else ""
        yield body[i:j], quant
        i = j + len(quant)


def _is_gap(atom: str, quant: str) -> bool:
    """A wide class (`.`, `\\S`, `[^\\n]`, `[\\w.-]`) repeated without a bound below GAP."""
    if not quant or quant[0] == "?" or atom.startswith("(") or (len(atom) == 1 and atom != "."):
        return False
    if atom.startswith("\\") and atom[1:2] not in ("S", "s", "w", "W", "d", "D"):
        return False
    m = _QUANT.match(quant)
    if m is None or quant[0] in "*+":
        return True
    hi = m.group(3) if m.group(2) else m.group(1)
    return not hi or int(hi) >= GAP


def _class_end(body: str, i: int) -> int:
    """The offset of the `]` closing the class opened at `body[i]` (`]` first or escaped does not close it)."""
    i += 2 if body[i + 1 : i + 2] == "^" else 1
    i += 1 if body[i : i + 1] == "]" else 0
    n = len(body)
    while i < n and body[i] != "]":
        i += 2 if body[i] == "\\" else 1
    return i


def _structure(body: str) -> Iterator[tuple[int, str, int]]:
    """(offset, character, group depth after it) of each `(`, `)`, `|` and class-opening `[` of `body` that is
    syntax: escapes and the insides of character classes are stepped over."""
    level, i, n = 0, 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            yield i, c, level
            i = _class_end(body, i)
        elif c in "()|":
            level += {"(": 1, ")": -1, "|": 0}[c]
            yield i, c, level
        i += 1


def _open(body: str, depth: int = 0) -> list[str]:
    out: list[str] = []
    for part in bars(body):
        inner = _group_body(part)
        out.extend(_open(inner, depth + 1) if inner is not None and depth < 4 else [part])
    return out


def _group_body(part: str) -> str | None:
    """The body of `(?:...)` or `(...)` when that group is the whole of `part`, else None."""
    head = 3 if part.startswith("(?:") else 1 if part.startswith("(") and not part.startswith("(?") else 0
    if not head or not part.endswith(")"):
        return None
    closed = next((i for i, c, level in _structure(part) if c == ")" and level == 0), None)
    return part[head:-1] if closed == len(part) - 1 else None
