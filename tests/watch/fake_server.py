#!/usr/bin/env python3
"""A test server that starts like vLLM and crashes like vLLM: real processes, real tracebacks, a real port.

The API server process (`(APIServer pid=N)`) starts an engine-core process (`(EngineCore_DP0 pid=N)`), which
starts one worker process per tensor-parallel rank (`(Worker_TPk pid=N)`), with multiprocessing. Every line
carries vLLM's process prefix and logger header (`INFO 11-30 09:12:05 [file.py:123] `). The start goes through
vLLM's phases (importing, loading safetensors shards with a percentage, memory profiling, capturing CUDA
graphs, application startup). A health endpoint answers on 127.0.0.1:--port (503 while starting with
--health-early, otherwise nothing listens until the server is up; 200 once up).

Modes:
  crash (default)      worker --fail-rank raises flashinfer's version-check RuntimeError while capturing CUDA
                       graphs; the engine core then fails with "WorkerProc initialization failed due to an
                       exception in a background process" and the API server with "Engine core initialization
                       failed. See root cause above": the cause is hidden above two wrapper errors. Exit 1.
  healthy              comes up and serves until SIGINT/SIGTERM (then shuts down, exit 0) or --serve-seconds.
  crash-after-ready    comes up, serves --serve-seconds, then a worker hits a CUDA illegal memory access. Exit 1.
  daemon               forks the server into the background (it keeps the output) and exits 0 at once.
  daemon-detached      the same, but the background server writes to --daemon-log, not to the output.
  bytes                prints a fixed sequence of awkward bytes (invalid UTF-8, \\r progress bars, ANSI, NUL,
                       a 200 KiB line, no final newline) on stdout and stderr, exits --exit-code.

--transcript DIR: every process also appends the exact bytes it writes to DIR/<role>-<pid>.out.
--exit-stamp FILE: the API server writes time.time() there just before it exits (for the benchmark).
Only the standard library is used (it also runs inside a Debian container's python3).
"""

from __future__ import annotations

import argparse
import http.server
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any

VERSION = "0.11.2"
MODEL = "fake-org/Fake-1T-Instruct"
SHARDS = 4
ARGS: argparse.Namespace


# --- vLLM-style output ------------------------------------------------------------------------------------


class Prefixed:
    """A text stream that writes each complete line, prefixed `(ROLE pid=N) `, with one os.write (atomic)."""

    def __init__(self, fd: int, role: str) -> None:
        self.fd = fd
        self.prefix = f"({role} pid={os.getpid()}) ".encode()
        self.buf = b""
        self.transcript = None
        if ARGS.transcript:
            path = os.path.join(ARGS.transcript, f"{role}-{os.getpid()}.out")
            self.transcript = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def write(self, text: str) -> int:
        self.buf += text.encode("utf-8", "surrogateescape")
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            self.raw(self.prefix + line + b"\n")
        return len(text)

    def raw(self, data: bytes) -> None:
        os.write(self.fd, data)
        if self.transcript is not None:
            os.write(self.transcript, data)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def decorate(role: str) -> None:
    """Prefix this process's stdout and stderr (both go wherever fd 1 and fd 2 point)."""
    sys.stdout = Prefixed(1, role)  # type: ignore[assignment]
    sys.stderr = Prefixed(2, role)  # type: ignore[assignment]


def log(level: str, where: str, message: str) -> None:
    """A vLLM logger record: `LEVEL MM-DD HH:MM:SS [file.py:N] message`, the header on every line."""
    stamp = time.strftime("%m-%d %H:%M:%S")
    for line in message.splitlines() or [""]:
        print(f"{level} {stamp} [{where}] {line}", flush=True)


def log_exception(where: str, message: str) -> None:
    """logger.exception(): the message and the current traceback, every line with the ERROR header."""
    log("ERROR", where, message + "\n" + traceback.format_exc().rstrip("\n"))


def step(n: float = 1.0) -> None:
    time.sleep(ARGS.step * n)


# --- the worker ---------------------------------------------------------------------------------------------


def check_cubin_version(cubin: str, python: str) -> None:
    if cubin != python:
        raise RuntimeError(
            f"flashinfer-cubin version ({cubin}) does not match flashinfer version ({python}). Please install the "
            "same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check."
        )


def capture_one_batch_size(rank: int, bs: int) -> None:
    if rank == ARGS.fail_rank and ARGS.mode == "crash" and bs >= 2:
        check_cubin_version("0.6.3", "0.6.4")


def capture_model(rank: int) -> None:
    for i, bs in enumerate((1, 2, 4, 8), start=1):
        capture_one_batch_size(rank, bs)
        if rank == 0:
            pct = 100 * i // 4
            bar = ("█" * (pct // 10)).ljust(10)
            log("INFO", "gpu_model_runner.py:3480",
                f"Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): {pct:3d}%|{bar}| {i}/4 [00:0{i}<00:00, 3.1it/s]")
        step()


def load_weights(rank: int) -> None:
    for i in range(SHARDS + 1):
        if rank == 0:
            pct = 100 * i // SHARDS
            log("INFO", "default_loader.py:267",
                f"Loading safetensors checkpoint shards: {pct:3d}% Completed | {i}/{SHARDS} [00:0{i}<00:0{SHARDS - i}, 2.0it/s]")
        step()
    log("INFO", "default_loader.py:273", f"Loading weights took {ARGS.step * SHARDS:.2f} seconds")


def execute_model(rank: int) -> None:
    raise RuntimeError("CUDA error: an illegal memory access was encountered\n"
                       "CUDA kernel errors might be asynchronously reported at some other API call, so the "
                       "stacktrace below might be incorrect.")


def worker_main(rank: int, tp: int, status: Any, go_serve: Any) -> None:
    decorate(f"Worker_TP{rank}")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    log("INFO", "parallel_state.py:1208", f"world_size={tp} rank={rank} local_rank={rank} "
        "distributed_init_method=tcp://127.0.0.1:29500 backend=nccl")
    log("INFO", "gpu_model_runner.py:2843", f"Starting to load model {MODEL}...")
    try:
        load_weights(rank)
        log("INFO", "gpu_model_runner.py:2875", "Model loading took 1.12 GiB and 0.41 seconds")
        step()
        if rank == 0:
            log("INFO", "worker.py:294", "Memory profiling takes 0.21 seconds")
            log("INFO", "gpu_worker.py:298", "Available KV cache memory: 20.14 GiB")
        step()
        capture_model(rank)
    except Exception:
        log_exception("multiproc_executor.py:597", "WorkerProc failed to start.")
        status.put(("failed", rank))
        sys.exit(1)
    status.put(("ready", rank))
    if ARGS.mode == "crash-after-ready" and rank == ARGS.fail_rank:
        go_serve.wait()
        time.sleep(ARGS.serve_seconds)
        try:
            execute_model(rank)
        except Exception:
            log_exception("multiproc_executor.py:702", "WorkerProc hit an exception.")
            status.put(("dead", rank))
            sys.exit(1)
    while True:
        time.sleep(1)


# --- the engine core ----------------------------------------------------------------------------------------


def wait_for_ready(workers: list[Any], status: Any, tp: int) -> None:
    ready = 0
    while ready < tp:
        kind, _rank = status.get()
        if kind == "failed":
            raise Exception("WorkerProc initialization failed due to an exception in a background process. "
                            "See stack trace for root cause.")
        ready += 1


def engine_main(tp: int, to_api: Any) -> None:
    decorate("EngineCore_DP0")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    log("INFO", "core.py:93", f"Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL}', "
        f"dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size={tp}, pipeline_parallel_size=1")
    log("INFO", "multiproc_executor.py:720", f"Worker proc count: {tp}")
    ctx = mp.get_context("fork")
    status, go_serve = ctx.Queue(), ctx.Event()
    workers = [ctx.Process(target=worker_main, args=(r, tp, status, go_serve), name=f"VllmWorker-{r}") for r in range(tp)]

    def stop(*_: object) -> None:
        for w in workers:
            if w.is_alive():
                w.terminate()
        os._exit(0)

    for w in workers:
        w.start()
    signal.signal(signal.SIGTERM, stop)
    try:
        wait_for_ready(workers, status, tp)
    except Exception:
        log_exception("core.py:708", "EngineCore failed to start.")
        to_api.send("failed")
        for w in workers:
            w.terminate()
        sys.exit(1)
    log("INFO", "core.py:210", "init engine (profile, create kv cache, warmup model) took 1.20 seconds")
    to_api.send("ready")
    go_serve.set()
    kind, rank = status.get()
    if kind == "dead":
        try:
            raise RuntimeError(f"Worker {rank} died: CUDA error: an illegal memory access was encountered")
        except RuntimeError:
            log_exception("core.py:781", "EngineCore encountered a fatal error.")
        to_api.send("dead")
        for w in workers:
            w.terminate()
        sys.exit(1)


# --- the API server -----------------------------------------------------------------------------------------


class Health(http.server.BaseHTTPRequestHandler):
    ready = False

    def do_GET(self) -> None:
        code = 404 if self.path != "/health" else 200 if Health.ready else 503
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()
        if code == 200:
            print(f'INFO:     127.0.0.1:{self.client_address[1]} - "GET /health HTTP/1.1" 200 OK', flush=True)

    def log_message(self, *_: object) -> None:
        pass


def serve_health(port: int) -> http.server.ThreadingHTTPServer:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), Health)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def finish(code: int) -> None:
    sys.stdout.flush()
    if ARGS.exit_stamp:
        with open(ARGS.exit_stamp, "w") as f:
            f.write(f"{time.time():.6f}\n")
    os._exit(code)


def engine_core_initialization(conn: Any, proc: Any) -> None:
    msg = conn.recv() if conn.poll(120) else "failed"
    if msg != "ready":
        proc.join(5)
        raise RuntimeError("Engine core initialization failed. See root cause above. Failed core proc(s): "
                           "{'EngineCore_DP0': 1}")


def api_main() -> None:
    decorate("APIServer")
    log("INFO", "api_server.py:1839", f"vLLM API server version {VERSION}")
    log("INFO", "utils.py:233", f"non-default args: {{'model': '{MODEL}', 'port': {ARGS.port}, "
        f"'tensor_parallel_size': {ARGS.workers}}}")
    step()
    log("INFO", "__init__.py:216", "Automatically detected platform cuda.")
    srv = serve_health(ARGS.port) if ARGS.health_early else None
    ctx = mp.get_context("fork")
    mine, theirs = ctx.Pipe()
    engine = ctx.Process(target=engine_main, args=(ARGS.workers, theirs), name="EngineCore_DP0")

    def shutdown(signum: int, _frame: object) -> None:
        log("INFO", "launcher.py:110", f"Received {signal.Signals(signum).name}; shutting down FastAPI HTTP server.")
        if engine.is_alive():
            engine.terminate()
            engine.join(5)
        finish(0)

    signal.signal(signal.SIGINT, shutdown)
    signal.signal(signal.SIGTERM, shutdown)
    engine.start()
    try:
        engine_core_initialization(mine, engine)
    except RuntimeError:
        traceback.print_exc()
        finish(1)
    log("INFO", "api_server.py:1912", f"Starting vLLM API server 0 on http://127.0.0.1:{ARGS.port}")
    srv = srv or serve_health(ARGS.port)
    log("INFO", "launcher.py:34", "Available routes are:")
    print(f"INFO:     Started server process [{os.getpid()}]", flush=True)
    print("INFO:     Waiting for application startup.", flush=True)
    Health.ready = True
    print("INFO:     Application startup complete.", flush=True)
    deadline = time.time() + ARGS.serve_seconds if ARGS.mode == "healthy" and ARGS.serve_seconds else None
    while True:
        if mine.poll(0.1) and mine.recv() == "dead":
            Health.ready = False
            log("ERROR", "core_client.py:564", "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.")
            finish(1)
        if deadline and time.time() > deadline:
            engine.terminate()
            finish(0)


# --- the other modes ----------------------------------------------------------------------------------------


def bytes_mode() -> None:
    out, err = sys.stdout.buffer, sys.stderr.buffer
    out.write(b"plain line\n")
    out.write(b"invalid utf-8: \xff\xfe\xc3\x28 end\n")
    out.write(b"\x1b[32mINFO\x1b[0m coloured \x1b[1;31mERROR\x1b[0m\n")
    out.write(b"nul \x00 byte and bell \x07 and tab \t.\n")
    out.flush()
    err.write(b"on stderr: Loading safetensors checkpoint shards:   0% Completed | 0/2")
    err.flush()
    for pct, i in ((50, 1), (100, 2)):
        time.sleep(ARGS.step)
        err.write(f"\rLoading safetensors checkpoint shards: {pct:3d}% Completed | {i}/2".encode())
        err.flush()
    err.write(b"\n")
    err.flush()
    out.write(b"crlf line\r\n")
    out.write(b"x" * 200_000 + b"\n")
    out.write("unicode: ünïcödé ✓ 日本\n".encode())
    out.write(b"last line without newline")
    out.flush()
    sys.exit(ARGS.exit_code)


def daemon_mode(detached: bool) -> None:
    print("starting the server in the background", flush=True)
    pid = os.fork()
    if pid:
        os._exit(0)
    os.setsid()
    if detached:
        fd = os.open(ARGS.daemon_log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
    time.sleep(ARGS.step * 4)
    ARGS.mode = "crash"
    api_main()


def main() -> None:
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--port", type=int, default=18000)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--fail-rank", type=int, default=2)
    p.add_argument("--mode", choices=("crash", "healthy", "crash-after-ready", "daemon", "daemon-detached", "bytes"),
                   default="crash")
    p.add_argument("--step", type=float, default=0.05, help="seconds between progress lines")
    p.add_argument("--health-early", action="store_true", help="listen from the start, 503 until up")
    p.add_argument("--serve-seconds", type=float, default=0.0)
    p.add_argument("--transcript", metavar="DIR")
    p.add_argument("--exit-stamp", metavar="FILE")
    p.add_argument("--daemon-log", default=os.devnull)
    p.add_argument("--exit-code", type=int, default=0)
    ARGS = p.parse_args()
    if ARGS.mode == "bytes":
        bytes_mode()
    elif ARGS.mode in ("daemon", "daemon-detached"):
        daemon_mode(ARGS.mode == "daemon-detached")
    else:
        api_main()


if __name__ == "__main__":
    main()
