"""The methods `@dataclass` generates, compiled once.

`@dataclass` writes each class's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__` ... as Python source
and compiles it with `exec` when the class is created. crashdoc defines its model as ~50 frozen dataclasses, and
compiling their methods was ~40% of the imports of a `crashdoc diagnose` (Python's compiler, at every start).
`install()`, run when the package is imported, gives the dataclasses module an `exec` that looks the source text
up in a table of code objects kept in crashdoc's cache directory (cachedir.py, marshal data, valid for this exact
Python build only); a text not in it is compiled as before, and the table is written back at exit. The
functions are the same: same source, same compiler, same globals; only the compiling is skipped.

Nothing is installed without a cache directory (`CRASHDOC_CACHE=off`); an unreadable, corrupt, foreign or
untrusted table is ignored (and replaced at exit).
"""

from __future__ import annotations

import builtins
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from crashdoc.cachedir import cache_dir, replace_file, trusted

LIMIT = 4000
"""Entries kept: beyond it, only those this process used are written (old crashdoc versions' classes go)."""

_table: dict[str, CodeType] = {}
_used: set[str] = set()
_counts = {"hits": 0, "misses": 0}
_path: Path | None = None


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """`exec`, with a source text's code read from the table (compiled and added when it is not there)."""
    if globals is None:  # exec's default: the caller's namespaces
        frame = sys._getframe(1)
        globals = frame.f_globals
        if locals is None:
            locals = frame.f_locals
    if isinstance(source, str):
        code = _table.get(source)
        if code is None:
            code = _table[source] = compile(source, "<string>", "exec")
            _counts["misses"] += 1
        else:
            _counts["hits"] += 1
        _used.add(source)
        source = code
    builtins.exec(source, globals, locals)


def _load(path: Path) -> dict[str, CodeType]:
    import marshal

    try:
        if not trusted(path):
            return {}
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}  # NOTE: no table yet, or a corrupt one: compile (and write it at exit)
    if not (isinstance(data, dict) and data.get("python") == sys.version and isinstance(data.get("code"), dict)):
        return {}
    return {k: v for k, v in data["code"].items() if isinstance(k, str) and isinstance(v, CodeType)}


def _save() -> None:
    if not _counts["misses"] or _path is None:
        return
    import marshal

    code = _table if len(_table) <= LIMIT else {k: v for k, v in _table.items() if k in _used}
    try:
        replace_file(_path, marshal.dumps({"python": sys.version, "code": code}))
    except (OSError, ValueError):
        pass  # a read-only cache: compile at every start


def install() -> None:
    """Hand the dataclasses module the caching `exec` (once; nothing without a cache directory)."""
    global _path
    import dataclasses

    d = cache_dir()
    if d is None or getattr(dataclasses, "exec", None) is _exec:
        return
    tag = sys.implementation.cache_tag or sys.implementation.name
    _path = d / f"code-{tag}-{sys.hexversion:x}.marshal"
    _table.update(_load(_path))
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # a module global shadows the builtin there
    import atexit

    atexit.register(_save)


def counts() -> dict[str, int]:
    """Source texts found in the table and compiled, in this process."""
    return dict(_counts)
