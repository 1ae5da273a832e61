"""Incident memory: every diagnosis of a host's unit or container, and later the fix tried and its verdict,
keyed by the root cause's fingerprint, so the next diagnosis of the same cause (on any host) can say what
happened last time.

An incident is one episode of one root cause on one host and unit: diagnosing the same crash loop again
within EPISODE_GAP updates it (`diagnoses` + 1) instead of adding a new one, until a fix is verified.
"""

from __future__ import annotations

import socket
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from crashdoc import __version__
from crashdoc.history.store import Store
from crashdoc.model import Diagnosis, History, PastIncident

Verdict = Literal["fixed", "not_fixed", "new_error"]
VERDICTS: tuple[str, ...] = get_args(Verdict)
#: a new diagnosis of the same cause on the same host and unit within this many seconds is the same incident
EPISODE_GAP = 24 * 3600
#: earlier incidents carried in a Diagnosis
MAX_SEEN = 5


def iso(epoch: float) -> str:
    """ISO 8601 UTC, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _epoch(text: str) -> float:
    import calendar

    return float(calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ")))


def shown_time(text: str) -> str:
    """`2026-11-12 09:41 UTC` from the stored ISO time."""
    return text[:16].replace("T", " ") + " UTC" if len(text) >= 16 else text


def host_name(target: str | None) -> str:
    """The host an incident belongs to: `--host [user@]host[:port]` without user and port; this machine's name."""
    if not target:
        return socket.gethostname()
    host = target.rsplit("@", 1)[-1]
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


@dataclass(frozen=True)
class FixRecord:
    """A fix tried on an incident, the commands it ran and its verdict."""

    id: int
    started: str
    command: str
    verdict: str | None
    verdict_at: str | None
    detail: str | None
    commands: tuple[str, ...] = ()


@dataclass(frozen=True)
class Incident:
    """One incident as `crashdoc history` lists it."""

    id: int
    first_seen: str
    last_seen: str
    diagnoses: int
    host: str
    unit: str | None
    source: str
    fingerprint: str
    category: str | None
    rule: str | None
    exception: str | None
    message: str | None
    proposed_fix: str | None
    fixes: tuple[FixRecord, ...] = ()


def _verdict_words(p: PastIncident) -> str:
    if not p.fix_command:
        return ""
    cmd = f"`{p.fix_command}`"
    return {"fixed": f", fixed by {cmd} (verified)", "not_fixed": f"; {cmd} did not fix it",
            "new_error": f"; {cmd} was followed by a new error"}.get(p.verdict or "", f", {cmd} applied (not verified)")


def summary(seen: Sequence[PastIncident], total: int, hosts: int) -> str:
    """"seen before: node-03, 2026-11-12 09:41 UTC, fixed by `...` (verified)" (or "seen before on H at T")."""
    if not seen:
        return ""
    top = seen[0]
    where = top.host + (f" ({top.unit})" if top.unit else "")
    words = _verdict_words(top)
    line = f"seen before: {where}, {shown_time(top.at)}{words}" if words else \
        f"seen before on {where} at {shown_time(top.at)}"
    if total > 1:
        line += f" ({total} earlier incidents on {hosts} host{'s' if hosts != 1 else ''})"
    return line


class Memory:
    """The typed interface of the incident memory (diagnose records; `crashdoc fix` records fixes and verdicts).

    Every method may raise HistoryError (unreadable, unwritable, newer schema); a damaged file is set aside
    and replaced on the way, and `notes` says so."""

    def __init__(self, path: Path | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.store = Store(path, clock=clock)
        self.clock = clock

    @property
    def notes(self) -> list[str]:
        """What happened to the file on the way (a damaged one set aside), in words."""
        return self.store.notes

    def close(self) -> None:
        """Close the database."""
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ diagnoses

    def record_diagnosis(self, diag: Diagnosis, *, host: str, unit: str | None,
                         scrub: Callable[[str], str] = lambda s: s) -> History | None:
        """Record `diag`'s root cause for `host`/`unit` and say what is known about it from before; None when
        there is no root cause to record. `scrub` is applied to every stored text (the CLI redacts secrets)."""
        rc = diag.root_cause
        if rc is None or not rc.fingerprint:
            return None
        now = iso(self.clock())
        fields = (diag.source, rc.category, rc.rule, rc.exception, rc.message.splitlines()[0] if rc.message else "",
                  rc.fix.command)
        source, category, rule, exception, message, fix = (scrub(v) if isinstance(v, str) else v for v in fields)

        def write(conn: sqlite3.Connection) -> int:
            row = conn.execute("SELECT id, last_seen FROM incidents WHERE host = ? AND unit IS ? AND fingerprint = ? "
                               "ORDER BY last_seen DESC, id DESC LIMIT 1", (host, unit, rc.fingerprint)).fetchone()
            if row is not None and self.clock() - _epoch(row["last_seen"]) < EPISODE_GAP and not conn.execute(
                    "SELECT 1 FROM fixes WHERE incident = ? AND verdict = 'fixed'", (row["id"],)).fetchone():
                conn.execute("UPDATE incidents SET last_seen = ?, diagnoses = diagnoses + 1, source = ?, message = ?, "
                             "fix_command = ? WHERE id = ?", (now, source, message, fix, row["id"]))
                return int(row["id"])
            cur = conn.execute(
                "INSERT INTO incidents (first_seen, last_seen, host, unit, source, fingerprint, category, rule, "
                "exception, message, fix_command, crashdoc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (now, now, host, unit, source, rc.fingerprint, category, rule, exception, message, fix, __version__))
            return int(cur.lastrowid or 0)

        incident = self.store.run(write, write=True)
        return self.history_of(rc.fingerprint, incident)

    def history_of(self, fingerprint: str, incident: int | None = None) -> History:
        """What is known about `fingerprint` apart from `incident` (this diagnosis's own)."""
        def read(conn: sqlite3.Connection) -> History:
            rows = conn.execute(
                "SELECT i.id, i.host, i.unit, i.first_seen, f.command, f.verdict FROM incidents i "
                "LEFT JOIN fixes f ON f.id = (SELECT id FROM fixes WHERE incident = i.id "
                "  ORDER BY verdict = 'fixed' DESC, id DESC LIMIT 1) "
                "WHERE i.fingerprint = ? AND i.id IS NOT ? "
                "ORDER BY f.verdict = 'fixed' DESC, i.last_seen DESC, i.id DESC LIMIT ?",
                (fingerprint, incident, MAX_SEEN)).fetchall()
            total, hosts = conn.execute("SELECT COUNT(*), COUNT(DISTINCT host) FROM incidents WHERE fingerprint = ? "
                                        "AND id IS NOT ?", (fingerprint, incident)).fetchone()
            seen = tuple(PastIncident(r["host"], r["unit"], r["first_seen"], r["command"], r["verdict"]) for r in rows)
            return History(fingerprint, incident, seen, int(total), summary(seen, int(total), int(hosts)))

        return self.store.run(read)

    # ------------------------------------------------------------------ fixes (for `crashdoc fix`)

    def start_fix(self, incident: int, command: str) -> int:
        """Record that `command` is about to be applied to `incident`; returns the fix's id."""
        def write(conn: sqlite3.Connection) -> int:
            cur = conn.execute("INSERT INTO fixes (incident, started, command) VALUES (?, ?, ?)",
                               (incident, iso(self.clock()), command))
            return int(cur.lastrowid or 0)

        return self.store.run(write, write=True)

    def log_command(self, fix: int, command: str, status: int | None = None) -> None:
        """Record one command a fix ran (the fix command, the restart) and its exit status."""
        self.store.run(lambda conn: conn.execute("INSERT INTO commands (fix, at, command, status) VALUES (?, ?, ?, ?)",
                                                 (fix, iso(self.clock()), command, status)), write=True)

    def record_verdict(self, fix: int, verdict: Verdict, detail: str = "") -> None:
        """Record how the fix ended: `fixed` (the service reached readiness, the error is gone), `not_fixed`
        (the same error again) or `new_error`."""
        if verdict not in VERDICTS:
            raise ValueError(f"verdict {verdict!r} is not one of {VERDICTS}")
        self.store.run(lambda conn: conn.execute("UPDATE fixes SET verdict = ?, verdict_at = ?, detail = ? WHERE id = ?",
                                                 (verdict, iso(self.clock()), detail, fix)), write=True)

    # ------------------------------------------------------------------ listing

    def incidents(self, unit: str | None = None, host: str | None = None, limit: int = 50) -> list[Incident]:
        """Incidents newest first, of `unit` (`vllm` matches `vllm.service`, `docker:vllm`, `podman:vllm`) and/or
        `host`."""
        where: list[str] = []
        params: list[str] = []
        if unit:
            names = [unit] if "." in unit or ":" in unit else [unit, f"{unit}.service", f"docker:{unit}", f"podman:{unit}"]
            where.append(f"unit IN ({', '.join('?' * len(names))})")
            params += names
        if host:
            where.append("host = ?")
            params.append(host)
        sql = ("SELECT * FROM incidents" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY last_seen DESC, id DESC LIMIT ?")

        def read(conn: sqlite3.Connection) -> list[Incident]:
            out = []
            for r in conn.execute(sql, (*params, limit)).fetchall():
                fixes = tuple(
                    FixRecord(f["id"], f["started"], f["command"], f["verdict"], f["verdict_at"], f["detail"],
                              tuple(c["command"] for c in conn.execute(
                                  "SELECT command FROM commands WHERE fix = ? ORDER BY id", (f["id"],))))
                    for f in conn.execute("SELECT * FROM fixes WHERE incident = ? ORDER BY id", (r["id"],)))
                out.append(Incident(r["id"], r["first_seen"], r["last_seen"], r["diagnoses"], r["host"], r["unit"],
                                    r["source"], r["fingerprint"], r["category"], r["rule"], r["exception"],
                                    r["message"], r["fix_command"], fixes))
            return out

        return self.store.run(read)
