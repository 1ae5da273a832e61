"""The registry of environment checks: one module per check, default and opt-in sets.

Adding a check: a module here with `CHECK = EnvCheck(name, title, run, needs, default)`, one line in `_ALL`, and
tests in tests/envdoctor/test_<name>.py.
"""

from __future__ import annotations

from crashdoc.envdoctor.checks import (
    companions,
    debris,
    gpu,
    host,
    imports,
    integrity,
    patches,
    recent,
    requirements,
)
from crashdoc.envdoctor.interface import EnvCheck

_ALL = (companions, requirements, integrity, patches, recent, debris, host, gpu, imports)

CHECKS: dict[str, EnvCheck] = {m.CHECK.name: m.CHECK for m in _ALL}
"""Every check by name, in the order they run."""
DEFAULT_CHECKS: tuple[str, ...] = tuple(n for n, c in CHECKS.items() if c.default)
"""What runs when no check is named."""
OPTIONAL_CHECKS: tuple[str, ...] = tuple(n for n, c in CHECKS.items() if not c.default)
"""What runs only when named (`--check imports`)."""


def list_checks() -> tuple[EnvCheck, ...]:
    """Every check, default ones first, for `crashdoc env --list-checks`."""
    return tuple(CHECKS[n] for n in (*DEFAULT_CHECKS, *OPTIONAL_CHECKS))
