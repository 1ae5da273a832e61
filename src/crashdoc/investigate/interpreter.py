"""The fix as the service's own interpreter runs it: when the unit's Python is known (ExecStart, the journal's
_CMDLINE), a rule's `pip install NAME==VERSION` is reported as `PYTHON -m pip install NAME==VERSION`, so the
package lands in the environment the service imports from. The same function builds the command that
`crashdoc fix` runs (actions/fix.py `pip_argv`): what the report shows is what would run."""

from __future__ import annotations

import shlex
from dataclasses import replace

from crashdoc.actions.fix import pip_argv
from crashdoc.errors import UnsafeArgumentError
from crashdoc.model import Diagnosis, Finding


def interpreter_command(command: str | None, python: str | None) -> str | None:
    """`pip install X==V` as `PYTHON -m pip install X==V`; any other command (or no python) unchanged."""
    if not command or not python or not command.lstrip().startswith(("pip ", "pip3 ")):
        return command
    try:
        return shlex.join(pip_argv(command, python))
    except UnsafeArgumentError:  # not a plain pinned install (options, a pipe): shown as the rule gives it
        return command


def _finding(f: Finding | None, python: str) -> Finding | None:
    if f is None:
        return None
    command = interpreter_command(f.fix.command, python)
    return f if command == f.fix.command else replace(f, fix=replace(f.fix, command=command))


def with_interpreter(diag: Diagnosis, python: str | None) -> Diagnosis:
    """The diagnosis with its fix commands for the unit's interpreter (unchanged when it is not known)."""
    if not python:
        return diag
    findings = tuple(f for f in (_finding(f, python) for f in diag.findings) if f is not None)
    return replace(diag, root_cause=_finding(diag.root_cause, python), findings=findings)
