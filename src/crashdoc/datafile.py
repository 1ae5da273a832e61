"""YAML through libyaml's C parser when PyYAML has it (5-10x faster than the pure-Python one: the error-format
table alone took 40 ms of every start), with the same safe semantics either way.

A packaged data table (`load_yaml(text, cache=True)`) is parsed once: its parse is kept in crashdoc's cache
directory (cachedir.py) as marshal data, keyed by the text's digest, so a start reads it back without importing
PyYAML at all. Only plain data is kept (a table holding a date is parsed every time); a missing, corrupt or
untrusted entry is parsed again. Users' files (inventories, rule files) are never copied into the cache.
"""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crashdoc.cachedir import cache_dir, prune, replace_file, trusted

if TYPE_CHECKING:
    from importlib.abc import Traversable  # (importlib.resources.abc from Python 3.11)

KEEP = 16
"""Parsed tables kept (the newest)."""


def package_file(*parts: str) -> Traversable:
    """A file or directory shipped in the crashdoc package (`package_file("data", "phases.yaml")`): a plain Path
    when the package lies in a directory (the usual install), else importlib.resources' view of it (a zip).
    Importing importlib.resources and its readers (zipfile, tempfile ...) costs a start ~10 ms: only a zip needs
    it."""
    path = Path(__file__).parent.joinpath(*parts)
    if path.exists():
        return path
    from importlib.resources import files

    return files("crashdoc").joinpath(*parts)


def load_yaml(text: str, cache: bool = False) -> Any:
    """`yaml.safe_load(text)`, parsed by the C loader when it is available; with *cache*, read back from the
    cache when this text was parsed before (for crashdoc's own data files only). Raises yaml.YAMLError
    (`YAMLError` below names it)."""
    path = None
    if cache and (d := cache_dir()) is not None:
        path = d / f"data-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}.marshal"
        try:
            if trusted(path):
                return marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            pass  # NOTE: no entry yet, or a corrupt one: parse (and store) again
    import yaml  # NOTE: imported when a text is parsed: a start whose tables are cached needs none

    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if path is not None:
        try:
            replace_file(path, marshal.dumps(data))
            prune(path.parent, "data-*.marshal", KEEP)
        except (OSError, ValueError):
            pass  # a read-only cache, or a value marshal cannot hold (a date): parse at every start
    return data


def __getattr__(name: str) -> Any:
    """`YAMLError`: PyYAML's error class, imported only when asked for (an `except datafile.YAMLError` clause
    is evaluated only when an exception is raised, and then PyYAML is loaded already)."""
    if name == "YAMLError":
        import yaml

        return yaml.YAMLError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
