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
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from crashdoc import __version__
from crashdoc.argparser import Parser, RawFormatter
from crashdoc.errors import CrashdocError, InputError
from crashdoc.model import Diagnosis
from crashdoc.status import ExitStatus

if TYPE_CHECKING:
    from crashdoc.kb import KnowledgeBase
    from crashdoc.report.writer import Outcome

FORMATS = ("terminal", "json", "markdown")

EPILOG = """exit status: 0 root cause found; 3 no error in the evidence; 2 input or host unreadable;
6 recovered (a unit or container: the last failure is followed by a healthy attempt still running);
1 crashdoc failed (a bug: run again with --traceback and report it); 130 interrupted.
a fleet: 0 some host has a root cause; 3 hosts diagnosed, none shows an error; 2 no host could be diagnosed.
eval: 0 at or above the floors, 4 below a floor or a decoy ranked first."""

EXAMPLES = {
    "diagnose": "crashdoc diagnose vllm.service --host root@gpu7 --format markdown -o report.md",
    "eval": "crashdoc eval ../shared/corpus/dev --min-hit 0.9   # exit 4 below 90%",
    "env": "crashdoc env --python /opt/venv/bin/python",
    "schema": "crashdoc schema > diagnosis-1.json",
    "history": "crashdoc history vllm --host gpu7",
    "rules": "crashdoc rules validate",
    "watch": "crashdoc watch vllm --host gpu7 --health http://gpu7:8000/health",
    "run": "crashdoc run --report r.json -- vllm serve Qwen/Qwen3-8B",
    "fix": "crashdoc fix vllm.service --host gpu7",
    "completion": 'eval "$(crashdoc completion bash)"   # in ~/.bashrc (zsh: the same); fish: crashdoc completion fish | source',
}
"""One example per command, shown first in its --help epilog."""


def _add_examples(top: argparse.ArgumentParser, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Put each command's example at the top of its epilog, and all of them in the top-level one (epilogs keep
    their own line breaks)."""
    listed = "".join(f"\n  {EXAMPLES[n]}" for n in sub.choices if n in EXAMPLES)
    top.epilog = f"examples (crashdoc COMMAND --help for more):{listed}\n\n{top.epilog or ''}".rstrip()
    top.formatter_class = RawFormatter
    for name, parser in sub.choices.items():
        if name in EXAMPLES:
            parser.epilog = f"example:\n  {EXAMPLES[name]}\n\n{parser.epilog or ''}".rstrip()
            parser.formatter_class = RawFormatter


def _stderr(msg: str) -> None:
    from crashdoc.report.safe import safe

    print(f"crashdoc: {safe(msg, 2000)}", file=sys.stderr, flush=True)


def _fatal(msg: str, status: int) -> NoReturn:
    _stderr(f"error: {msg}")
    raise SystemExit(status)


def _load_kb(args: argparse.Namespace) -> KnowledgeBase:
    from crashdoc.kb import KnowledgeBase

    return KnowledgeBase.load(extra_dirs=tuple(Path(d) for d in (getattr(args, "rules", None) or ())))


def _open_output(args: argparse.Namespace, outcome: Outcome | None = None) -> AbstractContextManager[TextIO]:
    """Standard output, or --output FILE replaced atomically when the block ends (report/writer.py)."""
    from crashdoc.report.writer import report_output

    return report_output(getattr(args, "output", None), outcome)


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
    if len(args.host or ()) > 1 or args.hosts or args.inventory or args.limit or args.ssh_hosts:
        return _diagnose_fleet(args, target, kb, journal_args)
    args.host = args.host[0] if args.host else None
    container = None
    if not os.path.exists(target):  # NOTE: a file needs none of the container sources (a start-up cost)
        from crashdoc.sources.container import container_target

        container = container_target(target)
    if container is not None:
        from crashdoc.investigate.container import diagnose_container
        from crashdoc.transport import runner_for

        diag = diagnose_container(runner_for(args.host), container[0], container[1], kb=kb, freeze=args.freeze,
                                  since=args.since, announce=_stderr, health=_health_answer(args))
    elif (special := _k8s_or_ray(args, target, kb)) is not None:
        diag = special
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
    recordable = container is not None or (diag.unit is not None and not journal_args)
    if recordable and not getattr(args, "no_history", False):
        diag = _remember(diag, args, f"{container[0]}:{container[1]}" if container else None)
    return _emit(diag, args)


def _remember(diag: Diagnosis, args: argparse.Namespace, unit: str | None) -> Diagnosis:
    """Record the diagnosis of a host's unit or container in the incident memory (crashdoc.history) and say
    what it knew before. Plain files and copied journals are not recorded: they are not incidents of a host.
    A memory that cannot be used is a `skipped` entry, never an error."""
    from crashdoc.history import HistoryError, Memory, host_name
    from crashdoc.model import Skipped
    from crashdoc.report.redact import Redactor

    unit = unit or (diag.unit.unit if diag.unit is not None else None)
    try:
        with Memory() as memory:
            history = memory.record_diagnosis(diag, host=host_name(args.host), unit=unit, scrub=Redactor().text)
            notes = tuple(memory.notes)
    except HistoryError as exc:
        return dataclasses.replace(diag, skipped=(*diag.skipped, Skipped("history", str(exc))))
    return dataclasses.replace(diag, history=history, skipped=(*diag.skipped, *(Skipped("history", n) for n in notes)))


def cmd_history(args: argparse.Namespace) -> int:
    """`crashdoc history [UNIT] [--host H]`: the incidents the memory holds, newest first."""
    from crashdoc.history import HistoryError, Memory, default_path, host_name
    from crashdoc.history.listing import lines, to_json
    from crashdoc.report.safe import safe

    path = default_path()
    if not path.exists():
        incidents = []
    else:
        try:
            with Memory(path) as memory:
                incidents = memory.incidents(args.unit, host_name(args.host) if args.host else None, args.limit)
                for note in memory.notes:
                    _stderr(note)
        except HistoryError as exc:
            _stderr(f"history: {exc}")
            incidents = []
    if args.format == "json":
        print(json.dumps(to_json(incidents, str(path)), indent=2))
    else:
        for line in lines(incidents, str(path)):
            print(safe(line, 400))
    return ExitStatus.ROOT_CAUSE


def _emit(diag: Diagnosis, args: argparse.Namespace) -> int:
    """Write the report where --output says, in --format; the exit status says whether a cause was found."""
    from crashdoc.report import render
    from crashdoc.report.writer import Outcome

    with _open_output(args, Outcome()) as out:  # a reader gone (`| head -1`) keeps the diagnosis' status
        render(diag, args.format, out, args.width, redact=not getattr(args, "no_redact", False),
               redact_hosts=getattr(args, "redact_hosts", False))
    if diag.state is not None and diag.state.recovered:
        return ExitStatus.RECOVERED
    return ExitStatus.ROOT_CAUSE if diag.root_cause is not None else ExitStatus.NO_ERROR


def _health_answer(args: argparse.Namespace) -> tuple[bool, str] | None:
    """One answer of --health URL (from this machine): (up, `HTTP 200` / `connection refused` ...)."""
    if not getattr(args, "health", None):
        return None
    from crashdoc.watch.health import check_url, probe

    return probe(check_url(args.health), 5.0)


def _k8s_or_ray(args: argparse.Namespace, target: str, kb: KnowledgeBase) -> Diagnosis | None:
    """`k8s:pod/NAME`, `k8s:deploy/NAME`, `k8s:sts/NAME` (kubectl through --host) or `ray:DIR`; None otherwise."""
    if os.path.exists(target):
        return None
    from crashdoc.sources.kubernetes import k8s_target
    from crashdoc.sources.ray import ray_target

    k8s = k8s_target(target)
    if k8s is not None:
        from crashdoc.investigate.workload import diagnose_k8s
        from crashdoc.transport import runner_for

        return diagnose_k8s(runner_for(args.host), k8s, namespace=args.namespace, context=args.context, kb=kb)
    if (args.namespace or args.context) and target != "-":
        raise InputError("--namespace/--context go with a Kubernetes target: k8s:pod/NAME, k8s:deploy/NAME")
    ray_dir = ray_target(target)
    if ray_dir is None:
        return None
    if args.host:
        raise InputError("ray:DIR reads a session folder on this machine; copy it here (or run crashdoc on the head node)")
    from crashdoc.investigate.ray import diagnose_ray

    return diagnose_ray(ray_dir, kb=kb)


def _diagnose_fleet(args: argparse.Namespace, target: str, kb: KnowledgeBase, journal_args: tuple[str, ...]) -> int:
    """Several hosts (--host repeated, --hosts, --inventory/--limit, --ssh-hosts): the same diagnosis on each,
    at most --forks at a time, grouped by root cause (crashdoc.fleet/1)."""
    from crashdoc.fleet import DiagnoseJob, collect_targets, diagnose_fleet, exit_status
    from crashdoc.report.fleet import render_fleet

    if target == "-" or os.path.exists(target):
        raise InputError("a fleet diagnoses a unit or a container on each host: name it (crashdoc diagnose vllm --hosts FILE)")
    if getattr(args, "redact_hosts", False):
        raise InputError("--redact-hosts is not supported for a fleet yet (its report names every host): "
                         "diagnose one host at a time to share a report")
    targets = collect_targets(args.host or (), args.hosts, args.inventory, args.limit, args.ssh_hosts)
    if not targets:
        raise InputError(f"{args.hosts}: names no host")
    job = DiagnoseJob(target, kb, since=args.since, attempts=args.attempts, freeze=args.freeze,
                      journal_args=journal_args, python=args.python, env=args.env)
    result = diagnose_fleet(targets, job, what=job.what, forks=args.forks, timeout=args.host_timeout, announce=_stderr)
    from crashdoc.report.writer import Outcome

    with _open_output(args, Outcome()) as out:
        render_fleet(result, args.format, out, args.width, redact=not args.no_redact)
    return exit_status(result)


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
                         journal_args=journal_args, announce=_stderr, kb=kb, health=_health_answer(args))


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
        from crashdoc.evaluate.validate import validate

        errors = validate(dirs or None)
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


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (also used by the README check and the completion scripts). With *command* (one of
    COMMANDS), only that subcommand's arguments are added: what `main` parses, building the others' costs a start
    ~10 ms (argparse makes a help formatter per argument)."""
    p: argparse.ArgumentParser = Parser(  # (its subcommands' parsers are Parsers: typed as argparse's)
        prog="crashdoc",
        description="Root cause, evidence and fix for a crashed LLM inference service.",
        epilog=EPILOG,
    )
    p.add_argument("--version", action="version", version=f"crashdoc {__version__}")
    p.add_argument("--traceback", action="store_true", help="show Python tracebacks of crashdoc's own errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, add in COMMANDS.items():
        if command in (None, name):
            add(sub)
    if command not in COMMANDS:
        for hook in EXTRA_COMMANDS:
            hook(sub)
    _add_examples(p, sub)
    return p


Subparsers = argparse._SubParsersAction  # argparse's type of `add_subparsers()`


def _add_diagnose(sub: Subparsers[argparse.ArgumentParser]) -> None:
    d = sub.add_parser("diagnose", help="diagnose a log file, standard input, or a systemd unit", epilog=EPILOG)
    d.add_argument("target", nargs="?", help="log file (plain or .gz), '-' for standard input, a systemd unit, or "
                   "a container: docker:NAME, podman:NAME; a Kubernetes pod or workload: k8s:pod/NAME, "
                   "k8s:deploy/NAME, k8s:sts/NAME; a Ray session's logs: ray:DIR (ray: is /tmp/ray/session_latest/logs)")
    d.add_argument("--format", "-f", choices=FORMATS, default="terminal")
    d.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")
    d.add_argument("--width", type=int, help="terminal report width")
    d.add_argument("--no-redact", action="store_true",
                   help="keep tokens, keys and passwords in the report (by default they are replaced by placeholders)")
    d.add_argument("--redact-hosts", action="store_true",
                   help="also replace host names and IP addresses by stable pseudonyms (host-1, ip-1)")
    d.add_argument("--rules", action="append", metavar="DIR", help="extra rule folder (repeatable; also CRASHDOC_RULES)")
    d.add_argument("--host", action="append", metavar="[USER@]HOST[:PORT]",
                   help="read the unit on this host over ssh (repeat it for a fleet: one report grouped by root cause)")
    d.add_argument("--hosts", metavar="FILE", help="a fleet: one [user@]host[:port] per line ('#' comments)")
    d.add_argument("--inventory", "-i", metavar="FILE", help="a fleet: the hosts of an Ansible inventory (INI or YAML)")
    d.add_argument("--limit", "-l", metavar="PATTERN", help="with --inventory: an Ansible pattern (gpu, gpu:&prod, "
                   "gpu:!node-05, node-0*, ~regex)")
    d.add_argument("--ssh-hosts", metavar="PATTERN", help="a fleet: the Host aliases of your ssh config matching "
                   "PATTERN (gpu-*)")
    d.add_argument("--forks", type=int, default=10, metavar="N", help="a fleet: hosts diagnosed at once (default 10)")
    d.add_argument("--host-timeout", type=float, default=300.0, metavar="SECONDS",
                   help="a fleet: time one host may take before it is reported as an error (default 300)")
    d.add_argument("--namespace", "-n", metavar="NS", help="a Kubernetes target: the namespace (default: the context's)")
    d.add_argument("--context", metavar="CTX", help="a Kubernetes target: the kubeconfig context kubectl uses")
    d.add_argument("--since", help="journal window start for a unit (journalctl --since syntax)")
    d.add_argument("--attempts", type=int, metavar="N", help="how many recent failed attempts of a unit to read")
    d.add_argument("--freeze", action="store_true", help="stop the unit's restart loop (systemctl stop), after saying so")
    d.add_argument("--file", action="append", metavar="JOURNAL", help="read a journal file copied off a host")
    d.add_argument("--directory", metavar="DIR", help="read journal files from DIR")
    d.add_argument("--journal-root", metavar="DIR", help="read the journal of an OS tree at DIR")
    d.add_argument("--python", metavar="PATH", help="also check this Python environment (confirms the root cause)")
    d.add_argument("--env", action="store_true",
                   help="for a unit: also check the environment of the Python its ExecStart runs (read-only)")
    d.add_argument("--health", metavar="URL", help="a unit or container: ask this health endpoint once (from this "
                   "machine) whether the service is up; without it the engine's own ready line tells")
    d.add_argument("--no-history", action="store_true",
                   help="do not record this diagnosis in the incident memory nor look it up (crashdoc history)")
    d.set_defaults(func=cmd_diagnose)


def _add_eval(sub: Subparsers[argparse.ArgumentParser]) -> None:
    e = sub.add_parser("eval", help="score crashdoc on a corpus folder (cases/<id>.log + <id>.json)",
                       epilog="exit status: 0 at or above the floors; 4 below --min-hit or --min-category, or a decoy "
                              "ranked first; 2 the folder cannot be read.")
    e.add_argument("dir")
    e.add_argument("--format", "-f", choices=("terminal", "json"), default="terminal")
    e.add_argument("--rules", action="append", metavar="DIR")
    e.add_argument("--min-hit", type=float, default=0.0, help="exit 4 below this root-cause hit rate (0 to 1)")
    e.add_argument("--min-category", type=float, default=0.0, help="exit 4 below this category hit rate (0 to 1)")
    e.set_defaults(func=cmd_eval)


def _add_env(sub: Subparsers[argparse.ArgumentParser]) -> None:
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
    v.add_argument("--redact-hosts", action="store_true", help="replace host names and IP addresses by pseudonyms")
    v.set_defaults(func=cmd_env)


def _add_schema(sub: Subparsers[argparse.ArgumentParser]) -> None:
    sc = sub.add_parser("schema", help="print the JSON Schema of `diagnose --format json` (crashdoc.diagnosis/1)")
    sc.set_defaults(func=cmd_schema)


def _add_history(sub: Subparsers[argparse.ArgumentParser]) -> None:
    hi = sub.add_parser("history", help="the incidents the memory holds (diagnoses of units and containers, fixes)")
    hi.add_argument("unit", nargs="?", help="only this unit or container (vllm matches vllm.service)")
    hi.add_argument("--host", metavar="HOST", help="only incidents of this host")
    hi.add_argument("--limit", type=int, default=50, help="at most this many incidents (newest first)")
    hi.add_argument("--format", "-f", choices=("terminal", "json"), default="terminal")
    hi.set_defaults(func=cmd_history)


def _add_rules(sub: Subparsers[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("rules", help="list, validate or test the knowledge base rules")
    r.add_argument("rules_cmd", choices=("list", "validate", "test", "coverage"),
                   help="coverage: the engines' message inventory through the rules, per project")
    r.add_argument("--format", "-f", choices=("terminal", "json"), default="terminal")
    r.add_argument("--rules", action="append", metavar="DIR")
    r.add_argument("--project", metavar="P", help="coverage: only this project of the inventory")
    r.set_defaults(func=cmd_rules)


def _add_completion(sub: Subparsers[argparse.ArgumentParser]) -> None:
    co = sub.add_parser("completion", help="print a shell completion script (bash, zsh, fish)")
    co.add_argument("shell", choices=("bash", "zsh", "fish"))
    co.set_defaults(func=cmd_completion)


COMMANDS: dict[str, Callable[[Subparsers[argparse.ArgumentParser]], None]] = {
    "diagnose": _add_diagnose, "eval": _add_eval, "env": _add_env, "schema": _add_schema, "history": _add_history,
    "rules": _add_rules, "completion": _add_completion}
"""This module's subcommands, in the order `--help` lists them (then EXTRA_COMMANDS')."""


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand *argv* runs when it is one of COMMANDS and no top-level option asks for the whole parser
    (`--help`, `--version`, an unknown one); else None."""
    rest = [a for a in argv if a != "--traceback"]
    return rest[0] if rest and rest[0] in COMMANDS else None


def cmd_completion(args: argparse.Namespace) -> int:
    """`crashdoc completion SHELL`: the completion script, made from this parser."""
    from crashdoc.completion import script

    sys.stdout.write(script(args.shell, build_parser()))
    return ExitStatus.ROOT_CAUSE


def _register_watch(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from crashdoc.watch.cli import register

    register(sub)


def _register_fix(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from crashdoc.fixloop.cli import register

    register(sub)


EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    _register_watch, _register_fix]
"""Subcommands registered by other stages (`watch`, `run`, `fix`)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    parser = build_parser(_command(sys.argv[1:] if argv is None else argv))
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
    except BrokenPipeError:  # a reader gone while a listing printed (reports keep their status: _emit)
        from crashdoc.report.writer import silence_stdout

        silence_stdout()
        return ExitStatus.ROOT_CAUSE
    except Exception as exc:
        if args.traceback:
            raise
        _stderr(f"internal error: {type(exc).__name__}: {exc} (run again with --traceback and report it)")
        return ExitStatus.INTERNAL
