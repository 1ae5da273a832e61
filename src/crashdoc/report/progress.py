"""A progress bar on stderr while a large log is read (bytes, MB/s, time left): only on a terminal, never for
`--format json`, never for small inputs, and gone when the report is printed."""

from __future__ import annotations

import os
import sys
from types import TracebackType
from typing import TextIO

#: inputs smaller than this are read before a bar would be useful
MIN_BYTES = 50 << 20


class ReadProgress:
    """`with ReadProgress(total) as bar: ... bar.advance(n)`: the bar on stderr, removed at the end."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        # NOTE: rich is imported only when a bar is shown: a start for a small input or JSON output needs none
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self._progress = Progress(
            TextColumn("[dim]reading {task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
            TimeRemainingColumn(), console=Console(file=stream or sys.stderr, markup=True), transient=True,
        )
        self._task = self._progress.add_task(label.replace("[", "\\["), total=total)

    def advance(self, n: int) -> None:
        """n more bytes were read."""
        self._progress.advance(self._task, n)

    def __enter__(self) -> ReadProgress:
        self._progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._progress.stop()


def progress_for(path: str, fmt: str, stream: TextIO | None = None) -> ReadProgress | None:
    """A bar for reading `path` when one helps: stderr is a terminal, the format is not JSON, the file is big."""
    err = stream or sys.stderr
    if fmt == "json" or path == "-" or not getattr(err, "isatty", lambda: False)():
        return None
    try:
        size = os.path.getsize(path)
    except OSError:
        return None
    if size < MIN_BYTES:
        return None
    return ReadProgress(size, os.path.basename(path), err)
