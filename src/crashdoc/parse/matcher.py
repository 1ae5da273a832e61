"""The multi-pattern matcher behind the block scanner: one hyperscan database for every marker and rule pattern
(compiled once, cached on disk by the patterns' content), or Python `re` when the wheel is absent."""

from __future__ import annotations

import hashlib
import json
import os
import re
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from crashdoc.cachedir import cache_dir
from crashdoc.parse.markers import MarkerClass

try:  # NOTE: hyperscan is an accelerator; the Python fallback gives the same lines, slower.
    import hyperscan as _hs
except ImportError:  # pragma: no cover - exercised on platforms without the wheel
    _hs = None  # type: ignore[assignment]


class ScanStats:
    """What the scan read (a plain class: a start defines no dataclass for it)."""

    __slots__ = ("bytes", "lines", "selected", "engine", "skipped_patterns")

    def __init__(self) -> None:
        self.bytes = 0
        self.lines = 0
        self.selected = 0
        self.engine = "python"
        self.skipped_patterns: list[str] = []


class Matcher:
    """One compiled multi-pattern matcher returning (end offset, class index) hits for a block."""

    def __init__(
        self,
        classes: Sequence[MarkerClass],
        stats: ScanStats,
        use_hyperscan: bool = True,
        extra: Sequence[tuple[str, int, bool]] = (),
        extra_key: str = "",
    ) -> None:
        """`extra`: more (pattern, class index, prefilter) after the classes' patterns (the rule literals: one
        index each, without a MarkerClass apiece), named in the cache key by `extra_key` (their digest)."""
        self.classes = classes
        exprs: list[tuple[str, int]] = [(p, ci) for ci, c in enumerate(classes) for p in c.patterns]
        prefilter = {p for c in classes if c.prefilter for p in c.patterns}
        named = len(exprs)
        exprs.extend((p, ci) for p, ci, _ in extra)
        prefilter.update(p for p, _, pf in extra if pf)
        self.hs_db: Any = None
        if _hs is not None and use_hyperscan:
            key = (tuple(exprs[:named]), extra_key) if extra_key else tuple(exprs)
            self.hs_db = _compiled(tuple(exprs), stats, frozenset(prefilter), key)
            self.scratch = _hs.Scratch(self.hs_db)
            self._proto = _hs.Scratch(self.hs_db)  # NOTE: never scanned with: safe to clone while others scan
            stats.engine = "hyperscan"
        else:
            self.py = [(re.compile(p.encode(), re.MULTILINE), ci) for p, ci in exprs]


    def new_scratch(self) -> object:
        """A scratch space for scanning on another thread (one scratch per thread)."""
        return self._proto.clone() if self.hs_db is not None else None  # NOTE: a copy, cheaper than allocating

    def hits(self, block: bytes | memoryview, scratch: object = None) -> list[tuple[int, int]]:
        """(offset inside the matching line, class index) for every match in block, in order."""
        return [(h >> 16, h & 0xFFFF) for h in self.packed_hits(block, 0, scratch)]

    def packed_hits(self, block: bytes | memoryview, base: int, scratch: object = None) -> array[int]:
        """Every match in block as (base + offset of its last byte) << 16 | class index, in order: 8 bytes a hit (a
        dense block has millions; a tuple each would hold hundreds of MB while blocks wait)."""
        found: list[int] = []
        if self.hs_db is not None:
            add = found.append

            def on_match(ident: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
                add((base + (end - 1 if end else 0)) << 16 | ident)

            self.hs_db.scan(block, match_event_handler=on_match, scratch=scratch or self.scratch)
        else:
            for rx, ci in self.py:  # as hyperscan: a match's last byte
                found.extend((base + max(m.end() - 1, 0)) << 16 | ci for m in rx.finditer(block))
        found.sort()
        return array("q", found)


def hyperscan_available() -> bool:
    """Whether the hyperscan wheel is installed (it is an accelerator: without it Python's re does the work)."""
    return _hs is not None


def compiled_database(
    exprs: tuple[tuple[str, int], ...], stats: ScanStats, prefilter: frozenset[str] = frozenset()
) -> Any:
    """A hyperscan database of (pattern, id) pairs, compiled once and cached on disk (see `_compiled`)."""
    return _compiled(exprs, stats, prefilter)


def new_scratch(db: Any) -> Any:
    """A scratch space for scanning `db` (one per thread)."""
    return _hs.Scratch(db)


def _hs_compile(exprs: Sequence[tuple[str, int]], prefilter: frozenset[str] = frozenset()) -> Any:
    # NOTE: multi-line: a block holds many lines, and `^`/`$` in a rule mean a line's start and end, as they do
    # when the rule is searched on one line
    db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
    db.compile(
        expressions=[p.encode() for p, _ in exprs], ids=[ci for _, ci in exprs],
        elements=len(exprs),
        flags=[_hs.HS_FLAG_MULTILINE | (_hs.HS_FLAG_PREFILTER if p in prefilter else 0) for p, _ in exprs],
    )
    return db


_CACHE: dict[object, tuple[Any, list[str]]] = {}


def _compiled(
    exprs: tuple[tuple[str, int], ...], stats: ScanStats, prefilter: frozenset[str] = frozenset(), key_of: object = None
) -> Any:
    """A hyperscan database for exprs; patterns hyperscan cannot compile are left out (and listed).

    Compiled once per process and kept on disk (hyperscan's serialised form, keyed by the patterns), since
    compiling a few hundred rule patterns costs about half a second at every start.
    """
    memo = key_of if key_of is not None else (exprs, prefilter)
    if memo in _CACHE:
        db, known = _CACHE[memo]
        stats.skipped_patterns.extend(known)
        return db
    # NOTE: `key_of` stands for the patterns when the caller has their digest (hashing thousands costs a start ms)
    named = (key_of, sorted(prefilter)) if key_of is not None else (exprs, sorted(prefilter))
    key = hashlib.sha256(repr((named, getattr(_hs, "__version__", ""), "multiline")).encode()).hexdigest()[:24]
    d = cache_dir()
    path = d / f"scan-{key}.hsdb" if d is not None else None
    skipped: list[str] = []
    db = None
    try:
        if path is None:
            raise FileNotFoundError("no cache")
        blob = path.read_bytes()
        db = _hs.loadb(blob[4 + int.from_bytes(blob[:4], "big"):], _hs.HS_MODE_BLOCK)
        db.scratch = _hs.Scratch(db)
        skipped = json.loads(blob[4 : 4 + int.from_bytes(blob[:4], "big")])
    except Exception:
        db = None
    if db is None:
        try:
            db = _hs_compile(exprs, prefilter)
        except Exception:
            keep = []
            for e in exprs:
                try:
                    _hs_compile([e], prefilter)
                    keep.append(e)
                except Exception:
                    skipped.append(e[0])
            db = _hs_compile(keep, prefilter)
        try:
            if path is not None:
                meta = json.dumps(skipped).encode()
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_bytes(len(meta).to_bytes(4, "big") + meta + _hs.dumpb(db))
                os.replace(tmp, path)
                _prune(path.parent)
        except OSError:
            pass  # a read-only home: compile at every start
    _CACHE[memo] = (db, skipped)
    stats.skipped_patterns.extend(skipped)
    return db


KEEP = 16
"""Hyperscan databases kept (the newest): one per distinct set of patterns (rule directories, versions). One
diagnosis uses up to seven (block scanner for text and for JSON lines, rule matcher, rule prefilter, value gate,
format table's header and line rows): eight would make two checkouts or a user rules directory recompile."""


def _prune(d: Path) -> None:
    try:
        dbs = sorted(d.glob("scan-*.hsdb"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in dbs[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
