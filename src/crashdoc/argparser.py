"""argparse's parser and help formatters at the terminal's width, found without importing shutil.

argparse makes a help formatter for every argument it adds (to check the argument), and its formatter asks
`shutil.get_terminal_size()` for the width: importing shutil (and the compression modules shutil imports) is
about 3 ms of every start, help or not. The width here is found as shutil finds it: `COLUMNS`, else the size of
the terminal on standard output, else 80 columns."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def columns() -> int:
    """The terminal's width in columns (`COLUMNS`, else standard output's terminal, else 80)."""
    try:
        n = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        n = 0
    if n <= 0:
        try:
            n = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            n = 0
    return n if n > 0 else 80


class _Width:
    """Fills in argparse's width the way its own formatter would, without shutil."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, columns() - 2 if width is None else width)  # type: ignore[call-arg]


class Formatter(_Width, argparse.HelpFormatter):
    """argparse.HelpFormatter."""


class RawFormatter(_Width, argparse.RawDescriptionHelpFormatter):
    """argparse.RawDescriptionHelpFormatter (epilogs keep their line breaks)."""


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser with `Formatter` by default; its subcommands' parsers are Parsers too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)
