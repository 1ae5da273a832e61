"""What a unit watch needs before and around the follower: the unit's live state (and the right to read its journal),
journalctl's file arguments, and the fields of one journal record."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from crashdoc.parse.systemd import MSG_STARTED, MSG_STARTING
from crashdoc.sources.errors import FollowError
from crashdoc.sources.fields import as_text
from crashdoc.sources.journal_access import check_access
from crashdoc.sources.unit import UnitState, normalize_unit, read_unit_state
from crashdoc.transport import Runner


def normalize(unit: str) -> str:
    return str(normalize_unit(unit))


def unit_state(runner: Runner, unit: str) -> UnitState:
    """The unit's live state, raising its one-line errors (unknown unit, no systemd, no journal access)."""
    state = read_unit_state(runner, unit, resolve_python=False)
    check_access(runner)
    return state


def journal_args_for(runner: Runner, files: Sequence[str], directory: str | None, root: str | None) -> tuple[str, ...]:
    """--file/--directory/--root for journalctl; paths made absolute (`journalctl -f` needs a folder part)."""
    def fix(p: str) -> str:
        if runner.host is None:
            return os.path.abspath(p)
        return p if p.startswith(("/", "~")) else f"./{p}"

    out: list[str] = []
    for f in files:
        out.append(f"--file={fix(f)}")
    if directory:
        out.append(f"--directory={fix(directory)}")
    if root:
        out.append(f"--root={fix(root)}")
    return tuple(out)


def is_manager(rec: dict[str, Any], unit: str) -> bool:
    return rec.get("UNIT") == unit and str(rec.get("_PID", "1")) == "1"


def record_usec(rec: dict[str, Any]) -> float:
    try:
        return float(rec.get("__REALTIME_TIMESTAMP") or 0)
    except (TypeError, ValueError):
        return 0.0


def text_of(value: Any) -> str:
    return as_text(value) or ""


def start_args(runner: Runner, unit: str, journal_args: Sequence[str], target: str, lines: int) -> list[str]:
    """`--cursor=` of the unit's latest start record (Starting, else Started), or `--lines=N`."""
    argv = ["journalctl", *journal_args, "--no-pager", "-o", "json", "--reverse", "--lines=4",
            f"UNIT={unit}", f"MESSAGE_ID={MSG_STARTING}", "+", f"UNIT={unit}", f"MESSAGE_ID={MSG_STARTED}"]
    res = runner.run(argv, timeout=60)
    if not res.ok:
        raise FollowError(f"journalctl cannot read the journal of {target}: "
                          f"{res.stderr_line() or f'exit status {res.returncode}'}")
    recs = []
    for ln in res.stdout.splitlines():
        try:
            recs.append(json.loads(ln))
        except ValueError:
            continue
    recs = [r for r in recs if isinstance(r, dict)]
    if not recs:
        return [f"--lines={lines}"]
    chosen = recs[0]
    older = recs[1] if len(recs) > 1 else None
    if (chosen.get("MESSAGE_ID") == MSG_STARTED and older is not None and older.get("MESSAGE_ID") == MSG_STARTING
            and record_usec(chosen) - record_usec(older) < 600e6):
        chosen = older
    return [f"--cursor={chosen['__CURSOR']}"] if chosen.get("__CURSOR") else [f"--lines={lines}"]
