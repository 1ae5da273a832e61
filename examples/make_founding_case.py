#!/usr/bin/env python3
"""Generate examples/founding-case.log, the README sample (the project's founding case).

The scenario: `journalctl -u vllm-kimi-k25` on gpu-node-07, default "short" output. The unit serves
moonshotai/Kimi-K2.5 with vLLM (V1 engine, tensor parallel 8). The journal first shows the old install
running and serving requests until the admin stops it; then a "clean" reinstall left flashinfer-cubin
0.6.3 next to flashinfer-python 0.6.4, and every start crash-loops: all eight Worker_TPk processes die
while constructing DeepseekV2DecoderLayer.self_attn (the MLA attention backend imports flashinfer,
whose import-time version gate raises), their tracebacks interleave line by line, then come the
EngineCore and APIServer wrapper tracebacks and systemd's restart lines. The log was captured while
the fourth post-reinstall start was still printing, so it ends inside worker tracebacks whose last
frame is deepseek_v2.py `self.self_attn = attn_cls(` with no exception line: what the founding
user saw at the bottom of the journal.

Deterministic (seeded): running it twice gives the same bytes.

    python examples/make_founding_case.py            # writes examples/founding-case.log + .expected.json
    python examples/make_founding_case.py --out DIR   # elsewhere
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from pathlib import Path

SEED = 20251130
HOST = "gpu-node-07"
UNIT = "vllm-kimi-k25.service"
DESC = "vLLM Kimi-K2.5"
MODEL = "moonshotai/Kimi-K2.5"
SITE = "/opt/vllm/.venv/lib/python3.12/site-packages"
PYLIB = "/usr/lib/python3.12"
ROOT_MSG = (
    "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4). Please install the "
    "same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check."
)
YEAR = 2025


class Journal:
    """Collects journald "short" lines: `Nov 30 09:12:01 gpu-node-07 vllm[41237]: message`."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.last = dt.datetime.min

    def add(self, t: dt.datetime, ident: str, pid: int, msg: str) -> None:
        # journald stamps on reception, so its clock never goes back even when the processes' own
        # logger timestamps (inside msg) do
        self.last = max(self.last, t)
        self.lines.append(f"{self.last.strftime('%b %d %H:%M:%S')} {HOST} {ident}[{pid}]: {msg}")

    def systemd(self, t: dt.datetime, msg: str) -> None:
        self.add(t, "systemd", 1, msg)


def vts(t: dt.datetime) -> str:
    """vLLM logger timestamp: MM-DD HH:MM:SS."""
    return t.strftime("%m-%d %H:%M:%S")


def vlog(proc: str, pid: int, level: str, t: dt.datetime, where: str, msg: str) -> str:
    return f"({proc} pid={pid}) {level} {vts(t)} [{where}] {msg}"


# --------------------------------------------------------------------------------------------
# Tracebacks
# --------------------------------------------------------------------------------------------

def S(path: str) -> str:
    return f"{SITE}/{path}"


def carets(code: str, start: str, length: int | None = None) -> str:
    """A Python 3.12 caret line under `start` (substring of code) spanning `length` chars."""
    i = code.index(start)
    n = length if length is not None else len(start)
    return " " * (4 + i) + "^" * n


def frame(path: str, line: int, func: str, code: str | None = None, caret: str | None = None,
          caret_len: int | None = None) -> list[str]:
    out = [f'  File "{path}", line {line}, in {func}']
    if code is not None:
        out.append("    " + code)
        if caret is not None:
            out.append(carets(code, caret, caret_len))
    return out


def worker_traceback() -> list[str]:
    """Traceback of one Worker_TPk: WorkerProc -> model construction -> MLA backend -> flashinfer import."""
    f: list[str] = ["Traceback (most recent call last):"]
    f += frame(S("vllm/v1/executor/multiproc_executor.py"), 743, "worker_main",
               "worker = WorkerProc(*args, **kwargs)", "WorkerProc(*args, **kwargs)")
    f += frame(S("vllm/v1/executor/multiproc_executor.py"), 570, "__init__", "self.worker.load_model()")
    f += frame(S("vllm/v1/worker/gpu_worker.py"), 273, "load_model",
               "self.model_runner.load_model(eep_scale_up=eep_scale_up)")
    f += frame(S("vllm/v1/worker/gpu_model_runner.py"), 3170, "load_model",
               "self.model = model_loader.load_model(", "model_loader.load_model(")
    f += frame(S("vllm/model_executor/model_loader/base_loader.py"), 49, "load_model",
               "model = initialize_model(", "initialize_model(")
    f += frame(S("vllm/model_executor/model_loader/utils.py"), 55, "initialize_model",
               "return model_class(vllm_config=vllm_config, prefix=prefix)",
               "model_class(vllm_config=vllm_config, prefix=prefix)")
    f += frame(S("vllm/model_executor/models/kimi_k25.py"), 331, "__init__",
               "self.language_model = DeepseekV3ForCausalLM(", "DeepseekV3ForCausalLM(")
    f += frame(S("vllm/model_executor/models/deepseek_v2.py"), 1394, "__init__",
               "self.model = DeepseekV2Model(", "DeepseekV2Model(")
    f += frame(S("vllm/compilation/decorators.py"), 291, "__init__", "old_init(self, **kwargs)")
    f += frame(S("vllm/model_executor/models/deepseek_v2.py"), 1228, "__init__",
               "self.start_layer, self.end_layer, self.layers = make_layers(", "make_layers(")
    f += frame(S("vllm/model_executor/models/utils.py"), 681, "make_layers",
               'maybe_offload_to_cpu(layer_fn(prefix=f"{prefix}.{idx}"))',
               'layer_fn(prefix=f"{prefix}.{idx}")')
    f += frame(S("vllm/model_executor/models/deepseek_v2.py"), 1230, "<lambda>",
               "lambda prefix: DeepseekV2DecoderLayer(", "DeepseekV2DecoderLayer(")
    f += frame(S("vllm/model_executor/models/deepseek_v2.py"), 1004, "__init__",
               "self.self_attn = attn_cls(", "attn_cls(")
    f += frame(S("vllm/model_executor/models/deepseek_v2.py"), 919, "__init__",
               "self.mla_attn = MultiHeadLatentAttentionWrapper(", "MultiHeadLatentAttentionWrapper(")
    f += frame(S("vllm/model_executor/layers/mla.py"), 107, "__init__",
               "self.mla_attn = MLAAttention(", "MLAAttention(")
    f += frame(S("vllm/attention/layer.py"), 651, "__init__",
               "self.attn_backend = get_attn_backend(", "get_attn_backend(")
    f += frame(S("vllm/attention/selector.py"), 81, "get_attn_backend",
               "return _cached_get_attn_backend(", "_cached_get_attn_backend(")
    f += frame(S("vllm/attention/selector.py"), 133, "_cached_get_attn_backend",
               "return resolve_obj_by_qualname(attention_cls)", "resolve_obj_by_qualname(attention_cls)")
    f += frame(S("vllm/utils/import_utils.py"), 104, "resolve_obj_by_qualname",
               "module = importlib.import_module(module_name)", "importlib.import_module(module_name)")
    f += frame(f"{PYLIB}/importlib/__init__.py", 90, "import_module",
               "return _bootstrap._gcd_import(name[level:], package, level)",
               "_bootstrap._gcd_import(name[level:], package, level)")
    f += frame("<frozen importlib._bootstrap>", 1387, "_gcd_import")
    f += frame("<frozen importlib._bootstrap>", 1360, "_find_and_load")
    f += frame("<frozen importlib._bootstrap>", 1331, "_find_and_load_unlocked")
    f += frame("<frozen importlib._bootstrap>", 935, "_load_unlocked")
    f += frame("<frozen importlib._bootstrap_external>", 995, "exec_module")
    f += frame("<frozen importlib._bootstrap>", 488, "_call_with_frames_removed")
    f += frame(S("vllm/v1/attention/backends/mla/flashinfer_mla.py"), 6, "<module>",
               "from flashinfer.decode import trtllm_batch_decode_with_kv_cache_mla")
    f += frame(S("flashinfer/__init__.py"), 25, "<module>", "from . import jit as jit")
    f += frame(S("flashinfer/jit/__init__.py"), 22, "<module>", "from . import cubin_loader")
    f += frame(S("flashinfer/jit/cubin_loader.py"), 30, "<module>", "from .core import logger")
    f += frame(S("flashinfer/jit/core.py"), 26, "<module>", "from . import env as jit_env")
    f += frame(S("flashinfer/jit/env.py"), 118, "<module>",
               "FLASHINFER_CUBIN_DIR: pathlib.Path = _get_cubin_dir()", "_get_cubin_dir()")
    f += frame(S("flashinfer/jit/env.py"), 105, "_get_cubin_dir", "raise RuntimeError(")
    f.append("RuntimeError: " + ROOT_MSG)
    return f


def enginecore_frames() -> list[str]:
    f: list[str] = []
    f += frame(S("vllm/v1/engine/core.py"), 843, "run_engine_core",
               "engine_core = EngineCoreProc(*args, **kwargs)", "EngineCoreProc(*args, **kwargs)")
    f += frame(S("vllm/v1/engine/core.py"), 611, "__init__", "super().__init__(")
    f += frame(S("vllm/v1/engine/core.py"), 102, "__init__",
               "self.model_executor = executor_class(vllm_config)", "executor_class(vllm_config)")
    f += frame(S("vllm/v1/executor/abstract.py"), 101, "__init__", "self._init_executor()")
    f += frame(S("vllm/v1/executor/multiproc_executor.py"), 176, "_init_executor",
               "self.workers = WorkerProc.wait_for_ready(unready_workers)",
               "WorkerProc.wait_for_ready(unready_workers)")
    f += frame(S("vllm/v1/executor/multiproc_executor.py"), 664, "wait_for_ready", "raise e from None")
    f.append("Exception: WorkerProc initialization failed due to an exception in a background process. "
             "See stack trace for root cause.")
    return f


def enginecore_logged() -> list[str]:
    return ["EngineCore failed to start.", "Traceback (most recent call last):"] + enginecore_frames()


def enginecore_raw() -> list[str]:
    f = ["Process EngineCore_DP0:", "Traceback (most recent call last):"]
    f += frame(f"{PYLIB}/multiprocessing/process.py", 314, "_bootstrap", "self.run()")
    f += frame(f"{PYLIB}/multiprocessing/process.py", 108, "run", "self._target(*self._args, **self._kwargs)")
    f += frame(S("vllm/v1/engine/core.py"), 856, "run_engine_core", "raise e")
    return f + enginecore_frames()


def apiserver_traceback() -> list[str]:
    f = ["Traceback (most recent call last):"]
    f += frame("/opt/vllm/.venv/bin/vllm", 10, "<module>", "sys.exit(main())", "main()")
    f += frame(S("vllm/entrypoints/cli/main.py"), 73, "main", "args.dispatch_function(args)")
    f += frame(S("vllm/entrypoints/cli/serve.py"), 60, "cmd", "uvloop.run(run_server(args))")
    f += frame(S("uvloop/__init__.py"), 96, "run", "return __asyncio.run(", "__asyncio.run(")
    f += frame(f"{PYLIB}/asyncio/runners.py", 194, "run", "return runner.run(main)", "runner.run(main)")
    f += frame(f"{PYLIB}/asyncio/runners.py", 118, "run", "return self._loop.run_until_complete(task)",
               "self._loop.run_until_complete(task)")
    f += frame("uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete")
    f += frame(S("uvloop/__init__.py"), 48, "wrapper", "return await main", "await main")
    f += frame(S("vllm/entrypoints/openai/api_server.py"), 1941, "run_server",
               "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)")
    f += frame(S("vllm/entrypoints/openai/api_server.py"), 1957, "run_server_worker",
               "async with build_async_engine_client(")
    f += frame(f"{PYLIB}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)",
               "await anext(self.gen)")
    f += frame(S("vllm/entrypoints/openai/api_server.py"), 181, "build_async_engine_client",
               "async with build_async_engine_client_from_engine_args(")
    f += frame(f"{PYLIB}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)",
               "await anext(self.gen)")
    f += frame(S("vllm/entrypoints/openai/api_server.py"), 223, "build_async_engine_client_from_engine_args",
               "async_llm = AsyncLLM.from_vllm_config(", "AsyncLLM.from_vllm_config(")
    f += frame(S("vllm/utils/func_utils.py"), 116, "inner", "return fn(*args, **kwargs)",
               "fn(*args, **kwargs)")
    f += frame(S("vllm/v1/engine/async_llm.py"), 216, "from_vllm_config", "return cls(", "cls(")
    f += frame(S("vllm/v1/engine/async_llm.py"), 137, "__init__",
               "self.engine_core = EngineCoreClient.make_async_mp_client(",
               "EngineCoreClient.make_async_mp_client(")
    f += frame(S("vllm/v1/engine/core_client.py"), 121, "make_async_mp_client",
               "return AsyncMPClient(*client_args)", "AsyncMPClient(*client_args)")
    f += frame(S("vllm/v1/engine/core_client.py"), 808, "__init__", "super().__init__(")
    f += frame(S("vllm/v1/engine/core_client.py"), 469, "__init__",
               "with launch_core_engines(vllm_config, executor_class, log_stats) as (")
    f += frame(f"{PYLIB}/contextlib.py", 144, "__exit__", "next(self.gen)")
    f += frame(S("vllm/v1/engine/utils.py"), 880, "launch_core_engines", "wait_for_engine_startup(")
    f += frame(S("vllm/v1/engine/utils.py"), 937, "wait_for_engine_startup", "raise RuntimeError(")
    f.append("RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
    return f


# --------------------------------------------------------------------------------------------
# Startup noise
# --------------------------------------------------------------------------------------------

NON_DEFAULT = (
    "{'model_tag': 'moonshotai/Kimi-K2.5', 'enable_auto_tool_choice': True, 'tool_call_parser': 'kimi_k2', "
    "'host': '0.0.0.0', 'port': 8000, 'model': 'moonshotai/Kimi-K2.5', 'trust_remote_code': True, "
    "'max_model_len': 131072, 'served_model_name': ['kimi-k2.5'], 'reasoning_parser': 'kimi_k2', "
    "'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.92, 'enable_prefix_caching': True, "
    "'mm_encoder_tp_mode': 'data'}"
)


def engine_config_line(version: str) -> str:
    comp = (
        "{'level': 3, 'debug_dump_path': None, 'cache_dir': '', 'backend': '', 'custom_ops': [], "
        "'splitting_ops': ['vllm::unified_attention', 'vllm::unified_attention_with_output', "
        "'vllm::unified_mla_attention', 'vllm::unified_mla_attention_with_output', 'vllm::mamba_mixer2', "
        "'vllm::mamba_mixer', 'vllm::short_conv', 'vllm::linear_attention', 'vllm::plamo2_mamba_mixer', "
        "'vllm::gdn_attention', 'vllm::sparse_attn_indexer'], 'use_inductor': True, 'compile_sizes': [], "
        "'inductor_compile_config': {'enable_auto_functionalized_v2': False}, 'inductor_passes': {}, "
        "'cudagraph_mode': [2, 1], 'use_cudagraph': True, 'cudagraph_num_of_warmups': 1, "
        "'cudagraph_capture_sizes': [512, 504, 496, 488, 480, 472, 464, 456, 448, 440, 432, 424, 416, 408, "
        "400, 392, 384, 376, 368, 360, 352, 344, 336, 328, 320, 312, 304, 296, 288, 280, 272, 264, 256, 248, "
        "240, 232, 224, 216, 208, 200, 192, 184, 176, 168, 160, 152, 144, 136, 128, 120, 112, 104, 96, 88, 80, "
        "72, 64, 56, 48, 40, 32, 24, 16, 8, 4, 2, 1], 'cudagraph_copy_inputs': False, "
        "'full_cuda_graph': False, 'use_inductor_graph_partition': False, 'pass_config': {}, "
        "'max_capture_size': 512, 'local_cache_dir': None}"
    )
    return (
        f"Initializing a V1 LLM engine (v{version}) with config: model='{MODEL}', speculative_config=None, "
        f"tokenizer='{MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=131072, "
        "download_dir=None, load_format=auto, tensor_parallel_size=8, pipeline_parallel_size=1, "
        "data_parallel_size=1, disable_custom_all_reduce=False, quantization=compressed-tensors, "
        "enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
        "structured_outputs_config=StructuredOutputsConfig(backend='auto', disable_fallback=False, "
        "disable_any_whitespace=False, disable_additional_properties=False, reasoning_parser='kimi_k2'), "
        "observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, "
        "otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, served_model_name=kimi-k2.5, "
        "enable_prefix_caching=True, enable_chunked_prefill=True, pooler_config=None, "
        f"compilation_config={comp}"
    )


def banner(version: str) -> list[str]:
    return [
        "",
        "       █     █     █▄   ▄█",
        f" ▄▄ ▄█ █     █     █ ▀▄▀ █  version {version}",
        f"  █▄█▀ █     █     █     █  model   {MODEL}",
        "   ▀▀  ▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀",
        "",
    ]


class Attempt:
    """One start of the unit: builds the journal lines of the vLLM processes with a moving clock."""

    def __init__(self, j: Journal, rng: random.Random, start: dt.datetime, main_pid: int, version: str):
        self.j, self.rng, self.t, self.main = j, rng, start, main_pid
        self.version = version
        self.core_pid = main_pid + rng.randint(140, 190)
        pid = self.core_pid + rng.randint(40, 70)
        self.worker_pids = []
        for _ in range(8):
            self.worker_pids.append(pid)
            pid += rng.randint(3, 9)

    def tick(self, lo: float = 0.0, hi: float = 0.4) -> dt.datetime:
        self.t += dt.timedelta(seconds=self.rng.uniform(lo, hi))
        return self.t

    def out(self, text: str, t: dt.datetime | None = None) -> None:
        t = t or self.t
        jt = t + dt.timedelta(seconds=self.rng.choice([0, 0, 0, 0.3]))
        self.j.add(jt, "vllm", self.main, text)

    def api(self, level: str, where: str, msg: str) -> None:
        self.out(vlog("APIServer", self.main, level, self.t, where, msg))

    def core(self, level: str, where: str, msg: str) -> None:
        self.out(vlog("EngineCore_DP0", self.core_pid, level, self.t, where, msg))

    def wk(self, k: int, level: str, where: str, msg: str) -> None:
        self.out(vlog(f"Worker_TP{k}", self.worker_pids[k], level, self.t, where, msg))

    # --- phases -------------------------------------------------------------------------------
    def frontend_startup(self) -> None:
        self.tick(7, 9)
        for b in banner(self.version):
            self.api("INFO", "utils.py:299", b)
        self.api("INFO", "utils.py:233", "non-default args: " + NON_DEFAULT)
        self.tick(0.1, 0.3)
        self.api("WARNING", "system_utils.py:136",
                 "Found ulimit of 1024 and failed to automatically increase with error current limit exceeds "
                 "maximum limit. This can cause fd limit errors like `OSError: [Errno 24] Too many open files`. "
                 "Consider increasing with ulimit -n")
        self.tick(1.5, 3)
        self.api("INFO", "model.py:631", "Resolved architecture: KimiK25ForConditionalGeneration")
        self.api("INFO", "model.py:1861", "Using max model len 131072")
        self.tick(0.2, 0.6)
        self.api("INFO", "scheduler.py:230", "Chunked prefill is enabled with max_num_batched_tokens=8192.")
        self.api("INFO", "vllm.py:601", "Asynchronous scheduling is enabled.")
        self.api("INFO", "config.py:310",
                 "Overriding max cuda graph capture size to 512 for performance.")
        self.tick(1, 2.5)
        self.api("WARNING", "__init__.py:1318",
                 "The tokenizer you are loading from 'moonshotai/Kimi-K2.5' is a custom tokenizer: "
                 "trust_remote_code=True executes code from the model repository.")

    def engine_startup(self) -> None:
        self.tick(9, 14)
        self.core("INFO", "core.py:93", engine_config_line(self.version))
        self.tick(0.1, 0.3)
        self.core("WARNING", "multiproc_executor.py:869",
                  "Reducing Torch parallelism from 112 threads to 1 to avoid unnecessary CPU contention. "
                  "Set OMP_NUM_THREADS in the external environment to tune this value as needed.")
        self.core("INFO", "shm_broadcast.py:289",
                  "vLLM message queue communication handle: Handle(local_reader_ranks=[0, 1, 2, 3, 4, 5, 6, 7], "
                  f"buffer_handle=(8, 16777216, 10, 'psm_{self.rng.getrandbits(32):08x}'), "
                  f"local_subscribe_addr='ipc:///tmp/{self.rng.getrandbits(64):016x}', "
                  "remote_subscribe_addr=None, remote_addr_ipv6=False)")

    def workers_init(self) -> None:
        self.tick(14, 20)
        port = self.rng.randint(40000, 60000)
        order = list(range(8))
        self.rng.shuffle(order)
        for k in order:
            self.tick(0, 0.15)
            self.wk(k, "INFO", "parallel_state.py:1208",
                    f"world_size=8 rank={k} local_rank={k} distributed_init_method=tcp://127.0.0.1:{port} "
                    "backend=nccl")
        self.tick(1, 2)
        for k in order:
            self.tick(0, 0.05)
            self.wk(k, "INFO", "pynccl.py:111", "vLLM is using nccl==2.27.5")
        self.tick(2, 4)
        self.wk(0, "INFO", "custom_all_reduce_utils.py:246",
                "reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3,4,5,6,7.json")
        for k in order:
            if k:
                self.tick(0, 0.05)
                self.wk(k, "INFO", "custom_all_reduce_utils.py:246",
                        "reading GPU P2P access cache from "
                        "/root/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3,4,5,6,7.json")
        self.tick(0.5, 1)
        self.wk(0, "INFO", "shm_broadcast.py:289",
                "vLLM message queue communication handle: Handle(local_reader_ranks=[1, 2, 3, 4, 5, 6, 7], "
                f"buffer_handle=(7, 4194304, 6, 'psm_{self.rng.getrandbits(32):08x}'), "
                f"local_subscribe_addr='ipc:///tmp/{self.rng.getrandbits(64):016x}', remote_subscribe_addr=None, "
                "remote_addr_ipv6=False)")
        for k in order:
            self.tick(0, 0.08)
            self.wk(k, "INFO", "parallel_state.py:1394",
                    f"rank {k} in world size 8 is assigned as DP rank 0, PP rank 0, TP rank {k}, EP rank {k}")
        self.tick(0.3, 0.8)
        self.wk(0, "INFO", "gpu_model_runner.py:2602", f"Starting to load model {MODEL}...")
        self.tick(0.5, 1.5)
        for k in order:
            self.tick(0, 0.1)
            self.wk(k, "INFO", "compressed_tensors_moe.py:131", "Using CompressedTensorsWNA16MarlinMoEMethod")
        self.tick(0.3, 0.9)
        for k in order:
            self.tick(0, 0.1)
            self.wk(k, "INFO", "cuda.py:366",
                    "Using FLASHINFER_MLA attention backend out of potential backends: "
                    "['FLASHINFER_MLA', 'CUTLASS_MLA', 'FLASH_ATTN_MLA', 'FLASHMLA', 'TRITON_MLA']")

    def worker_crash(self, cut: dict[int, int] | None = None, last: int | None = None) -> None:
        """All ranks log `WorkerProc failed to start.` + traceback; their lines interleave.

        cut: rank -> number of traceback lines that rank gets out before the capture/kill ends it.
        last: rank whose line must be the very last one written (used for the truncated final attempt).
        """
        self.tick(0.5, 1.5)
        tb = worker_traceback()
        blocks: dict[int, list[str]] = {}
        for k in range(8):
            lines = ["WorkerProc failed to start."] + tb
            if cut and k in cut:
                lines = lines[: cut[k]]
            blocks[k] = lines
        start_delay = {k: self.rng.uniform(0, 0.6) for k in range(8)}
        pos = {k: 0 for k in range(8)}
        active = sorted(range(8), key=lambda k: start_delay[k])
        stamp = {k: self.t + dt.timedelta(seconds=start_delay[k]) for k in range(8)}
        started = 0
        emitted: list[tuple[int, str]] = []
        while True:
            live = [k for k in active[: max(started, 1)] if pos[k] < len(blocks[k])]
            if started < 8 and (not live or self.rng.random() < 0.12):
                started += 1
                continue
            if not live:
                break
            k = self.rng.choice(live)
            n = self.rng.choice([1, 1, 1, 2, 2, 3])
            for _ in range(n):
                if pos[k] >= len(blocks[k]):
                    break
                emitted.append((k, blocks[k][pos[k]]))
                pos[k] += 1
        if last is not None:
            # move the final frames of rank `last` to the very end, so the file's tail reads as one
            # rank's frames converging on its last printed line
            mine = [i for i, (k, _) in enumerate(emitted) if k == last][-9:]
            tail = [emitted[i] for i in mine]
            emitted = [e for i, e in enumerate(emitted) if i not in set(mine)] + tail
        for k, text in emitted:
            t = stamp[k]
            self.out(vlog(f"Worker_TP{k}", self.worker_pids[k], "ERROR", t, "multiproc_executor.py:772", text), t)
        self.t = max(stamp.values()) + dt.timedelta(seconds=0.4)

    def engine_crash(self, late_ranks: list[int]) -> None:
        self.tick(0.2, 0.6)
        self.core("INFO", "multiproc_executor.py:546", "[shutdown] Executor: waiting for worker exit count=8")
        self.tick(4.8, 5.2)
        if late_ranks:
            self.core("WARNING", "multiproc_executor.py:558",
                      f"[shutdown] Executor: workers still running after grace period; sending SIGTERM count="
                      f"{len(late_ranks)}")
            self.tick(0.1, 0.3)
            for k in late_ranks:
                self.wk(k, "INFO", "multiproc_executor.py:702", "Parent process exited, terminating worker")
        self.tick(0.1, 0.3)
        # worker processes exit: each rank that initialised NCCL warns (rank 0's comes last, below)
        for k in sorted(set(range(1, 8)) - set(late_ranks), key=lambda _: self.rng.random()):
            self.tick(0, 0.05)
            self.out(f"[rank{k}]:[W{self.t.strftime('%m%d %H:%M:%S')}.{self.rng.randint(100000000, 999999999)} "
                     "ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was not called before "
                     "program exit, which can leak resources. For more info, please see "
                     "https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())")
        for text in enginecore_logged():
            self.core("ERROR", "core.py:852", text)
        for text in enginecore_raw():
            self.out(f"(EngineCore_DP0 pid={self.core_pid}) {text}")
        self.tick(0.4, 0.9)
        w = self.t
        self.out(f"[rank0]:[W{w.strftime('%m%d %H:%M:%S')}.{self.rng.randint(100000000, 999999999)} "
                 "ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was not called before "
                 "program exit, which can leak resources. For more info, please see "
                 "https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())")

    def frontend_crash(self) -> None:
        self.tick(0.3, 0.8)
        for text in apiserver_traceback():
            self.out(f"(APIServer pid={self.main}) {text}")
        self.tick(0.2, 0.5)
        self.out(f"(APIServer pid={self.main}) {PYLIB}/multiprocessing/resource_tracker.py:279: UserWarning: "
                 "resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown")
        self.out(f"(APIServer pid={self.main})   warnings.warn('resource_tracker: There appear to be %d '")


# --------------------------------------------------------------------------------------------
# The old install: a healthy run that loads weights, serves, and is stopped for the reinstall
# --------------------------------------------------------------------------------------------

def healthy_run(j: Journal, rng: random.Random, start: dt.datetime, pid: int) -> dt.datetime:
    a = Attempt(j, rng, start, pid, "0.15.1")
    j.systemd(start, f"Started {UNIT} - {DESC}.")
    a.frontend_startup()
    a.engine_startup()
    a.workers_init()
    # the old install loads the model fine
    a.tick(1, 2)
    for k in range(8):
        a.tick(0, 0.1)
        a.wk(k, "INFO", "weight_utils.py:392", "Using model weights format ['*.safetensors']")
    a.tick(2, 4)
    total, done, pct_t = 64, 0, 0.0
    a.out(f"(Worker_TP0 pid={a.worker_pids[0]}) Loading safetensors checkpoint shards:   0% Completed | 0/64 "
          "[00:00<?, ?it/s]")
    while done < total:
        step = rng.randint(3, 9)
        done = min(total, done + step)
        sec = done * rng.uniform(5.0, 5.4)
        a.tick(step * 4.8, step * 5.6)
        rem = (total - done) * 5.2
        pct = int(100 * done / total)
        a.out(f"(Worker_TP0 pid={a.worker_pids[0]}) Loading safetensors checkpoint shards: {pct:3d}% Completed | "
              f"{done}/{total} [{int(sec)//60:02d}:{int(sec)%60:02d}<{int(rem)//60:02d}:{int(rem)%60:02d},  "
              f"{rng.uniform(4.6, 5.9):.2f}s/it]")
        pct_t = sec
    a.out(f"(Worker_TP0 pid={a.worker_pids[0]}) ")
    for k in range(8):
        a.tick(0, 0.3)
        a.wk(k, "INFO", "default_loader.py:267", f"Loading weights took {pct_t + rng.uniform(-3, 3):.2f} seconds")
    for k in range(8):
        a.tick(0, 0.2)
        a.wk(k, "INFO", "gpu_model_runner.py:2653",
             f"Model loading took 72.{rng.randint(10, 99)} GiB and {pct_t + rng.uniform(8, 14):.6f} seconds")
    a.tick(20, 40)
    a.wk(0, "INFO", "backends.py:548",
         f"Using cache directory: /root/.cache/vllm/torch_compile_cache/{rng.getrandbits(40):010x}/rank_0_0/backbone "
         "for vLLM's torch.compile")
    a.wk(0, "INFO", "backends.py:559", "Dynamo bytecode transform time: 21.38 s")
    a.tick(10, 20)
    a.wk(0, "INFO", "backends.py:164", "Directly load the compiled graph(s) for dynamic shape from the cache, took 9.712 s")
    a.wk(0, "INFO", "monitor.py:34", "torch.compile takes 31.09 s in total")
    a.tick(3, 6)
    for k in range(8):
        a.tick(0, 0.2)
        a.wk(k, "INFO", "gpu_worker.py:298", f"Available KV cache memory: {rng.uniform(1.9, 2.2) + 0:.2f} GiB")
    a.tick(0.2, 0.5)
    a.core("INFO", "kv_cache_utils.py:1087", "GPU KV cache size: 271,616 tokens")
    a.core("INFO", "kv_cache_utils.py:1091", "Maximum concurrency for 131,072 tokens per request: 2.07x")
    a.tick(1, 2)
    for pct, n in [(3, 2), (15, 10), (31, 21), (48, 32), (64, 43), (81, 54), (96, 64), (100, 67)]:
        a.tick(0.7, 1.5)
        bar = "█" * (pct // 10) + ("▌" if pct % 10 >= 5 and pct < 100 else "") + " " * (10 - pct // 10 - (1 if pct % 10 >= 5 and pct < 100 else 0))
        a.out(f"(Worker_TP0 pid={a.worker_pids[0]}) Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): "
              f"{pct:3d}%|{bar}| {n}/67 [00:{int(n * 0.16):02d}<00:{int((67 - n) * 0.16):02d},  6.2{n % 10}it/s]")
    a.tick(0.5, 1)
    a.wk(0, "INFO", "gpu_model_runner.py:3480", "Graph capturing finished in 13 secs, took 1.47 GiB")
    a.core("INFO", "core.py:210", "init engine (profile, create kv cache, warmup model) took 142.57 seconds")
    a.tick(1, 2)
    a.api("INFO", "loggers.py:147", "Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 4244")
    a.api("INFO", "api_server.py:1634", "Supported_tasks: ['generate']")
    a.api("INFO", "api_server.py:1912", "Starting vLLM API server 0 on http://0.0.0.0:8000")
    a.api("INFO", "launcher.py:34", "Available routes are:")
    for route, meth in [("/openapi.json", "HEAD, GET"), ("/docs", "HEAD, GET"), ("/health", "GET"),
                        ("/load", "GET"), ("/tokenize", "POST"), ("/detokenize", "POST"), ("/v1/models", "GET"),
                        ("/version", "GET"), ("/v1/chat/completions", "POST"), ("/v1/completions", "POST"),
                        ("/metrics", "GET")]:
        a.api("INFO", "launcher.py:42", f"Route: {route}, Methods: {meth}")
    a.out(f"(APIServer pid={pid}) INFO:     Started server process [{pid}]")
    a.out(f"(APIServer pid={pid}) INFO:     Waiting for application startup.")
    a.out(f"(APIServer pid={pid}) INFO:     Application startup complete.")
    # serving: access log, metrics lines, one rejected oversized request (handled error)
    clients = ["10.20.3.14", "10.20.3.15", "10.20.4.31", "10.20.4.32"]
    a.t = dt.datetime(YEAR, 11, 30, 7, 31, 12)  # the journal excerpt skips the night: morning traffic
    for i in range(70):
        a.tick(4, 30)
        if i % 7 == 3:
            tp = rng.uniform(800, 2500)
            gp = rng.uniform(200, 650)
            a.api("INFO", "loggers.py:123",
                  f"Engine 000: Avg prompt throughput: {tp:.1f} tokens/s, Avg generation throughput: {gp:.1f} "
                  f"tokens/s, Running: {rng.randint(1, 9)} reqs, Waiting: 0 reqs, GPU KV cache usage: "
                  f"{rng.uniform(3, 40):.1f}%, Prefix cache hit rate: {rng.uniform(20, 70):.1f}%")
            continue
        if i == 41:
            req = f"chatcmpl-{rng.getrandbits(128):032x}"
            a.api("ERROR", "serving_chat.py:257", "Error in preprocessing prompt inputs")
            tb = ["Traceback (most recent call last):"]
            tb += frame(S("vllm/entrypoints/openai/serving_chat.py"), 240, "create_chat_completion",
                        ") = await self._preprocess_chat(", "await self._preprocess_chat(")
            tb += frame(S("vllm/entrypoints/openai/serving_engine.py"), 1174, "_preprocess_chat",
                        "prompt_inputs = await self._tokenize_prompt_input_async(",
                        "await self._tokenize_prompt_input_async(")
            tb += frame(S("vllm/entrypoints/openai/serving_engine.py"), 1002, "_validate_input",
                        "raise ValueError(")
            tb.append("ValueError: This model's maximum context length is 131072 tokens. However, your request "
                      "has 141388 input tokens. Please reduce the length of the input messages.")
            for line in tb:
                a.api("ERROR", "serving_chat.py:257", line)
            a.out(f'(APIServer pid={pid}) INFO:     10.20.4.31:{rng.randint(30000, 65000)} - '
                  '"POST /v1/chat/completions HTTP/1.1" 400 Bad Request')
            continue
        c = rng.choice(clients)
        path, code = rng.choice([("POST /v1/chat/completions", "200 OK")] * 8 + [("GET /health", "200 OK"),
                                                                                 ("GET /metrics", "200 OK"),
                                                                                 ("GET /v1/models", "200 OK")])
        a.out(f'(APIServer pid={pid}) INFO:     {c}:{rng.randint(30000, 65000)} - "{path} HTTP/1.1" {code}')
    # admin stops the unit for the reinstall
    a.tick(30, 60)
    j.systemd(a.t, f"Stopping {UNIT} - {DESC}...")
    a.tick(0.1, 0.3)
    a.out(f"(APIServer pid={pid}) INFO:     Shutting down")
    a.out(f"(APIServer pid={pid}) INFO:     Waiting for application shutdown.")
    a.out(f"(APIServer pid={pid}) INFO:     Application shutdown complete.")
    a.tick(1, 3)
    a.out(f"(APIServer pid={pid}) INFO:     Finished server process [{pid}]")
    a.tick(2, 4)
    j.systemd(a.t, f"{UNIT}: Deactivated successfully.")
    j.systemd(a.t, f"Stopped {UNIT} - {DESC}.")
    j.systemd(a.t, f"{UNIT}: Consumed 3d 7h 41min 12.402s CPU time, 118.7G memory peak, 0B memory swap peak.")
    return a.t


def failing_attempt(j: Journal, rng: random.Random, start: dt.datetime, pid: int, n: int,
                    final: bool = False) -> dt.datetime:
    a = Attempt(j, rng, start, pid, "0.16.0")
    j.systemd(start, f"Started {UNIT} - {DESC}.")
    a.frontend_startup()
    a.engine_startup()
    a.workers_init()
    if final:
        # the capture ends while the workers are still printing: cut every rank at or before its
        # deepseek_v2.py `self.self_attn = attn_cls(` line; rank 5 is the last line of the file
        tb = ["WorkerProc failed to start."] + worker_traceback()
        stop = tb.index("    self.self_attn = attn_cls(") + 1
        cut = {k: rng.randint(3, stop) for k in range(8)}
        for k in (5, 2, 6):
            cut[k] = stop
        for k in (1, 4):
            cut[k] = 0
        a.worker_crash(cut=cut, last=5)
        return a.t
    # in later attempts one or two ranks are still busy when the engine gives up: they print no
    # traceback, only the SIGTERM notice
    late = sorted(rng.sample(range(8), n - 1))
    cut = {k: 0 for k in late}
    a.worker_crash(cut=cut)
    a.engine_crash(late)
    a.frontend_crash()
    a.tick(1.2, 2.2)
    j.systemd(a.t, f"{UNIT}: Main process exited, code=exited, status=1/FAILURE")
    j.systemd(a.t, f"{UNIT}: Failed with result 'exit-code'.")
    cpu = rng.uniform(170, 200)
    j.systemd(a.t, f"{UNIT}: Consumed {int(cpu) // 60}min {cpu % 60:.3f}s CPU time, "
                   f"{rng.uniform(11, 14):.1f}G memory peak, 0B memory swap peak.")
    a.t += dt.timedelta(seconds=30, milliseconds=rng.randint(50, 200))
    j.systemd(a.t, f"{UNIT}: Scheduled restart job, restart counter is at {n}.")
    j.systemd(a.t, f"Stopped {UNIT} - {DESC}.")
    return a.t


def build() -> tuple[str, dict]:
    rng = random.Random(SEED)
    j = Journal()
    t = dt.datetime(YEAR, 11, 29, 22, 40, 3)
    t = healthy_run(j, rng, t, 38811)
    # reinstall happens here (outside the journal); the admin starts the unit again
    t = dt.datetime(YEAR, 11, 30, 9, 12, 1)
    pids = [41237, 43610, 45982, 48215]
    for i, pid in enumerate(pids):
        final = i == len(pids) - 1
        t = failing_attempt(j, rng, t, pid, i + 1, final=final)
        t += dt.timedelta(seconds=0)
    text = "\n".join(j.lines) + "\n"
    expected = {
        "key": "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)",
        "category": "dependency_version_mismatch",
        "fix_command": "pip install flashinfer-cubin==0.6.4",
        "attempts": 1 + len(pids),
        "frame_contains": "deepseek_v2.py",
        "exit_status": 0,
        "decoys": [
            "WorkerProc failed to start.",
            "EngineCore failed to start.",
            "Exception: WorkerProc initialization failed due to an exception in a background process",
            "Process EngineCore_DP0:",
            "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
            "destroy_process_group() was not called before program exit",
            "Main process exited, code=exited, status=1/FAILURE",
            "Failed with result 'exit-code'",
            "self.self_attn = attn_cls(",
            "raise RuntimeError(",
            "leaked shared_memory objects",
            "Found ulimit of 1024",
            "This model's maximum context length is 131072 tokens",
            "Error in preprocessing prompt inputs",
            "Parent process exited, terminating worker",
        ],
        "notes": (
            "journalctl -u vllm-kimi-k25 (short). Attempt 1 is the old install: loads weights, serves, one "
            "handled 400 (context too long), stopped by the admin. Attempts 2-4 crash-loop on the flashinfer "
            "version gate in all 8 Worker_TPk (interleaved); attempt 5 was still printing when captured: the "
            "file ends inside worker tracebacks at deepseek_v2.py `self.self_attn = attn_cls(`. process: any "
            "Worker_TPk (all ranks fail identically)."
        ),
    }
    return text, expected


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = ap.parse_args()
    text, expected = build()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "founding-case.log").write_text(text, encoding="utf-8")
    (args.out / "founding-case.expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out / 'founding-case.log'}: {text.count(chr(10))} lines, {len(text.encode())} bytes")


if __name__ == "__main__":
    main()
