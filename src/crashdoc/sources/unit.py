"""A unit's state from `systemctl show`, its one-line summary, and the Python interpreter it runs."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from crashdoc.errors import TransportError
from crashdoc.model import UnitFacts
from crashdoc.sources.errors import NoSystemdError, UnitNotFoundError
from crashdoc.sources.interpreter import unit_python
from crashdoc.sources.unit_show import (
    CLD,
    ExecCommand,
    describe_exit,
    mask_env_line,
    parse_environment,
    parse_exec,
    parse_show,
    to_int,
    to_str,
)
from crashdoc.transport import Runner, check_unit_name

#: properties read with `systemctl show`; the order is the order of the section data
PROPERTIES = (
    "Id", "Description", "LoadState", "LoadError", "ActiveState", "SubState", "Result", "UnitFileState",
    "ExecMainStatus", "ExecMainCode", "ExecMainPID", "MainPID", "NRestarts", "InvocationID",
    "ExecMainStartTimestamp", "ExecMainExitTimestamp", "ActiveEnterTimestamp", "InactiveEnterTimestamp",
    "StateChangeTimestamp", "FragmentPath", "DropInPaths", "ExecStart", "Environment", "EnvironmentFiles",
    "User", "Group", "WorkingDirectory", "Restart", "RestartUSec", "StartLimitBurst", "StartLimitIntervalUSec",
)

#: unit types systemd knows; a name without one of these suffixes is a service
UNIT_SUFFIXES = (
    ".service", ".socket", ".target", ".device", ".mount", ".automount", ".swap", ".timer", ".path",
    ".slice", ".scope",
)


@dataclass(frozen=True)
class UnitState:
    """What systemd says about a unit, or what its journal says when only a copy of the journal is at hand."""

    unit: str
    """Full unit name (`vllm.service`)."""
    host: str | None
    """Host as given to --host; None for this machine."""
    source: str = "systemctl"
    """`systemctl` (live) or `journal` (reconstructed from systemd's records in a copied journal)."""
    load_state: str | None = None
    active_state: str | None = None
    sub_state: str | None = None
    result: str | None = None
    """systemd's Result= (`exit-code`, `signal`, `core-dump`, `oom-kill`, `start-limit-hit` ...)."""
    exit_code: str | None = None
    """How the main process ended: `exited`, `killed` or `dumped` (ExecMainCode)."""
    exit_status: int | None = None
    """Exit status, or the signal number when killed/dumped (ExecMainStatus)."""
    n_restarts: int | None = None
    """Automatic restarts since the last manual start (NRestarts)."""
    invocation_id: str | None = None
    """The current (or last) invocation."""
    main_start: str | None = None
    """ExecMainStartTimestamp, as systemctl prints it."""
    fragment_path: str | None = None
    exec_start: tuple[ExecCommand, ...] = ()
    environment: tuple[str, ...] = ()
    """Environment= assignments, secrets masked."""
    environment_files: tuple[str, ...] = ()
    user: str | None = None
    working_directory: str | None = None
    restart: str | None = None
    """Restart= policy (`no`, `on-failure`, `always` ...)."""
    systemd_version: int | None = None
    """systemd's version on the host, when known."""
    python: str | None = None
    """The Python interpreter the unit runs (see unit_python), when it could be told."""
    properties: Mapping[str, str] = field(default_factory=dict)
    """Every property read, as printed (Environment secrets masked)."""

    @property
    def looping(self) -> bool:
        """True when systemd will start the unit again by itself (auto-restart, or running again after restarts)."""
        if self.sub_state == "auto-restart":
            return True
        return (
            self.active_state in ("activating", "active", "reloading")
            and (self.n_restarts or 0) > 0
            and (self.restart or "no") != "no"
        )

    def last_exit(self) -> str | None:
        """`exit status 1`, `signal 9/KILL`, `signal 11/SEGV (core dumped)`, or None when unknown."""
        return describe_exit(self.exit_code, self.exit_status)

    def summary(self) -> str:
        """What the unit is doing, in one line: `auto-restart loop, 14 restarts, last exit status 1`."""
        n = self.n_restarts or 0
        restarts = f"{n} restart{'s' if n != 1 else ''}"
        last = self.last_exit()
        tail = f", last {last}" if last else ""
        if self.source == "journal":
            return self._journal_summary(restarts, tail)
        if self.load_state == "masked":
            return f"masked (systemctl unmask {self.unit} to use it again){tail}"
        if self.sub_state == "auto-restart":
            return f"auto-restart loop, {restarts}{tail}"
        if self.active_state == "failed":
            if self.result == "start-limit-hit":
                return f"failed: systemd gave up after {restarts} (start limit hit){tail}"
            return f"failed ({self.result or 'unknown result'}){', after ' + restarts if n else ''}{tail}"
        if self.looping:
            return f"restart loop, {restarts}{tail}; attempt {n + 1} is {self.sub_state or 'running'} now"
        if self.active_state in ("active", "activating", "reloading"):
            return f"{self.active_state} ({self.sub_state}){tail}"
        if self.active_state == "inactive":
            after = f", after {restarts}" if n else ""
            return f"stopped (inactive){after}{tail}"
        return f"{self.active_state or 'unknown'} ({self.sub_state or '?'}){tail}"

    def _journal_summary(self, restarts: str, tail: str) -> str:
        if self.result == "start-limit-hit":
            return f"failed: systemd gave up after {restarts} (start limit hit){tail} (from the journal)"
        if self.sub_state == "auto-restart":
            return f"auto-restart loop when the journal ends, {restarts}{tail}"
        if self.active_state == "failed":
            return f"failed ({self.result or 'unknown result'}) when the journal ends, {restarts}{tail}"
        if self.active_state:
            return f"{self.active_state} when the journal ends, {restarts}{tail}"
        return f"state unknown (no systemd records about the unit in the journal){tail}"

    def facts(self) -> UnitFacts:
        """The typed facts the rest of the pipeline reads."""
        return UnitFacts(self.unit, self.host, self.active_state, self.sub_state, self.n_restarts, self.looping,
                         self.python, self.working_directory, self.summary())

    def data(self) -> dict[str, object]:
        """The facts for the JSON report."""
        return {
            "unit": self.unit,
            "host": self.host,
            "state_source": self.source,
            "summary": self.summary(),
            "looping": self.looping,
            "load_state": self.load_state,
            "active_state": self.active_state,
            "sub_state": self.sub_state,
            "result": self.result,
            "exit_code": self.exit_code,
            "exit_status": self.exit_status,
            "n_restarts": self.n_restarts,
            "invocation_id": self.invocation_id,
            "main_start": self.main_start,
            "fragment_path": self.fragment_path,
            "exec_start": [{"path": c.path, "argv": list(c.argv)} for c in self.exec_start],
            "environment": list(self.environment),
            "environment_files": list(self.environment_files),
            "user": self.user,
            "working_directory": self.working_directory,
            "restart": self.restart,
            "systemd_version": self.systemd_version,
            "python": self.python,
            "properties": dict(self.properties),
        }


def normalize_unit(name: str) -> str:
    """`vllm` -> `vllm.service`; names with a unit suffix are kept; shell syntax is refused."""
    check_unit_name(name)
    return name if name.endswith(UNIT_SUFFIXES) else f"{name}.service"


def looks_like_unit(arg: str) -> bool:
    """True for a name ending in `.service`, or a bare word (no `/`) that is not an existing file."""
    if not arg or arg == "-" or arg.startswith("-"):
        return False
    if arg.endswith(".service"):
        return "/" not in arg
    if "/" in arg or os.path.exists(arg):
        return False
    if re.search(r"\.(log|txt|json|jsonl|gz|xz|zst|bz2|out|err)$", arg, re.IGNORECASE):
        return False  # a log file that is missing, not a unit: let the file branch say so
    try:
        check_unit_name(arg)
    except Exception:
        return False
    return True


def systemd_version(runner: Runner, tool: str = "systemctl") -> int | None:
    """The host's systemd version from `systemctl --version` (or `journalctl --version`), None if unknown."""
    try:
        res = runner.run([tool, "--version"], timeout=30)
    except TransportError:
        return None
    m = re.match(r"systemd (\d+)", res.stdout.decode("utf-8", "replace"))
    return int(m.group(1)) if m else None


def _where(runner: Runner) -> str:
    return runner.host or "this machine"


def read_unit_state(runner: Runner, unit: str, *, resolve_python: bool = True) -> UnitState:
    """Read the unit's state with `systemctl show` over `runner`; raises UnitNotFoundError / NoSystemdError."""
    unit = normalize_unit(unit)
    version = systemd_version(runner)
    argv = ["systemctl", "show", unit, "--no-pager", f"--property={','.join(PROPERTIES)}"]
    try:
        res = runner.run(argv, timeout=60)
    except TransportError as exc:
        if "command not found" in str(exc):
            raise NoSystemdError(
                f"{_where(runner)} has no systemctl: diagnose a copied journal (--file/--directory) or a log file"
            ) from exc
        raise
    err = res.stderr_line()
    if res.returncode == 127 or "not found" in err and "systemctl" in err:
        raise NoSystemdError(
            f"{_where(runner)} has no systemctl ({err}): diagnose a copied journal (--file/--directory) or a log file"
        )
    if not res.ok:
        if "not been booted with systemd" in err or "Failed to connect to bus" in err or "Failed to get D-Bus" in err:
            raise NoSystemdError(
                f"{_where(runner)} does not run systemd as PID 1 ({err}): diagnose a copied journal"
                " (--file/--directory) or the service's log file instead"
            )
        raise NoSystemdError(f"systemctl show {unit} failed on {_where(runner)}: {err or f'exit status {res.returncode}'}")
    props = parse_show(res.stdout.decode("utf-8", "replace"))
    load = to_str(props.get("LoadState"))
    if load == "not-found":
        raise UnitNotFoundError(_not_found_message(runner, unit))
    env = parse_environment(" ".join(props.get("Environment", [])))
    shown = {k: mask_env_line(k, " | ".join(v)) for k, v in props.items()}
    state = UnitState(
        unit=unit,
        host=runner.host,
        source="systemctl",
        load_state=load,
        active_state=to_str(props.get("ActiveState")),
        sub_state=to_str(props.get("SubState")),
        result=to_str(props.get("Result")),
        exit_code=CLD.get(to_str(props.get("ExecMainCode")) or "0"),
        exit_status=to_int(props.get("ExecMainStatus")),
        n_restarts=to_int(props.get("NRestarts")),
        invocation_id=to_str(props.get("InvocationID")),
        main_start=to_str(props.get("ExecMainStartTimestamp")),
        fragment_path=to_str(props.get("FragmentPath")),
        exec_start=parse_exec(props.get("ExecStart", [])),
        environment=env,
        environment_files=tuple(w for v in props.get("EnvironmentFiles", []) for w in v.split() if w.startswith("/")),
        user=to_str(props.get("User")),
        working_directory=to_str(props.get("WorkingDirectory")),
        restart=to_str(props.get("Restart")),
        systemd_version=version,
        properties=shown,
    )
    if state.exit_code is None and state.exit_status == 0 and not state.main_start:
        state = _replace(state, exit_status=None)
    if resolve_python:
        state = _replace(state, python=unit_python(state, runner))
    return state


def _replace(state: UnitState, **changes: object) -> UnitState:
    from dataclasses import replace

    return replace(state, **changes)  # type: ignore[arg-type]


def _not_found_message(runner: Runner, unit: str) -> str:
    """`unit x.service is not known on HOST` + close names systemd does know, as the next step."""
    hint = "list them with: systemctl list-units --all --type=service"
    try:
        res = runner.run(
            ["systemctl", "list-unit-files", "--type=service", "--no-legend", "--no-pager", "--plain"], timeout=30
        )
        names = [ln.split()[0] for ln in res.stdout.decode("utf-8", "replace").splitlines() if ln.split()]
        res2 = runner.run(
            ["systemctl", "list-units", "--all", "--type=service", "--no-legend", "--no-pager", "--plain"], timeout=30
        )
        names += [ln.split()[0] for ln in res2.stdout.decode("utf-8", "replace").splitlines() if ln.split()]
        close = difflib.get_close_matches(unit, sorted(set(names)), n=3, cutoff=0.8)
        if close:
            hint = "did you mean " + " or ".join(close) + "?"
    except TransportError:
        pass
    return f"unit {unit} is not known to systemd on {_where(runner)}: {hint}"


# --- the Python interpreter the unit runs ---------------------------------------------------------------


