#!/usr/bin/env python3
"""A stand-in for `vllm serve`: real processes that start like vLLM 0.11 and fail like it, with real tracebacks.

The API server process (`(APIServer pid=N)`) starts an engine-core process (`(EngineCore_DP0 pid=N)`), which
starts one worker process per tensor-parallel rank (`(Worker_TPk pid=N)`), with multiprocessing (fork). Every
line carries vLLM's process prefix and logger header (`INFO 11-30 09:12:05 [file.py:123] `), and every line is
written with ONE write(2), so the ranks never split each other's lines on a shared pipe.

    vllm_standin.py [serve MODEL] [--mode MODE] [options]

Modes (the default is `init-crash` when called as vLLM is, `serve MODEL ...`, else `crash`):
  crash              goes through vLLM's start phases (importing, loading safetensors shards with a percentage,
                     memory profiling, capturing CUDA graphs); worker --fail-rank raises flashinfer's version-check
                     RuntimeError while capturing CUDA graphs; the engine core then fails with "WorkerProc
                     initialization failed due to an exception in a background process" and the API server with
                     "Engine core initialization failed. See root cause above": the cause is hidden above two
                     wrapper errors. Exit 1.
  init-crash         the founding case: worker --fail-rank fails during model construction with the same error,
                     raised from frames that carry vLLM's file names (the code is compiled under those names in
                     --site-packages, so the tracebacks are genuine); the engine core and the API server fail
                     with vLLM's wrapper errors. Exit 1; SIGTERM is exit 143.
  init-healthy       the founding case's server, healthy: serves forever, a throughput line a minute.
  healthy            comes up (the phases of `crash`) and serves until SIGINT/SIGTERM (then shuts down, exit 0)
                     or --serve-seconds.
  crash-after-ready  comes up, serves --serve-seconds, then a worker hits a CUDA illegal memory access. Exit 1.
  daemon             forks the server (mode crash) into the background (it keeps the output) and exits 0 at once.
  daemon-detached    the same, but the background server writes to --daemon-log, not to the output.
  bytes              prints a fixed sequence of awkward bytes (invalid UTF-8, \\r progress bars, ANSI, NUL, a
                     200 KiB line, no final newline) on stdout and stderr, exits --exit-code.

A health endpoint answers on 127.0.0.1:--port in the modes with phases (503 while starting with --health-early,
otherwise nothing listens until the server is up; 200 once up).
--transcript DIR: every process also appends the exact bytes it writes to DIR/<role>-<pid>.out.
--exit-stamp FILE: the API server writes time.time() there just before it exits (mode crash; for the benchmark).
Environment (defaults of the options, as a systemd unit's Environment= gives them): STANDIN_MODE, STANDIN_TP,
STANDIN_FAIL_RANK, STANDIN_CUBIN, STANDIN_FLASHINFER, STANDIN_PREFIX (--site-packages), STANDIN_HEALTHY=1
(mode init-healthy).
Only the standard library is used: it also runs as /opt/venv/bin/vllm on a bare Debian python3 in a container.
"""

from __future__ import annotations

import argparse
import http.server
import linecache
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

PATH = Path(__file__).resolve()
VERSION = "0.11.2"
SHARDS = 4
PY = f"python{sys.version_info.major}.{sys.version_info.minor}"
MODES = ("crash", "init-crash", "init-healthy", "healthy", "crash-after-ready", "daemon", "daemon-detached", "bytes")
ARGS: argparse.Namespace


def command(*args: str) -> list[str]:
    """argv that runs the stand-in with this Python (for tests: `subprocess.Popen(command("--mode", "healthy"))`)."""
    return [sys.executable, str(PATH), *args]


# --- vLLM-style output: the process prefix, the logger header, one write per line --------------------------


class Prefixed:
    """A text stream that writes each complete line, prefixed `(ROLE pid=N) `, with one os.write."""

    def __init__(self, fd: int, role: str) -> None:
        self.fd = fd
        self.prefix = f"({role} pid={os.getpid()}) ".encode()
        self.buf = b""
        self.at_line_start = True
        self.lock = threading.Lock()
        self.encoding = "utf-8"
        self.transcript = None
        if ARGS.transcript:
            path = os.path.join(ARGS.transcript, f"{role}-{os.getpid()}.out")
            self.transcript = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def write(self, text: str) -> int:
        with self.lock:
            self.buf += text.encode("utf-8", "surrogateescape")
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                self._emit(line + b"\n")
        return len(text)

    def _emit(self, data: bytes) -> None:
        if self.at_line_start:
            data = self.prefix + data
        self.at_line_start = data.endswith(b"\n")
        # NOTE: a SIGTERM between the two writes (the engine core terminating its workers) would leave the line in
        # the output but not in the transcript: it waits until both are written (then ends the process as before)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            for fd in (self.fd, self.transcript):
                if fd is None:
                    continue
                view = memoryview(data)
                while view:  # one write; a loop only if the kernel takes less (it does not, on a blocking pipe)
                    view = view[os.write(fd, view):]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def flush(self) -> None:
        """A pending piece without its newline goes out as it is (the rest of the line follows unprefixed)."""
        with self.lock:
            if self.buf:
                data, self.buf = self.buf, b""
                self._emit(data)

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.fd


def decorate(role: str) -> None:
    """Prefix this process's stdout and stderr (both go wherever fd 1 and fd 2 point)."""
    sys.stdout = Prefixed(1, role)  # type: ignore[assignment]
    sys.stderr = Prefixed(2, role)  # type: ignore[assignment]


def say(text: str) -> None:
    """One line on stdout, in one write."""
    sys.stdout.write(text + "\n")


def log(level: str, where: str, message: str) -> None:
    """A vLLM logger record: `LEVEL MM-DD HH:MM:SS [file.py:N] message`, the header on every line."""
    stamp = time.strftime("%m-%d %H:%M:%S")
    for line in message.splitlines() or [""]:
        # one write per line (print() writes the newline separately, so concurrent writers could split a line)
        say(f"{level} {stamp} [{where}] {line}")


def log_exception(where: str, message: str) -> None:
    """logger.exception(): the message and the current traceback, every line with the ERROR header."""
    log("ERROR", where, message + "\n" + traceback.format_exc().rstrip("\n"))


def step(n: float = 1.0) -> None:
    time.sleep(ARGS.step * n)


# --- modes crash, healthy, crash-after-ready: the start phases, a health endpoint -------------------------------


def check_cubin_version(cubin: str, python: str) -> None:
    if cubin != python:
        raise RuntimeError(
            f"flashinfer-cubin version ({cubin}) does not match flashinfer version ({python}). Please install the "
            "same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check."
        )


def capture_one_batch_size(rank: int, bs: int) -> None:
    if rank == ARGS.fail_rank and ARGS.mode == "crash" and bs >= 2:
        check_cubin_version(ARGS.cubin, ARGS.flashinfer)


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
    log("INFO", "gpu_model_runner.py:2843", f"Starting to load model {ARGS.model}...")
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
    log("INFO", "core.py:93", f"Initializing a V1 LLM engine (v{VERSION}) with config: model='{ARGS.model}', "
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


class Health(http.server.BaseHTTPRequestHandler):
    ready = False

    def do_GET(self) -> None:
        code = 404 if self.path != "/health" else 200 if Health.ready else 503
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()
        if code == 200:
            say(f'INFO:     127.0.0.1:{self.client_address[1]} - "GET /health HTTP/1.1" 200 OK')

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
    log("INFO", "utils.py:233", f"non-default args: {{'model': '{ARGS.model}', 'port': {ARGS.port}, "
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
    say(f"INFO:     Started server process [{os.getpid()}]")
    say("INFO:     Waiting for application startup.")
    Health.ready = True
    say("INFO:     Application startup complete.")
    deadline = time.time() + ARGS.serve_seconds if ARGS.mode == "healthy" and ARGS.serve_seconds else None
    while True:
        if mine.poll(0.1) and mine.recv() == "dead":
            Health.ready = False
            log("ERROR", "core_client.py:564", "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.")
            finish(1)
        if deadline and time.time() > deadline:
            engine.terminate()
            finish(0)


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


# --- modes init-crash, init-healthy: code compiled under vLLM's file names, so the tracebacks show them --------

_SOURCES: dict[str, str] = {
    "vllm/v1/executor/multiproc_executor.py": '''\
class WorkerProc:
    def __init__(self, vllm_config, local_rank, rank, distributed_init_method, hooks):
        self.rank = rank
        self.worker = hooks["worker"](rank, hooks)
        self.worker.init_device()
        self.worker.load_model()

    @staticmethod
    def worker_main(*args, **kwargs):
        worker = None
        try:
            worker = WorkerProc(*args, **kwargs)
            return worker
        except Exception:
            kwargs["hooks"]["log_exception"]("multiproc_executor.py:597", "WorkerProc failed to start.")
            kwargs["hooks"]["failed"]()
            return None

    @staticmethod
    def wait_for_ready(unready_workers, hooks):
        ready = hooks["wait"](unready_workers)
        if not ready:
            raise Exception("WorkerProc initialization failed due to an exception in a background process. "
                            "See stack trace for root cause.")
        return ready


class MultiprocExecutor:
    def _init_executor(self, hooks):
        unready_workers = hooks["start_workers"]()
        self.workers = WorkerProc.wait_for_ready(unready_workers, hooks)
''',
    "vllm/v1/executor/abstract.py": '''\
class Executor:
    def __init__(self, vllm_config, hooks):
        self.vllm_config = vllm_config
        self._init_executor(hooks)
''',
    "vllm/v1/engine/core.py": '''\
class EngineCore:
    def __init__(self, vllm_config, executor_class, hooks):
        self.model_executor = executor_class(vllm_config, hooks)


class EngineCoreProc(EngineCore):
    def __init__(self, vllm_config, executor_class, hooks):
        super().__init__(vllm_config, executor_class, hooks)

    @staticmethod
    def run_engine_core(*args, dp_rank=0, local_dp_rank=0, **kwargs):
        engine_core = None
        try:
            engine_core = EngineCoreProc(*args, **kwargs)
            engine_core.run_busy_loop()
        except SystemExit:
            raise
        except Exception as e:
            if engine_core is None:
                kwargs["hooks"]["log_exception"]("core.py:708", "EngineCore failed to start.")
            raise e
''',
    "vllm/v1/worker/gpu_worker.py": '''\
class Worker:
    def __init__(self, rank, hooks):
        self.rank = rank
        self.model_runner = hooks["model_runner"](rank, hooks)

    def init_device(self):
        self.device = f"cuda:{self.rank}"

    def load_model(self):
        eep_scale_up = False
        self.model_runner.load_model(eep_scale_up=eep_scale_up)
''',
    "vllm/v1/worker/gpu_model_runner.py": '''\
class GPUModelRunner:
    def __init__(self, rank, hooks):
        self.rank = rank
        self.hooks = hooks

    def load_model(self, eep_scale_up=False):
        model_loader = self.hooks["get_model_loader"]()
        self.model = model_loader.load_model(vllm_config=None, model_config=self.hooks)
''',
    "vllm/model_executor/model_loader/base_loader.py": '''\
class BaseModelLoader:
    def load_model(self, vllm_config, model_config):
        target_device = "cuda"
        model = initialize_model(vllm_config=vllm_config, model_config=model_config)
        return model
''',
    "vllm/model_executor/model_loader/utils.py": '''\
def initialize_model(vllm_config, *, prefix="", model_class=None, model_config=None):
    model_class = model_config["model_class"]
    return model_class(vllm_config=vllm_config, prefix=prefix, hooks=model_config)
''',
    "vllm/model_executor/models/deepseek_v2.py": '''\
class DeepseekV2DecoderLayer:
    def __init__(self, vllm_config, prefix, hooks):
        self.hidden_size = 7168
        attn_cls = hooks["attn_cls"]
        self.self_attn = attn_cls(
            vllm_config=vllm_config,
            hidden_size=self.hidden_size,
            num_heads=64,
            prefix=f"{prefix}.self_attn",
            hooks=hooks,
        )


class DeepseekV2Model:
    def __init__(self, vllm_config, prefix, hooks):
        self.layers = [DeepseekV2DecoderLayer(vllm_config, f"{prefix}.layers.{i}", hooks) for i in range(1)]


class DeepseekV3ForCausalLM:
    def __init__(self, *, vllm_config, prefix="", hooks=None):
        self.model = DeepseekV2Model(vllm_config=vllm_config, prefix=f"{prefix}model", hooks=hooks)
''',
    "vllm/attention/layer.py": '''\
class MLAAttention:
    def __init__(self, vllm_config, hidden_size, num_heads, prefix, hooks):
        self.attn_backend = hooks["backend"]()
        impl_cls = self.attn_backend.get_impl_cls()
        self.impl = impl_cls(num_heads=num_heads)
''',
    "vllm/v1/attention/backends/mla/flashinfer_mla.py": '''\
class FlashInferMLAImpl:
    def __init__(self, num_heads):
        self.num_heads = num_heads
        flashinfer.check_version()


class FlashInferMLABackend:
    @staticmethod
    def get_impl_cls():
        return FlashInferMLAImpl
''',
    "flashinfer/__init__.py": '''\
def _check_cubin_version(cubin_version, flashinfer_version):
    if cubin_version != flashinfer_version:
        raise RuntimeError(
            f"flashinfer-cubin version ({cubin_version}) does not match flashinfer version "
            f"({flashinfer_version}). Please install the same version of both packages. "
            "Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check."
        )


def check_version():
    _check_cubin_version(__cubin_version__, __version__)
''',
    "vllm/v1/engine/utils.py": '''\
def wait_for_engine_startup(handshake_socket, proc_manager, hooks):
    finished = hooks["wait_engine"]()
    if not finished:
        raise RuntimeError("Engine core initialization failed. See root cause above. "
                           f"Failed core proc(s): {{}}")
''',
    "vllm/v1/engine/async_llm.py": '''\
class AsyncLLM:
    def __init__(self, vllm_config, hooks):
        self.engine_core = hooks["make_client"](vllm_config, hooks)

    @classmethod
    def from_vllm_config(cls, vllm_config, hooks):
        return cls(vllm_config=vllm_config, hooks=hooks)
''',
    "vllm/v1/engine/core_client.py": '''\
def make_async_mp_client(vllm_config, hooks):
    return AsyncMPClient(vllm_config, hooks)


class AsyncMPClient:
    def __init__(self, vllm_config, hooks):
        with hooks["launch_core_engines"](vllm_config, hooks) as (engine_manager, coordinator, addresses):
            self.resources = engine_manager
''',
    "vllm/entrypoints/openai/api_server.py": '''\
async def build_async_engine_client_from_engine_args(engine_args, hooks):
    async_llm = hooks["AsyncLLM"].from_vllm_config(vllm_config=engine_args, hooks=hooks)
    return async_llm


async def run_server(args, hooks):
    engine_client = await build_async_engine_client_from_engine_args(args, hooks)
''',
    "vllm/entrypoints/cli/serve.py": '''\
def cmd(args, hooks):
    import asyncio
    asyncio.run(hooks["run_server"](args, hooks))
''',
}

_MODULES: dict[str, dict[str, Any]] = {}


def _module(rel: str) -> dict[str, Any]:
    """Compile one of the sources under its vLLM path (and register its text so tracebacks show the code)."""
    if rel not in _MODULES:
        path = f"{ARGS.site_packages}/{rel}"
        src = _SOURCES[rel]
        linecache.cache[path] = (len(src), None, src.splitlines(True), path)
        ns: dict[str, Any] = {"__name__": rel.replace("/", ".")[:-3], "__file__": path}
        exec(compile(src, path, "exec"), ns)
        _MODULES[rel] = ns
    return _MODULES[rel]


def _keep_linecache() -> None:
    """linecache.checkcache() drops entries whose file is missing on disk; keep ours."""
    real = linecache.checkcache
    site = ARGS.site_packages

    def checkcache(filename: str | None = None) -> None:
        if filename is not None and filename.startswith(site):
            return
        saved = {k: v for k, v in linecache.cache.items() if k.startswith(site)}
        real(filename)
        linecache.cache.update(saved)

    linecache.checkcache = checkcache  # type: ignore[assignment]


def worker_process(rank: int, tp: int, status: Any) -> None:
    """Worker_TPk: construct the model; the failing rank hits flashinfer's version check."""
    decorate(f"Worker_TP{rank}")
    _keep_linecache()
    log("INFO", "parallel_state.py:1208", f"rank {rank} in world size {tp} is assigned as DP rank 0, PP rank 0, "
        f"TP rank {rank}, EP rank {rank}")
    log("INFO", "gpu_model_runner.py:2843", f"Starting to load model {ARGS.model}...")
    if rank != ARGS.fail_rank:
        time.sleep(30)  # still constructing when the engine core shuts the workers down
        return
    mp_exec = _module("vllm/v1/executor/multiproc_executor.py")
    flashinfer = _module("flashinfer/__init__.py")
    flashinfer.update(__cubin_version__=ARGS.cubin, __version__=ARGS.flashinfer)
    backend = _module("vllm/v1/attention/backends/mla/flashinfer_mla.py")
    backend["flashinfer"] = type(sys)("flashinfer")
    backend["flashinfer"].check_version = flashinfer["check_version"]
    loader = _module("vllm/model_executor/model_loader/base_loader.py")
    loader["initialize_model"] = _module("vllm/model_executor/model_loader/utils.py")["initialize_model"]
    hooks: dict[str, Callable[..., Any]] = {
        "worker": _module("vllm/v1/worker/gpu_worker.py")["Worker"],
        "model_runner": _module("vllm/v1/worker/gpu_model_runner.py")["GPUModelRunner"],
        "get_model_loader": loader["BaseModelLoader"],
        "model_class": _module("vllm/model_executor/models/deepseek_v2.py")["DeepseekV3ForCausalLM"],
        "attn_cls": _module("vllm/attention/layer.py")["MLAAttention"],
        "backend": backend["FlashInferMLABackend"],
        "failed": lambda: status.put(("failed", rank)),
        "log_exception": log_exception,
    }
    if mp_exec["WorkerProc"].worker_main(None, rank, rank, "tcp://127.0.0.1:29500", hooks=hooks) is None:
        sys.exit(1)


def engine_process(tp: int) -> None:
    """EngineCore_DP0: start the workers, wait for them, fail with vLLM's wrapper when one fails."""
    decorate("EngineCore_DP0")
    _keep_linecache()
    log("INFO", "core.py:93", f"Initializing a V1 LLM engine (v{VERSION}) with config: model='{ARGS.model}', "
        f"speculative_config=None, tokenizer='{ARGS.model}', trust_remote_code=True, dtype=torch.bfloat16, "
        f"max_seq_len=262144, tensor_parallel_size={tp}, pipeline_parallel_size=1, quantization=compressed-tensors")
    log("INFO", "multiproc_executor.py:720", f"Worker proc count: {tp}")
    ctx = mp.get_context("fork")
    status = ctx.Queue()
    workers: list[Any] = []

    def start_workers() -> list[Any]:
        for rank in range(tp):
            p = ctx.Process(target=worker_process, args=(rank, tp, status), name=f"VllmWorker-{rank}")
            p.start()
            workers.append(p)
        return workers

    def wait(unready: list[Any]) -> bool:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                kind, _rank = status.get(timeout=0.2)
                if kind == "failed":
                    return False
            except Exception:
                pass
            if any(p.exitcode not in (None, 0) for p in unready):
                return False
        return False

    hooks = {"start_workers": start_workers, "wait": wait, "log_exception": log_exception}
    executor_mod = _module("vllm/v1/executor/multiproc_executor.py")
    abstract = _module("vllm/v1/executor/abstract.py")
    executor_cls = type("MultiprocExecutor", (executor_mod["MultiprocExecutor"], abstract["Executor"]), {})
    core = _module("vllm/v1/engine/core.py")
    try:
        core["EngineCoreProc"].run_engine_core(None, executor_cls, hooks=hooks)
    finally:
        for p in workers:
            if p.is_alive():
                p.terminate()
        for p in workers:
            p.join(timeout=5)


def api_server(argv: list[str]) -> int:
    """APIServer: start the engine core, wait for it, fail with vLLM's wrapper error."""
    decorate("APIServer")
    _keep_linecache()
    tp = ARGS.workers
    log("INFO", "api_server.py:1839", f"vLLM API server version {VERSION}")
    log("INFO", "utils.py:233", f"non-default args: {{'model_tag': '{ARGS.model}', 'model': '{ARGS.model}', "
        f"'trust_remote_code': True, 'tensor_parallel_size': {tp}}}")
    sys.stderr.write("Fetching 64 files:   0%|          | 0/64 [00:00<?, ?it/s]\rFetching 64 files: 100%|"
                     "\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588| 64/64 [00:00<00:00, 812.41it/s]\n")
    if ARGS.mode == "init-healthy":
        log("INFO", "api_server.py:1912", f"Starting vLLM API server 0 on http://0.0.0.0:{ARGS.port or 8000}")
        while True:
            time.sleep(60)
            log("INFO", "loggers.py:127", "Engine 000: Avg prompt throughput: 0.0 tokens/s, Running: 0 reqs")
    ctx = mp.get_context("fork")
    engine = ctx.Process(target=engine_process, args=(tp,), name="EngineCore_DP0")

    def wait_engine() -> bool:
        engine.join(timeout=120)
        return engine.exitcode == 0

    class _Launch:
        def __init__(self, vllm_config: Any, hooks: Any) -> None:
            pass

        def __enter__(self) -> tuple[Any, None, None]:
            engine.start()
            return (engine, None, None)

        def __exit__(self, *exc: Any) -> None:
            utils["wait_for_engine_startup"](None, engine, hooks)

    utils = _module("vllm/v1/engine/utils.py")
    client = _module("vllm/v1/engine/core_client.py")
    async_llm = _module("vllm/v1/engine/async_llm.py")
    api = _module("vllm/entrypoints/openai/api_server.py")
    serve = _module("vllm/entrypoints/cli/serve.py")
    hooks = {
        "wait_engine": wait_engine,
        "launch_core_engines": _Launch,
        "make_client": client["make_async_mp_client"],
        "AsyncLLM": async_llm["AsyncLLM"],
        "run_server": api["run_server"],
    }
    serve["cmd"](argv, hooks)  # raises RuntimeError: Engine core initialization failed ...
    return 0


# --- the command line ---------------------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    env = os.environ.get
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("command", nargs="?", choices=("serve",), help="vLLM's subcommand (selects mode init-crash)")
    p.add_argument("model", nargs="?", help="the model (shown in the log lines)")
    p.add_argument("--mode", choices=MODES, default=env("STANDIN_MODE"))
    p.add_argument("--port", type=int, default=None, help="health endpoint port (default 18000; vLLM's 8000 shown "
                   "by init-healthy)")
    p.add_argument("--workers", "--tensor-parallel-size", "-tp", dest="workers", type=int,
                   default=int(env("STANDIN_TP", "4")), help="tensor-parallel ranks (worker processes)")
    p.add_argument("--fail-rank", type=int, default=int(env("STANDIN_FAIL_RANK", "2")))
    p.add_argument("--cubin", default=env("STANDIN_CUBIN", "0.6.3"), help="flashinfer-cubin's version")
    p.add_argument("--flashinfer", default=env("STANDIN_FLASHINFER", "0.6.4"), help="flashinfer's version")
    p.add_argument("--site-packages", default=env("STANDIN_PREFIX", f"/opt/venv/lib/{PY}/site-packages"),
                   help="where the init modes' vLLM frames say they are")
    p.add_argument("--trust-remote-code", action="store_true", help="accepted, as vLLM does")
    p.add_argument("--step", type=float, default=0.05, help="seconds between progress lines")
    p.add_argument("--health-early", action="store_true", help="listen from the start, 503 until up")
    p.add_argument("--serve-seconds", type=float, default=0.0)
    p.add_argument("--transcript", metavar="DIR")
    p.add_argument("--exit-stamp", metavar="FILE")
    p.add_argument("--daemon-log", default=os.devnull)
    p.add_argument("--exit-code", type=int, default=0)
    args = p.parse_args(argv)
    if args.mode is None:
        args.mode = ("init-healthy" if env("STANDIN_HEALTHY") == "1" else "init-crash") if args.command else "crash"
    init = args.mode.startswith("init-")
    args.model = args.model or ("moonshotai/Kimi-K2.5" if init else "fake-org/Fake-1T-Instruct")
    if args.port is None and not init:
        args.port = 18000
    return args


def main(argv: list[str] | None = None) -> int:
    global ARGS
    argv = list(sys.argv[1:] if argv is None else argv)
    ARGS = parse_args(argv)
    if ARGS.mode == "bytes":
        bytes_mode()
    elif ARGS.mode in ("daemon", "daemon-detached"):
        daemon_mode(ARGS.mode == "daemon-detached")
    elif ARGS.mode.startswith("init-"):
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        return api_server(argv)
    else:
        api_main()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(1)
