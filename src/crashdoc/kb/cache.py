"""The knowledge base compiled once: the loaded rules, their scanner patterns and the prefilter's plan kept on
disk, so a start skips YAML parsing, schema checks, regex compilation and the scanner-pattern rewriting (the
hyperscan databases have their own cache next to it, parse/matcher.py; rule regexes are compiled when first
searched, crashdoc/regex.py).

Which entry is valid: each entry records the *content key* of what it was built from (every rule file's path and
bytes, this package's code, crashdoc's and Python's versions) and a *stamp* (the same files' paths, sizes, inodes,
mtimes and ctimes: one `stat` each, no reading). A start whose stamp equals the entry's uses it at once; otherwise
it computes the content key (reads every rule file) and uses the entry only when that key matches (then the
entry gets the new stamp: a checkout or a reinstall that only touched mtimes costs one read of the rules). As in
git's index, a stamp is not recorded while a file is younger than `RACY` seconds: an edit in the same clock tick
as the stat would keep its mtime, so such files are always checked by content until they age.

Where: `cachedir.cache_dir()` (`$CRASHDOC_CACHE`, else `$XDG_CACHE_HOME/crashdoc`, else
`~/.cache/crashdoc`; `CRASHDOC_CACHE=off` disables it). The cache is an accelerator only: an unreadable, corrupt or
foreign file is ignored and rebuilt, a read-only directory means no cache, never an error. A cache file is
unpickled only when it and its directory belong to the current user and nobody else can write them (unpickling
runs code: `cachedir.trusted`).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from crashdoc.cachedir import cache_dir, prune, replace_file, trusted

FORMAT = 2
"""Bump when the cached value's shape changes in a way the code digest below would not notice."""
_CODE = ("model.py", "loader.py", "schema.py", "../parse/scan_form.py", "knowledge.py", "cache.py", "../regex.py", "prefilter.py",
         "redos.py", "inventory.py", "context.py", "fill.py", "checks.py",
         "context_checks.py")
"""Modules of this package whose source is part of the key: a changed Rule class never meets an old pickle."""
RACY = 2.0
"""Seconds: a file modified this recently (or in the future) gives no stamp (see the module's docstring)."""
KEEP = 8
"""Entries kept per name prefix (the newest): one per distinct set of rule directories."""
_DEPTH = 5
"""How deep the stamp walks a rule directory (the loader reads four levels below the root)."""


def _versions() -> bytes:
    from crashdoc import __version__

    return f"{FORMAT}|{__version__}|{sys.version}".encode()


def content_key(files: Iterable[tuple[str, bytes]]) -> str:
    """A digest of (name, content) pairs plus this package's code, crashdoc's and Python's versions."""
    h = hashlib.sha256(_versions())
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


def stamp(roots: Sequence[object]) -> str | None:
    """A digest of the stats of everything below *roots* (rule directories) and of this package's code; None
    when one is not a plain directory (a zip), cannot be read, or holds a file younger than RACY seconds."""
    h = hashlib.sha256(_versions())
    limit = time.time_ns() - int(RACY * 1e9)
    here = Path(__file__).parent
    try:
        for name in _CODE:
            if not _stat_into(h, str(here / name), os.stat(here / name), limit):
                return None
        for root in roots:
            if not isinstance(root, Path):
                return None
            if not _walk_into(h, str(root), limit, 0):
                return None
    except OSError:
        return None
    return h.hexdigest()[:32]


def _stat_into(h: Any, path: str, st: os.stat_result, limit: int) -> bool:
    if max(st.st_mtime_ns, st.st_ctime_ns) > limit:
        return False
    h.update(f"{path}\0{st.st_mode}\0{st.st_size}\0{st.st_ino}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\n".encode())
    return True


def _walk_into(h: Any, path: str, limit: int, depth: int) -> bool:
    if not _stat_into(h, path, os.stat(path), limit):
        return False
    if depth >= _DEPTH:
        return True
    with os.scandir(path) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if entry.name.startswith((".", "_")):
            continue  # the loader skips them too
        if entry.is_dir():
            if not _walk_into(h, entry.path, limit, depth + 1):
                return False
        elif not _stat_into(h, entry.path, entry.stat(), limit):
            return False
    return True


def entry_path(name: str) -> Path | None:
    """The file that holds entry *name* (None when the cache is off)."""
    d = cache_dir()
    return d / f"{name}.pickle" if d is not None else None


def built_once(name: str, roots: Sequence[object], key: Callable[[], str | None], build: Callable[[], Any],
               valid: Callable[[Any], bool]) -> Any:
    """`build()`'s value, kept as entry *name*: read back while the files below *roots* keep their stats or,
    failing that, their content (`key()`, None when unreadable: then nothing is stored); else built (its
    exceptions propagate: an invalid rule is reported, never cached) and stored. *valid* checks a value read
    back (a foreign shape is a miss)."""
    current = stamp(roots)
    cached, computed = load_cached(name, current, key)
    if cached is not None and valid(cached):
        return cached
    computed = computed or key()
    value = build()
    if computed:
        store_cached(name, current, computed, value)
    return value


def load_cached(name: str, current_stamp: str | None, key: Callable[[], str | None]) -> tuple[Any, str | None]:
    """(the value stored as *name*, its content key) when the entry matches *current_stamp* or, failing that,
    `key()` (computed only then); else (None, the content key when it was computed, or None). Never raises: a
    missing, corrupt or untrusted entry is a miss."""
    path = entry_path(name)
    computed: str | None = None
    try:
        if path is None or not trusted(path):
            raise OSError("no trusted entry")
        with open(path, "rb") as f:
            header = pickle.load(f)
            if not (isinstance(header, dict) and header.get("format") == FORMAT):
                raise ValueError("a foreign entry")
            if current_stamp is not None and header.get("stamp") == current_stamp:
                return pickle.load(f), header.get("key")
            computed = key()
            if computed is None or header.get("key") != computed:
                return None, computed
            value = pickle.load(f)
    except Exception:  # NOTE: a corrupt, truncated or foreign entry is rebuilt, never an error
        return None, computed
    if current_stamp is not None:
        store_cached(name, current_stamp, computed, value)  # the same content, new stats: stamp it
    return value, computed


def store_cached(name: str, current_stamp: str | None, key: str, value: Any) -> None:
    """Keep value as entry *name*, built from content *key* with files of *current_stamp* (None: always check the
    content); older entries beyond KEEP of the same prefix go. Silently nothing when not writable."""
    d = cache_dir()
    if d is None:
        return
    try:
        header = pickle.dumps({"format": FORMAT, "stamp": current_stamp, "key": key}, protocol=pickle.HIGHEST_PROTOCOL)
        replace_file(d / f"{name}.pickle", header + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return  # a read-only home or an unpicklable value: load from the sources at every start
    prune(d, f"{name.split('-', 1)[0]}-*.pickle", KEEP)
