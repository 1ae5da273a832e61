"""Report writes: --output replaced atomically, write errors as one line and exit 2, a closed pipe keeps the
diagnosis' exit status.

The disk-full case is real: a 64 KiB tmpfs filled to the last block. Standard output errors need a process
(its file descriptor 1 is /dev/full, closed, or a pipe nobody reads), so those tests start crashdoc.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from crashdoc.report.writer import ReportWriteError, report_output
from tests.support.cli import ROOT, run_cli

FOUNDING = ROOT / "examples" / "founding-case.log"
OLD = "the previous report\n"


@pytest.fixture
def full_disk() -> Iterator[Path]:
    """A 64 KiB tmpfs holding an old report, every other block taken by a filler file."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    where = Path(tempfile.mkdtemp(prefix="crashdoc-enospc-"))
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], capture_output=True,
                         text=True, check=False)
    if res.returncode != 0:
        where.rmdir()
        pytest.skip(f"mount -t tmpfs is not permitted here: {res.stderr.strip()}")
    try:
        (where / "report.txt").write_text(OLD)
        with open(where / "filler", "wb", buffering=0) as f, contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 4096)
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)
        where.rmdir()


@pytest.mark.parametrize("fmt", ["terminal", "json", "markdown"])
def test_disk_full_on_output_is_one_line_and_the_old_file_stays(full_disk: Path, fmt: str) -> None:
    target = full_disk / "report.txt"
    r = run_cli("diagnose", str(FOUNDING), "--format", fmt, "--output", str(target))
    assert r.status == 2, r.stderr
    assert r.stderr.splitlines() == [
        f"crashdoc: error: cannot write the report to {target}: No space left on device; {target} is unchanged"
    ]
    assert target.read_text() == OLD
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler", "report.txt"]  # no .tmp left behind


def test_output_replaces_the_old_report_whole(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text(OLD)
    target.chmod(0o640)
    r = run_cli("diagnose", str(FOUNDING), "--format", "json", "--output", str(target))
    assert r.status == 0 and r.stdout == ""
    assert '"schema": "crashdoc.diagnosis/1"' in target.read_text()
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_output_through_a_symlink_replaces_the_file_it_names(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text(OLD)
    (tmp_path / "link.md").symlink_to(real)
    assert run_cli("diagnose", str(FOUNDING), "-f", "markdown", "-o", str(tmp_path / "link.md")).status == 0
    assert (tmp_path / "link.md").is_symlink() and real.read_text().startswith("# crashdoc report")


def test_a_failure_while_rendering_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    target.write_text(OLD)
    with pytest.raises(RuntimeError), report_output(str(target)) as out:
        out.write("half a report")
        raise RuntimeError("renderer bug")
    assert target.read_text() == OLD and [p.name for p in tmp_path.iterdir()] == ["report.txt"]


def test_an_unwritable_folder_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ReportWriteError, match=r"cannot write the report to .*/missing/r.txt: No such file"), \
            report_output(str(tmp_path / "missing" / "r.txt")):
        pass


def _crashdoc(*args: str, stdout: int | None, close_stdout: bool = False) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "crashdoc", *args], stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=120,
        preexec_fn=(lambda: os.close(1)) if close_stdout else None, check=False,
    )


def test_stdout_on_a_full_device_exits_2_with_one_line() -> None:
    with open("/dev/full", "wb") as full:
        p = _crashdoc("diagnose", str(FOUNDING), stdout=full.fileno())
    assert p.returncode == 2
    assert p.stderr.decode().splitlines() == [
        "crashdoc: error: cannot write the report to standard output: No space left on device"
    ]


def test_closed_stdout_exits_2_with_one_line() -> None:
    p = _crashdoc("diagnose", str(FOUNDING), "-f", "json", stdout=None, close_stdout=True)
    assert p.returncode == 2
    assert p.stderr.decode().splitlines() == [
        "crashdoc: error: standard output is closed; write the report with --output FILE"
    ]


@pytest.mark.parametrize(("log", "status"), [("error", 0), ("healthy", 3)])
@pytest.mark.parametrize("fmt", ["terminal", "markdown"])
def test_a_reader_gone_keeps_the_diagnosis_status(tmp_path: Path, log: str, status: int, fmt: str) -> None:
    """`crashdoc diagnose LOG | head -1`: the pipe's reader is gone before crashdoc writes (its end is closed
    before crashdoc starts), so every write fails with EPIPE; the status is still what the diagnosis found."""
    path = FOUNDING
    if log == "healthy":
        path = tmp_path / "healthy.log"
        path.write_text("INFO starting\nINFO serving on :8000\n" * 50)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        p = _crashdoc("diagnose", str(path), "--format", fmt, stdout=write_end)
    finally:
        os.close(write_end)
    assert p.returncode == status
    assert p.stderr == b""  # no traceback, no "Exception ignored" at exit
