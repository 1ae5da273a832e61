#!/usr/bin/env python3
"""Regenerate the crash-log assets in this folder (deterministic; the committed files are its output).

Each asset is a realistic input in one of the wrapper formats users paste (journalctl short / short-iso /
short-precise / cat / json, docker logs -t, kubectl logs, docker compose, raw terminal with ANSI colour,
containerd CRI files with split long lines, gzip) around a vLLM, SGLang or TGI crash, written in the shapes
documented in shared/reference (our own text, not copied from the corpus). Next to each asset,
`<name>.expected.json` says what a correct diagnosis names; see README.md here for the fields.

    python tests/assets/logs/_make_assets.py          # rewrites every asset + sidecar in this folder
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
UTC = dt.timezone.utc


# =============================================================================================
# records and wrappers
# =============================================================================================

@dataclass
class Rec:
    """One line as the application wrote it, plus what the outer wrappers need."""
    t: dt.datetime
    text: str
    stream: str = "stdout"          # stdout | stderr
    ident: str = "vllm"             # syslog identifier (journald)
    pid: int = 0                    # pid journald attributes the line to
    unit: str | None = None
    invocation: str | None = None
    extra: dict = field(default_factory=dict)


class Clock:
    def __init__(self, start: dt.datetime, rng: random.Random):
        self.t, self.rng = start, rng

    def tick(self, lo: float = 0.0, hi: float = 0.05) -> dt.datetime:
        self.t += dt.timedelta(seconds=self.rng.uniform(lo, hi))
        return self.t


def vts(t: dt.datetime) -> str:
    return t.strftime("%m-%d %H:%M:%S")


def mmss(sec: float) -> str:
    """tqdm's elapsed/remaining format."""
    sec = int(sec)
    return f"{sec // 60:02d}:{sec % 60:02d}"


def journal_short(recs: list[Rec], host: str) -> str:
    out = []
    for r in recs:
        who = "kernel" if r.ident == "kernel" else f"{r.ident}[{r.pid}]"
        out.append(f"{r.t.strftime('%b %d %H:%M:%S')} {host} {who}: {r.text}")
    return "\n".join(out) + "\n"


def journal_short_iso(recs: list[Rec], host: str, offset: str = "+01:00") -> str:
    out = []
    for r in recs:
        who = "kernel" if r.ident == "kernel" else f"{r.ident}[{r.pid}]"
        out.append(f"{r.t.strftime('%Y-%m-%dT%H:%M:%S')}{offset} {host} {who}: {r.text}")
    return "\n".join(out) + "\n"


def journal_short_precise(recs: list[Rec], host: str) -> str:
    # journald stamps each line on reception: strictly increasing microseconds
    rng = random.Random(len(recs))
    out, last = [], None
    for r in recs:
        t = r.t
        if last is not None and t <= last:
            t = last + dt.timedelta(microseconds=rng.randint(4, 60))
        last = t
        who = "kernel" if r.ident == "kernel" else f"{r.ident}[{r.pid}]"
        out.append(f"{t.strftime('%b %d %H:%M:%S.%f')} {host} {who}: {r.text}")
    return "\n".join(out) + "\n"


def journal_cat(recs: list[Rec]) -> str:
    return "\n".join(r.text for r in recs) + "\n"


def rfc3339nano(t: dt.datetime, rng: random.Random) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}{rng.randint(0, 999):03d}Z"


def docker_ts(recs: list[Rec], rng: random.Random) -> str:
    return "\n".join(f"{rfc3339nano(r.t, rng)} {r.text}" for r in recs) + "\n"


def plain(recs: list[Rec]) -> str:
    return "\n".join(r.text for r in recs) + "\n"


# =============================================================================================
# traceback helpers
# =============================================================================================

def carets(code: str, start: str, n: int | None = None, indent: int = 4) -> str:
    i = code.index(start)
    return " " * (indent + i) + "^" * (n if n is not None else len(start))


def fr(path: str, line: int, func: str, code: str | None = None, caret: str | None = None,
       py: str = "3.12") -> list[str]:
    """One frame. caret=substring of code to underline (3.11+ only)."""
    out = [f'  File "{path}", line {line}, in {func}']
    if code is not None:
        out.append("    " + code)
        if caret is not None and py not in ("3.8", "3.9", "3.10"):
            out.append(carets(code, caret))
    return out


def frames(spec: list[tuple], py: str = "3.12") -> list[str]:
    out: list[str] = []
    for s in spec:
        out += fr(*s, py=py) if len(s) > 3 else fr(*s, py=py)
    return out


def vline(proc: str | None, pid: int | None, level: str, t: dt.datetime, where: str, msg: str,
          brackets: bool = True) -> str:
    loc = f"[{where}]" if brackets else f"{where}]"
    head = f"{level} {vts(t)} {loc} {msg}"
    return f"({proc} pid={pid}) {head}" if proc else head


def write(name: str, content: str | bytes, expected: dict) -> None:
    p = HERE / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    stem = name
    for suf in (".log.gz", ".log", ".json"):
        if stem.endswith(suf):
            stem = stem[: -len(suf)]
            break
    base = {"key": None, "alt_keys": [], "category": None, "process": None, "rank": None,
            "attempts": None, "decoys": [], "exit_status": 0, "notes": ""}
    base.update(expected)
    (HERE / f"{stem}.expected.json").write_text(json.dumps(base, indent=2, ensure_ascii=False) + "\n",
                                               encoding="utf-8")
    ASSETS.append(name)


ASSETS: list[str] = []


# =============================================================================================
# shared vLLM V1 (0.10-0.11) pieces
# =============================================================================================

V011_SITE = "/usr/local/lib/python3.12/dist-packages"
VENV_SITE = "/opt/vllm/.venv/lib/python3.12/site-packages"
PY312 = "/usr/lib/python3.12"


class V1:
    """Builds a vLLM V1 (0.10.2-0.11.x) log as Recs: APIServer / EngineCore_DP0 / Worker_TPk prefixes."""

    def __init__(self, clock: Clock, api_pid: int, core_pid: int, worker_pids: list[int] | None = None,
                 ident: str = "vllm", jpid: int | None = None, version: str = "0.11.0",
                 site: str = VENV_SITE, pylib: str = PY312, unit: str | None = None,
                 invocation: str | None = None):
        self.c, self.api, self.core, self.wpids = clock, api_pid, core_pid, worker_pids or []
        self.ident, self.jpid, self.version, self.site, self.pylib = ident, jpid or api_pid, version, site, pylib
        self.unit, self.inv = unit, invocation
        self.bin = "/usr/local/bin/vllm"
        self.recs: list[Rec] = []

    # raw emit
    def raw(self, text: str, stream: str = "stdout", t: dt.datetime | None = None) -> None:
        self.recs.append(Rec(t or self.c.t, text, stream, self.ident, self.jpid, self.unit, self.inv))

    def log(self, proc: str | None, pid: int | None, level: str, where: str, msg: str, **kw) -> None:
        self.raw(vline(proc, pid, level, self.c.t, where, msg), **kw)

    def a(self, level: str, where: str, msg: str) -> None:
        self.log("APIServer", self.api, level, where, msg)

    def e(self, level: str, where: str, msg: str) -> None:
        self.log("EngineCore_DP0", self.core, level, where, msg)

    def w(self, k: int, level: str, where: str, msg: str) -> None:
        self.log(f"Worker_TP{k}", self.wpids[k], level, where, msg)

    def block(self, proc: str | None, pid: int | None, level: str, where: str, lines: list[str]) -> None:
        for ln in lines:
            self.log(proc, pid, level, where, ln)

    def rawblock(self, proc: str | None, pid: int | None, lines: list[str], stream: str = "stderr") -> None:
        for ln in lines:
            self.raw(f"({proc} pid={pid}) {ln}" if proc else ln, stream=stream)

    def S(self, p: str) -> str:
        return f"{self.site}/{p}"

    # --- common phases ---------------------------------------------------------------------
    def api_startup(self, model: str, args: str, arch: str, max_len: int, banner: bool = True) -> None:
        c = self.c
        c.tick(3, 6)
        if banner:
            self.a("INFO", "api_server.py:1839", f"vLLM API server version {self.version}")
        self.a("INFO", "utils.py:233", f"non-default args: {args}")
        c.tick(1, 3)
        self.a("INFO", "model.py:547", f"Resolved architecture: {arch}")
        self.raw(f"(APIServer pid={self.api}) `torch_dtype` is deprecated! Use `dtype` instead!")
        self.a("INFO", "model.py:1510", f"Using max model len {max_len}")
        c.tick(0.2, 0.6)
        self.a("INFO", "scheduler.py:205", "Chunked prefill is enabled with max_num_batched_tokens=8192.")

    def core_config(self, model: str, tp: int, max_len: int, extra: str = "") -> None:
        c = self.c
        c.tick(5, 9)
        self.e("INFO", "core.py:644", "Waiting for init message from front-end.")
        c.tick(0.05, 0.2)
        self.e("INFO", "core.py:77",
               f"Initializing a V1 LLM engine (v{self.version}) with config: model='{model}', "
               f"speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, "
               "revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, "
               f"max_seq_len={max_len}, download_dir=None, load_format=auto, tensor_parallel_size={tp}, "
               "pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, "
               "quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
               "structured_outputs_config=StructuredOutputsConfig(backend='auto', disable_fallback=False, "
               "disable_any_whitespace=False, disable_additional_properties=False, reasoning_parser=''), "
               "observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, "
               "otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, "
               f"served_model_name={model}, enable_prefix_caching=True, chunked_prefill_enabled=True, "
               "pooler_config=None, compilation_config={\"level\":3,\"debug_dump_path\":\"\",\"cache_dir\":\"\","
               "\"backend\":\"\",\"custom_ops\":[],\"splitting_ops\":[\"vllm.unified_attention\","
               "\"vllm.unified_attention_with_output\",\"vllm.mamba_mixer2\",\"vllm.mamba_mixer\","
               "\"vllm.short_conv\",\"vllm.linear_attention\",\"vllm.plamo2_mamba_mixer\","
               "\"vllm.gdn_attention\",\"vllm.sparse_attn_indexer\"],\"use_inductor\":true,"
               "\"compile_sizes\":[],\"inductor_compile_config\":{\"enable_auto_functionalized_v2\":false},"
               "\"inductor_passes\":{},\"cudagraph_mode\":[2,1],\"use_cudagraph\":true,"
               "\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,"
               "448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,"
               "264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,"
               "72,64,56,48,40,32,24,16,8,4,2,1],\"cudagraph_copy_inputs\":false,\"full_cuda_graph\":false,"
               "\"use_inductor_graph_partition\":false,\"pass_config\":{},\"max_capture_size\":512,"
               "\"local_cache_dir\":null}" + extra)

    def load_single(self, model: str, shards: int, gib: float) -> None:
        """TP=1: the engine core runs the model itself."""
        c = self.c
        c.tick(1, 3)
        self.e("INFO", "parallel_state.py:1208",
               "world_size=1 rank=0 local_rank=0 distributed_init_method=tcp://127.0.0.1:46233 backend=nccl")
        self.e("INFO", "parallel_state.py:1394",
               "rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0")
        c.tick(0.5, 1)
        self.e("INFO", "gpu_model_runner.py:2602", f"Starting to load model {model}...")
        self.e("INFO", "gpu_model_runner.py:2634", "Loading model from scratch...")
        self.e("INFO", "cuda.py:366", "Using Flash Attention backend on V1 engine.")
        c.tick(0.3, 1)
        self.e("INFO", "weight_utils.py:392", "Using model weights format ['*.safetensors']")
        self.progress("EngineCore_DP0", self.core, shards)
        self.e("INFO", "default_loader.py:267", f"Loading weights took {shards * 0.9:.2f} seconds")
        self.e("INFO", "gpu_model_runner.py:2653",
               f"Model loading took {gib:.4f} GiB and {shards * 0.9 + 1.3:.6f} seconds")

    def progress(self, proc: str, pid: int, shards: int) -> None:
        c = self.c
        self.raw(f"({proc} pid={pid}) Loading safetensors checkpoint shards:   0% Completed | 0/{shards} "
                 "[00:00<?, ?it/s]", stream="stderr")
        for i in range(1, shards + 1):
            c.tick(0.6, 1.2)
            el = i * 0.9
            rem = (shards - i) * 0.9
            self.raw(f"({proc} pid={pid}) Loading safetensors checkpoint shards: {100 * i // shards:3d}% Completed "
                     f"| {i}/{shards} [{mmss(el)}<{mmss(rem)},  {1 / 0.9:.2f}it/s]", stream="stderr")
        self.raw(f"({proc} pid={pid}) ", stream="stderr")

    def compile_single(self) -> None:
        c = self.c
        c.tick(4, 8)
        self.e("INFO", "backends.py:548",
               "Using cache directory: /root/.cache/vllm/torch_compile_cache/5a1c09e2b7/rank_0_0/backbone for "
               "vLLM's torch.compile")
        self.e("INFO", "backends.py:559", "Dynamo bytecode transform time: 6.41 s")
        c.tick(10, 20)
        self.e("INFO", "backends.py:197", "Cache the graph for dynamic shape for later use")
        c.tick(10, 14)
        self.e("INFO", "backends.py:218", "Compiling a graph for dynamic shape takes 24.45 s")
        self.e("INFO", "monitor.py:34", "torch.compile takes 30.86 s in total")

    def engine_failed(self, inner: list[str], where: str = "core.py:708", raw_head: list | None = None) -> None:
        """EngineCore logged + raw re-print of a traceback whose tail is `inner` (frames + exception)."""
        S = self.S
        head = frames([
            (S("vllm/v1/engine/core.py"), 699, "run_engine_core", "engine_core = EngineCoreProc(*args, **kwargs)",
             "EngineCoreProc(*args, **kwargs)"),
            (S("vllm/v1/engine/core.py"), 498, "__init__", "super().__init__(vllm_config, executor_class, log_stats,"),
        ])
        self.c.tick(0.05, 0.3)
        self.block("EngineCore_DP0", self.core, "ERROR", where,
                   ["EngineCore failed to start.", "Traceback (most recent call last):"] + head + inner)
        raw = ["Process EngineCore_DP0:", "Traceback (most recent call last):"]
        raw += frames([
            (f"{self.pylib}/multiprocessing/process.py", 314, "_bootstrap", "self.run()"),
            (f"{self.pylib}/multiprocessing/process.py", 108, "run", "self._target(*self._args, **self._kwargs)"),
            (S("vllm/v1/engine/core.py"), 712, "run_engine_core", "raise e"),
        ])
        self.rawblock("EngineCore_DP0", self.core, raw + head + inner)

    def api_failed(self, failed: str = "{}") -> None:
        S, P = self.S, self.pylib
        self.c.tick(0.3, 0.9)
        tb = ["Traceback (most recent call last):"]
        tb += frames([
            (self.bin, 10, "<module>", "sys.exit(main())", "main()"),
            (S("vllm/entrypoints/cli/main.py"), 54, "main", "args.dispatch_function(args)"),
            (S("vllm/entrypoints/cli/serve.py"), 57, "cmd", "uvloop.run(run_server(args))"),
            (S("uvloop/__init__.py"), 109, "run", "return __asyncio.run(", "__asyncio.run("),
            (f"{P}/asyncio/runners.py", 194, "run", "return runner.run(main)", "runner.run(main)"),
            (f"{P}/asyncio/runners.py", 118, "run", "return self._loop.run_until_complete(task)",
             "self._loop.run_until_complete(task)"),
            ("uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete"),
            (S("uvloop/__init__.py"), 61, "wrapper", "return await main", "await main"),
            (S("vllm/entrypoints/openai/api_server.py"), 1884, "run_server",
             "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)"),
            (S("vllm/entrypoints/openai/api_server.py"), 1902, "run_server_worker",
             "async with build_async_engine_client("),
            (f"{P}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)"),
            (S("vllm/entrypoints/openai/api_server.py"), 180, "build_async_engine_client",
             "async with build_async_engine_client_from_engine_args("),
            (f"{P}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)"),
            (S("vllm/entrypoints/openai/api_server.py"), 225, "build_async_engine_client_from_engine_args",
             "async_llm = AsyncLLM.from_vllm_config(", "AsyncLLM.from_vllm_config("),
            (S("vllm/utils/__init__.py"), 1572, "inner", "return fn(*args, **kwargs)", "fn(*args, **kwargs)"),
            (S("vllm/v1/engine/async_llm.py"), 207, "from_vllm_config", "return cls(", "cls("),
            (S("vllm/v1/engine/async_llm.py"), 134, "__init__",
             "self.engine_core = EngineCoreClient.make_async_mp_client(",
             "EngineCoreClient.make_async_mp_client("),
            (S("vllm/v1/engine/core_client.py"), 102, "make_async_mp_client",
             "return AsyncMPClient(*client_args)", "AsyncMPClient(*client_args)"),
            (S("vllm/v1/engine/core_client.py"), 769, "__init__", "super().__init__("),
            (S("vllm/v1/engine/core_client.py"), 448, "__init__",
             "with launch_core_engines(vllm_config, executor_class,"),
            (f"{P}/contextlib.py", 144, "__exit__", "next(self.gen)"),
            (S("vllm/v1/engine/utils.py"), 732, "launch_core_engines", "wait_for_engine_startup("),
            (S("vllm/v1/engine/utils.py"), 785, "wait_for_engine_startup", "raise RuntimeError(\"Engine core initialization failed. \""),
        ])
        tb.append(f"RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {failed}")
        self.rawblock("APIServer", self.api, tb)


# =============================================================================================
# the assets
# =============================================================================================

def systemd_fail(recs: list[Rec], t: dt.datetime, unit: str, cpu: str, counter: int | None,
                 rng: random.Random, how: str = "code=exited, status=1/FAILURE", result: str = "exit-code",
                 desc: str | None = None) -> dt.datetime:
    def sd(msg: str, tt: dt.datetime) -> None:
        recs.append(Rec(tt, msg, ident="systemd", pid=1))
    sd(f"{unit}: Main process exited, {how}", t)
    sd(f"{unit}: Failed with result '{result}'.", t)
    sd(f"{unit}: Consumed {cpu} CPU time.", t)
    if counter is not None:
        t = t + dt.timedelta(seconds=10, milliseconds=rng.randint(20, 300))
        sd(f"{unit}: Scheduled restart job, restart counter is at {counter}.", t)
        sd(f"Stopped {unit} - {desc}." if desc else f"Stopped {unit}.", t)
    return t


def kv_cache_inner(S, max_len: int, need: str, have: str, est: int) -> list[str]:
    tb = frames([
        (S("vllm/v1/engine/core.py"), 92, "__init__", "self._initialize_kv_caches(vllm_config)"),
        (S("vllm/v1/engine/core.py"), 199, "_initialize_kv_caches",
         "kv_cache_configs = get_kv_cache_configs(vllm_config, kv_cache_specs,", "get_kv_cache_configs("),
        (S("vllm/v1/core/kv_cache_utils.py"), 1243, "get_kv_cache_configs",
         "check_enough_kv_cache_memory(vllm_config, kv_cache_spec_one_worker,"),
        (S("vllm/v1/core/kv_cache_utils.py"), 716, "check_enough_kv_cache_memory", "raise ValueError("),
    ])
    tb.append(f"ValueError: To serve at least one request with the models's max seq len ({max_len}), ({need} KV "
              f"cache is needed, which is larger than the available KV cache memory ({have}). Based on the "
              f"available memory, the estimated maximum model length is {est}. Try increasing "
              "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.")
    return tb


def asset_journal_short_kv_cache() -> None:
    rng = random.Random(101)
    host, unit, desc = "infer-03", "vllm-qwen3.service", "vLLM Qwen3-32B"
    model = "Qwen/Qwen3-32B"
    recs: list[Rec] = []
    t = dt.datetime(2025, 11, 30, 6, 2, 11)
    for attempt, api in enumerate([5012, 5398]):
        recs.append(Rec(t, f"Started {unit} - {desc}.", ident="systemd", pid=1))
        c = Clock(t, rng)
        core = api + 181
        wp = [api + 240 + 4 * k for k in range(4)]
        v = V1(c, api, core, wp, jpid=api, version="0.11.0")
        v.api_startup(model, "{'model_tag': 'Qwen/Qwen3-32B', 'host': '0.0.0.0', 'model': 'Qwen/Qwen3-32B', "
                             "'max_model_len': 131072, 'tensor_parallel_size': 4, 'gpu_memory_utilization': 0.9, "
                             "'hf_overrides': {'rope_scaling': {'rope_type': 'yarn', 'factor': 4.0, "
                             "'original_max_position_embeddings': 32768}}}",
                      "Qwen3ForCausalLM", 131072)
        v.core_config(model, 4, 131072)
        v.e("WARNING", "multiproc_executor.py:720",
            "Reducing Torch parallelism from 32 threads to 1 to avoid unnecessary CPU contention. Set "
            "OMP_NUM_THREADS in the external environment to tune this value as needed.")
        c.tick(8, 12)
        for k in range(4):
            c.tick(0, 0.1)
            v.w(k, "INFO", "parallel_state.py:1208",
                f"world_size=4 rank={k} local_rank={k} distributed_init_method=tcp://127.0.0.1:38211 backend=nccl")
        c.tick(1, 2)
        v.w(0, "INFO", "pynccl.py:103", "vLLM is using nccl==2.27.3")
        v.w(0, "WARNING", "custom_all_reduce.py:144",
            "Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence "
            "this warning, specify disable_custom_all_reduce=True explicitly.")
        for k in range(1, 4):
            v.w(k, "WARNING", "custom_all_reduce.py:144",
                "Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To "
                "silence this warning, specify disable_custom_all_reduce=True explicitly.")
        for k in range(4):
            c.tick(0, 0.05)
            v.w(k, "INFO", "parallel_state.py:1394",
                f"rank {k} in world size 4 is assigned as DP rank 0, PP rank 0, TP rank {k}, EP rank {k}")
        v.w(0, "INFO", "gpu_model_runner.py:2602", f"Starting to load model {model}...")
        for k in range(4):
            c.tick(0, 0.05)
            v.w(k, "INFO", "cuda.py:366", "Using Flash Attention backend on V1 engine.")
        v.w(0, "INFO", "weight_utils.py:392", "Using model weights format ['*.safetensors']")
        v.progress("Worker_TP0", wp[0], 9)
        for k in range(4):
            c.tick(0, 0.2)
            v.w(k, "INFO", "gpu_model_runner.py:2653",
                f"Model loading took 15.{rng.randint(2100, 2400)} GiB and {16 + rng.random():.6f} seconds")
        c.tick(20, 30)
        v.w(0, "INFO", "backends.py:548",
            "Using cache directory: /root/.cache/vllm/torch_compile_cache/93e2d1f0aa/rank_0_0/backbone for vLLM's "
            "torch.compile")
        v.w(0, "INFO", "monitor.py:34", "torch.compile takes 41.27 s in total")
        c.tick(2, 4)
        for k in range(4):
            c.tick(0, 0.1)
            v.w(k, "INFO", "gpu_worker.py:298", "Available KV cache memory: 5.38 GiB")
        c.tick(0.1, 0.3)
        v.engine_failed(kv_cache_inner(v.S, 131072, "8.00 GiB", "5.38 GiB", 88128))
        c.tick(0.5, 1)
        for k in range(4):
            c.tick(0, 0.1)
            v.raw(f"[rank{k}]:[W{c.t.strftime('%m%d %H:%M:%S')}.{rng.randint(10**8, 10**9 - 1)} "
                  "ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was not called before "
                  "program exit, which can leak resources. For more info, please see "
                  "https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())", stream="stderr")
        v.api_failed()
        recs += v.recs
        t = c.tick(1, 2)
        t = systemd_fail(recs, t, unit, f"{2 + attempt}min {rng.uniform(1, 59):.3f}s",
                         attempt + 1 if attempt == 0 else None, rng, desc=desc)
        t += dt.timedelta(milliseconds=5)
    write("journal-short.vllm-tp4-kv-cache-insufficient.log", journal_short(recs, host), {
        "key": "KV cache is needed, which is larger than the available KV cache memory (5.38 GiB)",
        "category": "kv_cache_insufficient", "process": "EngineCore_DP0", "rank": None, "attempts": 2,
        "decoys": ["EngineCore failed to start.", "Process EngineCore_DP0:",
                   "Engine core initialization failed. See root cause above",
                   "destroy_process_group() was not called",
                   "Custom allreduce is disabled because it's not supported",
                   "Main process exited, code=exited, status=1/FAILURE"],
        "notes": "journalctl -u (short), vLLM 0.11 TP4; two identical attempts; the ValueError is raised in the "
                 "engine core after the workers report 5.38 GiB each.",
    })


def asset_journal_short_iso_port_in_use() -> None:
    rng = random.Random(102)
    host, unit = "gpu-box", "vllm.service"
    model = "mistralai/Mistral-7B-Instruct-v0.3"
    recs: list[Rec] = []
    t = dt.datetime(2025, 11, 30, 14, 3, 11)
    for attempt, api in enumerate([2231, 2305, 2377]):
        recs.append(Rec(t, f"Started {unit} - vLLM OpenAI-compatible server.", ident="systemd", pid=1))
        c = Clock(t, rng)
        v = V1(c, api, api + 90, jpid=api, version="0.10.2", site="/home/llm/venv/lib/python3.12/site-packages")
        S, P = v.S, v.pylib
        c.tick(4, 6)
        v.raw("INFO 11-30 %s [__init__.py:216] Automatically detected platform cuda." % c.t.strftime("%H:%M:%S"))
        c.tick(2, 3)
        v.a("INFO", "api_server.py:1896", "vLLM API server version 0.10.2")
        v.a("INFO", "utils.py:328", "non-default args: {'model_tag': 'mistralai/Mistral-7B-Instruct-v0.3', "
                                    "'port': 8000, 'model': 'mistralai/Mistral-7B-Instruct-v0.3', "
                                    "'tokenizer_mode': 'mistral', 'max_model_len': 32768}")
        c.tick(0.1, 0.3)
        tb = ["Traceback (most recent call last):"]
        tb += frames([
            ("/home/llm/venv/bin/vllm", 8, "<module>", "sys.exit(main())", "main()"),
            (S("vllm/entrypoints/cli/main.py"), 54, "main", "args.dispatch_function(args)"),
            (S("vllm/entrypoints/cli/serve.py"), 57, "cmd", "uvloop.run(run_server(args))"),
            (S("uvloop/__init__.py"), 109, "run", "return __asyncio.run(", "__asyncio.run("),
            (f"{P}/asyncio/runners.py", 194, "run", "return runner.run(main)", "runner.run(main)"),
            (f"{P}/asyncio/runners.py", 118, "run", "return self._loop.run_until_complete(task)",
             "self._loop.run_until_complete(task)"),
            ("uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete"),
            (S("uvloop/__init__.py"), 61, "wrapper", "return await main", "await main"),
            (S("vllm/entrypoints/openai/api_server.py"), 1941, "run_server",
             "listen_address, sock = setup_server(args)", "setup_server(args)"),
            (S("vllm/entrypoints/openai/api_server.py"), 1922, "setup_server",
             "sock = create_server_socket(sock_addr)", "create_server_socket(sock_addr)"),
            (S("vllm/entrypoints/openai/api_server.py"), 1876, "create_server_socket", "sock.bind(addr)"),
        ])
        tb.append("OSError: [Errno 98] Address already in use")
        v.rawblock("APIServer", api, tb)
        recs += v.recs
        t = c.tick(0.3, 0.6)
        t = systemd_fail(recs, t, unit, f"{rng.uniform(6, 9):.3f}s", attempt + 1 if attempt < 2 else None, rng,
                         desc="vLLM OpenAI-compatible server")
        t += dt.timedelta(milliseconds=3)
    write("journal-short-iso.vllm-port-in-use.log", journal_short_iso(recs, host), {
        "key": "OSError: [Errno 98] Address already in use",
        "category": "port_in_use", "process": "APIServer", "rank": None, "attempts": 3,
        "decoys": ["Main process exited, code=exited, status=1/FAILURE", "Failed with result 'exit-code'"],
        "notes": "journalctl -o short-iso (RFC 3339 with +01:00), vLLM 0.10.2: the API server cannot bind "
                 "port 8000 (another server holds it); three identical attempts.",
    })


def asset_journal_short_precise_oom() -> None:
    rng = random.Random(103)
    host, unit = "ws-4090", "vllm-llama.service"
    model = "meta-llama/Llama-3.1-8B-Instruct"
    recs: list[Rec] = []
    t = dt.datetime(2025, 11, 30, 10, 21, 44, 512093)
    recs.append(Rec(t, f"Started {unit} - vLLM Llama 3.1 8B.", ident="systemd", pid=1))
    c = Clock(t, rng)
    api, core = 7702, 7851
    v = V1(c, api, core, jpid=api, version="0.11.0")
    S = v.S
    v.api_startup(model, "{'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'host': '0.0.0.0', "
                         "'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 16384, "
                         "'gpu_memory_utilization': 0.95, 'max_num_seqs': 1024}", "LlamaForCausalLM", 16384)
    v.core_config(model, 1, 16384)
    v.load_single(model, 4, 14.9889)
    v.compile_single()
    c.tick(0.5, 1)
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity "
           "of 23.53 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.39 GiB "
           "memory in use. Of the allocated memory 21.67 GiB is allocated by PyTorch, and 298.41 MiB is "
           "reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
           "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    first = ["Traceback (most recent call last):"] + frames([
        (S("vllm/v1/worker/gpu_model_runner.py"), 2889, "_dummy_sampler_run",
         "sampler_output = self.sampler(logits=logits,", "self.sampler(logits=logits,"),
        (S("torch/nn/modules/module.py"), 1773, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)",
         "self._call_impl(*args, **kwargs)"),
        (S("torch/nn/modules/module.py"), 1784, "_call_impl", "return forward_call(*args, **kwargs)",
         "forward_call(*args, **kwargs)"),
        (S("vllm/v1/sample/sampler.py"), 93, "forward", "sampled, processed_logprobs = self.sample(logits, sampling_metadata)",
         "self.sample(logits, sampling_metadata)"),
        (S("vllm/v1/sample/sampler.py"), 157, "sample", "random_sampled, processed_logprobs = self.topk_topp_sampler(",
         "self.topk_topp_sampler("),
        (S("vllm/v1/sample/ops/topk_topp_sampler.py"), 104, "forward_native",
         "logits = self.apply_top_k_top_p(logits, k, p)", "self.apply_top_k_top_p(logits, k, p)"),
        (S("vllm/v1/sample/ops/topk_topp_sampler.py"), 213, "apply_top_k_top_p",
         "logits_sort, logits_idx = logits.sort(dim=-1, descending=False)",
         "logits.sort(dim=-1, descending=False)"),
    ]) + [oom, "", "The above exception was the direct cause of the following exception:", "",
          "Traceback (most recent call last):"]
    second = frames([
        (S("vllm/v1/engine/core.py"), 92, "__init__", "self._initialize_kv_caches(vllm_config)"),
        (S("vllm/v1/engine/core.py"), 190, "_initialize_kv_caches",
         "self.model_executor.determine_available_memory())"),
        (S("vllm/v1/executor/abstract.py"), 85, "determine_available_memory",
         "return self.collective_rpc(\"determine_available_memory\")",
         "self.collective_rpc(\"determine_available_memory\")"),
        (S("vllm/executor/uniproc_executor.py"), 83, "collective_rpc",
         "return [run_method(self.driver_worker, method, args, kwargs)]",
         "run_method(self.driver_worker, method, args, kwargs)"),
        (S("vllm/utils/__init__.py"), 3122, "run_method", "return func(*args, **kwargs)", "func(*args, **kwargs)"),
        (S("torch/utils/_contextlib.py"), 120, "decorate_context", "return func(*args, **kwargs)",
         "func(*args, **kwargs)"),
        (S("vllm/v1/worker/gpu_worker.py"), 263, "determine_available_memory", "self.model_runner.profile_run()"),
        (S("vllm/v1/worker/gpu_model_runner.py"), 3019, "profile_run",
         "output = self._dummy_sampler_run(last_hidden_states)", "self._dummy_sampler_run(last_hidden_states)"),
        (S("torch/utils/_contextlib.py"), 120, "decorate_context", "return func(*args, **kwargs)",
         "func(*args, **kwargs)"),
        (S("vllm/v1/worker/gpu_model_runner.py"), 2894, "_dummy_sampler_run", "raise RuntimeError("),
    ]) + ["RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please "
          "try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine."]
    # the engine core logs the whole chain; multiprocessing then prints it raw
    c.tick(0.05, 0.2)
    v.block("EngineCore_DP0", core, "ERROR", "core.py:708", ["EngineCore failed to start."] + first +
            frames([(S("vllm/v1/engine/core.py"), 699, "run_engine_core",
                     "engine_core = EngineCoreProc(*args, **kwargs)", "EngineCoreProc(*args, **kwargs)"),
                    (S("vllm/v1/engine/core.py"), 498, "__init__",
                     "super().__init__(vllm_config, executor_class, log_stats,")]) + second)
    v.rawblock("EngineCore_DP0", core, ["Process EngineCore_DP0:"] + first + frames([
        (f"{PY312}/multiprocessing/process.py", 314, "_bootstrap", "self.run()"),
        (f"{PY312}/multiprocessing/process.py", 108, "run", "self._target(*self._args, **self._kwargs)"),
        (S("vllm/v1/engine/core.py"), 712, "run_engine_core", "raise e"),
        (S("vllm/v1/engine/core.py"), 699, "run_engine_core",
         "engine_core = EngineCoreProc(*args, **kwargs)", "EngineCoreProc(*args, **kwargs)"),
        (S("vllm/v1/engine/core.py"), 498, "__init__", "super().__init__(vllm_config, executor_class, log_stats,"),
    ]) + second)
    v.raw(f"[rank0]:[W{c.t.strftime('%m%d %H:%M:%S')}.518337102 ProcessGroupNCCL.cpp:1538] Warning: WARNING: "
          "destroy_process_group() was not called before program exit, which can leak resources. For more info, "
          "please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())",
          stream="stderr")
    v.api_failed()
    recs += v.recs
    t = c.tick(1, 1.5)
    systemd_fail(recs, t, unit, "1min 12.004s", None, rng)
    write("journal-short-precise.vllm-cuda-oom-sampler-warmup.log", journal_short_precise(recs, host), {
        "key": "CUDA out of memory",
        "category": "gpu_oom", "process": "EngineCore_DP0", "rank": None, "attempts": 1,
        "decoys": ["EngineCore failed to start.", "Engine core initialization failed. See root cause above",
                   "destroy_process_group() was not called"],
        "notes": "journalctl -o short-precise (microseconds). Single GPU 24 GB, max_num_seqs=1024: "
                 "torch.OutOfMemoryError while warming up the sampler, re-raised by vLLM as a RuntimeError "
                 "(`raise ... from e`, 'direct cause'). Either line of the chain names the cause.",
    })


def asset_journal_cat_abi() -> None:
    rng = random.Random(104)
    unit = "vllm.service"
    model = "Qwen/Qwen2.5-14B-Instruct"
    site = "/opt/vllm/lib/python3.12/site-packages"
    recs: list[Rec] = []
    t = dt.datetime(2025, 8, 21, 16, 40, 2)
    recs.append(Rec(t, f"Started {unit} - vLLM.", ident="systemd", pid=1))
    c = Clock(t, rng)
    api, core = 31150, 31388
    v = V1(c, api, core, jpid=api, version="0.10.1.1", site=site)
    S = v.S
    sym = ("ImportError('/opt/vllm/lib/python3.12/site-packages/vllm/_C.abi3.so: undefined symbol: "
           "_ZN3c1013MessageLoggerC1EPKciib')")
    c.tick(3, 5)
    v.raw(f"INFO 08-21 {c.t.strftime('%H:%M:%S')} [__init__.py:241] Automatically detected platform cuda.")
    v.raw(f"WARNING 08-21 {c.t.strftime('%H:%M:%S')} [_custom_ops.py:20] Failed to import from vllm._C with {sym}")
    c.tick(2, 3)
    v.a("INFO", "api_server.py:1805", "vLLM API server version 0.10.1.1")
    v.a("INFO", "utils.py:326", "non-default args: {'model_tag': 'Qwen/Qwen2.5-14B-Instruct', 'model': "
                                "'Qwen/Qwen2.5-14B-Instruct', 'max_model_len': 32768}")
    v.a("INFO", "__init__.py:711", "Resolved architecture: Qwen2ForCausalLM")
    v.a("INFO", "__init__.py:1750", "Using max model len 32768")
    v.a("INFO", "config.py:2502", "Chunked prefill is enabled with max_num_batched_tokens=8192.")
    c.tick(5, 7)
    p = "EngineCore_0"
    v.raw(f"INFO 08-21 {c.t.strftime('%H:%M:%S')} [__init__.py:241] Automatically detected platform cuda.")
    v.raw(f"WARNING 08-21 {c.t.strftime('%H:%M:%S')} [_custom_ops.py:20] Failed to import from vllm._C with {sym}")
    c.tick(1, 2)
    v.log(p, core, "INFO", "core.py:636", "Waiting for init message from front-end.")
    v.log(p, core, "INFO", "core.py:74", f"Initializing a V1 LLM engine (v0.10.1.1) with config: model='{model}', "
                                         "speculative_config=None, tokenizer='Qwen/Qwen2.5-14B-Instruct', "
                                         "dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, "
                                         "quantization=None, enforce_eager=False, kv_cache_dtype=auto")
    v.log(p, core, "INFO", "parallel_state.py:1134",
          "rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0")
    v.log(p, core, "INFO", "gpu_model_runner.py:1953", f"Starting to load model {model}...")
    v.log(p, core, "INFO", "gpu_model_runner.py:1985", "Loading model from scratch...")
    v.log(p, core, "INFO", "cuda.py:328", "Using Flash Attention backend on V1 engine.")
    v.log(p, core, "INFO", "weight_utils.py:296", "Using model weights format ['*.safetensors']")
    v.progress(p, core, 8)
    v.log(p, core, "INFO", "default_loader.py:262", "Loading weights took 7.91 seconds")
    v.log(p, core, "INFO", "gpu_model_runner.py:2007", "Model loading took 27.7071 GiB and 8.802133 seconds")
    c.tick(3, 5)
    v.log(p, core, "INFO", "backends.py:548",
          "Using cache directory: /root/.cache/vllm/torch_compile_cache/0b7f6e1c2d/rank_0_0/backbone for vLLM's "
          "torch.compile")
    v.log(p, core, "INFO", "backends.py:559", "Dynamo bytecode transform time: 5.88 s")
    c.tick(1, 2)
    inner = frames([
        (S("vllm/v1/engine/core.py"), 83, "__init__",
         "self._initialize_kv_caches(vllm_config)"),
        (S("vllm/v1/engine/core.py"), 141, "_initialize_kv_caches",
         "available_gpu_memory = self.model_executor.determine_available_memory()",
         "self.model_executor.determine_available_memory()"),
        (S("vllm/v1/executor/abstract.py"), 84, "determine_available_memory",
         "return self.collective_rpc(\"determine_available_memory\")", "self.collective_rpc(\"determine_available_memory\")"),
        (S("vllm/executor/uniproc_executor.py"), 58, "collective_rpc",
         "answer = run_method(self.driver_worker, method, args, kwargs)",
         "run_method(self.driver_worker, method, args, kwargs)"),
        (S("vllm/utils/__init__.py"), 3007, "run_method", "return func(*args, **kwargs)", "func(*args, **kwargs)"),
        (S("vllm/v1/worker/gpu_worker.py"), 243, "determine_available_memory", "self.model_runner.profile_run()"),
        (S("vllm/v1/worker/gpu_model_runner.py"), 2621, "profile_run",
         "= self._dummy_run(self.max_num_tokens, is_profile=True)",
         "self._dummy_run(self.max_num_tokens, is_profile=True)"),
        (S("vllm/v1/worker/gpu_model_runner.py"), 2395, "_dummy_run", "outputs = self.model(", "self.model("),
        (S("vllm/compilation/cuda_graph.py"), 121, "__call__", "return self.runnable(*args, **kwargs)",
         "self.runnable(*args, **kwargs)"),
        (S("vllm/model_executor/models/qwen2.py"), 497, "forward", "hidden_states = self.model(input_ids, positions, intermediate_tensors,",
         "self.model(input_ids, positions, intermediate_tensors,"),
        (S("vllm/compilation/decorators.py"), 305, "__call__", "output = self.compiled_callable(*args, **kwargs)",
         "self.compiled_callable(*args, **kwargs)"),
        (S("torch/_dynamo/eval_frame.py"), 375, "__call__", "return super().__call__(*args, **kwargs)",
         "super().__call__(*args, **kwargs)"),
        (S("vllm/model_executor/models/qwen2.py"), 336, "forward", "hidden_states = self.norm(hidden_states)"),
        (S("vllm/model_executor/layers/layernorm.py"), 21, "rms_norm", "ops.rms_norm(out, x, weight, variance_epsilon)"),
        (S("vllm/_custom_ops.py"), 279, "rms_norm", "torch.ops._C.rms_norm(out, input, weight, epsilon)"),
        (S("torch/_ops.py"), 1353, "__getattr__", "raise AttributeError("),
    ]) + ["AttributeError: '_OpNamespace' '_C' object has no attribute 'rms_norm'"]
    head = frames([(S("vllm/v1/engine/core.py"), 691, "run_engine_core",
                    "engine_core = EngineCoreProc(*args, **kwargs)", "EngineCoreProc(*args, **kwargs)"),
                   (S("vllm/v1/engine/core.py"), 492, "__init__",
                    "super().__init__(vllm_config, executor_class, log_stats,")])
    v.block(p, core, "ERROR", "core.py:700", ["EngineCore failed to start.", "Traceback (most recent call last):"]
            + head + inner)
    v.rawblock(p, core, ["Process EngineCore_0:", "Traceback (most recent call last):"] + frames([
        (f"{PY312}/multiprocessing/process.py", 314, "_bootstrap", "self.run()"),
        (f"{PY312}/multiprocessing/process.py", 108, "run", "self._target(*self._args, **self._kwargs)"),
        (S("vllm/v1/engine/core.py"), 704, "run_engine_core", "raise e")]) + head + inner)
    v.bin = "/opt/vllm/bin/vllm"
    v.api_failed()
    recs += v.recs
    t = c.tick(1, 2)
    systemd_fail(recs, t, unit, "41.237s", None, rng)
    write("journal-cat.vllm-undefined-symbol-after-torch-upgrade.log", journal_cat(recs), {
        "key": "_C.abi3.so: undefined symbol: _ZN3c1013MessageLoggerC1EPKciib",
        "category": "abi_mismatch", "process": None, "rank": None, "attempts": 1,
        "decoys": ["'_OpNamespace' '_C' object has no attribute 'rms_norm'", "EngineCore failed to start.",
                   "Engine core initialization failed. See root cause above", "Process EngineCore_0:"],
        "notes": "journalctl -o cat (messages only: no timestamps, host or identifier; systemd's lines look like "
                 "the service's own). vLLM 0.10.1.1 after `pip install -U torch`: vllm._C no longer loads "
                 "(logged only as a WARNING at import, once per process), and the first custom op used in the "
                 "engine core fails much later with an AttributeError that is a consequence. process is not "
                 "asserted: the warning is printed unprefixed, by the API server and the engine core.",
    })


SD_MSGID = {
    "Started": "39f53479d3a045ac8e11786248231fbf",
    "Main process exited": "98e322203f7a4ed290d09fe03c09fe15",
    "Failed with result": "d9b373ed55a64feb8242e02dbe79a49c",
    "Consumed": "ae8f7b866b0347b9af31fe1c80b127c0",
    "Scheduled restart": "5eb03494b6584870a536b337290809b3",
    "Stopped": "9d1aaa27d60140bd96365438aad20286",
}


def journal_json(recs: list[Rec], host: str, rng: random.Random, boot_mono_start: dt.datetime) -> str:
    """journalctl -o json: one object per line, fields as journald stores them (all values strings,
    binary / non-UTF-8 values as arrays of byte values, values over 4096 bytes as null)."""
    seqnum_id = "%032x" % rng.getrandbits(128)
    boot_id = "%032x" % rng.getrandbits(128)
    machine_id = "%032x" % rng.getrandbits(128)
    seq = rng.randint(2_000_000, 3_000_000)
    streams: dict[tuple, str] = {}
    out = []
    for r in recs:
        seq += rng.randint(1, 4)
        rt = int(r.t.replace(tzinfo=UTC).timestamp() * 1_000_000) + rng.randint(0, 999)
        mono = int((r.t - boot_mono_start).total_seconds() * 1_000_000) + rng.randint(0, 999)
        cursor = (f"s={seqnum_id};i={seq:x};b={boot_id};m={mono:x};t={rt:x};x={rng.getrandbits(64):016x}")
        o: dict = {"__CURSOR": cursor, "__REALTIME_TIMESTAMP": str(rt), "__MONOTONIC_TIMESTAMP": str(mono),
                   "__SEQNUM": str(seq), "__SEQNUM_ID": seqnum_id, "_BOOT_ID": boot_id}
        if r.ident == "systemd":
            kind = next((k for k in SD_MSGID if r.text.startswith(k) or f": {k}" in r.text), None)
            prio = "4" if "Failed with result" in r.text else ("5" if "Main process exited" in r.text else "6")
            o.update({"PRIORITY": prio, "SYSLOG_FACILITY": "3", "_UID": "0", "_GID": "0", "_MACHINE_ID": machine_id,
                      "_HOSTNAME": host, "SYSLOG_IDENTIFIER": "systemd", "_TRANSPORT": "journal", "_PID": "1",
                      "_COMM": "systemd", "_EXE": "/usr/lib/systemd/systemd",
                      "_CMDLINE": "/sbin/init splash", "_SYSTEMD_CGROUP": "/init.scope", "_SYSTEMD_UNIT": "init.scope",
                      "_SYSTEMD_SLICE": "-.slice", "CODE_FILE": "src/core/unit.c", "CODE_LINE": "5836",
                      "CODE_FUNC": "unit_log_success" if kind == "Started" else "unit_log_failure",
                      "UNIT": r.unit or "vllm.service", "INVOCATION_ID": r.invocation or ""})
            if kind:
                o["MESSAGE_ID"] = SD_MSGID[kind]
            o["MESSAGE"] = r.text
        else:
            key = (r.ident, r.pid, r.stream, r.invocation)
            if key not in streams:
                streams[key] = "%032x" % rng.getrandbits(128)
            comm = r.extra.get("comm", "vllm")
            o.update({"PRIORITY": "6", "SYSLOG_FACILITY": "3", "_UID": "998", "_GID": "998",
                      "_CAP_EFFECTIVE": "0", "_SELINUX_CONTEXT": "unconfined\n", "_MACHINE_ID": machine_id,
                      "_HOSTNAME": host, "_TRANSPORT": "stdout", "_STREAM_ID": streams[key],
                      "SYSLOG_IDENTIFIER": r.ident, "_PID": str(r.pid), "_COMM": comm,
                      "_EXE": r.extra.get("exe", "/usr/bin/python3.12"),
                      "_CMDLINE": r.extra.get("cmdline", "/opt/vllm/.venv/bin/python3 /opt/vllm/.venv/bin/vllm serve "
                                                         "Qwen/Qwen2.5-7B-Instruct --port 8000"),
                      "_SYSTEMD_CGROUP": f"/system.slice/{r.unit}", "_SYSTEMD_UNIT": r.unit,
                      "_SYSTEMD_SLICE": "system.slice", "_SYSTEMD_INVOCATION_ID": r.invocation})
            raw = r.extra.get("raw_bytes")
            if raw is not None:
                o["MESSAGE"] = list(raw)
            elif len(r.text.encode()) > 4096 or r.extra.get("oversize"):
                o["MESSAGE"] = None
            else:
                o["MESSAGE"] = r.text
        out.append(json.dumps(o, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + "\n"


def asset_journal_json_readonly_fs() -> None:
    rng = random.Random(105)
    host, unit = "gpu-node-12", "vllm.service"
    model = "Qwen/Qwen2.5-7B-Instruct"
    recs: list[Rec] = []
    t = dt.datetime(2025, 11, 30, 8, 14, 2, 118000)
    boot = t - dt.timedelta(days=3, hours=2, minutes=11)
    for attempt, (api, pre) in enumerate([(4121, 4117), (4410, 4406)]):
        inv = "%032x" % rng.getrandbits(128)
        # ExecStartPre= script, saved in Latin-1: its echo is not valid UTF-8
        text = "Modèle prêt dans le cache : /var/lib/vllm/.cache/huggingface/hub/models--Qwen--Qwen2.5-7B-Instruct"
        recs.append(Rec(t, text, ident="vllm-prestart.sh", pid=pre, unit=unit, invocation=inv,
                        extra={"raw_bytes": text.encode("latin-1"), "comm": "vllm-prestart.s", "exe": "/usr/bin/bash",
                               "cmdline": "/bin/bash /usr/local/bin/vllm-prestart.sh"}))
        t += dt.timedelta(milliseconds=rng.randint(30, 80))
        recs.append(Rec(t, f"Started {unit} - vLLM (Qwen2.5-7B-Instruct).", ident="systemd", pid=1, unit=unit,
                        invocation=inv))
        c = Clock(t, rng)
        core = api + 151
        v = V1(c, api, core, jpid=api, version="0.11.0", unit=unit, invocation=inv)
        S = v.S
        v.api_startup(model, "{'model_tag': 'Qwen/Qwen2.5-7B-Instruct', 'port': 8000, 'model': "
                             "'Qwen/Qwen2.5-7B-Instruct', 'max_model_len': 32768}", "Qwen2ForCausalLM", 32768)
        n_api = len(v.recs)
        v.jpid = core
        v.core_config(model, 1, 32768)
        # with the full speculative/kv-transfer/compilation dump this line is ~5 kB in the real journal
        for r in v.recs:
            if "Initializing a V1 LLM engine" in r.text:
                r.extra["oversize"] = True
        v.load_single(model, 4, 14.2488)
        c.tick(1, 2)
        inner = frames([
            (S("vllm/v1/engine/core.py"), 92, "__init__", "self._initialize_kv_caches(vllm_config)"),
            (S("vllm/v1/engine/core.py"), 190, "_initialize_kv_caches",
             "self.model_executor.determine_available_memory())"),
            (S("vllm/v1/executor/abstract.py"), 85, "determine_available_memory",
             "return self.collective_rpc(\"determine_available_memory\")",
             "self.collective_rpc(\"determine_available_memory\")"),
            (S("vllm/executor/uniproc_executor.py"), 83, "collective_rpc",
             "return [run_method(self.driver_worker, method, args, kwargs)]",
             "run_method(self.driver_worker, method, args, kwargs)"),
            (S("vllm/utils/__init__.py"), 3122, "run_method", "return func(*args, **kwargs)", "func(*args, **kwargs)"),
            (S("vllm/v1/worker/gpu_worker.py"), 263, "determine_available_memory", "self.model_runner.profile_run()"),
            (S("vllm/v1/worker/gpu_model_runner.py"), 3017, "profile_run",
             "= self._dummy_run(self.max_num_tokens, is_profile=True)",
             "self._dummy_run(self.max_num_tokens, is_profile=True)"),
            (S("vllm/v1/worker/gpu_model_runner.py"), 2775, "_dummy_run", "outputs = self.model(", "self.model("),
            (S("vllm/compilation/decorators.py"), 310, "__call__", "output = self.compiled_callable(*args, **kwargs)",
             "self.compiled_callable(*args, **kwargs)"),
            (S("torch/_dynamo/eval_frame.py"), 375, "__call__", "return super().__call__(*args, **kwargs)",
             "super().__call__(*args, **kwargs)"),
            (S("torch/_dynamo/backends/common.py"), 72, "__call__", "cg = aot_module_simplified(gm, example_inputs, **self.kwargs)",
             "aot_module_simplified(gm, example_inputs, **self.kwargs)"),
            (S("vllm/compilation/backends.py"), 544, "__call__", "os.makedirs(cache_dir, exist_ok=True)"),
            ("<frozen os>", 215, "makedirs"),
            ("<frozen os>", 215, "makedirs"),
            ("<frozen os>", 225, "makedirs"),
        ]) + ["OSError: [Errno 30] Read-only file system: '/var/lib/vllm/.cache/vllm'"]
        v.engine_failed(inner)
        v.jpid = api
        v.api_failed()
        for r in v.recs[:n_api]:
            r.pid = api
        recs += v.recs
        t = c.tick(1, 2)
        before = len(recs)
        t = systemd_fail(recs, t, unit, f"{31 + attempt}.{rng.randint(100, 999)}s", 1 if attempt == 0 else None, rng,
                         desc="vLLM (Qwen2.5-7B-Instruct)")
        for r in recs[before:]:
            r.unit, r.invocation = unit, inv
        t += dt.timedelta(milliseconds=rng.randint(10, 40))
    write("journal-json.vllm-readonly-fs-protectsystem.json", journal_json(recs, host, rng, boot), {
        "key": "[Errno 30] Read-only file system: '/var/lib/vllm/.cache/vllm'",
        "category": "filesystem_permissions", "process": "EngineCore_DP0", "rank": None, "attempts": 2,
        "decoys": ["EngineCore failed to start.", "Engine core initialization failed. See root cause above",
                   "Process EngineCore_DP0:"],
        "notes": "journalctl -u vllm -o json: one JSON object per line with real journald fields (__CURSOR, "
                 "__REALTIME_TIMESTAMP, _HOSTNAME, SYSLOG_IDENTIFIER, _PID, _SYSTEMD_UNIT, "
                 "_SYSTEMD_INVOCATION_ID, MESSAGE ...). Two invocations (new _SYSTEMD_INVOCATION_ID each). "
                 "The ExecStartPre= script's line is Latin-1, so its MESSAGE is an array of byte values; the "
                 "engine's 'Initializing a V1 LLM engine' config line is over 4096 bytes, so its MESSAGE is "
                 "null (journalctl without --all). Engine-core lines carry the child's own _PID. The unit "
                 "runs with ProtectSystem=strict and the torch.compile cache dir is not in ReadWritePaths=.",
    })


def worker_head(S) -> list[str]:
    return frames([
        (S("vllm/v1/executor/multiproc_executor.py"), 645, "worker_main", "worker = WorkerProc(*args, **kwargs)",
         "WorkerProc(*args, **kwargs)"),
        (S("vllm/v1/executor/multiproc_executor.py"), 487, "__init__", "self.worker.init_device()"),
        (S("vllm/worker/worker_base.py"), 611, "init_device", "self.worker.init_device()  # type: ignore",
         "self.worker.init_device()"),
    ])


def asset_docker_ts_free_memory() -> None:
    rng = random.Random(106)
    model = "Qwen/Qwen2.5-72B-Instruct-AWQ"
    t = dt.datetime(2025, 11, 30, 12, 40, 1, 204113)
    c = Clock(t, rng)
    v = V1(c, 1, 143, [187, 188], jpid=1, version="0.11.0", site="/usr/local/lib/python3.12/dist-packages",
           pylib="/usr/lib/python3.12")
    S = v.S
    c.tick(2, 3)
    v.raw(f"INFO 11-30 {c.t.strftime('%H:%M:%S')} [__init__.py:216] Automatically detected platform cuda.")
    v.api_startup(model, "{'model_tag': 'Qwen/Qwen2.5-72B-Instruct-AWQ', 'host': '0.0.0.0', 'model': "
                         "'Qwen/Qwen2.5-72B-Instruct-AWQ', 'max_model_len': 32768, 'tensor_parallel_size': 2, "
                         "'gpu_memory_utilization': 0.9}", "Qwen2ForCausalLM", 32768)
    v.a("INFO", "awq_marlin.py:117", "The model is convertible to awq_marlin during runtime. Using awq_marlin kernel.")
    v.core_config(model, 2, 32768)
    v.e("WARNING", "multiproc_executor.py:720",
        "Reducing Torch parallelism from 48 threads to 1 to avoid unnecessary CPU contention. Set OMP_NUM_THREADS "
        "in the external environment to tune this value as needed.")
    v.e("INFO", "shm_broadcast.py:289",
        "vLLM message queue communication handle: Handle(local_reader_ranks=[0, 1], buffer_handle=(2, 16777216, 10, "
        "'psm_2d8e11ab'), local_subscribe_addr='ipc:///tmp/7c1f3e55-9a40-4a8b-a2f1-0f2de7b6a1c9', "
        "remote_subscribe_addr=None, remote_addr_ipv6=False)")
    c.tick(6, 9)
    v.w(0, "INFO", "parallel_state.py:1208",
        "world_size=2 rank=0 local_rank=0 distributed_init_method=tcp://127.0.0.1:59231 backend=nccl")
    c.tick(0.1, 0.3)
    v.w(1, "INFO", "parallel_state.py:1208",
        "world_size=2 rank=1 local_rank=1 distributed_init_method=tcp://127.0.0.1:59231 backend=nccl")
    c.tick(0.2, 0.4)
    err_t = c.t
    tb = ["WorkerProc failed to start.", "Traceback (most recent call last):"] + worker_head(S) + frames([
        (S("vllm/v1/worker/gpu_worker.py"), 210, "init_device", "raise ValueError("),
    ]) + ["ValueError: Free memory on device (31.44/79.19 GiB) on startup is less than desired GPU memory "
          "utilization (0.9, 71.27 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
          "processes."]
    v.block("Worker_TP1", 188, "ERROR", "multiproc_executor.py:671", tb)
    c.tick(0.1, 0.3)
    v.w(0, "INFO", "pynccl.py:103", "vLLM is using nccl==2.27.3")
    c.tick(4.9, 5.1)
    v.e("INFO", "multiproc_executor.py:558", "[shutdown] Executor: waiting for worker exit count=2")
    v.e("WARNING", "multiproc_executor.py:570",
        "[shutdown] Executor: workers still running after grace period; sending SIGTERM count=1")
    c.tick(0.05, 0.1)
    v.w(0, "INFO", "multiproc_executor.py:546", "Parent process exited, terminating worker")
    inner = frames([
        (S("vllm/v1/engine/core.py"), 83, "__init__", "self.model_executor = executor_class(vllm_config)",
         "executor_class(vllm_config)"),
        (S("vllm/executor/executor_base.py"), 54, "__init__", "self._init_executor()"),
        (S("vllm/v1/executor/multiproc_executor.py"), 106, "_init_executor",
         "self.workers = WorkerProc.wait_for_ready(unready_workers)", "WorkerProc.wait_for_ready(unready_workers)"),
        (S("vllm/v1/executor/multiproc_executor.py"), 509, "wait_for_ready", "raise e from None"),
    ]) + ["Exception: WorkerProc initialization failed due to an exception in a background process. See stack "
          "trace for root cause."]
    v.engine_failed(inner)
    v.raw(f"[rank0]:[W{c.t.strftime('%m%d %H:%M:%S')}.301887204 ProcessGroupNCCL.cpp:1538] Warning: WARNING: "
          "destroy_process_group() was not called before program exit, which can leak resources. For more info, "
          "please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())",
          stream="stderr")
    v.api_failed()
    # docker logs -t merges the two streams: stderr lines (raw tracebacks, tqdm) can carry timestamps a
    # little earlier than stdout lines printed just before them
    out = []
    prev = None
    for r in v.recs:
        tt = r.t
        if r.stream == "stderr" and prev is not None and rng.random() < 0.25:
            tt = prev - dt.timedelta(microseconds=rng.randint(50, 400))
        else:
            tt = max(tt, prev + dt.timedelta(microseconds=rng.randint(5, 90))) if prev else tt
            prev = tt
        out.append(f"{rfc3339nano(tt, rng)} {r.text}")
    _ = err_t
    write("docker-timestamps.vllm-tp2-gpu1-memory-held-by-other-process.log", "\n".join(out) + "\n", {
        "key": "Free memory on device (31.44/79.19 GiB) on startup is less than desired GPU memory utilization",
        "category": "gpu_unavailable", "process": "Worker_TP1", "rank": 1, "attempts": 1,
        "decoys": ["WorkerProc failed to start.", "EngineCore failed to start.",
                   "Exception: WorkerProc initialization failed due to an exception in a background process",
                   "Engine core initialization failed. See root cause above", "Process EngineCore_DP0:",
                   "destroy_process_group() was not called", "Parent process exited, terminating worker"],
        "notes": "docker logs --timestamps (RFC 3339 nanoseconds before the app's own prefix); stderr lines are "
                 "sometimes stamped slightly earlier than the stdout line above them (docker merges two "
                 "streams). Only GPU 1 is busy (another container holds 48 GiB), so only Worker_TP1 fails.",
    })


def asset_kubectl_heads_not_divisible() -> None:
    rng = random.Random(107)
    model = "Qwen/Qwen2.5-7B-Instruct"
    t = dt.datetime(2025, 11, 30, 15, 0, 12)
    c = Clock(t, rng)
    v = V1(c, 1, 0, jpid=1, version="0.11.0", site="/usr/local/lib/python3.12/dist-packages")
    S, P = v.S, v.pylib
    c.tick(2, 3)
    v.raw(f"INFO 11-30 {c.t.strftime('%H:%M:%S')} [__init__.py:216] Automatically detected platform cuda.")
    c.tick(2, 3)
    v.a("INFO", "api_server.py:1839", "vLLM API server version 0.11.0")
    v.a("INFO", "utils.py:233", "non-default args: {'model_tag': 'Qwen/Qwen2.5-7B-Instruct', 'host': '0.0.0.0', "
                                "'model': 'Qwen/Qwen2.5-7B-Instruct', 'served_model_name': ['qwen'], "
                                "'tensor_parallel_size': 8, 'enable_prefix_caching': True}")
    c.tick(1, 2)
    v.a("INFO", "model.py:547", "Resolved architecture: Qwen2ForCausalLM")
    v.raw("(APIServer pid=1) `torch_dtype` is deprecated! Use `dtype` instead!")
    v.a("INFO", "model.py:1510", "Using max model len 32768")
    v.a("INFO", "scheduler.py:205", "Chunked prefill is enabled with max_num_batched_tokens=2048.")
    tb = ["Traceback (most recent call last):"] + frames([
        ("/usr/local/bin/vllm", 10, "<module>", "sys.exit(main())", "main()"),
        (S("vllm/entrypoints/cli/main.py"), 54, "main", "args.dispatch_function(args)"),
        (S("vllm/entrypoints/cli/serve.py"), 57, "cmd", "uvloop.run(run_server(args))"),
        (S("uvloop/__init__.py"), 109, "run", "return __asyncio.run(", "__asyncio.run("),
        (f"{P}/asyncio/runners.py", 194, "run", "return runner.run(main)", "runner.run(main)"),
        (f"{P}/asyncio/runners.py", 118, "run", "return self._loop.run_until_complete(task)",
         "self._loop.run_until_complete(task)"),
        ("uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete"),
        (S("uvloop/__init__.py"), 61, "wrapper", "return await main", "await main"),
        (S("vllm/entrypoints/openai/api_server.py"), 1884, "run_server",
         "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)"),
        (S("vllm/entrypoints/openai/api_server.py"), 1902, "run_server_worker",
         "async with build_async_engine_client("),
        (f"{P}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)"),
        (S("vllm/entrypoints/openai/api_server.py"), 180, "build_async_engine_client",
         "async with build_async_engine_client_from_engine_args("),
        (f"{P}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)"),
        (S("vllm/entrypoints/openai/api_server.py"), 206, "build_async_engine_client_from_engine_args",
         "vllm_config = engine_args.create_engine_config(usage_context=usage_context)",
         "engine_args.create_engine_config(usage_context=usage_context)"),
        (S("vllm/engine/arg_utils.py"), 1557, "create_engine_config", "config = VllmConfig(", "VllmConfig("),
        (S("pydantic/_internal/_dataclasses.py"), 123, "__init__",
         "s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), self_instance=s)"),
    ]) + ["pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig",
          "  Value error, Total number of attention heads (28) must be divisible by tensor parallel size (8). "
          "[type=value_error, input_value=ArgsKwargs((), {'model_co...transfer_config': None}), input_type=ArgsKwargs]",
          "    For further information visit https://errors.pydantic.dev/2.11/v/value_error"]
    v.rawblock("APIServer", 1, tb)
    write("kubectl.vllm-tp8-attention-heads-not-divisible.log", plain(v.recs), {
        "key": "Total number of attention heads (28) must be divisible by tensor parallel size (8)",
        "category": "cli_config_error", "process": "APIServer", "rank": None, "attempts": None,
        "decoys": ["For further information visit https://errors.pydantic.dev"],
        "notes": "kubectl logs --previous (no outer prefix; pid=1 inside the pod). The real message is not on "
                 "the exception line: pydantic's `ValidationError: 1 validation error for VllmConfig` is "
                 "followed by an indented `Value error, ...` line that carries it.",
    })


def asset_compose_no_gpu_runtime() -> None:
    rng = random.Random(108)
    t = dt.datetime(2025, 11, 30, 8, 2, 9, 11000)
    c = Clock(t, rng)
    v = V1(c, 1, 0, jpid=1, version="0.10.2", site="/usr/local/lib/python3.12/dist-packages")
    S, P = v.S, v.pylib
    lines: list[tuple[str, str]] = []   # (service, text)
    lines.append(("", "Attaching to open-webui-1, vllm-1"))
    c.tick(1, 2)
    v.raw(f"WARNING 11-30 {c.t.strftime('%H:%M:%S')} [__init__.py:236] No platform detected, vLLM is running on "
          "UnspecifiedPlatform")
    c.tick(2, 3)
    v.a("INFO", "api_server.py:1896", "vLLM API server version 0.10.2")
    v.a("INFO", "utils.py:328", "non-default args: {'model_tag': '/models/Llama-3.2-3B-Instruct', 'host': "
                                "'0.0.0.0', 'model': '/models/Llama-3.2-3B-Instruct', 'max_model_len': 8192, "
                                "'served_model_name': ['llama-3b']}")
    c.tick(1, 2)
    v.a("INFO", "__init__.py:742", "Resolved architecture: LlamaForCausalLM")
    v.a("INFO", "__init__.py:1815", "Using max model len 8192")
    tb = ["Traceback (most recent call last):"] + frames([
        ("/usr/local/bin/vllm", 10, "<module>", "sys.exit(main())", "main()"),
        (S("vllm/entrypoints/cli/main.py"), 54, "main", "args.dispatch_function(args)"),
        (S("vllm/entrypoints/cli/serve.py"), 57, "cmd", "uvloop.run(run_server(args))"),
        (S("uvloop/__init__.py"), 109, "run", "return __asyncio.run(", "__asyncio.run("),
        (f"{P}/asyncio/runners.py", 194, "run", "return runner.run(main)", "runner.run(main)"),
        (f"{P}/asyncio/runners.py", 118, "run", "return self._loop.run_until_complete(task)",
         "self._loop.run_until_complete(task)"),
        ("uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete"),
        (S("uvloop/__init__.py"), 61, "wrapper", "return await main", "await main"),
        (S("vllm/entrypoints/openai/api_server.py"), 1941, "run_server",
         "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)"),
        (S("vllm/entrypoints/openai/api_server.py"), 1961, "run_server_worker",
         "async with build_async_engine_client("),
        (f"{P}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)"),
        (S("vllm/entrypoints/openai/api_server.py"), 179, "build_async_engine_client",
         "async with build_async_engine_client_from_engine_args("),
        (f"{P}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)"),
        (S("vllm/entrypoints/openai/api_server.py"), 205, "build_async_engine_client_from_engine_args",
         "vllm_config = engine_args.create_engine_config(usage_context=usage_context)",
         "engine_args.create_engine_config(usage_context=usage_context)"),
        (S("vllm/engine/arg_utils.py"), 1119, "create_engine_config",
         "device_config = DeviceConfig(", "DeviceConfig("),
        (S("pydantic/_internal/_dataclasses.py"), 123, "__init__",
         "s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), self_instance=s)"),
        (S("vllm/config/device.py"), 58, "__post_init__", "raise RuntimeError(\"Failed to infer device type\")"),
    ]) + ["RuntimeError: Failed to infer device type"]
    v.rawblock("APIServer", 1, tb)
    webui = [
        "Loading WEBUI_SECRET_KEY from file, not provided as an environment variable.",
        "Loading WEBUI_SECRET_KEY from /app/backend/.webui_secret_key",
        "/app/backend/open_webui",
        "/app/backend",
        "/app",
        "INFO  [alembic.runtime.migration] Context impl SQLiteImpl.",
        "INFO  [alembic.runtime.migration] Will assume non-transactional DDL.",
        "INFO  [open_webui.env] 'ENABLE_OPENAI_API' loaded from the latest database entry",
        "INFO  [open_webui.env] 'OPENAI_API_BASE_URLS' loaded from the latest database entry",
        "WARNI [open_webui.env] ",
        "",
        "WARNING: CORS_ALLOW_ORIGIN IS SET TO '*' - NOT RECOMMENDED FOR PRODUCTION DEPLOYMENTS.",
        "",
        "INFO:     Started server process [1]",
        "INFO:     Waiting for application startup.",
        "2025-11-30 08:02:27.118 | INFO     | open_webui.utils.logger:start_logger:140 - GLOBAL_LOG_LEVEL: INFO - {}",
        "2025-11-30 08:02:27.120 | INFO     | open_webui.main:lifespan:514 - Installing external dependencies of "
        "functions and tools... - {}",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)",
        "2025-11-30 08:02:41.603 | ERROR    | open_webui.routers.openai:send_get_request:80 - Connection error: "
        "Cannot connect to host vllm:8000 ssl:default [Name or service not known] - {}",
        "2025-11-30 08:02:41.611 | INFO     | uvicorn.protocols.http.httptools_impl:send:476 - "
        "172.19.0.1:53312 - \"GET /api/models HTTP/1.1\" 200 - {}",
    ]
    vl = [r.text for r in v.recs]
    # interleave: webui starts in parallel; the browser's model request fails after vLLM died
    merged: list[tuple[str, str]] = []
    wi = 0
    for i, txt in enumerate(vl):
        merged.append(("vllm-1", txt))
        if i % 2 == 1 and wi < 14:
            merged.append(("open-webui-1", webui[wi]))
            wi += 1
    merged.append(("", "vllm-1 exited with code 1"))
    merged += [("open-webui-1", w) for w in webui[wi:]]
    width = max(len(s) for s, _ in merged if s)
    out = [txt if not s else f"{s.ljust(width)}  | {txt}" for s, txt in lines + merged]
    write("compose.vllm-no-gpu-runtime-failed-to-infer-device.log", "\n".join(out) + "\n", {
        "key": "RuntimeError: Failed to infer device type",
        "category": "gpu_unavailable", "process": "APIServer", "rank": None, "attempts": None,
        "decoys": ["Cannot connect to host vllm:8000", "vllm-1 exited with code 1",
                   "WARNING: CORS_ALLOW_ORIGIN IS SET TO '*'"],
        "notes": "docker compose up output: `<service>-<n>  | ` prefix padded to the longest service name, two "
                 "services interleaved. The vllm service has no `deploy.resources.reservations.devices` (no "
                 "NVIDIA runtime), so vLLM detects no platform. open-webui's ERROR is a consequence.",
    })


def ansi_vline(proc: str | None, pid: int | None, level: str, t: dt.datetime, where: str, msg: str) -> str:
    col = {"INFO": "\x1b[32m", "WARNING": "\x1b[33m", "ERROR": "\x1b[31m", "DEBUG": "\x1b[36m"}[level]
    head = f"{col}{level}\x1b[0m \x1b[90m{vts(t)}\x1b[0m \x1b[90m[{where}]\x1b[0m {msg}"
    return f"\x1b[0;36m({proc} pid={pid})\x1b[0;0m {head}" if proc else head


def asset_ansi_driver_too_old() -> None:
    rng = random.Random(109)
    model = "Qwen/Qwen2.5-7B-Instruct"
    t = dt.datetime(2025, 11, 30, 9, 25, 12)
    c = Clock(t, rng)
    api, core = 736, 738
    v = V1(c, api, core, version="0.11.0", site="/home/ana/.venv/lib/python3.12/site-packages")
    S = v.S
    # re-route log lines through the colour formatter
    v.log = lambda proc, pid, level, where, msg, **kw: v.raw(ansi_vline(proc, pid, level, v.c.t, where, msg), **kw)
    v.rawblock = lambda proc, pid, lines, stream="stderr": [
        v.raw(f"\x1b[0;36m({proc} pid={pid})\x1b[0;0m {ln}" if proc else ln, stream=stream) for ln in lines]
    v.raw("(.venv) ana@lab-ws:~$ vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 16384")
    c.tick(3, 4)
    v.raw(f"\x1b[32mINFO\x1b[0m \x1b[90m11-30 {c.t.strftime('%H:%M:%S')}\x1b[0m \x1b[90m[__init__.py:216]\x1b[0m "
          "Automatically detected platform cuda.")
    v.api_startup(model, "{'model_tag': 'Qwen/Qwen2.5-7B-Instruct', 'model': 'Qwen/Qwen2.5-7B-Instruct', "
                         "'max_model_len': 16384}", "Qwen2ForCausalLM", 16384)
    v.core_config(model, 1, 16384)
    c.tick(0.5, 1)
    inner = frames([
        (S("vllm/v1/engine/core.py"), 83, "__init__", "self.model_executor = executor_class(vllm_config)",
         "executor_class(vllm_config)"),
        (S("vllm/executor/executor_base.py"), 54, "__init__", "self._init_executor()"),
        (S("vllm/executor/uniproc_executor.py"), 54, "_init_executor", "self.collective_rpc(\"init_device\")"),
        (S("vllm/executor/uniproc_executor.py"), 83, "collective_rpc",
         "return [run_method(self.driver_worker, method, args, kwargs)]",
         "run_method(self.driver_worker, method, args, kwargs)"),
        (S("vllm/utils/__init__.py"), 3122, "run_method", "return func(*args, **kwargs)", "func(*args, **kwargs)"),
        (S("vllm/worker/worker_base.py"), 611, "init_device", "self.worker.init_device()  # type: ignore",
         "self.worker.init_device()"),
        (S("vllm/v1/worker/gpu_worker.py"), 165, "init_device", "current_platform.set_device(self.device)"),
        (S("vllm/platforms/cuda.py"), 87, "set_device", "torch.cuda.set_device(device)"),
        (S("torch/cuda/__init__.py"), 567, "set_device", "torch._C._cuda_setDevice(device)"),
        (S("torch/cuda/__init__.py"), 410, "_lazy_init", "torch._C._cuda_init()"),
    ]) + ["RuntimeError: The NVIDIA driver on your system is too old (found version 12020). Please update your GPU "
          "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
          "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your "
          "version of the CUDA driver."]
    v.engine_failed(inner)
    v.bin = "/home/ana/.venv/bin/vllm"
    v.api_failed()
    v.raw("(.venv) ana@lab-ws:~$ ")
    write("ansi.vllm-terminal-colour-nvidia-driver-too-old.log", plain(v.recs), {
        "key": "The NVIDIA driver on your system is too old (found version 12020)",
        "category": "cuda_driver_mismatch", "process": "EngineCore_DP0", "rank": None, "attempts": None,
        "decoys": ["EngineCore failed to start.", "Engine core initialization failed. See root cause above",
                   "Process EngineCore_DP0:"],
        "notes": "Raw terminal capture (`script`/tee of a TTY): vLLM's colour codes around the process prefix, "
                 "level, time and file:line (ESC[0;36m ... ESC[0;0m, ESC[31mERROR ESC[0m, ESC[90m ...), and the "
                 "shell prompt. torch cu128 wheels on a 535 (CUDA 12.2) driver.",
    })


def cri(recs: list[Rec], rng: random.Random, limit: int = 16384) -> str:
    """containerd / CRI-O container log file (/var/log/pods/...): `<RFC3339Nano> <stream> <P|F> <text>`;
    a line longer than `limit` bytes is split into partial (P) pieces ending with a full (F) piece."""
    out = []
    last_ns = 0
    for r in recs:
        data = r.text.encode()
        pieces = [data[i:i + limit] for i in range(0, len(data), limit)] or [b""]
        for i, p in enumerate(pieces):
            tag = "F" if i == len(pieces) - 1 else "P"
            ns = int(r.t.replace(tzinfo=UTC).timestamp()) * 10**9 + r.t.microsecond * 1000 + rng.randint(0, 999)
            ns = max(ns, last_ns + rng.randint(900, 40000))
            last_ns = ns
            ts = dt.datetime.fromtimestamp(ns // 10**9, UTC)
            out.append(f"{ts.strftime('%Y-%m-%dT%H:%M:%S.')}{ns % 10**9:09d}Z {r.stream} {tag} "
                       f"{p.decode(errors='ignore')}")
    return "\n".join(out) + "\n"


def asset_cri_illegal_memory_access() -> None:
    rng = random.Random(110)
    model = "Qwen/Qwen3-30B-A3B-Instruct-2507"
    t = dt.datetime(2025, 11, 30, 11, 2, 3, 120000)
    c = Clock(t, rng)
    api, core = 1, 88
    v = V1(c, api, core, version="0.11.0", site="/usr/local/lib/python3.12/dist-packages")
    S = v.S
    # the tail of a long-running pod: traffic, then the engine dies on a bad kernel launch
    for i in range(24):
        c.tick(0.5, 4)
        if i % 6 == 5:
            v.a("INFO", "loggers.py:123",
                f"Engine 000: Avg prompt throughput: {rng.uniform(3000, 9000):.1f} tokens/s, Avg generation "
                f"throughput: {rng.uniform(600, 1500):.1f} tokens/s, Running: {rng.randint(10, 40)} reqs, Waiting: 0 "
                f"reqs, GPU KV cache usage: {rng.uniform(10, 60):.1f}%, Prefix cache hit rate: {rng.uniform(5, 40):.1f}%")
        else:
            v.raw(f'(APIServer pid=1) INFO:     10.42.{rng.randint(0, 9)}.{rng.randint(2, 250)}:{rng.randint(30000, 65000)}'
                  ' - "POST /v1/chat/completions HTTP/1.1" 200 OK')
    c.tick(1, 2)
    ids = ", ".join(str(rng.randint(10, 151000)) for _ in range(5200))
    v.e("ERROR", "dump_input.py:69",
        f"Dumping input data for V1 LLM engine (v0.11.0) with config: model='{model}', speculative_config=None, "
        f"tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, dtype=torch.bfloat16, "
        "max_seq_len=65536, download_dir=None, load_format=auto, tensor_parallel_size=1, enforce_eager=False, "
        "kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True")
    v.e("ERROR", "dump_input.py:76",
        "Dumping scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[NewRequestData("
        f"req_id=chatcmpl-{rng.getrandbits(128):032x},prompt_token_ids_len=5200,prompt_token_ids=[{ids}],"
        "mm_features=[],sampling_params=SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, "
        "repetition_penalty=1.0, temperature=0.7, top_p=0.8, top_k=20, min_p=0.0, seed=None, stop=[], "
        "stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=4096, "
        "min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, "
        "spaces_between_special_tokens=True, truncate_prompt_tokens=None, structured_outputs=None, "
        "extra_args=None),block_ids=([1811, 1812, 1813, 1814],),num_computed_tokens=0,lora_request=None)], "
        "scheduled_cached_reqs=CachedRequestData(req_ids=[], resumed_from_preemption=[], new_token_ids=[], "
        "new_block_ids=[], num_computed_tokens=[]), num_scheduled_tokens={}, total_num_scheduled_tokens=2048, "
        "scheduled_spec_decode_tokens={}, scheduled_encoder_inputs={}, num_common_prefix_blocks=[0], "
        "finished_req_ids=[], free_encoder_mm_hashes=[], structured_output_request_ids={}, grammar_bitmask=null, "
        "kv_connector_metadata=null)")
    v.e("ERROR", "dump_input.py:79",
        "Dumping scheduler stats: SchedulerStats(num_running_reqs=31, num_waiting_reqs=0, step_counter=0, "
        "current_wave=0, kv_cache_usage=0.4418, prefix_cache_stats=PrefixCacheStats(reset=False, requests=1, "
        "queries=5200, hits=0), spec_decoding_stats=None, num_corrupted_reqs=0)")
    cuda = ["RuntimeError: CUDA error: an illegal memory access was encountered",
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
            "might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
    tb = ["EngineCore encountered a fatal error.", "Traceback (most recent call last):"] + frames([
        (S("vllm/v1/engine/core.py"), 701, "run_engine_core", "engine_core.run_busy_loop()"),
        (S("vllm/v1/engine/core.py"), 728, "run_busy_loop", "self._process_engine_step()"),
        (S("vllm/v1/engine/core.py"), 754, "_process_engine_step", "outputs, model_executed = self.step_fn()",
         "self.step_fn()"),
        (S("vllm/v1/engine/core.py"), 284, "step", "model_output = self.execute_model_with_error_logging(",
         "self.execute_model_with_error_logging("),
        (S("vllm/v1/engine/core.py"), 270, "execute_model_with_error_logging", "raise err"),
        (S("vllm/v1/engine/core.py"), 261, "execute_model_with_error_logging", "return model_fn(scheduler_output)",
         "model_fn(scheduler_output)"),
        (S("vllm/v1/executor/abstract.py"), 103, "execute_model", "output = self.collective_rpc(\"execute_model\",",
         "self.collective_rpc(\"execute_model\","),
        (S("vllm/executor/uniproc_executor.py"), 83, "collective_rpc",
         "return [run_method(self.driver_worker, method, args, kwargs)]",
         "run_method(self.driver_worker, method, args, kwargs)"),
        (S("vllm/utils/__init__.py"), 3122, "run_method", "return func(*args, **kwargs)", "func(*args, **kwargs)"),
        (S("vllm/v1/worker/gpu_worker.py"), 447, "execute_model",
         "output = self.model_runner.execute_model(scheduler_output,", "self.model_runner.execute_model("),
        (S("torch/utils/_contextlib.py"), 120, "decorate_context", "return func(*args, **kwargs)",
         "func(*args, **kwargs)"),
        (S("vllm/v1/worker/gpu_model_runner.py"), 2337, "execute_model",
         "valid_sampled_token_ids = self._to_list(sampled_token_ids)", "self._to_list(sampled_token_ids)"),
        (S("vllm/v1/worker/gpu_model_runner.py"), 3848, "_to_list", "self.transfer_event.synchronize()"),
    ]) + cuda
    v.block("EngineCore_DP0", core, "ERROR", "core.py:710", tb)
    c.tick(0.01, 0.05)
    dead = ["AsyncLLM output_handler failed.", "Traceback (most recent call last):"] + frames([
        (S("vllm/v1/engine/async_llm.py"), 439, "output_handler",
         "outputs = await engine_core.get_output_async()", "engine_core.get_output_async()"),
        (S("vllm/v1/engine/core_client.py"), 846, "get_output_async", "raise self._format_exception(outputs) from None"),
    ]) + ["vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for "
          "the root cause."]
    v.block("APIServer", api, "ERROR", "async_llm.py:480", dead)
    for _ in range(3):
        c.tick(0.001, 0.01)
        v.raw(f'(APIServer pid=1) INFO:     10.42.{rng.randint(0, 9)}.{rng.randint(2, 250)}:{rng.randint(30000, 65000)}'
              ' - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error')
    c.tick(0.05, 0.2)
    v.raw("terminate called after throwing an instance of 'c10::Error'", stream="stderr")
    v.raw("  what():  CUDA error: an illegal memory access was encountered", stream="stderr")
    v.raw("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
          "might be incorrect.", stream="stderr")
    v.raw("For debugging consider passing CUDA_LAUNCH_BLOCKING=1", stream="stderr")
    v.raw("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", stream="stderr")
    v.raw("", stream="stderr")
    v.raw("Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:44 (most "
          "recent call first):", stream="stderr")
    for i, fn in enumerate(["c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, "
                            "std::char_traits<char>, std::allocator<char> >) + 0x98",
                            "c10::detail::torchCheckFail(char const*, char const*, unsigned int, "
                            "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) + 0xe0",
                            "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x3c2",
                            "<unknown function> + 0xe1f3b4", "<unknown function> + 0x1b3c7a2"]):
        lib = "libc10.so" if i < 2 else ("libc10_cuda.so" if i == 2 else "libtorch_cuda.so")
        v.raw(f"frame #{i}: {fn} (0x7f{rng.getrandbits(40):010x} in /usr/local/lib/python3.12/dist-packages/"
              f"torch/lib/{lib})", stream="stderr")
    v.raw("", stream="stderr")
    c.tick(0.3, 0.6)
    v.a("INFO", "launcher.py:101", "Shutting down FastAPI HTTP server.")
    v.raw("(APIServer pid=1) INFO:     Shutting down")
    v.raw("(APIServer pid=1) INFO:     Waiting for application shutdown.")
    v.raw("(APIServer pid=1) INFO:     Application shutdown complete.")
    write("cri.vllm-illegal-memory-access-with-split-long-lines.log", cri(v.recs, rng), {
        "key": "CUDA error: an illegal memory access was encountered",
        "category": "engine_bug", "process": "EngineCore_DP0", "rank": None, "attempts": None,
        "decoys": ["Dumping scheduler output for model execution", "Dumping input data for V1 LLM engine",
                   "EngineDeadError: EngineCore encountered an issue", "500 Internal Server Error",
                   "AsyncLLM output_handler failed.", "EngineCore encountered a fatal error."],
        "notes": "A Kubernetes node's container log file (/var/log/pods/<ns>_<pod>_<uid>/vllm/0.log, CRI format: "
                 "`<RFC3339Nano> stdout|stderr P|F <text>`). The runtime's scheduler-output dump (a ~40 kB "
                 "line of token ids) was split by containerd into 16 KiB partial (P) pieces plus a final (F) "
                 "piece. The root error is a runtime CUDA fault in the engine core; the C++ abort that follows "
                 "repeats the same text.",
    })


def asset_gz_v0_no_kernel_image() -> None:
    rng = random.Random(111)
    site = "/usr/local/lib/python3.10/dist-packages"
    py = "/usr/lib/python3.10"
    model = "/data/models/Qwen2.5-7B-Instruct"
    t = dt.datetime(2024, 10, 21, 9, 14, 2)
    c = Clock(t, rng)
    L: list[str] = []

    def log(level: str, where: str, msg: str) -> None:
        L.append(f"{level} {vts(c.t)} {where}] {msg}")

    def S(p: str) -> str:
        return f"{site}/{p}"
    log("INFO", "api_server.py:528", "vLLM API server version 0.6.3.post1")
    log("INFO", "api_server.py:529", "args: Namespace(host='0.0.0.0', port=8000, uvicorn_log_level='info', "
        "allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, "
        "lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', ssl_keyfile=None, "
        f"ssl_certfile=None, root_path=None, middleware=[], return_tokens_as_token_ids=False, model='{model}', "
        "task='auto', tokenizer=None, skip_tokenizer_init=False, revision=None, trust_remote_code=False, "
        "download_dir=None, load_format='auto', dtype='half', kv_cache_dtype='auto', max_model_len=8192, "
        "distributed_executor_backend=None, pipeline_parallel_size=1, tensor_parallel_size=1, block_size=16, "
        "enable_prefix_caching=False, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.9, max_num_seqs=256, "
        "quantization=None, enforce_eager=False, served_model_name=['qwen2.5-7b'], disable_log_requests=False)")
    log("INFO", "api_server.py:166", "Multiprocessing frontend to use ipc:///tmp/4f1d83c2-61b0-4c7e-9a5d-0e8b2f17c2aa "
        "for IPC Path.")
    log("INFO", "api_server.py:179", "Started engine process with PID 21874")
    c.tick(5, 7)
    log("WARNING", "config.py:1668", "Casting torch.bfloat16 to torch.float16.")
    log("INFO", "llm_engine.py:237", f"Initializing an LLM engine (v0.6.3.post1) with config: model='{model}', "
        f"speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, "
        "revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, "
        "trust_remote_code=False, dtype=torch.float16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, "
        "tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, "
        "enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
        "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), observability_config="
        "ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, "
        "collect_model_execute_time=False), seed=0, served_model_name=qwen2.5-7b, use_v2_block_manager=True, "
        "num_scheduler_steps=1, chunked_prefill_enabled=False multi_step_stream_outputs=True, "
        "enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=True, "
        "mm_processor_kwargs=None)")
    c.tick(0.5, 1)
    log("INFO", "selector.py:247", "Cannot use FlashAttention-2 backend for Volta and Turing GPUs.")
    log("INFO", "selector.py:115", "Using XFormers backend.")
    c.tick(0.5, 1)
    log("INFO", "model_runner.py:1056", f"Starting to load model {model}...")
    L.append("Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]")
    for i in range(1, 5):
        c.tick(3, 5)
        L.append(f"Loading safetensors checkpoint shards: {25 * i:3d}% Completed | {i}/4 [00:{4 * i:02d}<00:"
                 f"{4 * (4 - i):02d},  4.1{i}s/it]")
    L.append("")
    log("INFO", "model_runner.py:1067", "Loading model weights took 14.2487 GB")
    c.tick(1, 2)
    cuda = ["RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
            "might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
    L += ["Process SpawnProcess-1:", "Traceback (most recent call last):"] + frames([
        (f"{py}/multiprocessing/process.py", 314, "_bootstrap", "self.run()"),
        (f"{py}/multiprocessing/process.py", 108, "run", "self._target(*self._args, **self._kwargs)"),
        (S("vllm/engine/multiprocessing/engine.py"), 390, "run_mp_engine",
         "engine = MQLLMEngine.from_engine_args(engine_args=engine_args,"),
        (S("vllm/engine/multiprocessing/engine.py"), 139, "from_engine_args", "return cls("),
        (S("vllm/engine/multiprocessing/engine.py"), 78, "__init__", "self.engine = LLMEngine(*args,"),
        (S("vllm/engine/llm_engine.py"), 348, "__init__", "self._initialize_kv_caches()"),
        (S("vllm/engine/llm_engine.py"), 483, "_initialize_kv_caches",
         "self.model_executor.determine_num_available_blocks())"),
        (S("vllm/executor/gpu_executor.py"), 114, "determine_num_available_blocks",
         "return self.driver_worker.determine_num_available_blocks()"),
        (S("torch/utils/_contextlib.py"), 116, "decorate_context", "return func(*args, **kwargs)"),
        (S("vllm/worker/worker.py"), 223, "determine_num_available_blocks", "self.model_runner.profile_run()"),
        (S("torch/utils/_contextlib.py"), 116, "decorate_context", "return func(*args, **kwargs)"),
        (S("vllm/worker/model_runner.py"), 1305, "profile_run",
         "self.execute_model(model_input, kv_caches, intermediate_tensors)"),
        (S("torch/utils/_contextlib.py"), 116, "decorate_context", "return func(*args, **kwargs)"),
        (S("vllm/worker/model_runner.py"), 1668, "execute_model", "hidden_or_intermediate_states = model_executable("),
        (S("torch/nn/modules/module.py"), 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        (S("torch/nn/modules/module.py"), 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
        (S("vllm/model_executor/models/qwen2.py"), 432, "forward",
         "hidden_states = self.model(input_ids, positions, kv_caches,"),
        (S("torch/nn/modules/module.py"), 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        (S("torch/nn/modules/module.py"), 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
        (S("vllm/model_executor/models/qwen2.py"), 329, "forward", "hidden_states, residual = layer("),
        (S("torch/nn/modules/module.py"), 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        (S("torch/nn/modules/module.py"), 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
        (S("vllm/model_executor/models/qwen2.py"), 238, "forward", "hidden_states = self.self_attn("),
        (S("torch/nn/modules/module.py"), 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        (S("torch/nn/modules/module.py"), 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
        (S("vllm/model_executor/models/qwen2.py"), 172, "forward", "q, k = self.rotary_emb(positions, q, k)"),
        (S("torch/nn/modules/module.py"), 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        (S("torch/nn/modules/module.py"), 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
        (S("vllm/model_executor/custom_op.py"), 14, "forward", "return self._forward_method(*args, **kwargs)"),
        (S("vllm/model_executor/layers/rotary_embedding.py"), 161, "forward_cuda",
         "ops.rotary_embedding(positions, query, key, self.head_size,"),
        (S("vllm/_custom_ops.py"), 45, "wrapper", "return fn(*args, **kwargs)"),
        (S("vllm/_custom_ops.py"), 149, "rotary_embedding", "torch.ops._C.rotary_embedding(positions, query, key, head_size,"),
        (S("torch/_ops.py"), 1116, "__call__", "return self._op(*args, **(kwargs or {}))"),
    ], py="3.10") + cuda
    c.tick(8, 10)
    L += ["Traceback (most recent call last):"] + frames([
        (f"{py}/runpy.py", 196, "_run_module_as_main", "return _run_code(code, main_globals, None,"),
        (f"{py}/runpy.py", 86, "_run_code", "exec(code, run_globals)"),
        (S("vllm/entrypoints/openai/api_server.py"), 585, "<module>", "uvloop.run(run_server(args))"),
        (S("uvloop/__init__.py"), 82, "run", "return loop.run_until_complete(wrapper())"),
        ("uvloop/loop.pyx", 1517, "uvloop.loop.Loop.run_until_complete"),
        (S("uvloop/__init__.py"), 61, "wrapper", "return await main"),
        (S("vllm/entrypoints/openai/api_server.py"), 552, "run_server",
         "async with build_async_engine_client(args) as engine_client:"),
        (f"{py}/contextlib.py", 199, "__aenter__", "return await anext(self.gen)"),
        (S("vllm/entrypoints/openai/api_server.py"), 107, "build_async_engine_client",
         "async with build_async_engine_client_from_engine_args("),
        (f"{py}/contextlib.py", 199, "__aenter__", "return await anext(self.gen)"),
        (S("vllm/entrypoints/openai/api_server.py"), 194, "build_async_engine_client_from_engine_args",
         "raise RuntimeError("),
    ], py="3.10") + ["RuntimeError: Engine process failed to start. See stack trace for the root cause."]
    data = ("\n".join(L) + "\n").encode()
    write("plain.vllm063-v0-tesla-p40-no-kernel-image.log.gz", gzip.compress(data, mtime=0), {
        "key": "CUDA error: no kernel image is available for execution on the device",
        "category": "cuda_driver_mismatch", "process": None, "rank": None, "attempts": None,
        "decoys": ["Engine process failed to start. See stack trace for the root cause.", "Process SpawnProcess-1:",
                   "Casting torch.bfloat16 to torch.float16."],
        "notes": "gzip-compressed plain log (nohup output) of vLLM 0.6.3 V0 on a Tesla P40 (sm_61): vLLM's kernels "
                 "are not built for compute capability 6.1. No process prefixes (V0, TP=1); Python 3.10 (no "
                 "caret lines). The engine process dies during the profile run; the API server's wrapper "
                 "RuntimeError comes last.",
    })


def asset_sglang_tp2_sigquit() -> None:
    rng = random.Random(112)
    site = "/usr/local/lib/python3.10/dist-packages"
    t = dt.datetime(2025, 5, 14, 8, 1, 2)
    c = Clock(t, rng)
    L: list[str] = []

    def sg(msg: str, tp: int | None = None) -> None:
        tag = f" TP{tp}" if tp is not None else ""
        L.append(f"[{c.t.strftime('%Y-%m-%d %H:%M:%S')}{tag}] {msg}")

    def S(p: str) -> str:
        return f"{site}/{p}"
    sg("server_args=ServerArgs(model_path='meta-llama/Llama-3.1-70B-Instruct', tokenizer_path='meta-llama/"
       "Llama-3.1-70B-Instruct', tokenizer_mode='auto', skip_tokenizer_init=False, load_format='auto', "
       "trust_remote_code=False, dtype='auto', kv_cache_dtype='auto', quantization=None, context_length=None, "
       "device='cuda', served_model_name='meta-llama/Llama-3.1-70B-Instruct', chat_template=None, is_embedding=False, "
       "revision=None, host='0.0.0.0', port=30000, mem_fraction_static=0.4, max_running_requests=None, "
       "max_total_tokens=None, chunked_prefill_size=8192, max_prefill_tokens=16384, schedule_policy='fcfs', "
       "schedule_conservativeness=1.0, cpu_offload_gb=0, tp_size=2, stream_interval=1, stream_output=False, "
       "random_seed=771249113, log_level='info', log_level_http=None, log_requests=False, show_time_cost=False, "
       "enable_metrics=False, dp_size=1, load_balance_method='round_robin', dist_init_addr=None, nnodes=1, "
       "node_rank=0, attention_backend='flashinfer', sampling_backend='flashinfer', disable_cuda_graph=False, "
       "disable_radix_cache=False, enable_torch_compile=False, torch_compile_max_bs=32, cuda_graph_max_bs=160)")
    c.tick(6, 8)
    for tp in (0, 1):
        c.tick(0, 0.2)
        sg("Attention backend not set. Use flashinfer backend by default.", tp)
    for tp in (1, 0):
        c.tick(0, 0.1)
        sg("Init torch distributed begin.", tp)
    c.tick(0.5, 1)
    L.append("[Gloo] Rank 0 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1")
    L.append("[Gloo] Rank 1 is connected to 1 peer ranks. Expected number of connected peer ranks is : 1")
    sg("sglang is using nccl==2.21.5", 0)
    sg("sglang is using nccl==2.21.5", 1)
    c.tick(1, 2)
    for tp in (0, 1):
        sg("Init torch distributed ends. mem usage=0.57 GB", tp)
    for tp in (1, 0):
        c.tick(0, 0.1)
        sg("Load weight begin. avail mem=78.50 GB", tp)
    c.tick(0.5, 1)
    L.append("Loading safetensors checkpoint shards:   0% Completed | 0/30 [00:00<?, ?it/s]")
    for i in range(3, 31, 3):
        c.tick(12, 16)
        L.append(f"Loading safetensors checkpoint shards: {100 * i // 30:3d}% Completed | {i}/30 "
                 f"[{int(i * 4.7) // 60:02d}:{int(i * 4.7) % 60:02d}<{int((30 - i) * 4.7) // 60:02d}:"
                 f"{int((30 - i) * 4.7) % 60:02d},  4.7{i % 10}s/it]")
    L.append("")
    for tp in (0, 1):
        c.tick(0, 0.3)
        sg("Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=44.95 GB, mem usage=33.55 GB.", tp)
    c.tick(0.2, 0.4)
    # the parent notices the dead child before the child's own traceback is flushed
    sg("Received sigquit from a child process. It usually means the child failed.")
    tb = ["Traceback (most recent call last):"] + frames([
        (S("sglang/srt/managers/scheduler.py"), 2215, "run_scheduler_process",
         "scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, pp_rank, dp_rank)"),
        (S("sglang/srt/managers/scheduler.py"), 268, "__init__", "self.tp_worker = TpWorkerClass("),
        (S("sglang/srt/managers/tp_worker_overlap_thread.py"), 64, "__init__", "self.worker = TpModelWorker("),
        (S("sglang/srt/managers/tp_worker.py"), 81, "__init__", "self.model_runner = ModelRunner("),
        (S("sglang/srt/model_executor/model_runner.py"), 191, "__init__", "self.initialize(min_per_gpu_memory)"),
        (S("sglang/srt/model_executor/model_runner.py"), 229, "initialize", "self.init_memory_pool("),
        (S("sglang/srt/model_executor/model_runner.py"), 890, "init_memory_pool", "raise RuntimeError("),
    ], py="3.10") + ["RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", ""]
    a = [f"[{c.t.strftime('%Y-%m-%d %H:%M:%S')} TP1] Scheduler hit an exception: {tb[0]}"] + tb[1:]
    b = [f"[{c.t.strftime('%Y-%m-%d %H:%M:%S')} TP0] Scheduler hit an exception: {tb[0]}"] + tb[1:]
    # the two ranks' tracebacks are written at the same moment, unprefixed: they interleave
    i = j = 0
    while i < len(a) or j < len(b):
        if i < len(a) and (j >= len(b) or rng.random() < 0.55):
            n = rng.choice([1, 1, 2, 3])
            L.extend(a[i:i + n]); i += n
        else:
            n = rng.choice([1, 1, 2])
            L.extend(b[j:j + n]); j += n
    sg("Received sigquit from a child process. It usually means the child failed.")
    c.tick(0.3, 0.6)
    L.append(f"[rank0]:[W{c.t.strftime('%m%d %H:%M:%S')}.662301887 ProcessGroupNCCL.cpp:1250] Warning: WARNING: "
             "process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the "
             "application should call destroy_process_group to ensure that any pending NCCL operations have "
             "finished in this process. In rare cases this process can exit before this point and block the "
             "progress of another member of the process group. This constraint has always been present,  but this "
             "warning has only been added since PyTorch 2.4 (function operator())")
    L.append("Killed")
    write("sglang-tp2-interleaved-tracebacks-sigquit-first.log", "\n".join(L) + "\n", {
        "key": "Not enough memory. Please try to increase --mem-fraction-static",
        "category": "kv_cache_insufficient", "process": None, "rank": None, "attempts": None,
        "decoys": ["Received sigquit from a child process. It usually means the child failed.",
                   "process group has NOT been destroyed", "Killed"],
        "notes": "SGLang 0.4.6, TP2, --mem-fraction-static 0.4 on 80 GB GPUs: after loading 33.5 GB of weights "
                 "per rank nothing is left for the KV pool. Only the first line of each scheduler's traceback "
                 "carries the `[date TPn]` prefix; the frames of TP0 and TP1 interleave unprefixed. The parent's "
                 "'Received sigquit' line comes BEFORE the children's tracebacks. Both ranks fail identically, so "
                 "rank is not asserted.",
    })


def asset_tgi_flash_attn_cuda_unavailable() -> None:
    rng = random.Random(113)
    site = "/opt/conda/lib/python3.9/site-packages"
    t = dt.datetime(2023, 9, 4, 7, 31, 18, 402117)
    L: list[str] = []

    def ts() -> str:
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}Z"

    def lg(level: str, target: str, msg: str) -> None:
        L.append(f"{ts()} {level:>5} {target}text_generation_launcher: {msg}")

    def adv(lo: float, hi: float) -> None:
        nonlocal t
        t += dt.timedelta(seconds=rng.uniform(lo, hi))

    lg("INFO", "", 'Args { model_id: "meta-llama/Llama-2-13b-chat-hf", revision: None, validation_workers: 2, '
       "sharded: None, num_shard: Some(2), quantize: None, dtype: None, trust_remote_code: false, "
       "max_concurrent_requests: 128, max_best_of: 2, max_stop_sequences: 4, max_top_n_tokens: 5, "
       "max_input_length: 2048, max_total_tokens: 4096, waiting_served_ratio: 1.2, max_batch_prefill_tokens: 4096, "
       'max_batch_total_tokens: None, max_waiting_tokens: 20, hostname: "9b2e4c7d1a55", port: 80, shard_uds_path: '
       '"/tmp/text-generation-server", master_addr: "localhost", master_port: 29500, huggingface_hub_cache: '
       'Some("/data"), weights_cache_override: None, disable_custom_kernels: false, cuda_memory_fraction: 1.0, '
       "rope_scaling: None, rope_factor: None, json_output: false, otlp_endpoint: None, cors_allow_origin: [], "
       "watermark_gamma: None, watermark_delta: None, ngrok: false, ngrok_authtoken: None, ngrok_edge: None, "
       "env: false }")
    lg("INFO", "", "Sharding model on 2 processes")
    lg("INFO", "download: ", "Starting download process.")
    adv(3, 5)
    lg("INFO", "", "Files are already present on the host. Skipping download.\n")
    adv(0.5, 1)
    lg("INFO", "download: ", "Successfully downloaded weights.")
    lg("INFO", "shard-manager: ", "Starting shard rank=0")
    adv(0, 0.01)
    lg("INFO", "shard-manager: ", "Starting shard rank=1")
    adv(4, 5)
    lg("WARN", "", "Could not import Flash Attention enabled models: CUDA is not available\n")
    adv(0.01, 0.05)
    lg("WARN", "", "Could not import Flash Attention enabled models: CUDA is not available\n")
    adv(0.1, 0.2)
    tb = ["Traceback (most recent call last):", ""] + [x for f in [
        ("/opt/conda/bin/text-generation-server", 8, "<module>", "sys.exit(app())"),
        (f"{site}/typer/main.py", 311, "__call__", "return get_command(self)(*args, **kwargs)"),
        (f"{site}/click/core.py", 1157, "__call__", "return self.main(*args, **kwargs)"),
        (f"{site}/typer/core.py", 778, "main", "return _main("),
        (f"{site}/typer/core.py", 216, "_main", "rv = self.invoke(ctx)"),
        (f"{site}/click/core.py", 1688, "invoke", "return _process_result(sub_ctx.command.invoke(sub_ctx))"),
        (f"{site}/click/core.py", 1434, "invoke", "return ctx.invoke(self.callback, **ctx.params)"),
        (f"{site}/click/core.py", 783, "invoke", "return __callback(*args, **kwargs)"),
        (f"{site}/typer/main.py", 683, "wrapper", "return callback(**use_params)  # type: ignore"),
        (f"{site}/text_generation_server/cli.py", 83, "serve",
         "server.serve("),
        (f"{site}/text_generation_server/server.py", 207, "serve", "asyncio.run("),
        ("/opt/conda/lib/python3.9/asyncio/runners.py", 44, "run", "return loop.run_until_complete(main)"),
        ("/opt/conda/lib/python3.9/asyncio/base_events.py", 634, "run_until_complete", "self.run_forever()"),
        (f"{site}/text_generation_server/server.py", 159, "serve_inner", "model = get_model("),
        (f"{site}/text_generation_server/models/__init__.py", 203, "get_model",
         'raise NotImplementedError(FLASH_ATT_ERROR_MESSAGE.format("Sharded Llama"))'),
    ] for x in fr(*f, py="3.9") + [""]] + ["NotImplementedError: Sharded Llama requires Flash Attention enabled models.", ""]
    L.append(f"{ts()} ERROR text_generation_launcher: Error when initializing model")
    L.extend(tb)
    adv(0.6, 0.8)
    L.append(f"{ts()} ERROR shard-manager: text_generation_launcher: Shard complete standard error output:")
    L.append("")
    L.extend(tb[:-2] + ["NotImplementedError: Sharded Llama requires Flash Attention enabled models.", " rank=0"])
    # stderr, printed before the launcher's own ERROR lines that explain it
    L.append("Error: ShardCannotStart")
    adv(0.01, 0.02)
    lg("ERROR", "", "Shard 0 failed to start")
    lg("INFO", "", "Shutting down shards")
    adv(0.04, 0.08)
    lg("INFO", "shard-manager: ", "Shard terminated rank=1")
    write("tgi-launcher-warn-flash-attention-cuda-unavailable.log", "\n".join(L) + "\n", {
        "key": "Could not import Flash Attention enabled models: CUDA is not available",
        "category": "gpu_unavailable", "process": None, "rank": None, "attempts": None,
        "decoys": ["NotImplementedError: Sharded Llama requires Flash Attention enabled models.",
                   "Error: ShardCannotStart", "Shard 0 failed to start", "Error when initializing model",
                   "Shard complete standard error output"],
        "notes": "docker logs of TGI 1.0 started without --gpus: the cause is only a WARN line of the launcher; "
                 "the shard's NotImplementedError is its consequence. Older TGI images print blank lines between "
                 "traceback frames; `Error: ShardCannotStart` (stderr) comes before the ERROR lines that explain it.",
    })


def asset_ray_workerwrapper_nccl() -> None:
    rng = random.Random(114)
    site = "/usr/local/lib/python3.10/dist-packages"
    py = "/usr/lib/python3.10"
    t = dt.datetime(2024, 8, 14, 9, 31, 2)
    c = Clock(t, rng)
    L: list[str] = []
    model = "meta-llama/Meta-Llama-3.1-70B-Instruct"

    def S(p: str) -> str:
        return f"{site}/{p}"

    def vl(prefix: str | None, level: str, where: str, msg: str) -> None:
        head = f"{level} {vts(c.t)} {where}] {msg}"
        L.append(f"{prefix} {head}" if prefix else head)
    L.append(f"{c.t.strftime('%Y-%m-%d %H:%M:%S')},118\tINFO worker.py:1603 -- Connecting to existing Ray cluster at "
             "address: 10.0.0.1:6379...")
    L.append(f"{c.t.strftime('%Y-%m-%d %H:%M:%S')},127\tINFO worker.py:1788 -- Connected to Ray cluster.")
    vl(None, "INFO", "llm_engine.py:176",
       f"Initializing an LLM engine (v0.5.4) with config: model='{model}', speculative_config=None, "
       f"tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, rope_scaling=None, "
       "rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, "
       "download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=8, pipeline_parallel_size=1, "
       "disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, "
       "quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig("
       "guided_decoding_backend='outlines'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None), "
       f"seed=0, served_model_name={model}, use_v2_block_manager=False, enable_prefix_caching=False)")
    c.tick(14, 18)
    local = [2011, 2012, 2013]
    remote = [2211, 2212, 2213, 2214]
    vl(None, "INFO", "utils.py:841", "Found nccl from library libnccl.so.2")
    vl(None, "INFO", "pynccl.py:63", "vLLM is using nccl==2.20.5")
    vl(f"(RayWorkerWrapper pid={local[0]})", "INFO", "utils.py:841", "Found nccl from library libnccl.so.2")
    vl(f"(RayWorkerWrapper pid={local[0]})", "INFO", "pynccl.py:63", "vLLM is using nccl==2.20.5")
    vl(f"(RayWorkerWrapper pid={remote[0]}, ip=10.0.0.2)", "INFO", "utils.py:841", "Found nccl from library libnccl.so.2")
    vl(f"(RayWorkerWrapper pid={remote[0]}, ip=10.0.0.2)", "INFO", "pynccl.py:63", "vLLM is using nccl==2.20.5")
    c.tick(0.2, 0.5)
    L.append(f"(RayWorkerWrapper pid={remote[0]}, ip=10.0.0.2) node-b:{remote[0]}:2290 [0] NCCL INFO Bootstrap : "
             "Using eth0:10.0.0.2<0>")
    L.append(f"(RayWorkerWrapper pid={remote[0]}, ip=10.0.0.2) node-b:{remote[0]}:2290 [0] NCCL INFO NET/Plugin : "
             "dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found "
             "(libnccl-net.so), using internal implementation")
    c.tick(0.5, 1)
    L.append(f"(RayWorkerWrapper pid={remote[0]}, ip=10.0.0.2) node-b:{remote[0]}:2290 [0] misc/socket.cc:484 NCCL WARN "
             "socketStartConnect: Connect to 10.0.0.1<45013> failed : Software caused connection abort")
    L.append(f"(RayWorkerWrapper pid={remote[0]}, ip=10.0.0.2) node-b:{remote[0]}:2290 [0] NCCL INFO "
             "misc/socket.cc:565 -> 2")
    L.append(f"(RayWorkerWrapper pid={remote[0]}, ip=10.0.0.2) node-b:{remote[0]}:2290 [0] NCCL INFO "
             "bootstrap.cc:274 -> 2")
    c.tick(0.01, 0.05)
    inner = ["Error executing method init_device. This might cause deadlock in distributed execution.",
             "Traceback (most recent call last):"] + frames([
        (S("vllm/worker/worker_base.py"), 456, "execute_method", "return executor(*args, **kwargs)"),
        (S("vllm/worker/worker.py"), 132, "init_device",
         "init_worker_distributed_environment(self.parallel_config, self.rank,"),
        (S("vllm/worker/worker.py"), 348, "init_worker_distributed_environment",
         "ensure_model_parallel_initialized(parallel_config.tensor_parallel_size,"),
        (S("vllm/distributed/parallel_state.py"), 965, "ensure_model_parallel_initialized",
         "initialize_model_parallel(tensor_model_parallel_size,"),
        (S("vllm/distributed/parallel_state.py"), 931, "initialize_model_parallel", "_TP = init_model_parallel_group("),
        (S("vllm/distributed/parallel_state.py"), 773, "init_model_parallel_group", "return GroupCoordinator("),
        (S("vllm/distributed/parallel_state.py"), 154, "__init__", "self.pynccl_comm = PyNcclCommunicator("),
        (S("vllm/distributed/device_communicators/pynccl.py"), 89, "__init__",
         "self.comm: ncclComm_t = self.nccl.ncclCommInitRank("),
        (S("vllm/distributed/device_communicators/pynccl_wrapper.py"), 244, "ncclCommInitRank",
         'self.NCCL_CHECK(self._funcs["ncclCommInitRank"](ctypes.byref(comm),'),
        (S("vllm/distributed/device_communicators/pynccl_wrapper.py"), 223, "NCCL_CHECK",
         'raise RuntimeError(f"NCCL error: {error_str}")'),
    ], py="3.10") + ["RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"]
    for ln in inner:
        vl(f"(RayWorkerWrapper pid={remote[0]}, ip=10.0.0.2)", "ERROR", "worker_base.py:464", ln)
    vl(f"(RayWorkerWrapper pid={remote[1]}, ip=10.0.0.2)", "ERROR", "worker_base.py:464",
       "Error executing method init_device. This might cause deadlock in distributed execution. "
       "[repeated 3x across cluster]")
    c.tick(0.3, 0.6)
    # the driver (rank 0, no prefix) gets the remote failure through ray.get
    tb = ["Traceback (most recent call last):"] + frames([
        (f"{py}/runpy.py", 196, "_run_module_as_main", "return _run_code(code, main_globals, None,"),
        (f"{py}/runpy.py", 86, "_run_code", "exec(code, run_globals)"),
        (S("vllm/entrypoints/openai/api_server.py"), 370, "<module>", "asyncio.run(run_server(args))"),
        (f"{py}/asyncio/runners.py", 44, "run", "return loop.run_until_complete(main)"),
        (f"{py}/asyncio/base_events.py", 649, "run_until_complete", "return future.result()"),
        (S("vllm/entrypoints/openai/api_server.py"), 343, "run_server",
         "async with build_async_engine_client(args) as async_engine_client:"),
        (f"{py}/contextlib.py", 199, "__aenter__", "return await anext(self.gen)"),
        (S("vllm/entrypoints/openai/api_server.py"), 108, "build_async_engine_client",
         "async_engine_client = AsyncLLMEngine.from_engine_args("),
        (S("vllm/engine/async_llm_engine.py"), 466, "from_engine_args", "engine = cls("),
        (S("vllm/engine/async_llm_engine.py"), 380, "__init__", "self.engine = self._init_engine(*args, **kwargs)"),
        (S("vllm/engine/async_llm_engine.py"), 547, "_init_engine", "return engine_class(*args, **kwargs)"),
        (S("vllm/engine/llm_engine.py"), 251, "__init__", "self.model_executor = executor_class("),
        (S("vllm/executor/ray_gpu_executor.py"), 518, "__init__", "super().__init__(*args, **kwargs)"),
        (S("vllm/executor/distributed_gpu_executor.py"), 26, "__init__", "super().__init__(*args, **kwargs)"),
        (S("vllm/executor/executor_base.py"), 46, "__init__", "self._init_executor()"),
        (S("vllm/executor/ray_gpu_executor.py"), 63, "_init_executor", "self._init_workers_ray(placement_group)"),
        (S("vllm/executor/ray_gpu_executor.py"), 225, "_init_workers_ray", 'self._run_workers("init_device")'),
        (S("vllm/executor/ray_gpu_executor.py"), 347, "_run_workers",
         "ray_worker_outputs = ray.get(ray_worker_outputs)"),
        (S("ray/_private/auto_init_hook.py"), 21, "auto_init_wrapper", "return fn(*args, **kwargs)"),
        (S("ray/_private/client_mode_hook.py"), 103, "wrapper", "return func(*args, **kwargs)"),
        (S("ray/_private/worker.py"), 2659, "get", "values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)"),
        (S("ray/_private/worker.py"), 871, "get_objects", "raise value.as_instanceof_cause()"),
    ], py="3.10")
    tb.append(f"ray.exceptions.RayTaskError(RuntimeError): ray::RayWorkerWrapper.execute_method() (pid={remote[0]}, "
              f"ip=10.0.0.2, actor_id=5c7f21b9e0d34a8f1e6a0b9d02000000, repr=<vllm.executor.ray_utils.RayWorkerWrapper "
              "object at 0x7f3e2c1d9f90>)")
    tb += frames([
        (S("vllm/worker/worker_base.py"), 465, "execute_method", "raise e"),
        (S("vllm/worker/worker_base.py"), 456, "execute_method", "return executor(*args, **kwargs)"),
        (S("vllm/distributed/device_communicators/pynccl_wrapper.py"), 223, "NCCL_CHECK",
         'raise RuntimeError(f"NCCL error: {error_str}")'),
    ], py="3.10")
    tb.append("RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)")
    L.extend(tb)
    c.tick(1, 2)
    L.append(f"{c.t.strftime('%Y-%m-%d %H:%M:%S')},804\tERROR worker.py:409 -- Unhandled error (suppress with "
             "'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::RayWorkerWrapper.execute_method() (pid=2212, ip=10.0.0.2, "
             "actor_id=a0d19e33c7b41f5b2e8c6d7a02000000, repr=<vllm.executor.ray_utils.RayWorkerWrapper object at "
             "0x7f8e6c2f1a50>)")
    write("ray-multinode-rayworkerwrapper-nccl-connect-failed.log", "\n".join(L) + "\n", {
        "key": "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
        "alt_keys": ["NCCL WARN socketStartConnect: Connect to 10.0.0.1<45013> failed"],
        "category": "nccl_distributed", "process": "RayWorkerWrapper", "rank": None, "attempts": None,
        "decoys": ["Error executing method init_device. This might cause deadlock in distributed execution.",
                   "ray.exceptions.RayTaskError(RuntimeError)", "Unhandled error (suppress with",
                   "[repeated 3x across cluster]"],
        "notes": "vLLM 0.5.4 on a two-node Ray cluster (TP8 = 4+4 GPUs); worker prefixes "
                 "`(RayWorkerWrapper pid=N, ip=10.0.0.2)` for the remote node, `(RayWorkerWrapper pid=N)` for "
                 "local ones, nothing for the driver. A firewall between the nodes drops NCCL's bootstrap "
                 "connection; the NCCL WARN line (NCCL_DEBUG=INFO) names the reason, the RuntimeError is the "
                 "error; either is an acceptable root-cause line. The driver re-raises it inside RayTaskError.",
    })


def asset_kernel_oom_killer() -> None:
    rng = random.Random(115)
    host = "gpu-dev-2"
    recs: list[Rec] = []
    t = dt.datetime(2025, 11, 30, 3, 10, 4)
    pid = 90104

    def add(text: str, ident: str = "vllm", p: int = pid, dts: float = 0.0) -> None:
        nonlocal t
        t += dt.timedelta(seconds=dts)
        recs.append(Rec(t, text, ident=ident, pid=p))
    add("(root) CMD (test -x /etc/cron.daily/popularity-contest && /etc/cron.daily/popularity-contest --crond)",
        "CRON", 90011)
    add("INFO 11-30 03:10:05 api_server.py:528] vLLM API server version 0.6.4.post1", dts=1)
    add("INFO 11-30 03:10:05 api_server.py:529] args: Namespace(host='0.0.0.0', port=8000, model='/srv/models/"
        "Mixtral-8x7B-Instruct-v0.1', dtype='auto', max_model_len=32768, tensor_parallel_size=2, swap_space=64, "
        "cpu_offload_gb=48, gpu_memory_utilization=0.92, enforce_eager=False)")
    add("INFO 11-30 03:10:12 llm_engine.py:249] Initializing an LLM engine (v0.6.4.post1) with config: "
        "model='/srv/models/Mixtral-8x7B-Instruct-v0.1', tensor_parallel_size=2, cpu_offload_gb=48, "
        "dtype=torch.bfloat16, max_seq_len=32768", dts=7)
    add("INFO 11-30 03:10:14 model_runner.py:1072] Starting to load model /srv/models/Mixtral-8x7B-Instruct-v0.1...",
        dts=2)
    add("Loading safetensors checkpoint shards:   0% Completed | 0/19 [00:00<?, ?it/s]")
    for i in range(1, 12):
        add(f"Loading safetensors checkpoint shards: {100 * i // 19:3d}% Completed | {i}/19 [{mmss(i * 6.1)}<"
            f"{mmss((19 - i) * 6.1)},  6.1{i % 10}s/it]", dts=6.1)
    add("Accepted publickey for ops from 10.1.4.22 port 51844 ssh2: ED25519 SHA256:mY3cR0wq1b8nY2l0s0J3b6dD7cU0",
        "sshd", 91240, dts=3)
    oom = [
        "python3 invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, "
        "oom_score_adj=0",
        "CPU: 17 PID: 90104 Comm: python3 Not tainted 6.8.0-49-generic #49-Ubuntu",
        "Hardware name: Supermicro SYS-4029GP-TRT/X11DPG-OT-CPU, BIOS 3.4 11/22/2022",
        "Call Trace:",
        " <TASK>",
        " dump_stack_lvl+0x76/0xa0",
        " dump_header+0x4a/0x240",
        " oom_kill_process+0x10d/0x1b0",
        " out_of_memory+0x103/0x340",
        " __alloc_pages_slowpath.constprop.0+0xa0a/0xdb0",
        " __alloc_pages+0x2ef/0x320",
        " </TASK>",
        "Mem-Info:",
        "active_anon:31829441 inactive_anon:126231 isolated_anon:0",
        "Tasks state (memory values in pages):",
        "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name",
        "[  90104]   998 90104 33125460 31702911 254877696        0             0 python3",
        "[  90187]   998 90187   228113     8121   405504        0             0 python3",
        "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
        "task_memcg=/system.slice/vllm.service,task=python3,pid=90104,uid=998",
        "Out of memory: Killed process 90104 (python3) total-vm:132501840kB, anon-rss:126807300kB, file-rss:4344kB, "
        "shmem-rss:0kB, UID:998 pgtables:248904kB oom_score_adj:0",
    ]
    for i, k in enumerate(oom):
        add(k, "kernel", 0, dts=5 if i == 0 else 0)
    add("vllm.service: A process of this unit has been killed by the OOM killer.", "systemd", 1, dts=0.3)
    add("vllm.service: Main process exited, code=killed, status=9/KILL", "systemd", 1, dts=0.2)
    add("vllm.service: Failed with result 'oom-kill'.", "systemd", 1)
    add("vllm.service: Consumed 2min 31.884s CPU time, 121.1G memory peak, 0B memory swap peak.", "systemd", 1)
    add("oom_reaper: reaped process 90104 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB", "kernel", 0,
        dts=0.4)
    write("journal-short.host-oom-killer-no-traceback.log", journal_short(recs, host), {
        "key": "Out of memory: Killed process 90104 (python3)",
        "category": "host_resources", "process": None, "rank": None, "attempts": 1,
        "decoys": ["Failed with result 'oom-kill'", "code=killed, status=9/KILL", "Accepted publickey",
                   "popularity-contest"],
        "notes": "`journalctl --since '10 min ago'` (no unit filter, so kernel, cron and sshd lines are mixed in). "
                 "vLLM 0.6.4 with --swap-space 64 --cpu-offload-gb 48 on a 128 GB host: the kernel OOM killer "
                 "kills the server mid-load. No Python traceback at all.",
    })


def asset_compose_exit_137() -> None:
    rng = random.Random(116)
    t = dt.datetime(2025, 11, 30, 13, 44, 0)
    c = Clock(t, rng)
    v = V1(c, 1, 97, version="0.11.0", site="/usr/local/lib/python3.12/dist-packages")
    c.tick(2, 3)
    v.raw(f"INFO 11-30 {c.t.strftime('%H:%M:%S')} [__init__.py:216] Automatically detected platform cuda.")
    model = "deepseek-ai/DeepSeek-R1-Distill-Llama-70B"
    v.api_startup(model, "{'model_tag': 'deepseek-ai/DeepSeek-R1-Distill-Llama-70B', 'host': '0.0.0.0', 'model': "
                         "'deepseek-ai/DeepSeek-R1-Distill-Llama-70B', 'max_model_len': 16384, 'cpu_offload_gb': 40, "
                         "'tensor_parallel_size': 1}", "LlamaForCausalLM", 16384)
    v.core_config(model, 1, 16384)
    c.tick(1, 2)
    v.e("INFO", "gpu_model_runner.py:2602", f"Starting to load model {model}...")
    v.e("INFO", "cuda.py:366", "Using Flash Attention backend on V1 engine.")
    v.e("INFO", "weight_utils.py:392", "Using model weights format ['*.safetensors']")
    v.raw("(EngineCore_DP0 pid=97) Loading safetensors checkpoint shards:   0% Completed | 0/17 [00:00<?, ?it/s]")
    for i in range(1, 10):
        c.tick(6, 8)
        v.raw(f"(EngineCore_DP0 pid=97) Loading safetensors checkpoint shards: {100 * i // 17:3d}% Completed | "
              f"{i}/17 [{mmss(i * 6.8)}<{mmss((17 - i) * 6.8)},  6.8{i}s/it]")
    out = ["[+] Running 1/1", " ✔ Container llm-vllm-1  Created                                                  0.1s",
           "Attaching to vllm-1"]
    out += [f"vllm-1  | {r.text}" for r in v.recs]
    out.append("vllm-1 exited with code 137")
    write("compose.vllm-sigkill-exit-137-no-traceback.log", "\n".join(out) + "\n", {
        "key": "exited with code 137",
        "category": "host_resources", "process": None, "rank": None, "attempts": None,
        "decoys": [],
        "notes": "docker compose up: the container has mem_limit: 48g and --cpu-offload-gb 40 pins the offloaded "
                 "weights in host RAM, so the cgroup OOM killer SIGKILLs it while loading shards. No error line "
                 "from vLLM at all: the only evidence is compose's exit code 137 (128+9).",
    })


def asset_sigsegv_core_dumped() -> None:
    rng = random.Random(117)
    host, unit = "inference-01", "vllm-gemma.service"
    site = "/opt/vllm/.venv/lib/python3.12/site-packages"
    recs: list[Rec] = []
    t = dt.datetime(2025, 11, 30, 17, 5, 40)
    for attempt, (api, dump) in enumerate([(61200, 61388), (61642, 61790)]):
        recs.append(Rec(t, f"Started {unit} - vLLM Gemma.", ident="systemd", pid=1))
        c = Clock(t, rng)
        v = V1(c, api, api + 150, jpid=api, version="0.11.0")
        v.api_startup("google/gemma-3-27b-it", "{'model_tag': 'google/gemma-3-27b-it', 'model': "
                      "'google/gemma-3-27b-it', 'max_model_len': 32768, 'guided_decoding_backend': 'xgrammar'}",
                      "Gemma3ForConditionalGeneration", 32768)
        c.tick(0.3, 0.6)
        fh = ["Fatal Python error: Segmentation fault", "",
              "Thread 0x00007f2c1e7fc640 (most recent call first):",
              f'  File "{PY312}/threading.py", line 359 in wait',
              f'  File "{PY312}/threading.py", line 655 in wait',
              f'  File "{site}/tqdm/_monitor.py", line 60 in run',
              f'  File "{PY312}/threading.py", line 1075 in _bootstrap_inner',
              f'  File "{PY312}/threading.py", line 1032 in _bootstrap', "",
              "Current thread 0x00007f2d4a1c2740 (most recent call first):",
              f'  File "{site}/xgrammar/compiler.py", line 133 in compile_builtin_json_grammar',
              f'  File "{site}/vllm/v1/structured_output/backend_xgrammar.py", line 61 in __post_init__',
              '  File "<string>", line 7 in __init__',
              f'  File "{site}/vllm/v1/structured_output/__init__.py", line 101 in _init_backend',
              f'  File "{site}/vllm/v1/engine/processor.py", line 84 in __init__',
              f'  File "{site}/vllm/v1/engine/async_llm.py", line 121 in __init__',
              f'  File "{site}/vllm/v1/engine/async_llm.py", line 207 in from_vllm_config',
              f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 225 in '
              'build_async_engine_client_from_engine_args',
              f'  File "{PY312}/contextlib.py", line 210 in __aenter__',
              f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 180 in build_async_engine_client',
              f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 1884 in run_server', "",
              "Extension modules: numpy._core._multiarray_umath, numpy.linalg._umath_linalg, charset_normalizer.md, "
              "yaml._yaml, markupsafe._speedups, psutil._psutil_linux, torch._C, torch._C._dynamo.autograd_compiler, "
              "torch._C._dynamo.eval_frame, torch._C._dynamo.guards, torch._C._dynamo.utils, torch._C._fft, "
              "torch._C._linalg, torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, zmq.backend.cython"
              "._zmq, msgspec._core, sentencepiece._sentencepiece, regex._regex, uvloop.loop, PIL._imaging, "
              "xgrammar.xgrammar_bindings (total: 92)"]
        v.rawblock(None, None, fh)   # faulthandler writes to fd 2 directly: no vLLM prefix
        recs += v.recs
        t = c.tick(0.5, 1)
        recs.append(Rec(t, f"Process {api} (vllm) of user 998 dumped core.", ident="systemd-coredump", pid=dump))
        recs.append(Rec(t, "", ident="systemd-coredump", pid=dump))
        recs.append(Rec(t, "Stack trace of thread " + str(api) + ":", ident="systemd-coredump", pid=dump))
        for i, (addr, sym) in enumerate([("0x00007f2c9b41a2d0", "n/a (libxgrammar_bindings.so + 0x21a2d0)"),
                                         ("0x00007f2c9b3f8e14", "n/a (libxgrammar_bindings.so + 0x1f8e14)"),
                                         ("0x00007f2d49f1b8a9", "n/a (python3.12 + 0x1b8a9)")]):
            recs.append(Rec(t, f"#{i}  {addr} {sym}", ident="systemd-coredump", pid=dump))
        recs.append(Rec(t, "ELF object binary architecture: AMD x86-64", ident="systemd-coredump", pid=dump))
        t = systemd_fail(recs, t + dt.timedelta(seconds=0.2), unit, f"{9 + attempt}.{rng.randint(100, 999)}s",
                         1 if attempt == 0 else None, rng, how="code=dumped, status=11/SEGV", result="core-dump",
                         desc="vLLM Gemma")
        t += dt.timedelta(milliseconds=4)
    write("journal-short.vllm-sigsegv-core-dumped.log", journal_short(recs, host), {
        "key": "Fatal Python error: Segmentation fault",
        "alt_keys": ["code=dumped, status=11/SEGV", "dumped core."],
        "category": "other", "process": None, "rank": None, "attempts": 2,
        "decoys": ["Failed with result 'core-dump'"],
        "notes": "journalctl -u (short), unit with PYTHONFAULTHANDLER=1: a native crash inside the xgrammar "
                 "extension while the API server builds the structured-output backend. No Python exception; "
                 "faulthandler's thread dump, systemd-coredump's stack and `code=dumped, status=11/SEGV` are "
                 "the evidence. Category is 'other' (a native crash with no rule in the taxonomy).",
    })


def asset_tgi_sigill() -> None:
    rng = random.Random(118)
    t = dt.datetime(2024, 3, 6, 17, 53, 20, 912345)
    L: list[str] = []

    def lg(level: str, target: str, msg: str, d: float = 0.0) -> None:
        nonlocal t
        t += dt.timedelta(seconds=d)
        L.append(f"{t.strftime('%Y-%m-%dT%H:%M:%S.')}{t.microsecond:06d}Z {level:>5} {target}text_generation_launcher: "
                 f"{msg}")
    lg("INFO", "", 'Args { model_id: "HuggingFaceH4/zephyr-7b-beta", speculator: None, dtype: None, '
       "trust_remote_code: false, max_concurrent_requests: 128, max_best_of: 2, max_stop_sequences: 4, "
       "max_top_n_tokens: 5, max_input_tokens: None, max_input_length: None, max_total_tokens: None, "
       'waiting_served_ratio: 0.3, hostname: "0f4b2d9c31e7", port: 80, shard_uds_path: "/tmp/text-generation-server", '
       'master_addr: "localhost", master_port: 29500, huggingface_hub_cache: Some("/data"), num_shard: None, '
       "quantize: None, cuda_memory_fraction: 1.0, json_output: false, disable_custom_kernels: false }")
    lg("INFO", "hf_hub: ", "Token file not found \"/root/.cache/huggingface/token\"", 0.001)
    lg("INFO", "", "Default `max_input_tokens` to 4095", 0.2)
    lg("INFO", "", "Default `max_total_tokens` to 4096", 0.0)
    lg("INFO", "", "Default `max_batch_prefill_tokens` to 4145", 0.0)
    lg("INFO", "", "Using default cuda graphs [1, 2, 4, 8, 16, 32]", 0.0)
    lg("INFO", "download: ", "Starting check and download process for HuggingFaceH4/zephyr-7b-beta", 0.0)
    lg("INFO", "download: ", "Successfully downloaded weights for HuggingFaceH4/zephyr-7b-beta", 3.9)
    lg("INFO", "shard-manager: ", "Starting shard rank=0", 0.001)
    lg("INFO", "shard-manager: ", "Waiting for shard to be ready... rank=0", 9.9)
    lg("ERROR", "shard-manager: ", "Shard process was signaled to shutdown with signal 4 rank=0", 0.14)
    L.append("Error: ShardCannotStart")
    lg("ERROR", "", "Shard 0 failed to start", 0.01)
    lg("INFO", "", "Shutting down shards", 0.0)
    write("tgi-docker-shard-signal-4-sigill.log", "\n".join(L) + "\n", {
        "key": "Shard process was signaled to shutdown with signal 4",
        "category": "cpu_isa", "process": None, "rank": 0, "attempts": None,
        "decoys": ["Error: ShardCannotStart", "Shard 0 failed to start"],
        "notes": "docker logs of TGI 2.x on a VM whose virtual CPU lacks AVX2/AVX-512: the shard dies of SIGILL "
                 "(signal 4) before Python prints anything. rank=0 is on the root-cause line itself.",
    })


def asset_v0_watchdog_after_rank_died() -> None:
    rng = random.Random(119)
    site = "/usr/local/lib/python3.10/dist-packages"
    t = dt.datetime(2024, 10, 28, 13, 58, 40)
    c = Clock(t, rng)
    L: list[str] = []

    def S(p: str) -> str:
        return f"{site}/{p}"

    def vl(prefix: str | None, level: str, where: str, msg: str) -> None:
        head = f"{level} {vts(c.t)} {where}] {msg}"
        L.append(f"{prefix} {head}" if prefix else head)
    # steady state: metrics + access log
    for i in range(30):
        c.tick(2, 9)
        if i % 5 == 4:
            vl(None, "INFO", "metrics.py:349",
               f"Avg prompt throughput: {rng.uniform(2000, 9000):.1f} tokens/s, Avg generation throughput: "
               f"{rng.uniform(300, 900):.1f} tokens/s, Running: {rng.randint(20, 60)} reqs, Swapped: 0 reqs, Pending: "
               f"{rng.randint(0, 9)} reqs, GPU KV cache usage: {rng.uniform(60, 97):.1f}%, CPU KV cache usage: 0.0%.")
        else:
            L.append(f"INFO:     10.8.0.{rng.randint(2, 60)}:{rng.randint(30000, 65000)} - \"POST /v1/completions "
                     "HTTP/1.1\" 200 OK")
    c.tick(1, 3)
    w = "(VllmWorkerProcess pid=1161)"
    tb = ["Exception in worker VllmWorkerProcess while processing method start_worker_execution_loop.",
          "Traceback (most recent call last):"] + frames([
        (S("vllm/executor/multiproc_worker_utils.py"), 224, "_run_worker_process",
         "output = executor(*args, **kwargs)"),
        (S("torch/utils/_contextlib.py"), 116, "decorate_context", "return func(*args, **kwargs)"),
        (S("vllm/worker/worker_base.py"), 88, "start_worker_execution_loop", "output = self.execute_model("),
        (S("vllm/worker/worker_base.py"), 327, "execute_model", "output = self.model_runner.execute_model("),
        (S("torch/utils/_contextlib.py"), 116, "decorate_context", "return func(*args, **kwargs)"),
        (S("vllm/worker/model_runner.py"), 1709, "execute_model", "output: SamplerOutput = self.model.sample("),
        (S("vllm/model_executor/models/llama.py"), 579, "sample",
         "next_tokens = self.sampler(logits, sampling_metadata)"),
        (S("torch/nn/modules/module.py"), 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        (S("torch/nn/modules/module.py"), 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
        (S("vllm/model_executor/layers/sampler.py"), 287, "forward",
         "logprobs = torch.log_softmax(logits, dim=-1, dtype=torch.float)"),
    ], py="3.10") + ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 2 has a total capacity "
                     "of 79.15 GiB of which 2.87 GiB is free. Process 88213 has 76.27 GiB memory in use. Of the "
                     "allocated memory 71.02 GiB is allocated by PyTorch, and 3.66 GiB is reserved by PyTorch but "
                     "unallocated. If reserved but unallocated memory is large try setting "
                     "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
                     "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)", ""]
    for ln in tb:
        vl(w, "ERROR", "multiproc_worker_utils.py:231", ln)
    # traffic goes on for a while; then the NCCL watchdog of the other ranks fires (600 s timeout)
    for i in range(6):
        c.tick(1, 4)
        L.append(f"INFO:     10.8.0.{rng.randint(2, 60)}:{rng.randint(30000, 65000)} - \"POST /v1/completions "
                 "HTTP/1.1\" 200 OK")
    vl(None, "INFO", "metrics.py:349", "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, "
       "Running: 41 reqs, Swapped: 0 reqs, Pending: 17 reqs, GPU KV cache usage: 88.2%, CPU KV cache usage: 0.0%.")
    c.t += dt.timedelta(seconds=600)
    seq = 482113
    wd = ("Watchdog caught collective operation timeout: WorkNCCL(SeqNum={s}, OpType=ALLREDUCE, NumelIn=65536, "
          "NumelOut=65536, Timeout(ms)=600000) ran for 600{ms} milliseconds before timing out.")
    for r in (1, 3, 0):
        c.tick(0, 0.01)
        L.append(f"[rank{r}]:[E{c.t.strftime('%m%d %H:%M:%S')}.{rng.randint(10**8, 10**9 - 1)} "
                 f"ProcessGroupNCCL.cpp:607] [Rank {r}] " + wd.format(s=seq, ms=rng.randint(10, 99)))
    for r in (1, 3, 0):
        ts = f"[rank{r}]:[E{c.t.strftime('%m%d %H:%M:%S')}.{rng.randint(10**8, 10**9 - 1)} "
        L.append(ts + f"ProcessGroupNCCL.cpp:1664] [PG 3 Rank {r}] Exception (either an error or timeout) detected by "
                      f"watchdog at work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.")
        L.append(ts + f"ProcessGroupNCCL.cpp:621] [Rank {r}] Some NCCL operations have failed or timed out. Due to the "
                      "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/"
                      "incomplete data.")
        L.append(ts + f"ProcessGroupNCCL.cpp:627] [Rank {r}] To avoid data inconsistency, we are taking the entire "
                      "process down.")
    L.append(f"[rank0]:[E{c.t.strftime('%m%d %H:%M:%S')}.{rng.randint(10**8, 10**9 - 1)} ProcessGroupNCCL.cpp:1515] "
             "[PG 3 Rank 0] Process group watchdog thread terminated with exception: [Rank 0] "
             + wd.format(s=seq, ms=21))
    L.append("Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most "
             "recent call first):")
    for i, fn in enumerate([
            "c10::Error::Error(c10::SourceLocation, std::string) + 0x96",
            "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, "
            "1000l> > >) + 0x1d2",
            "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233",
            "c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d",
            "<unknown function> + 0xd3b75", "<unknown function> + 0x94ac3", "clone + 0x44"]):
        lib = ["libc10.so", "libtorch_cuda.so", "libtorch_cuda.so", "libtorch_cuda.so",
               "/lib/x86_64-linux-gnu/libstdc++.so.6", "/lib/x86_64-linux-gnu/libc.so.6",
               "/lib/x86_64-linux-gnu/libc.so.6"][i]
        lib = lib if lib.startswith("/") else f"{site}/torch/lib/{lib}"
        L.append(f"frame #{i}: {fn} (0x7f{rng.getrandbits(40):010x} in {lib})")
    L.append("")
    L.append("terminate called after throwing an instance of 'c10::DistBackendError'")
    L.append("  what():  [PG 3 Rank 1] Process group watchdog thread terminated with exception: [Rank 1] "
             + wd.format(s=seq, ms=47))
    c.tick(1, 2)
    vl(None, "ERROR", "multiproc_worker_utils.py:116", "Worker VllmWorkerProcess pid 1160 died, exit code: -6")
    vl(None, "INFO", "multiproc_worker_utils.py:120", "Killing local vLLM worker processes")
    c.tick(0.5, 1)
    vl(None, "ERROR", "engine.py:158", "AsyncEngineDeadError('Background loop has errored already.')")
    for _ in range(3):
        L.append(f"INFO:     10.8.0.{rng.randint(2, 60)}:{rng.randint(30000, 65000)} - \"POST /v1/completions "
                 "HTTP/1.1\" 500 Internal Server Error")
    L.append("Aborted (core dumped)")
    write("vllm063-v0-nccl-watchdog-after-one-rank-died-first.log", "\n".join(L) + "\n", {
        "key": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 2",
        "category": "gpu_oom", "process": "VllmWorkerProcess", "rank": None, "attempts": None,
        "decoys": ["Watchdog caught collective operation timeout",
                   "Process group watchdog thread terminated with exception",
                   "terminate called after throwing an instance of 'c10::DistBackendError'",
                   "died, exit code: -6", "AsyncEngineDeadError", "500 Internal Server Error",
                   "Exception in worker VllmWorkerProcess while processing method",
                   "Some NCCL operations have failed or timed out", "Aborted (core dumped)"],
        "notes": "Plain docker logs of vLLM 0.6.3 V0 (multiprocessing backend, TP4, rank 0 in the engine process "
                 "without prefix). At runtime the worker on GPU 2 runs out of memory in the sampler and stops "
                 "taking part in collectives; ten minutes later the NCCL watchdog of the other ranks times out "
                 "and aborts the process. The watchdog lines are many, later and louder, and are consequences.",
    })


def asset_chained_gated_repo() -> None:
    rng = random.Random(120)
    site = "/usr/local/lib/python3.12/dist-packages"
    t = dt.datetime(2025, 11, 30, 16, 12, 40)
    c = Clock(t, rng)
    v = V1(c, 1, 0, version="0.11.0", site=site)
    S, P = v.S, v.pylib
    c.tick(2, 3)
    v.raw(f"INFO 11-30 {c.t.strftime('%H:%M:%S')} [__init__.py:216] Automatically detected platform cuda.")
    c.tick(2, 3)
    v.a("INFO", "api_server.py:1839", "vLLM API server version 0.11.0")
    v.a("INFO", "utils.py:233", "non-default args: {'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'host': "
                                "'0.0.0.0', 'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 32768}")
    url = "https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/config.json"
    rid = "Root=1-674aa3c1-5e0b9f6a3c0d2b7e4a1f8c90;8b2f61d0-3c7e-4b0e-9f1a-2d5c6e7f8a9b"
    tb = ["Traceback (most recent call last):"] + frames([
        (S("huggingface_hub/utils/_http.py"), 409, "hf_raise_for_status", "response.raise_for_status()"),
        (S("requests/models.py"), 1026, "raise_for_status", "raise HTTPError(http_error_msg, response=self)"),
    ]) + [f"requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: {url}", "",
          "The above exception was the direct cause of the following exception:", "",
          "Traceback (most recent call last):"] + frames([
        (S("transformers/utils/hub.py"), 479, "cached_files", "hf_hub_download("),
        (S("huggingface_hub/utils/_validators.py"), 114, "_inner_fn", "return fn(*args, **kwargs)",
         "fn(*args, **kwargs)"),
        (S("huggingface_hub/file_download.py"), 1010, "hf_hub_download", "return _hf_hub_download_to_cache_dir(",
         "_hf_hub_download_to_cache_dir("),
        (S("huggingface_hub/file_download.py"), 1117, "_hf_hub_download_to_cache_dir",
         "_raise_on_head_call_error(head_call_error, force_download, local_files_only)"),
        (S("huggingface_hub/file_download.py"), 1658, "_raise_on_head_call_error", "raise head_call_error"),
        (S("huggingface_hub/file_download.py"), 1546, "_get_metadata_or_catch_error",
         "metadata = get_hf_file_metadata(", "get_hf_file_metadata("),
        (S("huggingface_hub/utils/_validators.py"), 114, "_inner_fn", "return fn(*args, **kwargs)",
         "fn(*args, **kwargs)"),
        (S("huggingface_hub/file_download.py"), 1463, "get_hf_file_metadata", "r = _request_wrapper(",
         "_request_wrapper("),
        (S("huggingface_hub/file_download.py"), 286, "_request_wrapper", "response = _request_wrapper(",
         "_request_wrapper("),
        (S("huggingface_hub/file_download.py"), 310, "_request_wrapper", "hf_raise_for_status(response)"),
        (S("huggingface_hub/utils/_http.py"), 426, "hf_raise_for_status", "raise _format(GatedRepoError, message, response) from e"),
    ]) + [f"huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: {rid})", "",
          f"Cannot access gated repo for url {url}.",
          "Access to model meta-llama/Llama-3.1-8B-Instruct is restricted. You must have access to it and be "
          "authenticated to access it. Please log in.", "",
          "The above exception was the direct cause of the following exception:", "",
          "Traceback (most recent call last):"] + frames([
        ("/usr/local/bin/vllm", 10, "<module>", "sys.exit(main())", "main()"),
        (S("vllm/entrypoints/cli/main.py"), 54, "main", "args.dispatch_function(args)"),
        (S("vllm/entrypoints/cli/serve.py"), 57, "cmd", "uvloop.run(run_server(args))"),
        (S("uvloop/__init__.py"), 109, "run", "return __asyncio.run(", "__asyncio.run("),
        (f"{P}/asyncio/runners.py", 194, "run", "return runner.run(main)", "runner.run(main)"),
        (f"{P}/asyncio/runners.py", 118, "run", "return self._loop.run_until_complete(task)",
         "self._loop.run_until_complete(task)"),
        ("uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete"),
        (S("uvloop/__init__.py"), 61, "wrapper", "return await main", "await main"),
        (S("vllm/entrypoints/openai/api_server.py"), 1884, "run_server",
         "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)"),
        (S("vllm/entrypoints/openai/api_server.py"), 1902, "run_server_worker",
         "async with build_async_engine_client("),
        (f"{P}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)"),
        (S("vllm/entrypoints/openai/api_server.py"), 180, "build_async_engine_client",
         "async with build_async_engine_client_from_engine_args("),
        (f"{P}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)"),
        (S("vllm/entrypoints/openai/api_server.py"), 206, "build_async_engine_client_from_engine_args",
         "vllm_config = engine_args.create_engine_config(usage_context=usage_context)",
         "engine_args.create_engine_config(usage_context=usage_context)"),
        (S("vllm/engine/arg_utils.py"), 1186, "create_engine_config",
         "model_config = self.create_model_config()", "self.create_model_config()"),
        (S("vllm/engine/arg_utils.py"), 1045, "create_model_config", "return ModelConfig(", "ModelConfig("),
        (S("pydantic/_internal/_dataclasses.py"), 123, "__init__",
         "s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), self_instance=s)"),
        (S("vllm/config/model.py"), 455, "__post_init__", "hf_config = get_config(self.hf_config_path or self.model,",
         "get_config(self.hf_config_path or self.model,"),
        (S("vllm/transformers_utils/config.py"), 568, "get_config", "config_dict, _ = PretrainedConfig.get_config_dict(",
         "PretrainedConfig.get_config_dict("),
        (S("transformers/configuration_utils.py"), 662, "get_config_dict",
         "config_dict, kwargs = cls._get_config_dict(pretrained_model_name_or_path, **kwargs)",
         "cls._get_config_dict(pretrained_model_name_or_path, **kwargs)"),
        (S("transformers/configuration_utils.py"), 721, "_get_config_dict", "resolved_config_file = cached_file(",
         "cached_file("),
        (S("transformers/utils/hub.py"), 322, "cached_file", "file = cached_files(path_or_repo_id=path_or_repo_id, "
         "filenames=[filename], **kwargs)", "cached_files(path_or_repo_id=path_or_repo_id, filenames=[filename], **kwargs)"),
        (S("transformers/utils/hub.py"), 543, "cached_files", "raise OSError("),
    ]) + ["OSError: You are trying to access a gated repo.",
          "Make sure to have access to it at https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct.",
          f"401 Client Error. (Request ID: {rid})", "",
          f"Cannot access gated repo for url {url}.",
          "Access to model meta-llama/Llama-3.1-8B-Instruct is restricted. You must have access to it and be "
          "authenticated to access it. Please log in."]
    v.rawblock("APIServer", 1, tb)
    out = [f"{rfc3339nano(r.t, rng)} {r.text}" for r in v.recs]
    write("chained-direct-cause.vllm-gated-repo-401-no-token.log", "\n".join(out) + "\n", {
        "key": "401 Client Error",
        "alt_keys": ["You are trying to access a gated repo", "Access to model meta-llama/Llama-3.1-8B-Instruct is restricted"],
        "category": "model_files", "process": "APIServer", "rank": None, "attempts": None,
        "decoys": [],
        "notes": "docker logs -t of vLLM 0.11 without HF_TOKEN for a gated model: a three-link chain joined by "
                 "'The above exception was the direct cause of the following exception:' (HTTPError -> "
                 "GatedRepoError -> OSError). The first link is the cause; the later ones restate it, so any "
                 "of them is a hit, but the exception lines of the chain are multi-line messages.",
    })


def asset_during_handling_benign_probe() -> None:
    rng = random.Random(121)
    site = "/usr/local/lib/python3.10/dist-packages"
    t = dt.datetime(2025, 6, 21, 5, 7, 19)
    L: list[str] = []

    def S(p: str) -> str:
        return f"{site}/{p}"

    def gs(level: str, who: str, msg: str) -> None:
        L.append(f"{t.strftime('%Y-%m-%dT%H:%M:%S')}+00:00 - gpustack.worker.backends.{who} - {level} - {msg}")
    gs("INFO", "base", "Preparing model files...")
    gs("INFO", "base", "Model files are ready.")
    gs("INFO", "vllm", "Starting vllm server")
    t += dt.timedelta(seconds=5)
    L.append(f"INFO 06-21 {t.strftime('%H:%M:%S')} [__init__.py:239] Automatically detected platform cuda.")
    L += ["Traceback (most recent call last):"] + frames([
        (S("vllm/platforms/cuda.py"), 458, "<module>", "from sphinx.ext.autodoc.mock import _MockModule"),
    ], py="3.10") + ["ModuleNotFoundError: No module named 'sphinx'", "",
                     "During handling of the above exception, another exception occurred:", "",
                     "Traceback (most recent call last):"] + frames([
        ("/usr/local/bin/vllm", 5, "<module>", "from vllm.entrypoints.cli.main import main"),
        (S("vllm/__init__.py"), 12, "<module>", "from vllm.engine.arg_utils import AsyncEngineArgs, EngineArgs"),
        (S("vllm/engine/arg_utils.py"), 18, "<module>",
         "from vllm.config import (BlockSize, CacheConfig, CacheDType, CompilationConfig,"),
        (S("vllm/config.py"), 37, "<module>", "from vllm.transformers_utils.config import ("),
        (S("vllm/transformers_utils/config.py"), 31, "<module>", "from vllm.transformers_utils.utils import check_gguf_file"),
        (S("vllm/transformers_utils/utils.py"), 9, "<module>", "from vllm.utils import make_async"),
        (S("vllm/utils.py"), 1383, "<module>", "from vllm.platforms import current_platform"),
        (S("vllm/platforms/__init__.py"), 276, "__getattr__", "_current_platform = resolve_obj_by_qualname("),
        (S("vllm/utils.py"), 2008, "resolve_obj_by_qualname", "module = importlib.import_module(module_name)"),
        ("/usr/lib/python3.10/importlib/__init__.py", 126, "import_module",
         "return _bootstrap._gcd_import(name[level:], package, level)"),
        (S("vllm/platforms/cuda.py"), 462, "<module>", "CudaPlatform.log_warnings()"),
        (S("vllm/platforms/cuda.py"), 41, "wrapper", "pynvml.nvmlInit()"),
        (S("pynvml.py"), 2248, "nvmlInit", "nvmlInitWithFlags(0)"),
        (S("pynvml.py"), 2231, "nvmlInitWithFlags", "_nvmlCheckReturn(ret)"),
        (S("pynvml.py"), 979, "_nvmlCheckReturn", "raise NVMLError(ret)"),
    ], py="3.10") + ["pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded"]
    t += dt.timedelta(seconds=2)
    gs("ERROR", "base", "Failed to run the vllm server: Process exited with code 1")
    gs("INFO", "base", "Model instance qwen2.5-32b-instruct-awq-0 is in error state, restarting in 10 seconds")
    write("during-handling.vllm085-benign-sphinx-probe-nvml-driver-not-loaded.log", "\n".join(L) + "\n", {
        "key": "NVMLError_DriverNotLoaded: Driver Not Loaded",
        "category": "gpu_unavailable", "process": None, "rank": None, "attempts": None,
        "decoys": ["ModuleNotFoundError: No module named 'sphinx'", "Failed to run the vllm server",
                   "is in error state, restarting"],
        "notes": "GPUStack worker log around vLLM 0.8.5: the first exception is vLLM's expected import probe for "
                 "sphinx (caught); 'During handling of the above exception, another exception occurred' then "
                 "shows the real error, raised by NVML in the except branch: the NVIDIA kernel module is not "
                 "loaded (after a kernel upgrade without a DKMS rebuild).",
    })


def asset_py313_carets() -> None:
    rng = random.Random(122)
    site = "/home/dev/.local/share/uv/venvs/vllm/lib/python3.13/site-packages"
    t = dt.datetime(2025, 11, 30, 19, 30, 5)
    c = Clock(t, rng)
    v = V1(c, 52110, 52266, version="0.11.0", site=site, pylib="/usr/lib/python3.13")
    S = v.S
    model = "/data/ckpt/llama3-8b-longctx-sft"
    v.api_startup(model, "{'model_tag': '/data/ckpt/llama3-8b-longctx-sft', 'model': "
                         "'/data/ckpt/llama3-8b-longctx-sft', 'max_model_len': 65536}", "LlamaForCausalLM", 65536)
    v.core_config(model, 1, 65536)
    c.tick(1, 2)
    v.e("INFO", "gpu_model_runner.py:2602", f"Starting to load model {model}...")
    v.e("INFO", "gpu_model_runner.py:2634", "Loading model from scratch...")
    v.e("INFO", "cuda.py:366", "Using Flash Attention backend on V1 engine.")
    c.tick(0.2, 0.5)
    # Python 3.13 traceback: ~ and ^ carets, `...<N lines>...` elisions of long call expressions
    inner = frames([
        (S("vllm/v1/engine/core.py"), 83, "__init__", "self.model_executor = executor_class(vllm_config)"),
        (S("vllm/executor/executor_base.py"), 55, "__init__", "self._init_executor()"),
        (S("vllm/executor/uniproc_executor.py"), 55, "_init_executor", "self.collective_rpc(\"load_model\")"),
    ]) + [
        f'  File "{S("vllm/executor/uniproc_executor.py")}", line 83, in collective_rpc',
        "    return [run_method(self.driver_worker, method, args, kwargs)]",
        "            ~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{S("vllm/utils/__init__.py")}", line 3122, in run_method',
        "    return func(*args, **kwargs)",
        f'  File "{S("vllm/v1/worker/gpu_worker.py")}", line 213, in load_model',
        "    self.model_runner.load_model(eep_scale_up=eep_scale_up)",
        "    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{S("vllm/v1/worker/gpu_model_runner.py")}", line 2635, in load_model',
        "    self.model = model_loader.load_model(",
        "                 ~~~~~~~~~~~~~~~~~~~~~~~^",
        "        vllm_config=self.vllm_config, model_config=self.model_config)",
        "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{S("vllm/model_executor/model_loader/base_loader.py")}", line 45, in load_model',
        "    model = initialize_model(vllm_config=vllm_config,",
        "                             model_config=model_config)",
        f'  File "{S("vllm/model_executor/model_loader/utils.py")}", line 63, in initialize_model',
        "    return model_class(vllm_config=vllm_config, prefix=prefix)",
        f'  File "{S("vllm/model_executor/models/llama.py")}", line 538, in __init__',
        "    self.model = self._init_model(vllm_config=vllm_config,",
        "                 ~~~~~~~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^",
        "                                  prefix=maybe_prefix(prefix, \"model\"),",
        "                                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "                                  layer_type=layer_type)",
        "                                  ^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{S("vllm/model_executor/models/llama.py")}", line 385, in __init__',
        "    self.start_layer, self.end_layer, self.layers = make_layers(",
        "                                                    ~~~~~~~~~~~^",
        "        config.num_hidden_layers,",
        "        ^^^^^^^^^^^^^^^^^^^^^^^^^",
        "    ...<2 lines>...",
        "        prefix=f\"{prefix}.layers\",",
        "        ^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "    )",
        "    ^",
        f'  File "{S("vllm/model_executor/models/llama.py")}", line 299, in __init__',
        "    self.self_attn = LlamaAttention(",
        "                     ~~~~~~~~~~~~~~^",
        "        config=config,",
        "        ^^^^^^^^^^^^^^",
        "    ...<12 lines>...",
        "        attn_type=attn_type,",
        "        ^^^^^^^^^^^^^^^^^^^^",
        "    )",
        "    ^",
        f'  File "{S("vllm/model_executor/models/llama.py")}", line 177, in __init__',
        "    self._init_rotary_emb(config,",
        "    ~~~~~~~~~~~~~~~~~~~~~^^^^^^^^",
        "                          rope_scaling=rope_scaling,",
        "                          ^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "                          quant_config=quant_config)",
        "                          ^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'  File "{S("vllm/model_executor/models/llama.py")}", line 211, in _init_rotary_emb',
        "    self.rotary_emb = get_rope(",
        "                      ~~~~~~~~^",
        "        self.head_dim,",
        "        ^^^^^^^^^^^^^^",
        "    ...<4 lines>...",
        "        partial_rotary_factor=self.partial_rotary_factor,",
        "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "    )",
        "    ^",
        f'  File "{S("vllm/model_executor/layers/rotary_embedding/__init__.py")}", line 117, in get_rope',
        "    scaling_type = rope_scaling[\"rope_type\"]",
        "                   ~~~~~~~~~~~~^^^^^^^^^^^^^",
        "KeyError: 'rope_type'",
    ]
    v.engine_failed(inner)
    v.bin = "/home/dev/.local/share/uv/venvs/vllm/bin/vllm"
    v.api_failed()
    write("py313-carets.vllm-rope-scaling-missing-rope-type.log", plain(v.recs), {
        "key": "KeyError: 'rope_type'",
        "category": "model_config", "process": "EngineCore_DP0", "rank": None, "attempts": None,
        "decoys": ["EngineCore failed to start.", "Engine core initialization failed. See root cause above",
                   "Process EngineCore_DP0:", "...<12 lines>..."],
        "notes": "Terminal output of vLLM 0.11 on Python 3.13: caret lines mix `~` and `^` "
                 "(`~~~~~~~~~~~~^^^^^^^^^^^^^`) and long call expressions are elided as `...<N lines>...`. A "
                 "fine-tuned checkpoint's config.json has rope_scaling={'factor': 8.0, "
                 "'original_max_position_embeddings': 8192} with neither 'type' nor 'rope_type'.",
    })


def asset_exception_group() -> None:
    rng = random.Random(123)
    site = "/app/.venv/lib/python3.12/site-packages"
    t = dt.datetime(2025, 11, 30, 7, 45, 10, 330000)
    L: list[str] = []

    def lg(level: str, msg: str, dts: float = 0.0) -> None:
        nonlocal t
        t += dt.timedelta(seconds=dts)
        L.append(f"{t.strftime('%Y-%m-%d %H:%M:%S')},{t.microsecond // 1000:03d} {level:<8} [llm_gateway.app] {msg}")
    lg("INFO", "llm-gateway 2.3.1 starting (engines: vllm, embeddings)")
    lg("INFO", "HF_HUB_OFFLINE=1, cache at /models/hf")
    lg("INFO", "loading engine 'chat' (Qwen/Qwen2.5-7B-Instruct) and engine 'embed' (BAAI/bge-m3)", 0.2)
    lg("INFO", "engine 'embed' ready in 3.12 s", 3.1)

    def p(prefix: str, lines: list[str]) -> list[str]:
        return [f"{prefix}{ln}" if ln else prefix.rstrip() for ln in lines]
    outer = ["+ Exception Group Traceback (most recent call last):"]
    body = frames([
        ("/app/.venv/bin/llm-gateway", 10, "<module>", "sys.exit(main())", "main()"),
        (f"{site}/llm_gateway/cli.py", 61, "main", "asyncio.run(serve(cfg))"),
        ("/usr/local/lib/python3.12/asyncio/runners.py", 194, "run", "return runner.run(main)", "runner.run(main)"),
        ("/usr/local/lib/python3.12/asyncio/runners.py", 118, "run", "return self._loop.run_until_complete(task)",
         "self._loop.run_until_complete(task)"),
        ("/usr/local/lib/python3.12/asyncio/base_events.py", 691, "run_until_complete", "return future.result()",
         "future.result()"),
        (f"{site}/llm_gateway/cli.py", 44, "serve", "async with asyncio.TaskGroup() as tg:"),
        ("/usr/local/lib/python3.12/asyncio/taskgroups.py", 145, "__aexit__", "raise me from None"),
    ]) + ["ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)"]
    sub = ["Traceback (most recent call last):"] + frames([
        (f"{site}/transformers/utils/hub.py", 479, "cached_files", "hf_hub_download("),
        (f"{site}/huggingface_hub/utils/_validators.py", 114, "_inner_fn", "return fn(*args, **kwargs)",
         "fn(*args, **kwargs)"),
        (f"{site}/huggingface_hub/file_download.py", 1010, "hf_hub_download",
         "return _hf_hub_download_to_cache_dir(", "_hf_hub_download_to_cache_dir("),
        (f"{site}/huggingface_hub/file_download.py", 1117, "_hf_hub_download_to_cache_dir",
         "_raise_on_head_call_error(head_call_error, force_download, local_files_only)"),
        (f"{site}/huggingface_hub/file_download.py", 1649, "_raise_on_head_call_error", "raise LocalEntryNotFoundError("),
    ]) + ["huggingface_hub.errors.LocalEntryNotFoundError: Cannot find an appropriate cached snapshot folder for the "
          "specified revision on the local disk and outgoing traffic has been disabled. To enable repo look-ups and "
          "downloads online, pass 'local_files_only=False' as input.", "",
          "The above exception was the direct cause of the following exception:", "",
          "Traceback (most recent call last):"] + frames([
        (f"{site}/llm_gateway/engines.py", 88, "start_chat_engine", "engine = AsyncLLM.from_engine_args(args)",
         "AsyncLLM.from_engine_args(args)"),
        (f"{site}/vllm/v1/engine/async_llm.py", 236, "from_engine_args",
         "vllm_config = engine_args.create_engine_config(usage_context)",
         "engine_args.create_engine_config(usage_context)"),
        (f"{site}/vllm/engine/arg_utils.py", 1186, "create_engine_config",
         "model_config = self.create_model_config()", "self.create_model_config()"),
        (f"{site}/vllm/transformers_utils/config.py", 568, "get_config",
         "config_dict, _ = PretrainedConfig.get_config_dict(", "PretrainedConfig.get_config_dict("),
        (f"{site}/transformers/utils/hub.py", 322, "cached_file",
         "file = cached_files(path_or_repo_id=path_or_repo_id, filenames=[filename], **kwargs)",
         "cached_files(path_or_repo_id=path_or_repo_id, filenames=[filename], **kwargs)"),
        (f"{site}/transformers/utils/hub.py", 553, "cached_files", "raise OSError("),
    ]) + ["OSError: We couldn't connect to 'https://huggingface.co' to load the files, and couldn't find them in the "
          "cached files.",
          "Check your internet connection or see how to run the library in offline mode at "
          "'https://huggingface.co/docs/transformers/installation#offline-mode'."]
    lg("ERROR", "engine 'chat' failed to start; shutting down", 0.4)
    L.append("  " + outer[0])
    L += p("  | ", body)
    L.append("  +-+---------------- 1 ----------------")
    L += p("    | ", sub)
    L.append("    +------------------------------------")
    write("exception-group.gateway-hf-offline-snapshot-not-cached.log", "\n".join(L) + "\n", {
        "key": "Cannot find an appropriate cached snapshot folder for the specified revision on the local disk",
        "alt_keys": ["We couldn't connect to 'https://huggingface.co' to load the files"],
        "category": "model_files", "process": None, "rank": None, "attempts": None,
        "decoys": ["ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
                   "engine 'chat' failed to start; shutting down"],
        "notes": "kubectl logs of an in-house gateway that starts vLLM's AsyncLLM inside an asyncio.TaskGroup "
                 "(Python 3.12): the error is printed as an exception group (`  + Exception Group Traceback`, "
                 "frames behind `  | `, the sub-exception behind `    | ` with a chained cause inside). "
                 "HF_HUB_OFFLINE=1 and the model was never downloaded into the cache.",
    })


def asset_truncated_traceback() -> None:
    rng = random.Random(124)
    site = "/usr/local/lib/python3.12/dist-packages"
    t = dt.datetime(2025, 11, 30, 21, 4, 30)
    c = Clock(t, rng)
    v = V1(c, 1, 74, version="0.11.0", site=site)
    S = v.S
    model = "/models/Mistral-Small-3.2-24B-Instruct-2506"
    c.tick(1, 2)
    v.e("INFO", "gpu_model_runner.py:2602", f"Starting to load model {model}...")
    v.e("INFO", "gpu_model_runner.py:2634", "Loading model from scratch...")
    v.e("INFO", "cuda.py:366", "Using Flash Attention backend on V1 engine.")
    v.e("INFO", "weight_utils.py:392", "Using model weights format ['*.safetensors']")
    v.raw("(EngineCore_DP0 pid=74) Loading safetensors checkpoint shards:   0% Completed | 0/10 [00:00<?, ?it/s]")
    c.tick(1, 2)
    v.raw("(EngineCore_DP0 pid=74) Loading safetensors checkpoint shards:  10% Completed | 1/10 [00:01<00:11,  1.29s/it]")
    c.tick(0.5, 1)
    lines = ["EngineCore failed to start.", "Traceback (most recent call last):"] + frames([
        (S("vllm/v1/engine/core.py"), 699, "run_engine_core", "engine_core = EngineCoreProc(*args, **kwargs)",
         "EngineCoreProc(*args, **kwargs)"),
        (S("vllm/v1/engine/core.py"), 498, "__init__", "super().__init__(vllm_config, executor_class, log_stats,"),
        (S("vllm/v1/engine/core.py"), 83, "__init__", "self.model_executor = executor_class(vllm_config)",
         "executor_class(vllm_config)"),
        (S("vllm/executor/executor_base.py"), 55, "__init__", "self._init_executor()"),
        (S("vllm/executor/uniproc_executor.py"), 55, "_init_executor", "self.collective_rpc(\"load_model\")"),
        (S("vllm/executor/uniproc_executor.py"), 83, "collective_rpc",
         "return [run_method(self.driver_worker, method, args, kwargs)]",
         "run_method(self.driver_worker, method, args, kwargs)"),
        (S("vllm/utils/__init__.py"), 3122, "run_method", "return func(*args, **kwargs)", "func(*args, **kwargs)"),
        (S("vllm/v1/worker/gpu_worker.py"), 213, "load_model", "self.model_runner.load_model(eep_scale_up=eep_scale_up)"),
        (S("vllm/v1/worker/gpu_model_runner.py"), 2635, "load_model", "self.model = model_loader.load_model(",
         "model_loader.load_model("),
        (S("vllm/model_executor/model_loader/base_loader.py"), 50, "load_model",
         "self.load_weights(model, model_config)"),
        (S("vllm/model_executor/model_loader/default_loader.py"), 273, "load_weights",
         "loaded_weights = model.load_weights(", "model.load_weights("),
        (S("vllm/model_executor/models/mistral3.py"), 612, "load_weights",
         "return loader.load_weights(weights)", "loader.load_weights(weights)"),
        (S("vllm/model_executor/models/utils.py"), 294, "load_weights",
         "autoloaded_weights = set(self._load_module(\"\", self.module, weights))",
         "self._load_module(\"\", self.module, weights)"),
        (S("vllm/model_executor/models/utils.py"), 236, "_load_module",
         "for child_prefix, child_weights in self._groupby_prefix(weights):",
         "self._groupby_prefix(weights)"),
        (S("vllm/model_executor/models/utils.py"), 125, "_groupby_prefix",
         "for prefix, group in itertools.groupby(weights_by_parts,"),
        (S("vllm/model_executor/models/utils.py"), 122, "<genexpr>",
         "weights_by_parts = ((weight_name.split(\".\", 1), weight_data)"),
        (S("vllm/model_executor/model_loader/default_loader.py"), 251, "get_all_weights",
         "yield from self._get_weights_iterator(primary_weights)"),
        (S("vllm/model_executor/model_loader/default_loader.py"), 235, "<genexpr>",
         "return ((source.prefix + name, tensor)"),
        (S("vllm/model_executor/model_loader/weight_utils.py"), 468, "safetensors_weights_iterator",
         "with safe_open(st_file, framework=\"pt\") as f:"),
    ])
    v.block("EngineCore_DP0", 74, "ERROR", "core.py:708", lines)
    write("truncated-traceback-no-exception-line.log", plain(v.recs), {
        "key": "weight_utils.py\", line 468, in safetensors_weights_iterator",
        "alt_keys": ["with safe_open(st_file, framework=\"pt\") as f:"],
        "category": None, "process": "EngineCore_DP0", "rank": None, "attempts": None,
        "decoys": ["EngineCore failed to start.", "Loading safetensors checkpoint shards"],
        "notes": "`kubectl logs --tail=40` cut the paste: the engine core's traceback stops at its deepest frame "
                 "(safetensors safe_open while loading shard 2 of 10) and the exception line is missing. There is "
                 "an error, so a report is expected (exit 0), pointing at the deepest frame; category is not "
                 "asserted (the likely cause, a corrupt or LFS-pointer shard, is not in the text).",
    })


def asset_crash_loop_12() -> None:
    rng = random.Random(125)
    host, unit, desc = "llm-prod-4", "vllm@qwen3-32b.service", "vLLM server for qwen3-32b"
    recs: list[Rec] = []
    t = dt.datetime(2025, 11, 30, 2, 0, 0, 400000)
    site = "/srv/vllm/venv/lib/python3.12/site-packages"
    path = "/srv/models/Qwen3-32B-AWQ "
    pid = 18021
    for attempt in range(12):
        recs.append(Rec(t, f"Started {unit} - {desc}.", ident="systemd", pid=1))
        c = Clock(t, rng)
        v = V1(c, pid, 0, jpid=pid, version="0.11.0", site=site)
        S, P = v.S, v.pylib
        c.tick(4, 5)
        v.raw(f"INFO 11-30 {c.t.strftime('%H:%M:%S')} [__init__.py:216] Automatically detected platform cuda.")
        c.tick(2, 3)
        v.a("INFO", "api_server.py:1839", "vLLM API server version 0.11.0")
        v.a("INFO", "utils.py:233", f"non-default args: {{'model_tag': '{path}', 'host': '127.0.0.1', 'port': 8001, "
                                    f"'model': '{path}', 'quantization': 'awq_marlin', 'max_model_len': 32768}}")
        tb = ["Traceback (most recent call last):"] + frames([
            ("/srv/vllm/venv/bin/vllm", 10, "<module>", "sys.exit(main())", "main()"),
            (S("vllm/entrypoints/cli/main.py"), 54, "main", "args.dispatch_function(args)"),
            (S("vllm/entrypoints/cli/serve.py"), 57, "cmd", "uvloop.run(run_server(args))"),
            (S("uvloop/__init__.py"), 109, "run", "return __asyncio.run(", "__asyncio.run("),
            (f"{P}/asyncio/runners.py", 194, "run", "return runner.run(main)", "runner.run(main)"),
            (f"{P}/asyncio/runners.py", 118, "run", "return self._loop.run_until_complete(task)",
             "self._loop.run_until_complete(task)"),
            ("uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete"),
            (S("uvloop/__init__.py"), 61, "wrapper", "return await main", "await main"),
            (S("vllm/entrypoints/openai/api_server.py"), 1884, "run_server",
             "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)"),
            (S("vllm/entrypoints/openai/api_server.py"), 1902, "run_server_worker",
             "async with build_async_engine_client("),
            (f"{P}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)"),
            (S("vllm/entrypoints/openai/api_server.py"), 170, "build_async_engine_client",
             "engine_args = AsyncEngineArgs.from_cli_args(args)", "AsyncEngineArgs.from_cli_args(args)"),
            (S("vllm/engine/arg_utils.py"), 1465, "from_cli_args", "engine_args = cls(", "cls("),
            ("<string>", 173, "__init__"),
            (S("vllm/engine/arg_utils.py"), 511, "__post_init__",
             "self.model = get_model_path(self.model, self.revision)", "get_model_path(self.model, self.revision)"),
            (S("vllm/transformers_utils/utils.py"), 101, "get_model_path",
             "return snapshot_download(repo_id=model, **common_kwargs)",
             "snapshot_download(repo_id=model, **common_kwargs)"),
            (S("huggingface_hub/utils/_validators.py"), 106, "_inner_fn", "validate_repo_id(arg_value)"),
            (S("huggingface_hub/utils/_validators.py"), 154, "validate_repo_id", "raise HFValidationError("),
        ]) + [f"huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or "
              f"'namespace/repo_name': '{path}'. Use `repo_type` argument if needed."]
        v.rawblock("APIServer", pid, tb)
        recs += v.recs
        t = c.tick(0.3, 0.6)
        last = attempt == 11
        t = systemd_fail(recs, t, unit, f"{rng.uniform(7, 9):.3f}s", attempt + 1, rng, desc=desc)
        if last:
            recs.append(Rec(t, f"{unit}: Start request repeated too quickly.", ident="systemd", pid=1))
            recs.append(Rec(t, f"{unit}: Failed with result 'exit-code'.", ident="systemd", pid=1))
            recs.append(Rec(t, f"Failed to start {unit} - {desc}.", ident="systemd", pid=1))
        t += dt.timedelta(milliseconds=rng.randint(2, 9))
        pid += rng.randint(180, 420)
    write("journal-short.vllm-crash-loop-12-attempts-model-path-trailing-space.log", journal_short(recs, host), {
        "key": "Repo id must be in the form 'repo_name' or 'namespace/repo_name'",
        "category": "model_files", "process": "APIServer", "rank": None, "attempts": 12,
        "decoys": ["Start request repeated too quickly.", "Failed to start vllm@qwen3-32b.service",
                   "Main process exited, code=exited, status=1/FAILURE"],
        "notes": "journalctl -u (short) of a templated unit with Restart=on-failure, RestartSec=10, "
                 "StartLimitBurst=12: twelve identical attempts (new PID each), then systemd gives up. The model "
                 "path in the unit's drop-in has a trailing space, so it is not a directory and is taken for a "
                 "hub repo id.",
    })


def asset_clean_no_error() -> None:
    rng = random.Random(126)
    host, unit = "gpu-node-12", "vllm.service"
    recs: list[Rec] = []
    t = dt.datetime(2025, 11, 30, 8, 0, 1)
    recs.append(Rec(t, f"Started {unit} - vLLM (Qwen2.5-7B-Instruct).", ident="systemd", pid=1))
    c = Clock(t, rng)
    api, core = 3301, 3466
    model = "Qwen/Qwen2.5-7B-Instruct"
    v = V1(c, api, core, jpid=api, version="0.11.0")
    c.tick(3, 4)
    v.raw(f"INFO 11-30 {c.t.strftime('%H:%M:%S')} [__init__.py:216] Automatically detected platform cuda.")
    v.raw(f"DEBUG 11-30 {c.t.strftime('%H:%M:%S')} [__init__.py:36] TPU platform is not available because: No module "
          "named 'libtpu'")
    v.api_startup(model, "{'model_tag': 'Qwen/Qwen2.5-7B-Instruct', 'port': 8000, 'model': "
                         "'Qwen/Qwen2.5-7B-Instruct', 'max_model_len': 32768}", "Qwen2ForCausalLM", 32768)
    v.a("WARNING", "system_utils.py:136",
        "Found ulimit of 4096 and failed to automatically increase with error current limit exceeds maximum limit. "
        "This can cause fd limit errors like `OSError: [Errno 24] Too many open files`. Consider increasing with "
        "ulimit -n")
    v.core_config(model, 1, 32768)
    v.load_single(model, 4, 14.2488)
    v.compile_single()
    c.tick(2, 3)
    v.e("INFO", "gpu_worker.py:298", "Available KV cache memory: 52.10 GiB")
    v.e("INFO", "kv_cache_utils.py:1087", "GPU KV cache size: 975,616 tokens")
    v.e("INFO", "kv_cache_utils.py:1091", "Maximum concurrency for 32,768 tokens per request: 29.77x")
    for pct, n in [(6, 4), (34, 23), (67, 45), (100, 67)]:
        c.tick(1, 2)
        v.raw(f"(EngineCore_DP0 pid={core}) Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): {pct:3d}%|"
              f"{'█' * (pct // 10)}{' ' * (10 - pct // 10)}| {n}/67 [00:{n // 7:02d}<00:{(67 - n) // 7:02d}, "
              f"{rng.uniform(6, 8):5.2f}it/s]", stream="stderr")
    v.e("INFO", "gpu_model_runner.py:3480", "Graph capturing finished in 10 secs, took 0.49 GiB")
    v.e("INFO", "core.py:210", "init engine (profile, create kv cache, warmup model) took 52.04 seconds")
    c.tick(0.5, 1)
    v.a("INFO", "loggers.py:147", "Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 60976")
    v.a("INFO", "api_server.py:1634", "Supported_tasks: ['generate']")
    v.a("INFO", "api_server.py:1912", "Starting vLLM API server 0 on http://0.0.0.0:8000")
    v.a("INFO", "launcher.py:34", "Available routes are:")
    for route, meth in [("/openapi.json", "HEAD, GET"), ("/docs", "HEAD, GET"), ("/health", "GET"),
                        ("/tokenize", "POST"), ("/v1/models", "GET"), ("/version", "GET"),
                        ("/v1/chat/completions", "POST"), ("/v1/completions", "POST"), ("/metrics", "GET")]:
        v.a("INFO", "launcher.py:42", f"Route: {route}, Methods: {meth}")
    v.raw(f"(APIServer pid={api}) INFO:     Started server process [{api}]")
    v.raw(f"(APIServer pid={api}) INFO:     Waiting for application startup.")
    v.raw(f"(APIServer pid={api}) INFO:     Application startup complete.")
    for i in range(40):
        c.tick(2, 20)
        if i % 8 == 7:
            v.a("INFO", "loggers.py:123",
                f"Engine 000: Avg prompt throughput: {rng.uniform(200, 2000):.1f} tokens/s, Avg generation throughput: "
                f"{rng.uniform(50, 400):.1f} tokens/s, Running: {rng.randint(0, 6)} reqs, Waiting: 0 reqs, GPU KV cache "
                f"usage: {rng.uniform(0.5, 9):.1f}%, Prefix cache hit rate: {rng.uniform(10, 60):.1f}%")
        elif i == 13:
            v.raw(f'(APIServer pid={api}) INFO:     10.0.3.7:{rng.randint(30000, 65000)} - "GET /v1/modles HTTP/1.1" '
                  "404 Not Found")
        else:
            path = rng.choice(["POST /v1/chat/completions"] * 6 + ["GET /health", "GET /metrics"])
            v.raw(f'(APIServer pid={api}) INFO:     10.0.3.{rng.randint(2, 30)}:{rng.randint(30000, 65000)} - '
                  f'"{path} HTTP/1.1" 200 OK')
    recs += v.recs
    write("journal-short.vllm-clean-startup-and-serving-no-error.log", journal_short(recs, host), {
        "key": None, "category": None, "process": None, "rank": None, "attempts": 1, "exit_status": 3,
        "decoys": ["Too many open files", "404 Not Found", "No module named 'libtpu'"],
        "notes": "A healthy vLLM 0.11 start and some traffic: benign WARNINGs (ulimit text that names an OSError), "
                 "a DEBUG platform probe mentioning a missing module, a 404 from a client typo. No error: "
                 "root_cause must be null and the exit status 3.",
    })


ALL = [
    asset_journal_short_kv_cache, asset_journal_short_iso_port_in_use, asset_journal_short_precise_oom,
    asset_journal_cat_abi, asset_journal_json_readonly_fs, asset_docker_ts_free_memory,
    asset_kubectl_heads_not_divisible, asset_compose_no_gpu_runtime, asset_ansi_driver_too_old,
    asset_cri_illegal_memory_access, asset_gz_v0_no_kernel_image, asset_sglang_tp2_sigquit,
    asset_tgi_flash_attn_cuda_unavailable, asset_ray_workerwrapper_nccl, asset_kernel_oom_killer,
    asset_compose_exit_137, asset_sigsegv_core_dumped, asset_tgi_sigill, asset_v0_watchdog_after_rank_died,
    asset_chained_gated_repo, asset_during_handling_benign_probe, asset_py313_carets, asset_exception_group,
    asset_truncated_traceback, asset_crash_loop_12, asset_clean_no_error,
]


def main() -> None:
    for f in ALL:
        f()
    for name in ASSETS:
        print(name)


if __name__ == "__main__":
    main()
