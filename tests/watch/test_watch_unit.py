"""`crashdoc watch UNIT --file JOURNAL`: a unit's journal written while the test runs (systemd-journal-remote
appends the stand-in server's lines and systemd's records to a .journal file; crashdoc runs `journalctl -f` on it),
locally and over ssh; and the one-line errors of a unit watch.

The errors run crashdoc in-process (tests/support/cli.py); the watches that follow an attempt as it runs, or get
a Ctrl-C, run it as a real process, and say so."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.net import free_port
from tests.support.vllm_standin import command as standin
from tests.watch.helpers import crashdoc, crashdoc_process, start_crashdoc, stop
from tests.watch.live_journal import LiveJournal, available

FLASHINFER = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"

pytestmark = pytest.mark.skipif(not available(), reason="systemd-journal-remote is not installed "
                                "(apt-get install systemd-journal-remote)")


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[LiveJournal]:
    j = LiveJournal(tmp_path / "fake.journal")
    deadline = time.time() + 10
    while not j.path.exists() and time.time() < deadline:
        time.sleep(0.02)
    yield j
    j.close()


def _attempt(j: LiveJournal, argv: list[str], seen: threading.Event | None = None, when: str = "") -> threading.Thread:
    def on_line(line: bytes) -> None:
        if seen is not None and when.encode() in line:
            seen.set()

    t = threading.Thread(target=j.run_attempt, args=(argv,), kwargs={"restart_counter": 1, "on_line": on_line}, daemon=True)
    t.start()
    return t


def test_unit_crash_in_a_journal_written_while_watching(journal: LiveJournal, port: int, tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    # a real process: it follows the journal while the live attempt is written to it
    live = start_crashdoc("watch", "fake-llm", "--file", str(journal.path), "--report", str(report), "--width", "110")
    try:
        live.err.wait_for("watching fake-llm.service")
        live.err.wait_for("has no records yet; waiting for them")  # read the (empty) journal: the attempt comes live
        t = _attempt(journal, standin("--port", str(port), "--step", "0.1"))
        rc = live.wait(60)
        t.join(30)
    finally:
        stop(live.proc)
    err, out = live.err.text(), live.out.text()
    assert rc == 4, err
    for phase in ("importing modules", "loading weights 50% (2/4)", "capturing CUDA graphs"):
        assert phase in err
    assert "crashed: its main process exited with status 1" in err
    assert "Root cause" in out and FLASHINFER in out and "Worker_TP2" in out
    data = json.loads(report.read_text())
    assert FLASHINFER in data["root_cause"]["message"]
    assert data["watch"]["main_process"] == {"code": "exited", "status": "1"}


def test_watch_begun_mid_start_reads_the_attempt_from_its_start(journal: LiveJournal, port: int) -> None:
    """An earlier crashed attempt is ignored; the watch joins the running attempt at its start record."""
    journal.run_attempt([sys.executable, "-c", "print('RuntimeError: CUDA error: out of memory'); raise SystemExit(1)"],
                        restart_counter=1)
    seen = threading.Event()
    t = _attempt(journal, standin("--port", str(port), "--step", "0.3"), seen, "Memory profiling takes")
    assert seen.wait(30)
    # a real process: it joins the live attempt mid-start and follows it to its end
    res = crashdoc_process("watch", "fake-llm.service", "--file", str(journal.path), "--format", "json", timeout=60)
    t.join(30)
    assert res.status == 4, res.stderr
    data = json.loads(res.stdout)
    assert FLASHINFER in data["root_cause"]["message"]  # not the earlier attempt's out-of-memory
    # read whole from the attempt's start record (journalctl -f shows only 10 records from a cursor unless told)
    assert [p["id"] for p in data["watch"]["phases"]] == [
        "import", "distributed", "build_model", "load_weights", "profile", "cuda_graphs"]
    assert data["input"]["lines"] >= 55 and data["attempts"][0]["outcome"].startswith("failed")
    assert "out of memory" not in res.out


def test_healthy_unit(journal: LiveJournal, port: int) -> None:
    t = _attempt(journal, standin("--mode", "healthy", "--port", str(port), "--serve-seconds", "4"))
    # a real process: it follows the live attempt and its health endpoint until it is up
    res = crashdoc_process("watch", "fake-llm", "--file", str(journal.path), "--health", f"http://127.0.0.1:{port}/health",
                   "--health-interval", "0.2", timeout=60)
    assert res.status == 0, res.stderr
    assert "is up: health" in res.stderr and "not up yet (connection refused)" in res.stderr
    t.join(30)


def test_ctrl_c_stops_watching(journal: LiveJournal) -> None:
    # a real process: the test sends it SIGINT (Ctrl-C)
    live = start_crashdoc("watch", "fake-llm", "--file", str(journal.path))
    try:
        live.err.wait_for("watching fake-llm.service")
        live.proc.send_signal(signal.SIGINT)
        rc = live.wait(20)
    finally:
        stop(live.proc)
    assert rc == 130 and "stopped watching" in live.err.text() and "Traceback" not in live.err.text(), live.err.text()


def test_over_ssh(journal: LiveJournal, port: int, sshd: object) -> None:
    """The same journal, followed through a real sshd on 127.0.0.1 (journalctl -f runs on the "remote" side)."""
    # a real process: it follows the journal over ssh while the live attempt is written to it
    live = start_crashdoc("watch", "fake-llm", "--host", sshd.target, "--file", str(journal.path),  # type: ignore[attr-defined]
                          extra_env={"CRASHDOC_SSH_OPTIONS": sshd.options_env})  # type: ignore[attr-defined]
    try:
        live.err.wait_for("watching fake-llm.service")
        live.err.wait_for("has no records yet; waiting for them")  # read the (empty) journal: the attempt comes live
        t = _attempt(journal, standin("--port", str(port), "--step", "0.05"))
        rc = live.wait(60)
        t.join(30)
    finally:
        stop(live.proc)
    assert rc == 4, live.err.text()
    assert FLASHINFER in live.out.text()


def test_journal_that_cannot_be_followed_is_one_line(tmp_path: Path) -> None:
    res = crashdoc("watch", "fake-llm", "--file", str(tmp_path / "missing.journal"))
    assert res.status == 2
    assert res.stderr.strip().startswith("crashdoc: error: journalctl cannot read the journal of fake-llm.service")
    assert "No such file or directory" in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_ssh_refused_is_one_line(tmp_path: Path) -> None:
    res = crashdoc("watch", "fake-llm", "--host", f"root@127.0.0.1:{free_port()}", "--file", "/var/log/x.journal")
    assert res.status == 2 and res.stderr.startswith("crashdoc: error: ssh root@127.0.0.1:")
    assert len(res.stderr.strip().splitlines()) == 1


def test_live_unit_without_systemd_is_one_line() -> None:
    res = crashdoc("watch", "vllm")
    assert res.status == 2, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "crashdoc: error:" in res.stderr


def test_freeze_needs_a_live_unit(tmp_path: Path) -> None:
    res = crashdoc("watch", "fake-llm", "--file", str(tmp_path / "x.journal"), "--freeze-on-crash")
    assert res.status == 2 and "cannot act on a copied journal" in res.stderr


def test_bad_unit_name_is_refused() -> None:
    res = crashdoc("watch", "vllm;reboot", "--file", "/tmp/x.journal")
    assert res.status == 2 and "refusing unit name" in res.stderr


def test_journalctl_that_stops_following_is_one_line(tmp_path: Path) -> None:
    """journalctl -f ending with an error (here a stand-in journalctl on PATH) is reported with its reason."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_journalctl = bin_dir / "journalctl"
    fake_journalctl.write_text('#!/bin/sh\ncase "$*" in *--follow*) echo "Failed to get journal fd: Too many open '
                               'files" >&2; exit 1;; esac\nexit 0\n')
    fake_journalctl.chmod(0o755)
    res = crashdoc("watch", "fake-llm", "--file", str(tmp_path / "x.journal"),
                   extra_env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert res.status == 2
    assert res.stderr.strip().endswith("journalctl cannot follow the journal of fake-llm.service in "
                                       f"{tmp_path / 'x.journal'}: Failed to get journal fd: Too many open files")
    assert "Traceback" not in res.stderr
