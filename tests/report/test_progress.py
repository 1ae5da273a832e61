"""The reading progress bar: only on a terminal, never for JSON, never for small inputs."""

from __future__ import annotations

import io
from pathlib import Path

from crashdoc.report.progress import MIN_BYTES, ReadProgress, progress_for


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _big(tmp_path: Path) -> Path:
    p = tmp_path / "big.log"
    with open(p, "wb") as f:
        f.truncate(MIN_BYTES + 1)  # sparse: the size is what counts
    return p


def test_a_bar_on_a_terminal_for_a_big_file(tmp_path: Path) -> None:
    tty = _Tty()
    bar = progress_for(str(_big(tmp_path)), "terminal", tty)
    assert isinstance(bar, ReadProgress)
    with bar:
        bar.advance(MIN_BYTES // 2)


def test_no_bar_for_json_pipes_stdin_or_small_files(tmp_path: Path) -> None:
    big = str(_big(tmp_path))
    small = tmp_path / "small.log"
    small.write_text("x\n")
    assert progress_for(big, "json", _Tty()) is None
    assert progress_for(big, "terminal", io.StringIO()) is None  # stderr is not a terminal
    assert progress_for("-", "terminal", _Tty()) is None
    assert progress_for(str(small), "markdown", _Tty()) is None
