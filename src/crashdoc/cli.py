"""The `crashdoc` command: argument parsing, wiring of the stages, exit statuses.

This is the only module that catches CrashdocError: it prints one line and exits with the error's status.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from crashdoc import __version__
from crashdoc.errors import CrashdocError, InputError
from crashdoc.model import Diagnosis
from crashdoc.status import ExitStatus

if TYPE_CHECKING:
    from crashdoc.kb import KnowledgeBase

FORMATS = ("terminal", "json", "markdown")

EPILOG = """exit status: 0 root cause found; 3 no error in the evidence; 2 input or host unreadable;
1 crashdoc failed (a bug: run again with --traceback and report it); 130 interrupted.
eval: 0 at or above the floors, 4 below a floor or a decoy ranked first."""


def _stderr(msg: str) -> None:
    from crashdoc.report.safe import safe

    print(f"crashdoc: {safe(msg, 2000)}", file=sys.stderr, flush=True)


def _fatal(msg: str, status: int) -> NoReturn:
    _stderr(f"error: {msg}")
    raise SystemExit(status)


def _load_kb(args: argparse.Namespace) -> KnowledgeBase:
    from crashdoc.kb import KnowledgeBase

    return KnowledgeBase.load(extra_dirs=tuple(Path(d) for d in (getattr(args, "rules", None) or ())))


def _open_output(args: argparse.Namespace) -> TextIO:
    if getattr(args, "output", None):
        try:
            return open(args.output, "w", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    return sys.stdout


def _looks_like_unit(target: str) -> bool:
    if target == "-" or os.path.exists(target):
        return False
    from crashdoc.sources.unit import looks_like_unit

    return bool(looks_like_unit(target))


def cmd_diagnose(args: argparse.Namespace) -> int:
    """`crashdoc diagnose [PATH|-|UNIT]`."""
    target = args.target
    if target is None:
        if args.file or args.directory or args.journal_root:
            _fatal("name the unit whose journal to read: crashdoc diagnose UNIT --file PATH", ExitStatus.UNREADABLE)
        target = "-"
    kb = _load_kb(args)
    journal_args = _journal_args(args)
    from crashdoc.sources.container import container_target

    container = container_target(target) if not os.path.exists(target) else None
    if container is not None:
        from crashdoc.investigate.container import diagnose_container
        from crashdoc.transport import runner_for

        diag = diagnose_container(runner_for(args.host), container[0], container[1], kb=kb, freeze=args.freeze,
                                  since=args.since, announce=_stderr)
    elif args.host or journal_args or _looks_like_unit(target):
        diag = _diagnose_unit(args, target, kb, journal_args)
    else:
        if not os.path.exists(target) and target != "-":
            raise InputError(f"{target}: no such file (and it does not look like a systemd unit name)")
        from crashdoc.investigate import run
        from crashdoc.report.progress import progress_for
        from crashdoc.sources.file import FileSource

        bar = progress_for(target, args.format)
        if bar is None:
            diag = run(FileSource(target), kb=kb)
        else:
            with bar:
                diag = run(FileSource(target, on_read=bar.advance), kb=kb)
    if args.env and not args.python:
        args.python = diag.unit.python if diag.unit is not None else None
        if not args.python:
            raise InputError("--env: cannot tell which Python the unit runs (ExecStart); pass --python PATH")
    if args.python:
        diag = _with_environment(args, diag)
    return _emit(diag, args)


def _emit(diag: Diagnosis, args: argparse.Namespace) -> int:
    """Write the report where --output says, in --format; the exit status says whether a cause was found."""
    out = _open_output(args)
    try:
        from crashdoc.report import render

        render(diag, args.format, out, args.width, redact=not getattr(args, "no_redact", False))
    finally:
        if out is not sys.stdout:
            out.close()
    return ExitStatus.ROOT_CAUSE if diag.root_cause is not None else ExitStatus.NO_ERROR


def _journal_args(args: argparse.Namespace) -> tuple[str, ...]:
    out: list[str] = []
    for f in args.file or ():
        out += ["--file", f]
    if args.directory:
        out += ["--directory", args.directory]
    if args.journal_root:
        out += ["--root", args.journal_root]
    return tuple(out)


def _diagnose_unit(args: argparse.Namespace, unit: str, kb: KnowledgeBase, journal_args: tuple[str, ...]) -> Diagnosis:
    from crashdoc.investigate.unit import diagnose_unit
    from crashdoc.transport import check_unit_name, runner_for

    check_unit_name(unit)
    runner = runner_for(args.host)
    return diagnose_unit(runner, unit, since=args.since, attempts=args.attempts, freeze=args.freeze,
                         journal_args=journal_args, announce=_stderr, kb=kb)


def _with_environment(args: argparse.Namespace, diag: Diagnosis) -> Diagnosis:
    from crashdoc.envdoctor import apply_to_diagnosis, check_environment, since_from_diagnosis
    from crashdoc.transport import runner_for

    workdir = diag.unit.working_directory if diag.unit is not None else None
    report = check_environment(runner_for(args.host), args.python, since=since_from_diagnosis(diag), workdir=workdir)
    return apply_to_diagnosis(diag, report)


def _checks(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def cmd_env(args: argparse.Namespace) -> int:
    """`crashdoc env`: the environment doctor alone."""
    from crashdoc.envdoctor import check_environment, environment_diagnosis, list_checks
    from crashdoc.transport import check_unit_name, runner_for

    if args.list_checks:
        for c in list_checks():
            print(f"{c.name:<14} {'default' if c.default else 'opt-in ':<8} {c.title}")
        return ExitStatus.ROOT_CAUSE
    runner = runner_for(args.host)
    python, workdir = args.python, args.workdir
    if args.unit:
        from crashdoc.sources.unit import read_unit_state

        state = read_unit_state(runner, check_unit_name(args.unit))
        python = python or state.python
        workdir = workdir or state.working_directory
        if not python:
            raise InputError(f"cannot tell which Python {args.unit} runs (ExecStart); pass --python PATH")
    since = None
    if args.since:
        from datetime import datetime

        try:
            since = datetime.fromisoformat(args.since)
        except ValueError as exc:
            raise InputError(f"--since {args.since!r}: expected an ISO time like 2026-11-30T09:12:00") from exc
    report = check_environment(runner, python, checks=_checks(args.check), verify=args.verify, since=since,
                               workdir=workdir, port=args.port)
    where = f" on {args.host}" if args.host else ""
    diag = environment_diagnosis(report, f"environment of {python or 'python3'}{where}")
    return _emit(diag, args)


def cmd_eval(args: argparse.Namespace) -> int:
    """`crashdoc eval DIR`."""
    from crashdoc.evaluate import evaluate_dir

    report = evaluate_dir(Path(args.dir), kb=_load_kb(args))
    totals = report.totals()
    if args.format == "json":
        print(json.dumps({"totals": totals, "cases": [dataclasses.asdict(c) for c in report.cases]}, indent=2))
    else:
        from crashdoc.report.safe import safe

        for c in report.cases:
            mark = "ok  " if c.hit and c.category_ok else ("MISS" if not c.hit else "CAT ")
            fix = "" if c.fix_ok is None else (" fix ok" if c.fix_ok else f" fix MISS (got {c.got_fix!r})")
            decoy = " DECOY FIRST" if c.decoy_first else ""
            cat = "" if c.category_ok else f" category {c.got_category} != {c.expected_category}"
            line = "" if c.hit else f"  got: {safe(c.got_line, 110)!r}"
            print(f"{mark} {c.id}{cat}{fix}{decoy}{line}")
        t = totals
        print(
            f"root-cause hit {t['root_cause_hit']}/{t['cases']} = {t['root_cause_rate']:.0%}; "
            f"category {t['category_hit']}/{t['cases']} = {t['category_rate']:.0%}; "
            f"decoy first {t['decoy_first']}; fix {t['fix_hit']}/{t['fix_cases']}; {t['seconds']} s"
        )
    ok = totals["decoy_first"] == 0 and totals["root_cause_rate"] >= args.min_hit and totals["category_rate"] >= args.min_category
    return ExitStatus.ROOT_CAUSE if ok else ExitStatus.BELOW_FLOOR


def cmd_schema(args: argparse.Namespace) -> int:
    """`crashdoc schema`: the JSON Schema of the report's contract."""
    from crashdoc.report.json import schema_text

    sys.stdout.write(schema_text())
    return ExitStatus.ROOT_CAUSE


def cmd_rules(args: argparse.Namespace) -> int:
    """`crashdoc rules list|validate|test`."""
    from crashdoc.kb import commands

    dirs = [Path(d) for d in (args.rules or ())]
    if args.rules_cmd == "validate":
        errors = commands.validate(dirs or None)
        for e in errors:
            _stderr(e)
        if not errors:
            print(f"all rules valid ({len(_load_kb(args).rules)} rules)")
        return 1 if errors else 0
    kb = _load_kb(args)
    if args.rules_cmd == "coverage":
        from crashdoc.evaluate.coverage import coverage, render_text, to_json

        try:
            cov = coverage(kb, project=args.project)
        except ValueError as exc:
            raise InputError(str(exc)) from exc
        print(json.dumps(to_json(cov), indent=2) if args.format == "json" else render_text(cov))
        return ExitStatus.ROOT_CAUSE
    if args.rules_cmd == "list":
        rules = commands.list_rules(kb)
        if args.format == "json":
            print(json.dumps(rules, indent=2, default=str))
        else:
            for r in rules:
                print(f"{r['id']:<48} {r['category']:<28} {r['role']:<12} {r.get('priority', '')}")
            print(f"{len(rules)} rules")
        return 0
    from crashdoc.evaluate.examples import test_rules

    rep = test_rules(kb)
    for f in rep.failed:
        print(f"FAIL {f}")
    for t in rep.todo:
        print(f"todo {t}")
    print(f"{rep.passed} examples passed, {len(rep.failed)} failed, {len(rep.todo)} known gaps")
    return 1 if rep.failed else 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also used by the README check)."""
    p = argparse.ArgumentParser(
        prog="crashdoc",
        description="Root cause, evidence and fix for a crashed LLM inference service.",
        epilog=EPILOG,
    )
    p.add_argument("--version", action="version", version=f"crashdoc {__version__}")
    p.add_argument("--traceback", action="store_true", help="show Python tracebacks of crashdoc's own errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    d = sub.add_parser("diagnose", help="diagnose a log file, standard input, or a systemd unit", epilog=EPILOG)
    d.add_argument("target", nargs="?", help="log file (plain or .gz), '-' for standard input, a systemd unit, or "
                   "a container: docker:NAME, podman:NAME")
    d.add_argument("--format", "-f", choices=FORMATS, default="terminal")
    d.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")
    d.add_argument("--width", type=int, help="terminal report width")
    d.add_argument("--no-redact", action="store_true",
                   help="keep tokens, keys and passwords in the report (by default they are replaced by placeholders)")
    d.add_argument("--rules", action="append", metavar="DIR", help="extra rule folder (repeatable; also CRASHDOC_RULES)")
    d.add_argument("--host", metavar="[USER@]HOST[:PORT]", help="read the unit on this host over ssh")
    d.add_argument("--since", help="journal window start for a unit (journalctl --since syntax)")
    d.add_argument("--attempts", type=int, metavar="N", help="how many recent failed attempts of a unit to read")
    d.add_argument("--freeze", action="store_true", help="stop the unit's restart loop (systemctl stop), after saying so")
    d.add_argument("--file", action="append", metavar="JOURNAL", help="read a journal file copied off a host")
    d.add_argument("--directory", metavar="DIR", help="read journal files from DIR")
    d.add_argument("--journal-root", metavar="DIR", help="read the journal of an OS tree at DIR")
    d.add_argument("--python", metavar="PATH", help="also check this Python environment (confirms the root cause)")
    d.add_argument("--env", action="store_true",
                   help="for a unit: also check the environment of the Python its ExecStart runs (read-only)")
    d.set_defaults(func=cmd_diagnose)

    e = sub.add_parser("eval", help="score crashdoc on a corpus folder (cases/<id>.log + <id>.json)")
    e.add_argument("dir")
    e.add_argument("--format", "-f", choices=("terminal", "json"), default="terminal")
    e.add_argument("--rules", action="append", metavar="DIR")
    e.add_argument("--min-hit", type=float, default=0.0, help="exit 1 below this root-cause hit rate")
    e.add_argument("--min-category", type=float, default=0.0, help="exit 1 below this category hit rate")
    e.set_defaults(func=cmd_eval)

    v = sub.add_parser("env", help="check the Python environment and host the service runs in", epilog=EPILOG)
    v.add_argument("--python", metavar="PATH", help="the interpreter the service runs (default: python3 on the host)")
    v.add_argument("--unit", metavar="UNIT", help="take the interpreter and working directory from this systemd unit")
    v.add_argument("--host", metavar="[USER@]HOST[:PORT]", help="check this host over ssh")
    v.add_argument("--check", action="append", metavar="NAME[,NAME]", help="run only these checks (or 'all')")
    v.add_argument("--list-checks", action="store_true", help="list the checks and exit")
    v.add_argument("--verify", default="serving", metavar="serving|all|none|PKG,...",
                   help="which packages' installed files to check against their RECORD hashes")
    v.add_argument("--since", metavar="ISO-TIME", help="set recent installs against this time (the first failure)")
    v.add_argument("--workdir", metavar="DIR", help="the service's working directory (debris, free disk)")
    v.add_argument("--port", type=int, help="the serving port (is something else listening on it?)")
    v.add_argument("--format", "-f", choices=FORMATS, default="terminal")
    v.add_argument("--output", "-o", metavar="FILE")
    v.add_argument("--width", type=int)
    v.add_argument("--no-redact", action="store_true", help="keep secrets in the report")
    v.set_defaults(func=cmd_env)

    sc = sub.add_parser("schema", help="print the JSON Schema of `diagnose --format json` (crashdoc.diagnosis/1)")
    sc.set_defaults(func=cmd_schema)

    r = sub.add_parser("rules", help="list, validate or test the knowledge base rules")
    r.add_argument("rules_cmd", choices=("list", "validate", "test", "coverage"),
                   help="coverage: the engines' message inventory through the rules, per project")
    r.add_argument("--format", "-f", choices=("terminal", "json"), default="terminal")
    r.add_argument("--rules", action="append", metavar="DIR")
    r.add_argument("--project", metavar="P", help="coverage: only this project of the inventory")
    r.set_defaults(func=cmd_rules)
    for hook in EXTRA_COMMANDS:
        hook(sub)
    return p


def _register_watch(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from crashdoc.watch.cli import register

    register(sub)


EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [_register_watch]
"""Subcommands registered by other stages (`watch`, `run`)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return ExitStatus.UNREADABLE
    try:
        return int(args.func(args))
    except CrashdocError as exc:
        if args.traceback:
            raise
        _stderr(f"error: {exc}")
        return exc.exit_status
    except KeyboardInterrupt:
        _stderr("interrupted")
        return ExitStatus.INTERRUPTED
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return ExitStatus.ROOT_CAUSE
    except Exception as exc:
        if args.traceback:
            raise
        _stderr(f"internal error: {type(exc).__name__}: {exc} (run again with --traceback and report it)")
        return ExitStatus.INTERNAL
