"""Whether this user may read the system journal, journalctl's own complaints as one-line errors, and what
`journalctl --verify` says of copied journal files."""

from __future__ import annotations

import glob
import re
from collections.abc import Sequence
from dataclasses import dataclass

from crashdoc.errors import CrashdocError, InputError
from crashdoc.model import Skipped
from crashdoc.regex import Regex
from crashdoc.sources.errors import JournalAccessError, SystemdTooOldError
from crashdoc.transport import CommandResult, Runner


def unknown_option(res: CommandResult) -> bool:
    err = res.stderr.decode("utf-8", "replace")
    return "unrecognized option" in err or "invalid option" in err or "Unknown option" in err


def option_named(err: str) -> str:
    m = re.search(r"(?:unrecognized|invalid|Unknown) option(?: --)? ?['‘`\"]?(-[-\w=]*|\w)", err)
    return m.group(1) if m else "an option crashdoc uses"


def raise_for(res: CommandResult, runner: Runner, version: int | None, where: str | None) -> None:
    """Turn journalctl's complaints into one-line errors with the next step (`where`: the copied journal read,
    None for the host's own)."""
    err = res.stderr.decode("utf-8", "replace")
    line = res.stderr_line()
    if "insufficient permissions" in err or "not seeing messages from other users and the system" in err:
        user = user_of(runner)
        raise JournalAccessError(
            f"{user} on {host_of(runner)} may not read the system journal: add it to group"
            f" systemd-journal (sudo usermod -aG systemd-journal {user if user != 'this user' else '$USER'},"
            " then log in again) or connect as root"
        )
    if not res.ok and unknown_option(res):
        opt = option_named(err)
        systemd = f"systemd {version}" if version else "its systemd"
        raise SystemdTooOldError(
            f"journalctl on {runner.host or 'this machine'} ({systemd}) does not know {opt}: diagnose a"
            f" log exported with `journalctl -u UNIT -o json > unit.json` instead (crashdoc diagnose unit.json)"
        )
    if not res.ok:
        if where is not None:
            raise InputError(f"journalctl cannot read the {where}: {line or f'exit status {res.returncode}'}")
        raise InputError(
            f"journalctl failed on {runner.host or 'this machine'}: {line or f'exit status {res.returncode}'}"
        )


def check_access(runner: Runner) -> None:
    """Raise JournalAccessError when the user is neither root nor in a group that may read the system journal.

    journalctl does not always say so: a user without access reads their own user journal and exits 0.
    """
    try:
        uid = runner.run(["id", "-u"], timeout=30)
        groups = runner.run(["id", "-Gn"], timeout=30)
    except Exception:
        return
    if not uid.ok or uid.stdout.strip() == b"0":
        return
    names = set(groups.stdout.decode("utf-8", "replace").split())
    if names & {"systemd-journal", "adm", "wheel"}:
        return
    user = user_of(runner)
    raise JournalAccessError(
        f"{user} on {host_of(runner)} may not read the system journal (not root, not in group"
        f" systemd-journal): add it with `sudo usermod -aG systemd-journal {user if user != 'this user' else '$USER'}`"
        " and log in again, or connect as root"
    )


def host_of(runner: Runner) -> str:
    """The host without the user part, for `USER on HOST` messages."""
    return (runner.host or "this machine").rsplit("@", 1)[-1]


def user_of(runner: Runner) -> str:
    host = runner.host or ""
    if "@" in host:
        return host.split("@", 1)[0]
    if runner.host is None:
        import getpass

        try:
            return getpass.getuser()
        except (KeyError, OSError):
            return "this user"
    return "this user"


#: seconds `journalctl --verify` may take over copied files (it reads every object)
VERIFY_TIMEOUT = 900.0
#: KiB of address space `journalctl --verify` gets (ulimit -v): it maps the file it checks in windows and keeps
#: them while it has room, so without a bound its RSS is about twice the file (a 113 MB file: 215 MB); with one,
#: it drops unused windows when a mapping fails and goes on (same answer, RSS under the bound, about the same CPU
#: time for journald's default 128 MB files)
VERIFY_ADDRESS_SPACE = 192 << 10
_BOUNDED = 'ulimit -v {kib} 2>/dev/null; LC_ALL=C exec "$0" "$@"'
_FAIL = Regex(r"^FAIL: (?P<file>.+?) \((?P<why>[^)]*)\)\s*$", re.M)
_AT = Regex(r"^File corruption detected at (?P<file>.+):(?P<offset>[0-9a-fA-F]+) \(of (?P<size>\d+) bytes, (?P<pct>\d+)%\)", re.M)
#: why a check stopped that says nothing of the file (the address-space bound was too small for it)
_NO_MEMORY = "Cannot allocate memory"
UNCHECKED = (f"could not be verified within {VERIFY_ADDRESS_SPACE >> 10} MiB of address space; its records are used"
             " unchecked")


def bounded(argv: Sequence[str], kib: int = VERIFY_ADDRESS_SPACE) -> list[str]:
    """argv run under an address-space bound of `kib` KiB (through sh, so it works over ssh too; where the shell
    cannot set one, argv runs unbounded)."""
    return ["sh", "-c", _BOUNDED.format(kib=kib), *argv]


def damage(verify_output: str) -> list[str]:
    """The damaged files in `journalctl --verify` output (stdout and stderr): `FILE: damaged (Bad message) at byte
    N of M (P%) ...` per FAIL line. (A file journalctl ignores as truncated is among the queries' warnings.)"""
    where = {m.group("file"): m for m in _AT.finditer(verify_output)}
    out = []
    for m in _FAIL.finditer(verify_output):
        if m.group("why") == _NO_MEMORY:  # (journalctl then also says `File corruption detected`: it is not)
            out.append(f"{m.group('file')}: {UNCHECKED}")
            continue
        at_ = where.get(m.group("file"))
        pos = f" at offset 0x{at_.group('offset')} of {at_.group('size')} bytes ({at_.group('pct')}%)" if at_ else ""
        out.append(f"{m.group('file')}: damaged ({m.group('why')}){pos}: records after the damage may be wrong or "
                   "missing; take a fresh copy (journalctl --file F -o export, or copy it with journald stopped)")
    return out


_FILE_PATH = Regex(r"^File path: (?P<file>.+?)\s*$", re.M | re.I)
_STATE = Regex(r"^State: (?P<state>\w+)", re.M)
_HEAD_TAIL = Regex(r"^(?P<end>Head|Tail) realtime timestamp: .*\((?P<usec>[0-9a-fA-F]+)\)\s*$", re.M)


@dataclass(frozen=True)
class JournalFile:
    """One journal file as `journalctl --header` describes it."""

    path: str
    state: str | None = None
    """ONLINE (journald had it open: a copy may be mid-write), OFFLINE, ARCHIVED."""
    head_usec: int | None = None
    tail_usec: int | None = None
    """Its first and last record's time (None when the header does not say)."""

    def read_from(self, since_usec: int | None) -> bool:
        """Whether records at or after `since_usec` may be in this file (None: any record). A file whose header
        cannot be trusted for that (no times, head after tail, still ONLINE when copied) may hold anything."""
        if since_usec is None or self.tail_usec is None or self.head_usec is None:
            return True
        if self.state not in ("OFFLINE", "ARCHIVED") or self.head_usec > self.tail_usec:
            return True
        return self.tail_usec >= since_usec


def journal_files(runner: Runner, journal_args: tuple[str, ...]) -> list[JournalFile]:
    """The journal files journalctl reads for JOURNAL_ARGS (`journalctl --header`: headers only, fast);
    [] when it cannot say."""
    try:
        res = runner.run(["journalctl", *journal_args, "--header"], timeout=60)
    except CrashdocError:
        return []
    if not res.ok:
        return []
    text = res.stdout.decode("utf-8", "replace")
    starts = list(_FILE_PATH.finditer(text))
    out: dict[str, JournalFile] = {}
    for m, nxt in zip(starts, [*starts[1:], None]):
        part = text[m.end():nxt.start() if nxt else len(text)]
        state = _STATE.search(part)
        ends = {e.group("end"): int(e.group("usec"), 16) for e in _HEAD_TAIL.finditer(part)}
        out.setdefault(m.group("file"), JournalFile(m.group("file"), state.group("state") if state else None,
                                                    ends.get("Head"), ends.get("Tail")))
    return list(out.values())


def verify_copies(runner: Runner, journal_args: tuple[str, ...], where: str, since_usec: int | None = None) -> list[str]:
    """`journalctl --file=F --verify` for each file JOURNAL_ARGS name that may hold records at or after
    `since_usec` (the oldest record crashdoc reads; None: every file): one line per damaged copied file, [] when
    every file passes. A copy taken while journald wrote it, cut by a transfer or a full disk, reads without an
    error but can give wrong or missing records.

    NOTE: one call per file, each under an address-space bound (VERIFY_ADDRESS_SPACE): journalctl maps what it
    verifies in windows and keeps them while it has room, so one unbounded call over a directory held the whole
    directory in memory, and one over a file about twice the file (the windows overlap). A host's journal
    directory holds weeks of files; only those the diagnosis reads are verified."""
    files = journal_files(runner, journal_args)
    calls = [(f.path, bounded(["journalctl", f"--file={glob.escape(f.path)}", "--verify"])) for f in files
             if f.read_from(since_usec)]
    if not files:
        calls = [(f"the {where}", bounded(["journalctl", *journal_args, "--verify"]))]
    out = b""
    notes: list[str] = []
    for label, argv in calls:
        try:
            res = runner.run(argv, timeout=VERIFY_TIMEOUT)
        except CrashdocError as exc:
            return [f"could not verify the {where} ({exc}); its records are used unchecked"]
        if not res.ok and unknown_option(res):
            return [f"journalctl cannot verify the {where} (no --verify); its records are used unchecked"]
        said = res.stdout + b"\n" + res.stderr + b"\n"
        if _NO_MEMORY.encode() in said and b"FAIL: " not in said:  # stopped before it checked anything
            notes.append(f"{label}: {UNCHECKED}")
        out += said
    return notes + damage(out.decode("utf-8", "replace"))


def journal_skipped(damaged: Sequence[str], warnings: Sequence[str]) -> tuple[Skipped, ...]:
    """`skipped` entries for damaged copied files (`journal copy`) and journalctl's warnings (`journalctl`)."""
    return (*(Skipped("journal copy", d) for d in damaged), *(Skipped("journalctl", w) for w in warnings))
