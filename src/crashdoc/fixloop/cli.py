"""The `fix` subcommand: `register(subparsers)` adds it to crashdoc's argument parser (as watch/cli.py does)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from crashdoc.status import FixStatus

FIX_EPILOG = f"""exit status: {FixStatus.FIXED} fixed (the restarted service reached readiness, the error is gone);
{FixStatus.NOT_FIXED} not fixed (the same error again); {FixStatus.NEW_ERROR} a new error; {FixStatus.TIMED_OUT} not up
within --timeout; {FixStatus.NOT_APPLIED} nothing changed (a manual fix is shown, never run; no fix command; the answer
was no); {FixStatus.APPLY_FAILED} a command of the plan failed; {FixStatus.NOTHING_TO_FIX} nothing to fix (no error,
or the service is running and ready); {FixStatus.UNREADABLE} the unit or host cannot be read, or refused (no terminal
and no --yes, a name with shell syntax); 130 Ctrl-C. Only fixes whose rule says `fix.apply: safe` (a pinned pip
install of a companion package) are run; each command is printed before it runs."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `fix` to crashdoc's subcommands."""
    f = subparsers.add_parser(
        "fix", help="diagnose a unit, apply its safe fix (pip, with the unit's Python), restart it and verify",
        epilog=FIX_EPILOG,
        description="Diagnose UNIT; show the plan (the fix command run with the unit's own interpreter, `systemctl "
                    "restart UNIT`, how it will be verified); ask; apply each command after printing it; watch the "
                    "next start until ready, crash or --timeout; say whether it is fixed.",
    )
    f.add_argument("unit", help="systemd unit (vllm or vllm.service)")
    f.add_argument("--host", metavar="[USER@]HOST[:PORT]", help="the unit runs on this host (ssh)")
    f.add_argument("--yes", "-y", action="store_true", help="apply the plan without asking (needed without a terminal)")
    f.add_argument("--timeout", type=float, default=1800.0, metavar="SECONDS",
                   help="not ready this long after the restart is a failure (default 1800; 0: never)")
    f.add_argument("--health", metavar="URL", help="ready when this URL answers 2xx (polled from this machine)")
    f.add_argument("--find-links", metavar="DIR|URL",
                   help="install the fix only from this wheel folder or URL on the host (pip --no-index --find-links)")
    f.add_argument("--display", choices=("auto", "live", "plain", "none"), default="auto",
                   help="phase display of the watched start on stderr (default auto)")
    f.add_argument("--width", type=int, help="terminal report width")
    f.add_argument("--rules", action="append", metavar="DIR", help="extra rule folder (repeatable; also CRASHDOC_RULES)")
    f.add_argument("--no-history", action="store_true", help="do not record the fix in the incident memory")
    f.set_defaults(func=cmd_fix)


def _ask(prompt: str) -> bool:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    try:
        return input().strip().lower() in ("y", "yes")
    except EOFError:
        return False


def cmd_fix(args: argparse.Namespace) -> int:
    """`crashdoc fix UNIT [--host H] [--yes] [--timeout S] [--health URL]`."""
    from crashdoc.fixloop.record import FixLog
    from crashdoc.fixloop.run import fix_unit
    from crashdoc.kb import KnowledgeBase
    from crashdoc.report.safe import safe
    from crashdoc.transport import check_unit_name, runner_for

    check_unit_name(args.unit)  # before anything touches a host
    health = None
    if args.health:
        from crashdoc.watch.health import check_url, probe

        health = (check_url(args.health), probe(check_url(args.health), 5.0))
    kb = KnowledgeBase.load(extra_dirs=tuple(Path(d) for d in (args.rules or ())))
    interactive = sys.stdin.isatty()

    def note(text: str) -> None:
        print(f"crashdoc: {safe(text, 2000)}", file=sys.stderr, flush=True)

    log = None if args.no_history else FixLog(args.host, args.unit, note)
    return fix_unit(runner_for(args.host), args.unit, kb=kb, yes=args.yes, ask=_ask if interactive else None,
                    out=sys.stdout, timeout=max(args.timeout, 0.0), health=health, find_links=args.find_links,
                    display=args.display, width=args.width, rules=args.rules or (), log=log)
