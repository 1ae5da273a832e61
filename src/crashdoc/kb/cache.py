"""The knowledge base compiled once: the loaded rules and their scanner patterns kept on disk, keyed by the
content of every rule file and of the code that builds them, so a start skips YAML parsing, schema checks and
the scanner-pattern rewriting (the hyperscan database has its own cache next to it, parse/matcher.py).

Where: `parse.matcher.cache_dir()` (`$CRASHDOC_CACHE`, else `$XDG_CACHE_HOME/crashdoc`, else
`~/.cache/crashdoc`; `CRASHDOC_CACHE=off` disables it). The cache is an accelerator only: an unreadable, corrupt or foreign file is ignored and rebuilt, a
read-only directory means no cache, never an error. A cache file is unpickled only when it and its directory
belong to the current user and nobody else can write them (unpickling runs code).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from crashdoc.parse.matcher import cache_dir

FORMAT = 1
"""Bump when the cached value's shape changes in a way the code digest below would not notice."""
_CODE = ("model.py", "loader.py", "schema.py", "scan.py", "knowledge.py", "cache.py")
"""Modules of this package whose source is part of the key: a changed Rule class never meets an old pickle."""


def content_key(files: Iterable[tuple[str, bytes]]) -> str:
    """A digest of (name, content) pairs plus this package's code, crashdoc's and Python's versions."""
    from crashdoc import __version__

    h = hashlib.sha256(f"{FORMAT}|{__version__}|{sys.version}".encode())
    here = Path(__file__).parent
    for name in _CODE:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(b"?")
    for name, data in files:
        h.update(len(name).to_bytes(4, "big") + name.encode() + len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()[:32]


def _trusted(path: Path) -> bool:
    uid = os.getuid() if hasattr(os, "getuid") else None
    for p in (path, path.parent):
        st = p.lstat()
        if stat.S_ISLNK(st.st_mode) or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
        if uid is not None and st.st_uid != uid:
            return False
    return True


def load_cached(name: str, key: str) -> Any | None:
    """The value stored under (name, key), or None (no cache, missing, corrupt, untrusted)."""
    d = cache_dir()
    if d is None:
        return None
    path = d / f"{name}-{key}.pickle"
    try:
        if not _trusted(path):
            return None
        with open(path, "rb") as f:
            return pickle.load(f)
    except Exception:  # NOTE: a corrupt or truncated cache is rebuilt, never an error
        return None


def store_cached(name: str, key: str, value: Any) -> None:
    """Keep value under (name, key), replacing older entries of `name`; silently nothing when not writable."""
    d = cache_dir()
    if d is None:
        return
    try:
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = d / f".{name}-{key}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.chmod(tmp, 0o600)
        os.replace(tmp, d / f"{name}-{key}.pickle")
        for old in d.glob(f"{name}-*.pickle"):
            if old.name != f"{name}-{key}.pickle":
                old.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass  # a read-only home or an unpicklable value: load from the sources at every start
