"""crashdoc's cache directory, and the rule for reading a file from it: the knowledge base compiled once
(kb/cache.py), the hyperscan databases (parse/matcher.py), the packaged data tables parsed once (datafile.py).
Everything in it is an accelerator: a missing, corrupt or untrusted file is rebuilt, never an error."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def cache_dir() -> Path | None:
    """crashdoc's cache directory: `$CRASHDOC_CACHE`, else `$XDG_CACHE_HOME/crashdoc`, else `~/.cache/crashdoc`;
    None when `CRASHDOC_CACHE` is `off` (or empty, `0`, `no`): no cache, everything built at every start."""
    env = os.environ.get("CRASHDOC_CACHE")
    if env is not None and env.strip().lower() in ("", "0", "off", "no", "none"):
        return None
    if env:
        return Path(env).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")) / "crashdoc"


def trusted(path: Path) -> bool:
    """Whether *path* and its directory belong to the current user, are no symlinks, and nobody else can write
    them: only such a file is unpickled or unmarshalled (loading it runs code or can crash the interpreter).
    Raises OSError when the file cannot be read."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    for p in (path, path.parent):
        st = p.lstat()
        if stat.S_ISLNK(st.st_mode) or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
        if uid is not None and st.st_uid != uid:
            return False
    return True


def replace_file(path: Path, data: bytes) -> None:
    """Write *data* to *path* atomically (a temporary file renamed over it), readable by the owner only; the
    directory is created (0700). Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def prune(d: Path, pattern: str, keep: int) -> None:
    """Remove all but the *keep* newest files of *d* matching *pattern*; errors are ignored."""
    try:
        entries = sorted(d.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[keep:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
