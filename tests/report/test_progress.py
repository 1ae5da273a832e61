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


def test_the_bar_reaches_a_real_terminal_and_only_that(tmp_path: Path) -> None:
    """`crashdoc diagnose BIG` with stderr on a pseudo-terminal draws the bar there; with --format json, or with
    stderr a pipe, nothing is drawn."""
    import os
    import pty
    import subprocess
    import sys

    log = tmp_path / "big.log"
    line = b"(APIServer pid=1) INFO 11-24 06:00:08 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s\n"
    with open(log, "wb") as f:
        f.write(line * (MIN_BYTES // len(line) + 1000))

    def run(fmt: str, tty: bool) -> bytes:
        argv = [sys.executable, "-m", "crashdoc", "diagnose", str(log), "--format", fmt]
        if not tty:
            return subprocess.run(argv, capture_output=True, timeout=600).stderr
        main, sub = pty.openpty()
        try:
            proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=sub, stdin=subprocess.DEVNULL)
            os.close(sub)
            out = b""
            while True:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                out += chunk
            proc.wait(timeout=600)
            return out
        finally:
            os.close(main)

    assert b"reading" in run("markdown", tty=True)
    assert b"reading" not in run("json", tty=True)
    assert b"reading" not in run("markdown", tty=False)
