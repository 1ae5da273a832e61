"""The `watch` and `run` subcommands: `register(subparsers)` adds them to crashdoc's argument parser."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from crashdoc.status import WatchStatus
from crashdoc.watch.errors import WatchUsageError

FORMATS = ("terminal", "json", "markdown")
#: --display: live (rich, on a terminal), plain (a line per change), none; auto picks live on a terminal
MODES = ("auto", "live", "plain", "none")

WATCH_EPILOG = f"""exit status: {WatchStatus.HEALTHY} up (health endpoint answered 2xx, or without --health the server
printed its ready line); {WatchStatus.CRASHED} crashed (diagnosis printed); {WatchStatus.STOPPED} ended without an
error before it was up; {WatchStatus.TIMED_OUT} not up within --timeout (diagnosis of what was logged so far);
{WatchStatus.UNREADABLE} the journal, file or host cannot be read or followed; 130 Ctrl-C."""

RUN_EPILOG = """exit status: the command's own (128+N when signal N ended it; 127 command not found, 126 not
executable, as a shell says); 2 when crashdoc's own arguments are wrong. The command's stdout and stderr go to
crashdoc's stdout unchanged (one pipe, like 2>&1); the phases and the diagnosis go to stderr."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `watch` and `run` to crashdoc's subcommands."""
    w = subparsers.add_parser(
        "watch", help="follow a service's start (unit journal or log file) and diagnose it the moment it fails",
        epilog=WATCH_EPILOG,
        description="Follow a start: the unit's journal (journalctl -f, over ssh with --host) or a growing log file "
                    "(--file without a unit). Shows the phase, and prints the diagnosis within 2 s of the crash.",
    )
    w.add_argument("unit", nargs="?", help="systemd unit (vllm or vllm.service); leave out to follow a log --file")
    w.add_argument("--host", metavar="[USER@]HOST[:PORT]", help="the unit runs on this host (ssh)")
    w.add_argument("--file", action="append", metavar="PATH",
                   help="with UNIT: a journal file to follow; without: the service's log file")
    w.add_argument("--directory", metavar="DIR", help="with UNIT: follow the journal files in DIR")
    w.add_argument("--journal-root", metavar="DIR", help="with UNIT: follow the journal of an OS tree at DIR")
    w.add_argument("--pid", type=int, metavar="PID", help="with a log --file: the server's process; its exit ends the attempt")
    _common(w)
    w.add_argument("--timeout", type=float, default=1800.0, metavar="SECONDS",
                   help="not up after this long (from when the watch or the attempt began) is a failure (default 1800; 0: never)")
    w.add_argument("--keep-watching", action="store_true", help="once up, keep watching until it crashes")
    w.add_argument("--down-after", type=float, default=30.0, metavar="SECONDS",
                   help="with --keep-watching and --health: down this long after being up is a crash (default 30)")
    w.add_argument("--freeze-on-crash", action="store_true",
                   help="on a crash, stop the unit (systemctl stop) so its restart loop stops; the only change made to the host")
    w.add_argument("--format", "-f", choices=FORMATS, default="terminal", help="the diagnosis on stdout (default terminal)")
    w.add_argument("--echo", action="store_true", help="also show the service's log lines")
    w.add_argument("--lines", type=int, default=2000, metavar="N",
                   help="journal records to read back when the journal holds no start record of the unit (default 2000)")
    w.set_defaults(func=cmd_watch)

    r = subparsers.add_parser(
        "run", help="run a server command, pass its output through, and diagnose it when it exits with an error",
        epilog=RUN_EPILOG, usage="%(prog)s [options] -- COMMAND [ARG ...]",
        description="Run COMMAND (e.g. vllm serve MODEL): its output goes to stdout unchanged, the start phases to "
                    "stderr; when it exits with an error the diagnosis is printed on stderr. Ctrl-C is passed to it.",
    )
    r.add_argument("--log", metavar="FILE", help="also write the command's output to FILE")
    _common(r)
    r.add_argument("command", nargs=argparse.REMAINDER, help="the command and its arguments, after --")
    r.set_defaults(func=cmd_run)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--health", metavar="URL", help="poll this URL (from this machine); 2xx means up, anything else 'not up yet'")
    p.add_argument("--health-interval", type=float, default=1.0, metavar="SECONDS", help="seconds between health checks (default 1)")
    p.add_argument("--report", metavar="FILE", help="also write the JSON report (the `diagnose --format json` contract) to FILE")
    p.add_argument("--display", choices=MODES, default="auto",
                   help="phase display on stderr: live (terminal), plain (a line per change), none; auto picks")
    p.add_argument("--width", type=int, help="terminal report width")
    p.add_argument("--rules", action="append", metavar="DIR", help="extra rule folder (repeatable; also CRASHDOC_RULES)")


def cmd_run(args: argparse.Namespace) -> int:
    """`crashdoc run -- COMMAND ...`."""
    from crashdoc.watch.run import CommandRun

    return CommandRun(
        args.command, log=args.log, report=args.report, display=args.display, health=_health(args),
        rules=args.rules or (), width=args.width, health_interval=args.health_interval,
    ).run()


def cmd_watch(args: argparse.Namespace) -> int:
    """`crashdoc watch UNIT | --file PATH`."""
    from crashdoc.watch.session import Session, writable

    files = args.file or []
    if args.report:
        writable(args.report, "--report")
    common: dict[str, Any] = {
        "timeout": max(args.timeout, 0.0), "keep_watching": args.keep_watching, "down_after": args.down_after,
        "fmt": args.format, "width": args.width, "report": args.report, "out": sys.stdout, "echo": args.echo,
    }
    if args.unit is None:
        if len(files) != 1 or args.directory or args.journal_root:
            raise WatchUsageError("name what to watch: crashdoc watch UNIT [--host HOST], or crashdoc watch --file LOG")
        if files[0].endswith((".journal", ".journal~")):
            raise WatchUsageError(f"{files[0]} is a journal file: name the unit too (crashdoc watch UNIT --file {files[0]})")
        if args.host or args.freeze_on_crash:
            raise WatchUsageError("--host and --freeze-on-crash watch a unit: crashdoc watch UNIT --host HOST")
        from crashdoc.watch.watcher import FileWatch

        session = Session(f"log file {files[0]}", display=args.display, health_url=_health(args),
                          rules=args.rules or (), health_interval=args.health_interval)
        try:
            return FileWatch(session, files[0], pid=args.pid, **common).run()
        finally:
            session.close()
    if args.pid:
        raise WatchUsageError("--pid goes with a log --file; a unit's process is known to systemd")
    from crashdoc.transport import runner_for
    from crashdoc.watch.unitfacts import journal_args_for
    from crashdoc.watch.unitwatch import UnitWatch

    runner = runner_for(args.host)
    journal_args = journal_args_for(runner, files, args.directory, args.journal_root)
    session = Session(f"unit {args.unit}", display=args.display, health_url=_health(args), rules=args.rules or (),
                      health_interval=args.health_interval)
    try:
        watch = UnitWatch(session, runner, args.unit, journal_args=journal_args, freeze=args.freeze_on_crash,
                          lines=args.lines, **common)
        session.display.title = watch.target
        return watch.run()
    finally:
        session.close()


def _health(args: argparse.Namespace) -> str | None:
    if not args.health:
        return None
    from crashdoc.watch.health import check_url

    return check_url(args.health)
