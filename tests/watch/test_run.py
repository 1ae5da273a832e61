"""`crashdoc run -- COMMAND`, with real processes: the vLLM stand-in server (API server, engine core and worker
processes), shell commands, signals.

crashdoc runs in-process (tests/support/cli.py) unless the test needs it as a process of its own: a signal sent to
it, its stdout as a pipe, or `run` following the live stand-in server with its timing. Those say why."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.vllm_standin import command as standin
from tests.watch.helpers import ROOT, crashdoc, crashdoc_process, lines_of, start_crashdoc, stop, wait_for_file

FLASHINFER = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"


def test_crash_is_diagnosed_with_the_workers_error(tmp_path: Path, port: int) -> None:
    """The done-when of issue 6: phases while it starts, the worker's error as the root cause (also in the
    report), the exit status passed on, the output passed through byte for byte."""
    transcript = tmp_path / "transcript"
    transcript.mkdir()
    report, log = tmp_path / "r.json", tmp_path / "server.log"
    # a real process: `run` follows the live stand-in (6 processes) and passes every byte to its stdout pipe
    res = crashdoc_process("run", "--report", str(report), "--log", str(log), "--",
                           *standin("--port", str(port), "--transcript", str(transcript)))
    assert res.status == 1, res.stderr
    err = res.stderr
    # the phases, in order, before the diagnosis
    marks = ["importing modules", "loading weights 50% (2/4)", "profiling memory", "capturing CUDA graphs", "diagnosis:"]
    pos = [err.find(m) for m in marks]
    assert all(p >= 0 for p in pos) and pos == sorted(pos), err
    diag = err[err.index("diagnosis:"):]
    assert "Root cause" in diag and FLASHINFER in diag and "Worker_TP2" in diag
    assert "$ pip install flashinfer-cubin==0.6.4" in diag
    assert "Traceback (most recent call last)" not in err.split("Evidence")[0]  # no crashdoc traceback
    # the report: the diagnose --format json contract, plus the run section
    data = json.loads(report.read_text())
    rc = data["root_cause"]
    assert FLASHINFER in rc["message"] and rc["rule"] == "flashinfer-cubin-version-mismatch"
    assert rc["where"]["process"] == "Worker_TP2" and rc["where"]["phase"] == "capturing CUDA graphs"
    assert data["run"]["exit_status"] == 1 and data["run"]["phase"] == "cuda_graphs"
    assert [p["id"] for p in data["run"]["phases"]][:1] == ["import"]
    plain = crashdoc("diagnose", "--format", "json", str(log))
    assert set(json.loads(plain.stdout)) | {"run"} == set(data)
    assert json.loads(plain.stdout)["root_cause"]["message"] == rc["message"]
    # stdout is the server's output: every line every process wrote, byte for byte; --log holds the same bytes
    written = sorted(ln for f in transcript.iterdir() for ln in lines_of(f.read_bytes()))
    assert sorted(lines_of(res.stdout)) == written
    assert log.read_bytes() == res.stdout
    assert len({f.name.split("-")[0] for f in transcript.iterdir()}) == 6  # API server, engine core, 4 workers


def test_output_passes_through_byte_for_byte(tmp_path: Path) -> None:
    """Invalid UTF-8, NUL, ANSI, \\r progress bars on stderr, a 200 KiB line, no final newline: the same bytes
    as running the command directly with 2>&1, and its exit status."""
    argv = standin("--mode", "bytes", "--exit-code", "3", "--step", "0.01")
    direct = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    # a real process: its stdout is a pipe, as the command's own is with 2>&1
    res = crashdoc_process("run", "--", *argv)
    assert direct.returncode == 3 and res.status == 3
    assert res.stdout == direct.stdout
    assert res.stdout.endswith(b"last line without newline") and b"\xff\xfe" in res.stdout
    assert "loading weights" in res.stderr  # the \r progress on the command's stderr was read too


def test_missing_command_is_127_and_one_line() -> None:
    res = crashdoc("run", "--", "no-such-server-command", "--port", "1")
    assert res.status == 127
    assert res.stderr.strip() == "crashdoc: error: no-such-server-command: command not found"
    res = crashdoc("run", "--", "./no/such/path")
    assert res.status == 127 and res.stderr.strip().endswith("./no/such/path: no such file or directory")


def test_not_executable_is_126(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("echo hi\n")
    res = crashdoc("run", "--", str(script))
    assert res.status == 126 and "permission denied" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    script.chmod(0o755)
    script.write_text("#!/no/such/interpreter\necho hi\n")
    res = crashdoc("run", "--", str(script))
    assert res.status == 126 and "bad interpreter" in res.stderr


def test_no_command_is_a_usage_error() -> None:
    res = crashdoc("run")
    assert res.status == 2 and "name the command to run" in res.stderr


def test_killed_by_a_signal_is_128_plus_n() -> None:
    res = crashdoc("run", "--", "sh", "-c", "echo 'RuntimeError: CUDA error: out of memory'; kill -9 $$")
    assert res.status == 137
    assert "was killed by signal 9 (KILL)" in res.stderr and "diagnosis:" in res.stderr


def test_ctrl_c_goes_to_the_command_and_its_exit_is_reported(port: int) -> None:
    # a real process: the test sends it SIGINT (Ctrl-C) while it follows the live stand-in
    live = start_crashdoc("run", "--health", f"http://127.0.0.1:{port}/health", "--", *standin("--mode", "healthy", "--port", str(port)))
    try:
        live.err.wait_for(r"health .*: up \(HTTP 200\)", timeout=30)
        assert "not up yet (connection refused)" in live.err.text()
        live.proc.send_signal(signal.SIGINT)
        rc = live.wait(30)
    finally:
        stop(live.proc)
    err = live.err.text()
    assert "Ctrl-C: sent SIGINT to" in err
    assert "exited with status 0" in err and "(after SIGINT from crashdoc)" in err
    assert "Received SIGINT; shutting down" in live.out.text()  # the server got it and shut down
    assert rc == 0  # the command's own status
    assert "Traceback" not in err


def test_second_ctrl_c_stops_waiting() -> None:
    # a real process: the test sends it SIGINT twice
    live = start_crashdoc("run", "--", "sh", "-c", "trap '' INT; echo started; sleep 60")
    try:
        live.out.wait_for("started")
        live.proc.send_signal(signal.SIGINT)
        live.err.wait_for("Ctrl-C again stops waiting")
        with pytest.raises(subprocess.TimeoutExpired):  # the command ignores SIGINT: still waiting
            live.proc.wait(0.3)
        t = time.time()
        live.proc.send_signal(signal.SIGINT)
        rc = live.wait(10)
        assert time.time() - t < 3
    finally:
        stop(live.proc)
    assert rc == 130 and "stopped waiting; sent SIGTERM" in live.err.text()


def test_command_that_forks_into_the_background_and_exits_0(port: int, tmp_path: Path) -> None:
    # a real process: `run` follows what the live background server writes after the command exited
    # the background server keeps the output: crashdoc follows it and diagnoses its crash
    res = crashdoc_process("run", "--", *standin("--mode", "daemon", "--port", str(port)))
    assert res.status == 0
    assert "exited 0" in res.stderr and "left processes running in the background" in res.stderr
    assert FLASHINFER in res.stderr.split("diagnosis:", 1)[1]
    # the background server writes elsewhere: crashdoc says where to look
    stamp = tmp_path / "detached-exit"
    res = crashdoc_process("run", "--", *standin("--mode", "daemon-detached", "--port", str(port),
                                                 "--daemon-log", str(tmp_path / "d.log"), "--exit-stamp", str(stamp)))
    assert res.status == 0
    assert "exited with status 0" in res.stderr and "crashdoc watch --file LOG" in res.stderr
    wait_for_file(stamp, timeout=60)  # the detached stand-in server has finished (it writes the stamp as it exits)


def test_time_from_exit_to_diagnosis(tmp_path: Path, port: int) -> None:
    # a real process: the time from the live stand-in's exit to crashdoc's line on its stderr pipe
    stamp = tmp_path / "exit"
    live = start_crashdoc("run", "--", *standin("--port", str(port), "--exit-stamp", str(stamp)))
    t_diag = live.err.wait_for("Root cause", timeout=60)
    live.wait(30)
    exited = float(stamp.read_text())
    assert 0 <= t_diag - exited < 2.0, f"{t_diag - exited:.2f} s from the exit to the diagnosis"


def test_report_and_log_paths_are_checked_before_the_command_starts(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    res = crashdoc("run", "--report", str(tmp_path / "no" / "r.json"), "--", "touch", str(marker))
    assert res.status == 2 and "does not exist" in res.stderr and not marker.exists()


def test_rules_folder_is_used(tmp_path: Path) -> None:
    rules = tmp_path / "rules" / "other"
    rules.mkdir(parents=True)
    (rules / "fake-widget-error.yaml").write_text(
        "id: fake-widget-error\ncategory: other\nrole: cause\npriority: 50\n"
        "match:\n  regex: 'WidgetError: the widget (?P<w>\\w+) is broken'\n"
        "explanation: a test rule\nfix:\n  text: mend widget {w}\n"
        "examples:\n  - match: |\n      WidgetError: the widget blue is broken\n"
        "  - no-match: |\n      all widgets fine\n"
    )
    res = crashdoc("run", "--rules", str(tmp_path / "rules"), "--", sys.executable, "-c",
                   "import sys; print('WidgetError: the widget blue is broken'); sys.exit(5)")
    assert res.status == 5
    assert "fake-widget-error" in res.stderr or "mend widget blue" in res.stderr, res.stderr


def test_runs_from_another_directory(tmp_path: Path) -> None:
    res = crashdoc("run", "--", sys.executable, "-c", "import os; print(os.getcwd())", cwd=tmp_path)
    assert res.status == 0 and res.out.strip() == str(tmp_path) and str(ROOT) != str(tmp_path)
    assert os.path.isdir(tmp_path)
