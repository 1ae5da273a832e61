"""systemd units, locally and over ssh: the unit's state (`systemctl show`), its failing attempts from the
journal (`journalctl -o json`, by invocation id), the diagnosis; `--freeze` stops a restart loop when asked."""

from crashdoc.systemd.diagnose import DEFAULT_ATTEMPTS, diagnose_unit, print_to_stderr
from crashdoc.systemd.errors import (
    FreezeRefusedError,
    JournalAccessError,
    NoSystemdError,
    SystemdTooOldError,
    UnitNotFoundError,
)
from crashdoc.systemd.unit import (
    ExecCommand,
    UnitState,
    looks_like_unit,
    normalize_unit,
    read_unit_state,
    unit_python,
)

__all__ = [
    "DEFAULT_ATTEMPTS",
    "ExecCommand",
    "FreezeRefusedError",
    "JournalAccessError",
    "NoSystemdError",
    "SystemdTooOldError",
    "UnitNotFoundError",
    "UnitState",
    "diagnose_unit",
    "looks_like_unit",
    "normalize_unit",
    "print_to_stderr",
    "read_unit_state",
    "unit_python",
]
