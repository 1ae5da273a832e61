"""The fix as the service's own interpreter runs it: when the unit's Python is known (ExecStart, the journal's
_CMDLINE), a rule's `pip install NAME==VERSION` is reported as `PYTHON -m pip install NAME==VERSION`, so the
package lands in the environment the service imports from. The same function builds the command that
`crashdoc fix` runs (actions/fix.py `pip_argv`): what the report shows is what would run. On the unit's host,
the pinned versions are checked against the index that pip uses (envdoctor/index.py)."""

from __future__ import annotations

import shlex
from dataclasses import replace

from crashdoc.actions.fix import pip_argv
from crashdoc.envdoctor.index import Checked, check_pins
from crashdoc.errors import UnsafeArgumentError
from crashdoc.model import Diagnosis, Finding
from crashdoc.transport import Runner


def interpreter_command(command: str | None, python: str | None) -> str | None:
    """`pip install X==V` as `PYTHON -m pip install X==V`; any other command (or no python) unchanged."""
    if not command or not python or not command.lstrip().startswith(("pip ", "pip3 ")):
        return command
    try:
        return shlex.join(pip_argv(command, python))
    except UnsafeArgumentError:  # not a plain pinned install (options, a pipe): shown as the rule gives it
        return command


def unit_edit(command: str | None, unit: str) -> str | None:
    """Where a fix that is no command of its own goes in a systemd unit: an engine flag on the ExecStart= line,
    an exported variable as an Environment= line; None for other commands."""
    if not command:
        return None
    reload = f"then `systemctl daemon-reload && systemctl restart {unit}`"
    if command.startswith("--"):
        return (f"In the unit, add `{command}` to the ExecStart= line of {unit} (`systemctl edit --full {unit}`), "
                f"{reload}.")
    words = command.split()
    if words[0] == "export" and len(words) > 1:
        lines = " ".join(f"Environment={w}" for w in words[1:])
        return (f"In the unit, set it as `{lines}` under [Service] (`systemctl edit {unit}`): an export in a shell "
                f"does not reach the service; {reload}.")
    return None


def _finding(f: Finding | None, python: str | None, checked: dict[str, Checked | None], runner: Runner | None,
             unit: str | None) -> Finding | None:
    if f is None:
        return None
    command = interpreter_command(f.fix.command, python)
    text = f.fix.text
    if runner is not None and python and command and command != f.fix.command:  # a pinned install: do they exist?
        if command not in checked:
            checked[command] = check_pins(runner, python, command)
        found = checked[command]
        if found is not None:
            command, text = found.command, f"{text} {found.note}" if text else found.note
    edit = unit_edit(command, unit) if unit else None
    if edit:
        text = f"{text} {edit}" if text else edit
    if command == f.fix.command and text == f.fix.text:
        return f
    return replace(f, fix=replace(f.fix, command=command, text=text))


def with_interpreter(diag: Diagnosis, python: str | None, runner: Runner | None = None,
                     unit: str | None = None) -> Diagnosis:
    """The diagnosis with its fix commands for the unit's interpreter (unchanged when it is not known); with the
    host's *runner*, each pinned version is checked against the index that interpreter's pip uses
    (envdoctor/index.py: the alternative command when a companion's version does not exist); with the *unit*,
    a flag or variable fix says which line of the unit to edit."""
    if not python and not unit:
        return diag
    checked: dict[str, Checked | None] = {}
    root = _finding(diag.root_cause, python, checked, runner, unit)
    findings = tuple(f for f in (_finding(f, python, checked, runner, unit) for f in diag.findings) if f is not None)
    return replace(diag, root_cause=root, findings=findings)
