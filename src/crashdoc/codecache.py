"""The methods `@dataclass` generates, and crashdoc's regexes, compiled once.

`@dataclass` writes each class's `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__` ... as Python source
and compiles it with `exec` when the class is created. crashdoc defines its model as ~50 frozen dataclasses, and
compiling their methods was ~40% of the imports of a `crashdoc diagnose` (Python's compiler, at every start).
`install()`, run when the package is imported, gives the dataclasses module an `exec` that looks the source text
of a crashdoc class's method up in a table of code objects kept in crashdoc's cache directory (cachedir.py, marshal data, valid for this exact
Python build only); a text not in it is compiled as before, and the table is written back at exit. The
functions are the same: same source, same compiler, same globals; only the compiling is skipped.

The regexes (`crashdoc.regex.Regex`, compiled on first use) are kept in the same table as what Python's regex
compiler makes of them (`re._compiler`: the parse and the code generation, in Python, ~0.1-1 ms a pattern) and
rebuilt from it by `_sre.compile`, as `re.compile` does (CPython 3.11 to 3.13, whose compilers end the same way;
elsewhere, or on any error, `re.compile`).

Nothing is installed without a cache directory (`CRASHDOC_CACHE=off`); an unreadable, corrupt, foreign or
untrusted table is ignored (and replaced at exit).
"""

from __future__ import annotations

import builtins
import marshal
import re
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from crashdoc.cachedir import cache_dir, replace_file, trusted

LIMIT = 3000
"""Entries kept: beyond it, only those this process used are written (old crashdoc versions' classes and the
regexes of a one-off command go). Only crashdoc's own classes are kept (a test's or a library's are compiled as
usual)."""

Key = Any
"""A class method's source text (str), or a regex's (pattern, flags) (tuple)."""
_raw: dict[Key, bytes] = {}
"""The table as read: each entry marshalled on its own, decoded when first asked for (a start uses a few)."""
_table: dict[Key, Any] = {}
"""Decoded entries, and the ones compiled by this process."""
_new: set[Key] = set()
_used: set[Key] = set()
_counts = {"hits": 0, "misses": 0}
_path: Path | None = None


def _get(key: Key) -> Any:
    """The entry of *key* (None when not in the table); counts the hit."""
    _used.add(key)
    value = _table.get(key)
    if value is None and key in _raw:
        try:
            value = _table[key] = marshal.loads(_raw[key])
        except (EOFError, ValueError, TypeError):
            return None
    if value is not None:
        _counts["hits"] += 1
    return value


def _put(key: Key, value: Any) -> None:
    _table[key] = value
    _new.add(key)
    _counts["misses"] += 1


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """`exec`, with a source text's code read from the table (compiled and added when it is not there)."""
    if globals is None:  # exec's default: the caller's namespaces
        frame = sys._getframe(1)
        globals = frame.f_globals
        if locals is None:
            locals = frame.f_locals
    if isinstance(source, str) and str(globals.get("__name__", "")).startswith("crashdoc"):  # crashdoc's classes
        code = _get(source)
        if not isinstance(code, CodeType):
            code = compile(source, "<string>", "exec")
            _put(source, code)
        source = code
    builtins.exec(source, globals, locals)


def _load(path: Path) -> dict[Key, bytes]:
    try:
        if not trusted(path):
            return {}
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}  # NOTE: no table yet, or a corrupt one: compile (and write it at exit)
    if not (isinstance(data, dict) and data.get("python") == sys.version and isinstance(data.get("table"), dict)):
        return {}
    table: dict[Key, bytes] = data["table"]  # (an entry that is no marshal data is a miss: _get)
    return table


def _save() -> None:
    if not _new or _path is None:
        return
    keep = set(_raw) | _new if len(_raw) + len(_new) <= LIMIT else _used
    try:
        table = {k: _raw[k] if k in _raw else marshal.dumps(_table[k]) for k in keep if k in _raw or k in _table}
        replace_file(_path, marshal.dumps({"python": sys.version, "table": table}))
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
    _raw.update(_load(_path))
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # a module global shadows the builtin there
    import atexit

    atexit.register(_save)


_SRE = sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)
"""Whether this Python's regex compiler is the one `compile_regex` knows (re/_compiler.py, `compile`)."""


def compile_regex(pattern: str | bytes, flags: int = 0) -> re.Pattern[Any]:
    """`re.compile(pattern, flags)`; a pattern compiled by an earlier start is rebuilt from its code in the table
    (installed only: else, and on any error, `re.compile`). Raises re.error on a bad pattern."""
    if _path is None or not _SRE or flags & re.DEBUG:
        return re.compile(pattern, flags)
    flags = int(flags)  # a re.RegexFlag is no marshal data
    key = (pattern, flags)
    entry = _get(key)
    try:
        import _sre

        if entry is None:
            parsed = re._parser.parse(pattern, flags)  # type: ignore[attr-defined]
            groupindex = dict(parsed.state.groupdict)
            indexgroup: list[str | None] = [None] * parsed.state.groups
            for name, i in groupindex.items():
                indexgroup[i] = name
            code = [int(op) for op in re._compiler._code(parsed, flags)]  # type: ignore[attr-defined]  # (no enum)
            entry = (int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup))
            made: re.Pattern[Any] = _sre.compile(pattern, *entry)
            rx = re.compile(pattern, flags)  # the first time, the table's pattern must be re.compile's own
            if (made.flags, made.groups, made.groupindex) == (rx.flags, rx.groups, rx.groupindex):
                _put(key, entry)
            return rx
        return _sre.compile(pattern, *entry)
    except re.error:
        raise
    except Exception:  # NOTE: another Python's internals, a foreign entry: compile as usual
        return re.compile(pattern, flags)


def counts() -> dict[str, int]:
    """Source texts found in the table and compiled, in this process."""
    return dict(_counts)
