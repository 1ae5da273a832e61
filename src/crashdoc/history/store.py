"""The incident memory's SQLite file: where it lives, its schema (PRAGMA user_version), safe concurrent use,
and what happens to a damaged file (set aside, a new one started: never a crash).

Concurrency: WAL mode (readers never block the writer), a busy timeout, and every write in one
`BEGIN IMMEDIATE` transaction, so the many crashdoc runs of a fleet queue for the write lock instead of
failing with "database is locked" or dead-locking on a read-to-write upgrade.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from crashdoc.errors import CrashdocError

T = TypeVar("T")

FILENAME = "history.db"
SCHEMA_VERSION = 1
#: seconds a write waits for another crashdoc run's transaction before giving up
BUSY_TIMEOUT = 15.0
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB (primary result codes)

#: migrations[i] brings a database from user_version i to i + 1
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS incidents (
        id INTEGER PRIMARY KEY,
        first_seen TEXT NOT NULL,          -- ISO 8601 UTC
        last_seen TEXT NOT NULL,
        diagnoses INTEGER NOT NULL DEFAULT 1,
        host TEXT NOT NULL,
        unit TEXT,                         -- vllm.service, docker:NAME, podman:NAME
        source TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        category TEXT,
        rule TEXT,
        exception TEXT,
        message TEXT,
        fix_command TEXT,                  -- what the diagnosis proposed
        crashdoc TEXT
    );
    CREATE INDEX IF NOT EXISTS incidents_by_fingerprint ON incidents (fingerprint, last_seen);
    CREATE INDEX IF NOT EXISTS incidents_by_unit ON incidents (host, unit, last_seen);
    CREATE TABLE IF NOT EXISTS fixes (
        id INTEGER PRIMARY KEY,
        incident INTEGER NOT NULL REFERENCES incidents (id),
        started TEXT NOT NULL,
        command TEXT NOT NULL,
        verdict TEXT,                      -- fixed | not_fixed | new_error, NULL while pending
        verdict_at TEXT,
        detail TEXT
    );
    CREATE INDEX IF NOT EXISTS fixes_by_incident ON fixes (incident);
    CREATE TABLE IF NOT EXISTS commands (
        id INTEGER PRIMARY KEY,
        fix INTEGER NOT NULL REFERENCES fixes (id),
        at TEXT NOT NULL,
        command TEXT NOT NULL,
        status INTEGER
    );
    """,
)


class HistoryError(CrashdocError):
    """The incident memory could not be read or written (the diagnosis goes on without it)."""

    exit_status = 2


def state_dir() -> Path:
    """CRASHDOC_STATE_DIR, else $XDG_STATE_HOME/crashdoc, else ~/.local/state/crashdoc."""
    if os.environ.get("CRASHDOC_STATE_DIR"):
        return Path(os.environ["CRASHDOC_STATE_DIR"])
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "state"
    return base / "crashdoc"


def default_path() -> Path:
    """Where the incident memory lives."""
    return state_dir() / FILENAME


def _is_corrupt(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _CORRUPT_CODES
    return type(exc) is sqlite3.DatabaseError  # exactly: OperationalError ("locked") is a subclass


def _while_busy(fn: Callable[[], None]) -> None:
    """fn(), again while another run holds the lock, up to BUSY_TIMEOUT: switching a new file to WAL returns
    "database is locked" at once, without SQLite's busy handler, while another run creates it."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    pause = 0.005
    while True:
        try:
            fn()
            return
        except sqlite3.OperationalError as exc:
            code = getattr(exc, "sqlite_errorcode", 5) & 0xFF
            if code not in (5, 6) or time.monotonic() > deadline:  # SQLITE_BUSY, SQLITE_LOCKED
                raise
        time.sleep(pause)  # back off: the other run's transaction is short
        pause = min(pause * 2, 0.2)


class Store:
    """One open incident memory. `notes` collects what went wrong on the way (a file set aside), in words."""

    def __init__(self, path: Path | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.clock = clock
        self.notes: list[str] = []
        self._conn: sqlite3.Connection | None = None

    # ------------------------------------------------------------------ opening

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise HistoryError(f"cannot create {self.path.parent}: {exc.strerror or exc}") from exc
        old = os.umask(0o077)
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
        except sqlite3.Error as exc:
            raise HistoryError(f"cannot open {self.path}: {exc}") from exc
        finally:
            os.umask(old)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        _while_busy(lambda: self._wal(conn))
        conn.execute("PRAGMA synchronous = NORMAL")  # with WAL: never corrupt, at worst the last write is lost
        conn.execute("PRAGMA foreign_keys = ON")
        _while_busy(lambda: self._migrate(conn))
        return conn

    @staticmethod
    def _wal(conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise HistoryError(f"{self.path} was written by a newer crashdoc (schema {version}, this one knows "
                               f"{SCHEMA_VERSION}); left as it is")
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # another run may have done it meanwhile
            for i in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[i].split(";"):
                    if statement.strip():
                        conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _set_aside(self, exc: sqlite3.Error) -> None:
        """Move a damaged file (and its -wal/-shm) to history.db.corrupt-<time>, under a lock so that two runs
        finding the same damage move it once, and never the new file another run started meanwhile."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(self.clock()))
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{os.getpid()}")
        lock = self.path.with_name(f"{self.path.name}.lock")
        try:
            with open(lock, "a") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                if self._still_damaged():
                    os.replace(self.path, aside)
                    for suffix in ("-wal", "-shm"):
                        with contextlib.suppress(FileNotFoundError):
                            os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
                    self.notes.append(f"the incident memory {self.path} was damaged ({exc}); moved aside to "
                                      f"{aside.name}, a new one was started")
        except OSError as err:
            raise HistoryError(f"{self.path} is damaged ({exc}) and cannot be moved aside: "
                               f"{err.strerror or err}") from err

    def _still_damaged(self) -> bool:
        if not self.path.exists():
            return False
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT)
            try:
                conn.execute("PRAGMA quick_check").fetchall()
                conn.execute("PRAGMA user_version").fetchone()
            finally:
                conn.close()
        except sqlite3.Error as exc:
            return _is_corrupt(exc)
        return False

    def connection(self) -> sqlite3.Connection:
        """The open connection (opened, migrated, a damaged file replaced, on first use)."""
        if self._conn is None:
            try:
                self._conn = self._connect()
            except sqlite3.Error as exc:
                if not _is_corrupt(exc):
                    raise HistoryError(f"{self.path}: {exc}") from exc
                self._set_aside(exc)
                try:
                    self._conn = self._connect()
                except sqlite3.Error as again:
                    raise HistoryError(f"{self.path}: {again}") from again
        return self._conn

    def close(self) -> None:
        """Close the connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # ------------------------------------------------------------------ using

    def _once(self, fn: Callable[[sqlite3.Connection], T], write: bool) -> T:
        conn = self.connection()
        if not write:
            return fn(conn)
        conn.execute("BEGIN IMMEDIATE")
        try:
            out = fn(conn)
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return out

    def run(self, fn: Callable[[sqlite3.Connection], T], *, write: bool = False) -> T:
        """fn(connection), in one IMMEDIATE transaction when it writes; damage found on the way sets the file
        aside and runs fn once more on a new one; any other failure is a HistoryError."""
        try:
            return self._once(fn, write)
        except sqlite3.Error as exc:
            if not _is_corrupt(exc):
                raise HistoryError(f"{self.path}: {exc}") from exc
            self._set_aside(exc)
        try:
            return self._once(fn, write)
        except sqlite3.Error as exc:
            raise HistoryError(f"{self.path}: {exc}") from exc

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def opened(path: Path | None = None) -> Iterator[Store]:
    """A Store, closed after use."""
    store = Store(path)
    try:
        yield store
    finally:
        store.close()
