"""`python -m tests.watch.cli_entry ARGS`: crashdoc's CLI with `watch` and `run` registered (whether or not
crashdoc/cli.py already lists crashdoc.watch.cli.register in EXTRA_COMMANDS)."""

from __future__ import annotations

import argparse
import sys


def ensure_registered() -> None:
    """Add the watch/run hook to crashdoc.cli.EXTRA_COMMANDS unless the parser already has `watch`."""
    from crashdoc import cli
    from crashdoc.watch.cli import register

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if "watch" not in sub.choices:
        cli.EXTRA_COMMANDS.append(register)


if __name__ == "__main__":
    ensure_registered()
    from crashdoc.cli import main

    sys.exit(main(sys.argv[1:]))
