"""`crashdoc watch --file LOG`: a log file the vLLM stand-in server writes to while the test runs.

crashdoc runs in-process (tests/support/cli.py) where the log is already written; where it follows a live
server (or a live pid, or a file the test changes under it) it runs as a real process, as it would beside
the server, and the test says so."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

from tests.support.net import free_port
from tests.support.vllm_standin import command as standin
from tests.watch.helpers import crashdoc, crashdoc_process, start_crashdoc, stop

FLASHINFER = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"


def _serve_into(log: Path, *args: str) -> subprocess.Popen[bytes]:
    out = open(log, "ab")  # noqa: SIM115 - the child keeps it
    try:
        return subprocess.Popen(standin(*args), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    finally:
        out.close()


def test_names_the_workers_error_of_a_file_written_while_watching(tmp_path: Path, port: int) -> None:
    log, report = tmp_path / "vllm.log", tmp_path / "r.json"
    # a real process: it follows the file while the live stand-in writes it
    live = start_crashdoc("watch", "--file", str(log), "--report", str(report), "--width", "110")
    server = None
    try:
        live.err.wait_for("does not exist yet")
        server = _serve_into(log, "--port", str(port), "--step", "0.1")
        rc = live.wait(60)
        server.wait(30)
    finally:
        stop(live.proc)
        stop(server)
    err, out = live.err.text(), live.out.text()
    assert rc == 4, err  # crashed
    for phase in ("importing modules", "loading weights 50% (2/4)", "profiling memory", "capturing CUDA graphs"):
        assert phase in err
    assert "crashed: the log says it is going down" in err
    assert "Root cause" in out and FLASHINFER in out and "Worker_TP2" in out
    data = json.loads(report.read_text())
    assert FLASHINFER in data["root_cause"]["message"] and data["watch"]["outcome"] == "crashed"


def test_a_log_that_already_holds_a_failed_attempt(tmp_path: Path, port: int) -> None:
    log = tmp_path / "vllm.log"
    _serve_into(log, "--port", str(port), "--step", "0").wait(30)
    res = crashdoc("watch", "--file", str(log), "--format", "json")
    assert res.status == 4
    assert "had already failed when the watch began" in res.stderr
    assert FLASHINFER in json.loads(res.stdout)["root_cause"]["message"]


def test_health_refusing_is_not_up_yet_and_the_timeout_reports(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_bytes(b"(APIServer pid=7) INFO 11-30 09:12:05 [api_server.py:1839] vLLM API server version 0.11.2\n"
                    b"(Worker_TP0 pid=9) INFO 11-30 09:12:06 [default_loader.py:267] Loading safetensors checkpoint "
                    b"shards:  50% Completed | 2/4\n")
    res = crashdoc("watch", "--file", str(log), "--health", f"http://127.0.0.1:{free_port()}/health",
                   "--health-interval", "0.2", "--timeout", "1.5")
    assert res.status == 124, res.stderr
    assert "not up yet (connection refused)" in res.stderr
    assert "timed out: not up after" in res.stderr
    assert "its health endpoint did not answer 2xx (connection refused)" in res.stderr
    assert "Traceback" not in res.stderr
    assert "loading weights" in res.out  # the watch section of the report says where the start was


def test_health_that_never_answers_is_not_up_yet(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_bytes(b"starting\n")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        res = crashdoc("watch", "--file", str(log), "--health", f"http://127.0.0.1:{silent.getsockname()[1]}/health",
                       "--timeout", "3.5")
    finally:
        silent.close()
    assert res.status == 124
    assert "not up yet (no answer within 2 s)" in res.stderr


def test_healthy_server_is_exit_0(tmp_path: Path, port: int) -> None:
    log = tmp_path / "vllm.log"
    server = _serve_into(log, "--mode", "healthy", "--port", str(port), "--health-early", "--step", "0.2")
    try:  # a real process: it follows the live stand-in's log and health endpoint as it comes up
        res = crashdoc_process("watch", "--file", str(log), "--health", f"http://127.0.0.1:{port}/health",
                       "--health-interval", "0.2", "--timeout", "60")
    finally:
        stop(server)
    assert res.status == 0, res.stderr
    assert "not up yet (HTTP 503)" in res.stderr
    assert res.out == "" and "is up: health" in res.stderr and "answered HTTP 200" in res.stderr


def test_ready_line_without_health_is_up(tmp_path: Path, port: int) -> None:
    log = tmp_path / "vllm.log"
    server = _serve_into(log, "--mode", "healthy", "--port", str(port))
    try:  # a real process: it follows the live stand-in's log until the ready line
        res = crashdoc_process("watch", "--file", str(log), "--timeout", "60")
    finally:
        stop(server)
    assert res.status == 0 and "Application startup complete" in res.stderr


def test_keep_watching_catches_a_crash_after_it_was_up(tmp_path: Path, port: int) -> None:
    log = tmp_path / "vllm.log"
    server = _serve_into(log, "--mode", "crash-after-ready", "--port", str(port), "--serve-seconds", "1")
    try:  # a real process: it keeps following the live stand-in after it was up, until it goes down
        res = crashdoc_process("watch", "--file", str(log), "--keep-watching", "--health", f"http://127.0.0.1:{port}/health",
                       "--health-interval", "0.2", "--down-after", "1")
    finally:
        stop(server)
    assert res.status == 4, res.stderr
    assert "still watching (--keep-watching)" in res.stderr
    assert "illegal memory access" in res.out


def test_pid_exit_ends_the_attempt(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"INFO starting\n")
    proc = subprocess.Popen(["sleep", "1.5"])
    try:  # a real process: it follows a live pid until it exits
        res = crashdoc_process("watch", "--file", str(log), "--pid", str(proc.pid))
    finally:
        stop(proc)
    assert res.status == 4 and f"process {proc.pid} exited" in res.stderr


def test_truncated_and_rotated_files_are_followed(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_bytes(b"old line 1\nold line 2\n")
    # a real process: it follows the file while the test truncates and replaces it
    live = start_crashdoc("watch", "--file", str(log), "--timeout", "20", "--echo")
    try:
        live.err.wait_for("old line 2")
        log.write_bytes(b"")  # copytruncate
        live.err.wait_for("was truncated")
        with open(log, "ab") as f:
            f.write(b"after truncate\n")
        live.err.wait_for("after truncate")
        os.rename(log, tmp_path / "vllm.log.1")  # rotation: a new file under the same name
        log.write_bytes(b"(APIServer pid=7) INFO 11-30 09:12:05 [api_server.py:1839] vLLM API server version 0.11.2\n"
                        b"(APIServer pid=7) RuntimeError: Engine core initialization failed. See root cause above.\n")
        live.err.wait_for("was replaced")
        rc = live.wait(20)
    finally:
        stop(live.proc)
    assert rc == 4 and "Engine core initialization failed" in live.out.text()


def test_errors_are_one_line(tmp_path: Path) -> None:
    res = crashdoc("watch")
    assert res.status == 2 and res.stderr.startswith("crashdoc: error: name what to watch")
    res = crashdoc("watch", "--file", str(tmp_path))
    assert res.status == 2 and "is a directory" in res.stderr and len(res.stderr.strip().splitlines()) == 2
    res = crashdoc("watch", "--file", str(tmp_path / "x.journal"))
    assert res.status == 2 and "name the unit too" in res.stderr
    res = crashdoc("watch", "--file", str(tmp_path / "x.log"), "--health", "localhost:8000")
    assert res.status == 2 and "give an http:// or https:// URL" in res.stderr
    res = crashdoc("watch", "--file", str(tmp_path / "x.log"), "--pid", "999999999")
    assert res.status == 2 and "no such process" in res.stderr
