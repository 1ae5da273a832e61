"""The Python interpreter a unit runs, told from its ExecStart: wrappers (env, sh -c, container tools) and
shebangs followed, looked up on the host through the runner."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from crashdoc.errors import TransportError
from crashdoc.regex import Regex
from crashdoc.transport import Runner

if TYPE_CHECKING:
    from crashdoc.sources.unit import UnitState

#: the interpreter's file name (python, python3, python3.12)
PYTHON = Regex(r"python(?:[23](?:\.[0-9]+)?)?")
_CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl", "ctr", "kubectl", "crictl", "apptainer", "singularity"})
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})


def unit_python(state: UnitState, runner: Runner | None = None) -> str | None:
    """The Python interpreter the unit runs, from its ExecStart.

    `/opt/venv/bin/python -m vllm ...` -> that path; `/opt/venv/bin/vllm serve` -> the interpreter in the
    script's shebang (read over `runner`); `python3` / `env python3` -> resolved with `command -v` on the host
    (with the unit's PATH when it sets one); `bash -c "exec ..."` and wrapper scripts -> their first command.
    A containerised ExecStart (docker, podman ...) gives None: the interpreter is inside the image.
    Without a runner, returns what read_unit_state resolved.
    """
    if runner is None:
        return state.python
    path_env = next((a.partition("=")[2] for a in state.environment if a.startswith("PATH=")), None)
    for cmd in state.exec_start:
        found = _python_of_command([cmd.path, *cmd.argv[1:]], runner, path_env, depth=0)
        if found:
            return found
    return None


def _python_of_command(words: Sequence[str], runner: Runner, path_env: str | None, depth: int) -> str | None:
    """Follow a command line to the Python interpreter it ends up running."""
    words = [w for w in words if w]
    while words and (words[0] == "exec" or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0])):
        words = words[1:]
    if not words or depth > 3:
        return None
    prog, args = words[0], list(words[1:])
    base = prog.rsplit("/", 1)[-1]
    if PYTHON.fullmatch(base):
        return prog if prog.startswith("/") else _command_v(runner, prog, path_env)
    if base in _CONTAINER_TOOLS:
        return None
    if base == "env":
        rest = [a for a in args if not a.startswith("-")]
        while rest and "=" in rest[0]:
            rest = rest[1:]
        return _python_of_command(rest, runner, path_env, depth + 1)
    if base in _SHELLS:
        if "-c" in args and args.index("-c") + 1 < len(args):
            script = " ".join(args[args.index("-c") + 1 :])
            return _python_of_script_text(script, runner, path_env, depth + 1)
        files = [a for a in args if not a.startswith("-")]
        if files:
            text = _head(runner, files[0], 65536)
            return _python_of_script_text(text, runner, path_env, depth + 1) if text else None
        return None
    if not prog.startswith("/"):
        resolved = _command_v(runner, prog, path_env)
        if not resolved:
            return None
        prog = resolved
    return _python_of_shebang(prog, runner, path_env, depth)


def _python_of_shebang(path: str, runner: Runner, path_env: str | None, depth: int) -> str | None:
    """A console script's interpreter: `#!/opt/venv/bin/python3`, `#!/usr/bin/env python3`, pip's sh shim."""
    head = _head(runner, path, 1024)
    if not head or not head.startswith("#!"):
        return None
    first, _, rest = head.partition("\n")
    words = first[2:].split()
    if not words:
        return None
    base = words[0].rsplit("/", 1)[-1]
    if PYTHON.fullmatch(base):
        return words[0]
    if base == "env":
        return _python_of_command(words, runner, path_env, depth + 1)
    if base in _SHELLS:
        # pip writes `#!/bin/sh` + `'''exec' "/very/long/path/bin/python" "$0" "$@"` when the path is too long
        m = re.search(r"'''exec' \"?([^\"\s]+)\"? \"\$0\"", rest)
        if m:
            return m.group(1)
        return _python_of_script_text(rest, runner, path_env, depth + 1)
    return None


def _python_of_script_text(text: str, runner: Runner, path_env: str | None, depth: int) -> str | None:
    """The first command of a shell script (or `sh -c` string) that leads to Python."""
    for raw in re.split(r"\n|&&|;", text):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if not words or words[0] in ("cd", "set", "export", "source", ".", "echo", "if", "then", "fi", "ulimit"):
            continue
        found = _python_of_command(words, runner, path_env, depth)
        if found:
            return found
    return None


def _head(runner: Runner, path: str, size: int) -> str | None:
    """The first `size` bytes of a file on the host, decoded; None when unreadable."""
    try:
        res = runner.run(["head", "-c", str(size), "--", path], timeout=30)
    except TransportError:
        return None
    return res.stdout.decode("utf-8", "replace") if res.ok else None


def _command_v(runner: Runner, name: str, path_env: str | None) -> str | None:
    """`command -v NAME` on the host (with the unit's PATH when it sets one)."""
    if not re.fullmatch(r"[A-Za-z0-9._+-]+", name):
        return None
    argv = ["sh", "-c", 'command -v -- "$1"', "sh", name]
    if path_env:
        argv = ["env", f"PATH={path_env}", *argv]
    try:
        res = runner.run(argv, timeout=30)
    except TransportError:
        return None
    out = res.stdout.decode("utf-8", "replace").strip().splitlines()
    return out[0] if res.ok and out and out[0].startswith("/") else None
