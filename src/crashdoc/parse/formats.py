"""THE error-format table (data/error_formats.yaml, read once): the level a line was printed at, for every
format that is not an engine's own Python logger.

Header rows are a prefix of the text (glog, c10, TensorRT, TurboMind, logfmt, Rust tracing, NCCL's debug lines
...): `header` strips one and fills the line's fields. Line rows are the text itself (a Go or Rust panic, C++'s
terminate, `Segmentation fault`, CUDA status strings, ggml asserts ...): `line_format` names the row a line of
no level of its own matches, and errors.py counts it as an error. Block rows open a stack dump (a Python or
rich traceback, faulthandler's stacks, a goroutine dump): `block_format`; the traceback builder reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from crashdoc.datafile import load_yaml, package_file
from crashdoc.parse.regex_parts import bars
from crashdoc.regex import Regex

if TYPE_CHECKING:
    from crashdoc.parse.patternset import PatternSet

LEVELS = frozenset({"TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"})
_UNSCANNABLE = Regex(r"\(\?(?:[=!<]|P<)")
"""What hyperscan cannot scan (`^`/`$` are a line's start and end: the block pass is multi-line)."""


@dataclass(frozen=True)
class Example:
    """A line the row must parse, with the level (and, for a header, the text) the parser must give it."""

    line: str
    level: str
    text: str | None
    source: str


@dataclass(frozen=True)
class Format:
    """One row of the table."""

    id: str
    family: str
    where: str
    """`header` (a prefix of the text) or `line` (the text itself)."""
    pattern: Regex[str]
    """Compiled when first tried (a row no line reaches costs nothing: the table is read at every start)."""
    level: str | None
    levels: dict[str, str]
    strip: bool
    hint: str | None
    needs_ts: bool
    suffix: Regex[str] | None
    process: str | None
    examples: tuple[Example, ...]
    scan: str | None = None
    """A pattern for the block scanner that finds the row's error-level lines (hyperscan's subset of PCRE)."""
    indented: bool = False
    """A line row whose lines are errors even when indented (a library that indents its error box's message)."""

    def level_of(self, m: re.Match[str]) -> str | None:
        """The level a match gives (the fixed one, or the one named by the `lv` group)."""
        if "lv" in m.re.groupindex and m.group("lv") is not None:
            return self.levels.get(m.group("lv")) or self.levels.get(m.group("lv").upper())
        return self.level


def _row(r: dict[str, Any]) -> Format:
    where = r["where"]
    if where not in ("header", "line", "block"):
        raise ValueError(f"data/error_formats.yaml: row {r.get('id')}: where must be header, line or block")
    levels = {str(k): str(v) for k, v in (r.get("levels") or {}).items()}
    for lv in [r.get("level"), *levels.values()]:
        if lv is not None and lv not in LEVELS:
            raise ValueError(f"data/error_formats.yaml: row {r['id']}: unknown level {lv}")
    scan = r.get("scan")
    if scan is not None and _UNSCANNABLE.search(scan):
        raise ValueError(f"data/error_formats.yaml: row {r['id']}: scan has a lookaround or named group")
    examples = tuple(Example(str(e["line"]), str(e["level"]), e.get("text"), str(e.get("source", "")))
                     for e in r.get("examples") or ())
    if not examples:
        raise ValueError(f"data/error_formats.yaml: row {r['id']} has no example line")
    return Format(
        id=str(r["id"]), family=" ".join(str(r.get("family", "")).split()), where=where,
        pattern=Regex(r["pattern"]), level=r.get("level"), levels=levels, strip=bool(r.get("strip", True)),
        hint=r.get("hint"), needs_ts=r.get("needs") == "ts",
        suffix=Regex(r["suffix"]) if r.get("suffix") else None, process=r.get("process"), examples=examples,
        scan=scan, indented=bool(r.get("indented", False)),
    )


@lru_cache(maxsize=1)
def load_formats() -> tuple[Format, ...]:
    """The packaged table, rows in file order."""
    data = load_yaml(package_file("data", "error_formats.yaml").read_text("utf-8"), cache=True)
    return tuple(_row(r) for r in data["rows"])


@lru_cache(maxsize=1)
def _headers() -> tuple[Format, ...]:
    return tuple(f for f in load_formats() if f.where == "header")


@lru_cache(maxsize=1)
def _lines() -> tuple[tuple[Format, ...], Regex[str], Regex[str]]:
    """The line rows, and a prefilter: their `^` branches as one anchored union, the others as one union
    without their leading `\\b` (a superset: it only broadens). Most lines match neither, and then no row is
    tried; a union whose branches start with `\\b` is several times slower (no first-character skip)."""
    rows = tuple(f for f in load_formats() if f.where == "line")
    every = [b for f in rows for b in bars(f.pattern.pattern)]
    anchored = [b[1:] for b in every if b.startswith("^")]
    floating = [b[2:] if b.startswith("\\b") else b for b in every if not b.startswith("^")]
    return (rows, Regex("|".join(f"(?:{b})" for b in anchored)), Regex("|".join(f"(?:{b})" for b in floating)))


def scan_patterns() -> tuple[str, ...]:
    """Every row's scanner pattern (the block scanner marks those lines hot, with their follow-on lines)."""
    return tuple(f.scan for f in load_formats() if f.scan)


def header(s: str, f: dict[str, Any]) -> str | None:
    """The text after the first header row that matches the start of `s` (fills level, loc, host, pid, rank,
    fmt into `f`); None when no row matches."""
    first = s[:1]
    rows = _headers()
    maybe = _header_gate().candidates(s)
    for i in range(len(rows)) if maybe is None else sorted(maybe):
        fmt = rows[i]
        if fmt.pattern.pattern.startswith("\\[") and first != "[":
            continue
        if fmt.hint is not None and fmt.hint not in s[:80]:
            continue
        if fmt.needs_ts and "ts" not in f:
            continue
        m = fmt.pattern.match(s)
        if m is None:
            continue
        level = fmt.level_of(m)
        if level is not None:
            f.setdefault("level", level)
        groups = m.groupdict()
        if groups.get("loc"):
            f["loc"] = groups["loc"]
        if groups.get("host"):
            f.setdefault("host", groups["host"])
        if groups.get("pid"):
            f.setdefault("pid", int(groups["pid"]))
        rank = groups.get("rank") or groups.get("rank2")
        if rank:
            f.setdefault("rank", int(rank))
        f["fmt"] = fmt.id
        if not fmt.strip:
            return s
        if groups.get("qmsg") is not None:
            rest = groups["qmsg"].replace('\\"', '"') + s[m.end():]
        elif groups.get("msg") is not None:
            rest = groups["msg"] + s[m.end():]
        else:
            rest = s[m.end():]
        if fmt.suffix is not None:
            sm = fmt.suffix.search(rest)
            if sm is not None:
                rest = rest[: sm.start()]
                if sm.groupdict().get("rank") and fmt.process:
                    f["rank"] = int(sm.group("rank"))
                    f["process"] = fmt.process.format(**sm.groupdict())
                    f["engine"] = True
        return rest
    return None


@lru_cache(maxsize=1)
def _blocks() -> tuple[Format, ...]:
    return tuple(f for f in load_formats() if f.where == "block")


def block_format(text: str) -> Format | None:
    """The block row (a line that opens a stack dump: a Python or rich traceback, faulthandler's, a goroutine
    dump ...) whose pattern matches the start of `text` (leading blanks skipped), or None."""
    stripped = text.lstrip()
    return next((f for f in _blocks() if f.pattern.match(stripped)), None)


@lru_cache(maxsize=1)
def _header_gate() -> PatternSet:
    """The header rows in one hyperscan pass, each anchored at the text's start (`^`: a superset on a text with
    inner newlines), each row's id its index in `_headers()`: trying every row's own match costs 10-20 µs on a line
    that has no header (most lines: every prefix-stripped line is asked)."""
    return _gate(_headers(), "^")


@lru_cache(maxsize=1)
def _line_gate() -> PatternSet:
    """The line rows in one hyperscan pass (parse/patternset.py), each row's id its index in `_lines()`: most
    error lines have a word the floating union finds (`Error: ` in `RuntimeError: `) and then tried every row,
    about 50 µs of Python searches on a 200-character line."""
    return _gate(_lines()[0], "")


def _gate(rows: tuple[Format, ...], anchor: str) -> PatternSet:
    """A PatternSet of `rows` (ids: their indexes), each pattern after `anchor`; a row hyperscan cannot read is
    always tried."""
    from crashdoc.parse.patternset import PatternSet  # (patternset -> matcher -> markers -> errors -> here)
    from crashdoc.parse.scan_form import scan_form

    exprs: list[tuple[str, int]] = []
    always: set[int] = set()
    for i, f in enumerate(rows):
        p = scan_form(f"{anchor}(?:{f.pattern.pattern})" if anchor else f.pattern.pattern)
        if p is None:
            always.add(i)
        else:
            exprs.append((p, i))
    return PatternSet(tuple(exprs), frozenset(always))


@lru_cache(maxsize=256)  # the incident builder and the candidate builder ask about the same line in turn
def line_format(text: str) -> Format | None:
    """The first line row whose pattern is found in `text` (a prefix-stripped line), or None."""
    rows, anchored, floating = _lines()
    maybe = _line_gate().candidates(text)
    if maybe is not None:
        return next((rows[i] for i in sorted(maybe) if rows[i].pattern.search(text)), None)
    if anchored.match(text) is None and floating.search(text) is None:
        return None
    return next((f for f in rows if f.pattern.search(text)), None)
