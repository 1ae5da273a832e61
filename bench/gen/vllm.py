"""vLLM V1 (0.15-0.16) server output: the API server, the engine core and one WorkerProc per TP rank.

Startup (banner, non-default args, engine config, NCCL setup with NCCL_DEBUG=INFO, weight loading and
CUDA-graph progress bars, routes, uvicorn start), steady serving (request logging, uvicorn access log, health
checks and Prometheus scrapes, the 10-second stats line, WARNINGs that are not failures), handled request
errors (decoys), and three ways to die: the flashinfer version gate at model construction (the project's
founding case, all ranks interleaved), a worker's CUDA OOM while serving, and a CUDA illegal memory access
that brings down the NCCL watchdog.

The startup and crash text follows examples/make_founding_case.py (copied, not imported, so the benchmark's
input stays the same when the example changes).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .clock import SEC, Clocks
from .common import c10_destroy_warning, client, frame, interleave, nccl_block, progress, prompt_text, schedule
from .sinks import Sink

FLASHINFER_KEY = "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)"
FLASHINFER_MSG = (
    "flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4). Please install the same version "
    "of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check."
)
OOM_KEY = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.50 GiB. GPU 5"
IMA_KEY = "RuntimeError: CUDA error: an illegal memory access was encountered"

CUDA_ASYNC_NOTE = [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
    "incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
]


@dataclass
class Deploy:
    """What is being served and how it logs."""

    model: str = "moonshotai/Kimi-K2.5"
    served: str = "kimi-k2.5"
    chat: str = "kimi"
    tp: int = 8
    version: str = "0.15.1"
    site: str = "/opt/vllm/.venv/lib/python3.12/site-packages"
    pylib: str = "/usr/lib/python3.12"
    host: str = "gpu-node-07"
    nccl_debug: bool = True
    request_log: bool = True
    rps: float = 6.0
    """Mean requests per second."""
    quant: str = "compressed-tensors"
    arch: str = "KimiK25ForConditionalGeneration"


CHAT = {
    "kimi": ("<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot AI.<|im_end|>"
             "<|im_user|>user<|im_middle|>", "<|im_end|><|im_assistant|>assistant<|im_middle|>"),
    "qwen": ("<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n<|im_start|>user\\n",
             "<|im_end|>\\n<|im_start|>assistant\\n"),
    "llama": ("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\\n\\nCutting Knowledge Date: December "
              "2023\\nToday Date: 26 Jul 2024\\n\\n<|eot_id|><|start_header_id|>user<|end_header_id|>\\n\\n",
              "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\\n\\n"),
}

PATHS = ([("POST /v1/chat/completions", "200 OK")] * 40
         + [("POST /v1/completions", "200 OK")] * 3
         + [("POST /v1/chat/completions", "400 Bad Request"), ("GET /v1/models", "200 OK"),
            ("POST /tokenize", "200 OK"), ("GET /v1/modles", "404 Not Found")])

IGNORED_FIELDS = ("{'logit_bias_type'}", "{'stream_options'}", "{'metadata'}", "{'store'}",
                  "{'parallel_tool_calls', 'store'}", "{'reasoning_effort'}")


class Vllm:
    """One vLLM deployment writing to a sink; `t` is the current time in microseconds."""

    def __init__(self, sink: Sink, rng: random.Random, ck: Clocks, dep: Deploy) -> None:
        self.sink, self.rng, self.ck, self.d = sink, rng, ck, dep
        self.main = self.core_pid = 0
        self.workers: list[int] = []
        self.usage = 20.0

    # -- helpers ---------------------------------------------------------------------------------------
    def S(self, path: str) -> str:
        return f"{self.d.site}/{path}"

    def new_attempt(self, main_pid: int, inv: str) -> None:
        """A fresh start: pids of the API server, the engine core and the workers."""
        rng = self.rng
        self.main = main_pid
        self.core_pid = main_pid + rng.randint(140, 190)
        pid = self.core_pid + rng.randint(40, 70)
        self.workers = []
        for _ in range(self.d.tp):
            self.workers.append(pid)
            pid += rng.randint(3, 9)
        self.sink.attempt(main_pid, inv)

    def v(self, proc: str, pid: int, level: str, t: int, where: str, msg: str) -> str:
        return f"({proc} pid={pid}) {level} {self.ck.vllm(t)} [{where}] {msg}"

    def api(self, t: int, level: str, where: str, msg: str) -> None:
        self.sink.out(t, self.v("APIServer", self.main, level, t, where, msg), level != "INFO")

    def core(self, t: int, level: str, where: str, msg: str) -> None:
        self.sink.out(t, self.v("EngineCore_DP0", self.core_pid, level, t, where, msg), level != "INFO")

    def wk(self, t: int, k: int, level: str, where: str, msg: str) -> None:
        self.sink.out(t, self.v(f"Worker_TP{k}", self.workers[k], level, t, where, msg), level != "INFO")

    def tick(self, t: int, lo: float, hi: float) -> int:
        return t + int(self.rng.uniform(lo, hi) * SEC)

    # -- startup ---------------------------------------------------------------------------------------
    def non_default(self) -> str:
        d = self.d
        return (f"{{'model_tag': '{d.model}', 'enable_auto_tool_choice': True, 'tool_call_parser': 'kimi_k2', "
                f"'host': '0.0.0.0', 'port': 8000, 'model': '{d.model}', 'trust_remote_code': True, "
                f"'max_model_len': 131072, 'served_model_name': ['{d.served}'], 'reasoning_parser': 'kimi_k2', "
                f"'tensor_parallel_size': {d.tp}, 'gpu_memory_utilization': 0.92, 'enable_prefix_caching': True, "
                f"'enable_log_requests': {d.request_log}}}")

    def engine_config(self) -> str:
        d = self.d
        sizes = ", ".join(str(s) for s in [512 - 8 * i for i in range(60)] + [24, 16, 8, 4, 2, 1])
        return (
            f"Initializing a V1 LLM engine (v{d.version}) with config: model='{d.model}', speculative_config=None, "
            f"tokenizer='{d.model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
            "tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=131072, "
            f"download_dir=None, load_format=auto, tensor_parallel_size={d.tp}, pipeline_parallel_size=1, "
            "data_parallel_size=1, disable_custom_all_reduce=False, "
            f"quantization={d.quant}, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, "
            "structured_outputs_config=StructuredOutputsConfig(backend='auto', disable_fallback=False, "
            "disable_any_whitespace=False, disable_additional_properties=False, reasoning_parser=''), "
            "observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, "
            "otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, "
            f"served_model_name={d.served}, enable_prefix_caching=True, enable_chunked_prefill=True, "
            "pooler_config=None, compilation_config={'level': 3, 'debug_dump_path': None, 'cache_dir': '', "
            "'backend': '', 'custom_ops': [], 'splitting_ops': ['vllm::unified_attention', "
            "'vllm::unified_attention_with_output', 'vllm::unified_mla_attention', "
            "'vllm::unified_mla_attention_with_output', 'vllm::mamba_mixer2', 'vllm::mamba_mixer', "
            "'vllm::short_conv', 'vllm::linear_attention', 'vllm::plamo2_mamba_mixer', 'vllm::gdn_attention', "
            "'vllm::sparse_attn_indexer'], 'use_inductor': True, 'compile_sizes': [], 'inductor_compile_config': "
            "{'enable_auto_functionalized_v2': False}, 'inductor_passes': {}, 'cudagraph_mode': [2, 1], "
            "'use_cudagraph': True, 'cudagraph_num_of_warmups': 1, "
            f"'cudagraph_capture_sizes': [{sizes}], 'cudagraph_copy_inputs': False, 'full_cuda_graph': False, "
            "'use_inductor_graph_partition': False, 'pass_config': {}, 'max_capture_size': 512, "
            "'local_cache_dir': None}"
        )

    def frontend(self, t: int) -> int:
        d, rng = self.d, self.rng
        t = self.tick(t, 7, 9)
        for b in ["", "       █     █     █▄   ▄█", f" ▄▄ ▄█ █     █     █ ▀▄▀ █  version {d.version}",
                  f"  █▄█▀ █     █     █     █  model   {d.model}", "   ▀▀  ▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀", ""]:
            self.api(t, "INFO", "utils.py:299", b)
        self.api(t, "INFO", "utils.py:233", "non-default args: " + self.non_default())
        t = self.tick(t, 0.1, 0.3)
        self.api(t, "WARNING", "system_utils.py:136",
                 "Found ulimit of 1024 and failed to automatically increase with error current limit exceeds "
                 "maximum limit. This can cause fd limit errors like `OSError: [Errno 24] Too many open files`. "
                 "Consider increasing with ulimit -n")
        t = self.tick(t, 1.5, 3)
        self.api(t, "INFO", "model.py:631", f"Resolved architecture: {d.arch}")
        self.api(t, "INFO", "model.py:1861", "Using max model len 131072")
        t = self.tick(t, 0.2, 0.6)
        self.api(t, "INFO", "scheduler.py:230", "Chunked prefill is enabled with max_num_batched_tokens=8192.")
        self.api(t, "INFO", "vllm.py:601", "Asynchronous scheduling is enabled.")
        self.api(t, "INFO", "config.py:310", "Overriding max cuda graph capture size to 512 for performance.")
        t = self.tick(t, 1, 2.5)
        self.api(t, "WARNING", "__init__.py:1318",
                 f"The tokenizer you are loading from '{d.model}' is a custom tokenizer: trust_remote_code=True "
                 "executes code from the model repository.")
        _ = rng
        return t

    def engine(self, t: int) -> int:
        rng = self.rng
        t = self.tick(t, 9, 14)
        self.core(t, "INFO", "core.py:93", self.engine_config())
        t = self.tick(t, 0.1, 0.3)
        self.core(t, "WARNING", "multiproc_executor.py:869",
                  "Reducing Torch parallelism from 112 threads to 1 to avoid unnecessary CPU contention. Set "
                  "OMP_NUM_THREADS in the external environment to tune this value as needed.")
        self.core(t, "INFO", "shm_broadcast.py:289",
                  f"vLLM message queue communication handle: Handle(local_reader_ranks={list(range(self.d.tp))}, "
                  f"buffer_handle=({self.d.tp}, 16777216, 10, 'psm_{rng.getrandbits(32):08x}'), "
                  f"local_subscribe_addr='ipc:///tmp/{rng.getrandbits(64):016x}', remote_subscribe_addr=None, "
                  "remote_addr_ipv6=False)")
        return t

    def workers_init(self, t: int) -> int:
        d, rng, tp = self.d, self.rng, self.d.tp
        t = self.tick(t, 14, 20)
        port = rng.randint(40000, 60000)
        order = list(range(tp))
        rng.shuffle(order)
        for k in order:
            t = self.tick(t, 0, 0.15)
            self.wk(t, k, "INFO", "parallel_state.py:1208",
                    f"world_size={tp} rank={k} local_rank={k} distributed_init_method=tcp://127.0.0.1:{port} "
                    "backend=nccl")
        t = self.tick(t, 1, 2)
        for k in order:
            t = self.tick(t, 0, 0.05)
            self.wk(t, k, "INFO", "pynccl.py:111", "vLLM is using nccl==2.27.5")
        if d.nccl_debug:
            for _rank, line in nccl_block(rng, d.host, self.workers, "2.27.5"):
                t += rng.randint(50, 3000)
                self.sink.out(t, line)
        t = self.tick(t, 2, 4)
        gpus = ",".join(str(i) for i in range(tp))
        for k in [0] + [k for k in order if k]:
            t = self.tick(t, 0, 0.05)
            self.wk(t, k, "INFO", "custom_all_reduce_utils.py:246",
                    f"reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_{gpus}.json")
        t = self.tick(t, 0.5, 1)
        self.wk(t, 0, "INFO", "shm_broadcast.py:289",
                f"vLLM message queue communication handle: Handle(local_reader_ranks={list(range(1, tp))}, "
                f"buffer_handle=({tp - 1}, 4194304, 6, 'psm_{rng.getrandbits(32):08x}'), "
                f"local_subscribe_addr='ipc:///tmp/{rng.getrandbits(64):016x}', remote_subscribe_addr=None, "
                "remote_addr_ipv6=False)")
        for k in order:
            t = self.tick(t, 0, 0.08)
            self.wk(t, k, "INFO", "parallel_state.py:1394",
                    f"rank {k} in world size {tp} is assigned as DP rank 0, PP rank 0, TP rank {k}, EP rank {k}")
        t = self.tick(t, 0.3, 0.8)
        self.wk(t, 0, "INFO", "gpu_model_runner.py:2602", f"Starting to load model {d.model}...")
        t = self.tick(t, 0.5, 1.5)
        for k in order:
            t = self.tick(t, 0, 0.1)
            self.wk(t, k, "INFO", "cuda.py:366",
                    "Using FLASHINFER_MLA attention backend out of potential backends: ['FLASHINFER_MLA', "
                    "'CUTLASS_MLA', 'FLASH_ATTN_MLA', 'FLASHMLA', 'TRITON_MLA']")
        return t

    def load_and_serve_ready(self, t: int) -> int:
        """After workers_init on a good install: weights, compile, KV cache, CUDA graphs, routes, uvicorn."""
        rng, tp = self.rng, self.d.tp
        for k in range(tp):
            t = self.tick(t, 0, 0.1)
            self.wk(t, k, "INFO", "weight_utils.py:392", "Using model weights format ['*.safetensors']")
        t = self.tick(t, 2, 4)
        ups, t2 = progress(rng, t, "Loading safetensors checkpoint shards", 64, 5.2, unit="s",
                           completed_style=True)
        self.sink.bar(ups, f"(Worker_TP0 pid={self.workers[0]}) ")
        load_s = (t2 - t) / SEC
        t = t2
        for k in range(tp):
            t = self.tick(t, 0, 0.3)
            self.wk(t, k, "INFO", "default_loader.py:267", f"Loading weights took {load_s + rng.uniform(-3, 3):.2f} seconds")
        for k in range(tp):
            t = self.tick(t, 0, 0.2)
            self.wk(t, k, "INFO", "gpu_model_runner.py:2653",
                    f"Model loading took 72.{rng.randint(10, 99)} GiB and {load_s + rng.uniform(8, 14):.6f} seconds")
        t = self.tick(t, 20, 40)
        self.wk(t, 0, "INFO", "backends.py:548",
                f"Using cache directory: /root/.cache/vllm/torch_compile_cache/{rng.getrandbits(40):010x}/rank_0_0/"
                "backbone for vLLM's torch.compile")
        self.wk(t, 0, "INFO", "backends.py:559", f"Dynamo bytecode transform time: {rng.uniform(15, 25):.2f} s")
        t = self.tick(t, 10, 20)
        self.wk(t, 0, "INFO", "backends.py:164",
                f"Directly load the compiled graph(s) for dynamic shape from the cache, took {rng.uniform(7, 11):.3f} s")
        self.wk(t, 0, "INFO", "monitor.py:34", f"torch.compile takes {rng.uniform(25, 35):.2f} s in total")
        t = self.tick(t, 3, 6)
        for k in range(tp):
            t = self.tick(t, 0, 0.2)
            self.wk(t, k, "INFO", "gpu_worker.py:298", f"Available KV cache memory: {rng.uniform(1.9, 2.2):.2f} GiB")
        self.core(t, "INFO", "kv_cache_utils.py:1087", "GPU KV cache size: 271,616 tokens")
        self.core(t, "INFO", "kv_cache_utils.py:1091", "Maximum concurrency for 131,072 tokens per request: 2.07x")
        t = self.tick(t, 1, 2)
        ups, t = progress(rng, t, "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE)", 67, 0.16)
        self.sink.bar(ups, f"(Worker_TP0 pid={self.workers[0]}) ")
        ups, t = progress(rng, t, "Capturing CUDA graphs (decode, FULL)", 35, 0.12)
        self.sink.bar(ups, f"(Worker_TP0 pid={self.workers[0]}) ")
        t = self.tick(t, 0.5, 1)
        self.wk(t, 0, "INFO", "gpu_model_runner.py:3480", "Graph capturing finished in 13 secs, took 1.47 GiB")
        self.core(t, "INFO", "core.py:210", f"init engine (profile, create kv cache, warmup model) took "
                                            f"{rng.uniform(120, 160):.2f} seconds")
        t = self.tick(t, 1, 2)
        self.api(t, "INFO", "loggers.py:147",
                 "Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 4244")
        self.api(t, "INFO", "api_server.py:1634", "Supported_tasks: ['generate']")
        self.api(t, "WARNING", "serving_responses.py:137",
                 "For gpt-oss, we ignore --enable-auto-tool-choice and always enable tool use.")
        self.api(t, "INFO", "api_server.py:1912", "Starting vLLM API server 0 on http://0.0.0.0:8000")
        self.api(t, "INFO", "launcher.py:34", "Available routes are:")
        for route, meth in [("/openapi.json", "HEAD, GET"), ("/docs", "HEAD, GET"), ("/health", "GET"),
                            ("/load", "GET"), ("/tokenize", "POST"), ("/detokenize", "POST"), ("/v1/models", "GET"),
                            ("/version", "GET"), ("/v1/responses", "POST"), ("/v1/chat/completions", "POST"),
                            ("/v1/completions", "POST"), ("/metrics", "GET")]:
            self.api(t, "INFO", "launcher.py:42", f"Route: {route}, Methods: {meth}")
        a = f"(APIServer pid={self.main}) INFO:     "
        self.sink.out(t, a + f"Started server process [{self.main}]")
        self.sink.out(t, a + "Waiting for application startup.")
        self.sink.out(t, a + "Application startup complete.")
        return t

    def start(self, t: int) -> int:
        """A whole good start, up to "Application startup complete"."""
        t = self.frontend(t)
        t = self.engine(t)
        t = self.workers_init(t)
        return self.load_and_serve_ready(t)

    # -- serving ----------------------------------------------------------------------------------------
    def serve(self, t: int, target: int, decoys: list[int] | None = None) -> int:
        """Serve traffic until the sink holds `target` bytes; a decoy (handled error) at each size in decoys."""
        sink, rng, d = self.sink, self.rng, self.d
        out, rnd, vts = sink.out, rng.random, self.ck.vllm
        api = f"(APIServer pid={self.main})"
        core = f"(EngineCore_DP0 pid={self.core_pid})"
        acc = api + " INFO:     "
        head, tail = CHAT[d.chat]
        metrics, health, prom = schedule(rng, t, 10.0, 0.0), schedule(rng, t, 5.0, 0.05), schedule(rng, t, 15.0, 0.0)
        nm, nh, npr = metrics(), health(), prom()
        todo = sorted(decoys or [])
        kind = 0
        mean = 1.0 / d.rps
        usage = self.usage
        while sink.size < target:
            t += int(rng.expovariate(1.0) * mean * SEC) + 1
            while nm <= t:
                usage = min(99.9, max(0.5, usage + rng.uniform(-6, 6)))
                running = int(usage * 1.3) + rng.randint(0, 5)
                out(nm, f"{api} INFO {vts(nm)} [loggers.py:123] Engine 000: Avg prompt throughput: "
                        f"{rng.uniform(300, 30000):.1f} tokens/s, Avg generation throughput: {rng.uniform(80, 4000):.1f} "
                        f"tokens/s, Running: {running} reqs, Waiting: {rng.randint(0, 3) if usage < 90 else rng.randint(2, 40)} "
                        f"reqs, GPU KV cache usage: {usage:.1f}%, Prefix cache hit rate: {rng.uniform(5, 80):.1f}%")
                nm = metrics()
            while nh <= t:
                out(nh, f'{acc}10.20.0.2:{rng.randint(30000, 65000)} - "GET /health HTTP/1.1" 200 OK')
                nh = health()
            while npr <= t:
                out(npr, f'{acc}10.20.0.9:{rng.randint(30000, 65000)} - "GET /metrics HTTP/1.1" 200 OK')
                npr = prom()
            path, code = rng.choice(PATHS)
            if path.startswith("POST /v1/"):
                rid = f"{'chatcmpl' if 'chat' in path else 'cmpl'}-{rng.getrandbits(128):032x}"
                if d.request_log:
                    out(t, f"{api} INFO {vts(t)} [logger.py:43] Received request {rid}: prompt: '{head}"
                           f"{prompt_text(rng)}{tail}', params: SamplingParams(n=1, presence_penalty=0.0, "
                           "frequency_penalty=0.0, repetition_penalty=1.0, "
                           f"temperature={rng.choice(('0.7', '0.0', '0.6', '1.0', '0.3'))}, top_p="
                           f"{rng.choice(('0.8', '0.95', '1.0'))}, top_k={rng.choice(('20', '-1', '50'))}, min_p=0.0, "
                           f"seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, "
                           f"ignore_eos=False, max_tokens={rng.randint(64, 8192)}, min_tokens=0, logprobs=None, "
                           "prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, "
                           "truncate_prompt_tokens=None, structured_outputs=None, extra_args=None), "
                           "prompt_token_ids: None, prompt_embeds shape: None, lora_request: None.")
                    out(t + 150, f"{api} INFO {vts(t)} [async_llm.py:321] Added request {rid}.")
                r = rnd()
                if r < 0.004:
                    out(t, f"{api} WARNING {vts(t)} [protocol.py:89] The following fields were present in the "
                           f"request but ignored: {rng.choice(IGNORED_FIELDS)}")
                elif r < 0.006:
                    out(t, f"{api} WARNING {vts(t)} [serving_chat.py:142] Chat template kwargs {{'enable_thinking'}} "
                           "are not supported by the tokenizer's chat template and will be ignored.")
                elif r < 0.008 and usage > 85:
                    out(t, f"{core} WARNING {vts(t)} [scheduler.py:1089] Sequence group {rid} is preempted by "
                           "PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can "
                           "affect the end-to-end performance. Increase gpu_memory_utilization or "
                           "tensor_parallel_size to provide more KV cache memory. "
                           f"total_num_cumulative_preemption={rng.randint(1, 900)}")
            out(t + 300, f'{acc}{client(rng)} - "{path} HTTP/1.1" {code}')
            if d.request_log and path.startswith("POST /v1/") and rnd() < 0.02:
                # the client went away mid-stream (a closed tab, a timeout in the caller)
                out(t + 400, f"{api} INFO {vts(t)} [async_llm.py:430] Aborted request {rid}.")
            if todo and sink.size >= todo[0]:
                todo.pop(0)
                t = self.decoy(t, kind)
                kind = (kind + 1) % 3
        self.usage = usage
        return t

    def decoy(self, t: int, kind: int) -> int:
        """A handled request error (never the root cause)."""
        rng, S = self.rng, self.S
        if kind == 0:
            tb = ["Error in preprocessing prompt inputs", "Traceback (most recent call last):"]
            tb += frame(S("vllm/entrypoints/openai/serving_chat.py"), 240, "create_chat_completion",
                        ") = await self._preprocess_chat(", "await self._preprocess_chat(")
            tb += frame(S("vllm/entrypoints/openai/serving_engine.py"), 1174, "_preprocess_chat",
                        "prompt_inputs = await self._tokenize_prompt_input_async(",
                        "await self._tokenize_prompt_input_async(")
            tb += frame(S("vllm/entrypoints/openai/serving_engine.py"), 1002, "_validate_input", "raise ValueError(")
            tb.append(f"ValueError: This model's maximum context length is 131072 tokens. However, your request has "
                      f"{rng.randint(131100, 190000)} input tokens. Please reduce the length of the input messages.")
            for line in tb:
                self.api(t, "ERROR", "serving_chat.py:257", line)
            self.sink.out(t, f'(APIServer pid={self.main}) INFO:     {client(rng)} - "POST /v1/chat/completions '
                             'HTTP/1.1" 400 Bad Request')
        elif kind == 1:
            tb = ["Exception in ASGI application", "Traceback (most recent call last):"]
            tb += frame(S("uvicorn/protocols/http/httptools_impl.py"), 409, "run_asgi",
                        "result = await app(  # type: ignore[func-returns-value]")
            tb += frame(S("starlette/responses.py"), 260, "wrap", "await func()")
            tb += frame(S("starlette/responses.py"), 249, "stream_response",
                        'await send({"type": "http.response.body", "body": chunk, "more_body": True})')
            tb.append("ConnectionResetError: [Errno 104] Connection reset by peer")
            a = f"(APIServer pid={self.main}) "
            self.sink.out(t, a + "ERROR:    " + tb[0], True)
            for line in tb[1:]:
                self.sink.out(t, a + line, True)
        else:
            tb = ["Error in chat completion stream generator.", "Traceback (most recent call last):"]
            tb += frame(S("vllm/entrypoints/openai/serving_chat.py"), 1137, "chat_completion_stream_generator",
                        "tool_parser.extract_tool_calls_streaming(")
            tb += frame(S("vllm/entrypoints/openai/tool_parsers/kimi_k2_tool_parser.py"), 290,
                        "extract_tool_calls_streaming", "args = json.loads(tool_call_portion)")
            tb.append("json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 42 (char 41)")
            for line in tb:
                self.api(t, "ERROR", "serving_chat.py:1201", line)
        return t + 2000

    # -- endings ---------------------------------------------------------------------------------------
    def stop(self, t: int) -> int:
        """A clean stop (systemctl stop, docker stop): uvicorn's shutdown lines."""
        a = f"(APIServer pid={self.main}) INFO:     "
        t = self.tick(t, 0.1, 0.3)
        for m in ("Shutting down", "Waiting for application shutdown.", "Application shutdown complete."):
            self.sink.out(t, a + m)
        t = self.tick(t, 1, 3)
        self.sink.out(t, a + f"Finished server process [{self.main}]")
        return t

    def worker_traceback(self) -> list[str]:
        """Worker_TPk at model construction: the MLA backend imports flashinfer, whose version gate raises."""
        S, pylib = self.S, self.d.pylib
        f = ["Traceback (most recent call last):"]
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
                   'maybe_offload_to_cpu(layer_fn(prefix=f"{prefix}.{idx}"))', 'layer_fn(prefix=f"{prefix}.{idx}")')
        f += frame(S("vllm/model_executor/models/deepseek_v2.py"), 1230, "<lambda>",
                   "lambda prefix: DeepseekV2DecoderLayer(", "DeepseekV2DecoderLayer(")
        f += frame(S("vllm/model_executor/models/deepseek_v2.py"), 1004, "__init__",
                   "self.self_attn = attn_cls(", "attn_cls(")
        f += frame(S("vllm/model_executor/models/deepseek_v2.py"), 919, "__init__",
                   "self.mla_attn = MultiHeadLatentAttentionWrapper(", "MultiHeadLatentAttentionWrapper(")
        f += frame(S("vllm/model_executor/layers/mla.py"), 107, "__init__", "self.mla_attn = MLAAttention(",
                   "MLAAttention(")
        f += frame(S("vllm/attention/layer.py"), 651, "__init__", "self.attn_backend = get_attn_backend(",
                   "get_attn_backend(")
        f += frame(S("vllm/attention/selector.py"), 81, "get_attn_backend", "return _cached_get_attn_backend(",
                   "_cached_get_attn_backend(")
        f += frame(S("vllm/attention/selector.py"), 133, "_cached_get_attn_backend",
                   "return resolve_obj_by_qualname(attention_cls)", "resolve_obj_by_qualname(attention_cls)")
        f += frame(S("vllm/utils/import_utils.py"), 104, "resolve_obj_by_qualname",
                   "module = importlib.import_module(module_name)", "importlib.import_module(module_name)")
        f += frame(f"{pylib}/importlib/__init__.py", 90, "import_module",
                   "return _bootstrap._gcd_import(name[level:], package, level)",
                   "_bootstrap._gcd_import(name[level:], package, level)")
        for fn, ln, func in (("<frozen importlib._bootstrap>", 1387, "_gcd_import"),
                             ("<frozen importlib._bootstrap>", 1360, "_find_and_load"),
                             ("<frozen importlib._bootstrap>", 1331, "_find_and_load_unlocked"),
                             ("<frozen importlib._bootstrap>", 935, "_load_unlocked"),
                             ("<frozen importlib._bootstrap_external>", 995, "exec_module"),
                             ("<frozen importlib._bootstrap>", 488, "_call_with_frames_removed")):
            f += frame(fn, ln, func)
        f += frame(S("vllm/v1/attention/backends/mla/flashinfer_mla.py"), 6, "<module>",
                   "from flashinfer.decode import trtllm_batch_decode_with_kv_cache_mla")
        f += frame(S("flashinfer/__init__.py"), 25, "<module>", "from . import jit as jit")
        f += frame(S("flashinfer/jit/__init__.py"), 22, "<module>", "from . import cubin_loader")
        f += frame(S("flashinfer/jit/cubin_loader.py"), 30, "<module>", "from .core import logger")
        f += frame(S("flashinfer/jit/core.py"), 26, "<module>", "from . import env as jit_env")
        f += frame(S("flashinfer/jit/env.py"), 118, "<module>",
                   "FLASHINFER_CUBIN_DIR: pathlib.Path = _get_cubin_dir()", "_get_cubin_dir()")
        f += frame(S("flashinfer/jit/env.py"), 105, "_get_cubin_dir", "raise RuntimeError(")
        f.append("RuntimeError: " + FLASHINFER_MSG)
        return f

    def enginecore_frames(self) -> list[str]:
        S = self.S
        f: list[str] = []
        f += frame(S("vllm/v1/engine/core.py"), 843, "run_engine_core",
                   "engine_core = EngineCoreProc(*args, **kwargs)", "EngineCoreProc(*args, **kwargs)")
        f += frame(S("vllm/v1/engine/core.py"), 611, "__init__", "super().__init__(")
        f += frame(S("vllm/v1/engine/core.py"), 102, "__init__", "self.model_executor = executor_class(vllm_config)",
                   "executor_class(vllm_config)")
        f += frame(S("vllm/v1/executor/abstract.py"), 101, "__init__", "self._init_executor()")
        f += frame(S("vllm/v1/executor/multiproc_executor.py"), 176, "_init_executor",
                   "self.workers = WorkerProc.wait_for_ready(unready_workers)",
                   "WorkerProc.wait_for_ready(unready_workers)")
        f += frame(S("vllm/v1/executor/multiproc_executor.py"), 664, "wait_for_ready", "raise e from None")
        f.append("Exception: WorkerProc initialization failed due to an exception in a background process. See stack "
                 "trace for root cause.")
        return f

    def apiserver_init_traceback(self) -> list[str]:
        S, pylib = self.S, self.d.pylib
        f = ["Traceback (most recent call last):"]
        f += frame("/opt/vllm/.venv/bin/vllm", 10, "<module>", "sys.exit(main())", "main()")
        f += frame(S("vllm/entrypoints/cli/main.py"), 73, "main", "args.dispatch_function(args)")
        f += frame(S("vllm/entrypoints/cli/serve.py"), 60, "cmd", "uvloop.run(run_server(args))")
        f += frame(S("uvloop/__init__.py"), 96, "run", "return __asyncio.run(", "__asyncio.run(")
        f += frame(f"{pylib}/asyncio/runners.py", 194, "run", "return runner.run(main)", "runner.run(main)")
        f += frame(f"{pylib}/asyncio/runners.py", 118, "run", "return self._loop.run_until_complete(task)",
                   "self._loop.run_until_complete(task)")
        f += frame("uvloop/loop.pyx", 1518, "uvloop.loop.Loop.run_until_complete")
        f += frame(S("uvloop/__init__.py"), 48, "wrapper", "return await main", "await main")
        f += frame(S("vllm/entrypoints/openai/api_server.py"), 1941, "run_server",
                   "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)")
        f += frame(S("vllm/entrypoints/openai/api_server.py"), 1957, "run_server_worker",
                   "async with build_async_engine_client(")
        f += frame(f"{pylib}/contextlib.py", 210, "__aenter__", "return await anext(self.gen)", "await anext(self.gen)")
        f += frame(S("vllm/entrypoints/openai/api_server.py"), 223, "build_async_engine_client_from_engine_args",
                   "async_llm = AsyncLLM.from_vllm_config(", "AsyncLLM.from_vllm_config(")
        f += frame(S("vllm/v1/engine/async_llm.py"), 137, "__init__",
                   "self.engine_core = EngineCoreClient.make_async_mp_client(", "EngineCoreClient.make_async_mp_client(")
        f += frame(S("vllm/v1/engine/core_client.py"), 469, "__init__",
                   "with launch_core_engines(vllm_config, executor_class, log_stats) as (")
        f += frame(f"{pylib}/contextlib.py", 144, "__exit__", "next(self.gen)")
        f += frame(S("vllm/v1/engine/utils.py"), 880, "launch_core_engines", "wait_for_engine_startup(")
        f += frame(S("vllm/v1/engine/utils.py"), 937, "wait_for_engine_startup", "raise RuntimeError(")
        f.append("RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
        return f

    def crash_flashinfer(self, t: int, late: int = 0) -> int:
        """All ranks fail constructing the model (interleaved), then the engine core's and API server's wrappers."""
        rng, tp, pylib = self.rng, self.d.tp, self.d.pylib
        t = self.tick(t, 0.5, 1.5)
        late_ranks = sorted(rng.sample(range(tp), late)) if late else []
        tb = ["WorkerProc failed to start."] + self.worker_traceback()
        blocks = [[] if k in late_ranks else tb for k in range(tp)]
        for k, line in interleave(rng, blocks):
            t += rng.randint(0, 800)
            self.wk(t, k, "ERROR", "multiproc_executor.py:772", line)
        t = self.tick(t, 0.2, 0.6)
        self.core(t, "INFO", "multiproc_executor.py:546", f"[shutdown] Executor: waiting for worker exit count={tp}")
        t = self.tick(t, 4.8, 5.2)
        if late_ranks:
            self.core(t, "WARNING", "multiproc_executor.py:558", "[shutdown] Executor: workers still running after "
                                                                   f"grace period; sending SIGTERM count={len(late_ranks)}")
            for k in late_ranks:
                self.wk(t, k, "INFO", "multiproc_executor.py:702", "Parent process exited, terminating worker")
        for k in sorted(set(range(1, tp)) - set(late_ranks), key=lambda _: rng.random()):
            t = self.tick(t, 0, 0.05)
            self.sink.out(t, c10_destroy_warning(k, self.ck.c10(t)), True)
        for line in ["EngineCore failed to start.", "Traceback (most recent call last):"] + self.enginecore_frames():
            self.core(t, "ERROR", "core.py:852", line)
        raw = ["Process EngineCore_DP0:", "Traceback (most recent call last):"]
        raw += frame(f"{pylib}/multiprocessing/process.py", 314, "_bootstrap", "self.run()")
        raw += frame(f"{pylib}/multiprocessing/process.py", 108, "run", "self._target(*self._args, **self._kwargs)")
        raw += frame(self.S("vllm/v1/engine/core.py"), 856, "run_engine_core", "raise e")
        for line in raw + self.enginecore_frames():
            self.sink.out(t, f"(EngineCore_DP0 pid={self.core_pid}) {line}", True)
        t = self.tick(t, 0.4, 0.9)
        self.sink.out(t, c10_destroy_warning(0, self.ck.c10(t)), True)
        t = self.tick(t, 0.3, 0.8)
        for line in self.apiserver_init_traceback():
            self.sink.out(t, f"(APIServer pid={self.main}) {line}", True)
        t = self.tick(t, 0.2, 0.5)
        self.sink.out(t, f"(APIServer pid={self.main}) {pylib}/multiprocessing/resource_tracker.py:279: UserWarning: "
                         "resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown",
                      True)
        self.sink.out(t, f"(APIServer pid={self.main})   warnings.warn('resource_tracker: There appear to be %d '", True)
        return t

    def crash_runtime(self, t: int, kind: str) -> int:
        """A worker dies while serving: `oom` (Worker_TP5 CUDA OOM) or `ima` (Worker_TP3 illegal memory access,
        then the NCCL watchdog aborts the process); the engine core and the API server follow."""
        rng, S = self.rng, self.S
        k = 5 if kind == "oom" else 3
        w = ["WorkerProc hit an exception.", "Traceback (most recent call last):"]
        w += frame(S("vllm/v1/executor/multiproc_executor.py"), 666, "worker_busy_loop", "output = func(*args, **kwargs)",
                   "func(*args, **kwargs)")
        w += frame(S("vllm/v1/worker/gpu_worker.py"), 447, "execute_model",
                   "output = self.model_runner.execute_model(scheduler_output,")
        w += frame(S("vllm/v1/worker/gpu_model_runner.py"), 2276, "execute_model", "model_output = self._model_forward(")
        if kind == "oom":
            w += frame(S("vllm/model_executor/layers/fused_moe/fused_moe.py"), 1671, "fused_experts_impl",
                       "intermediate_cache1 = torch.empty((M, top_k_num, N),")
            w.append(OOM_KEY + " has a total capacity of 79.19 GiB of which 6.12 GiB is free. Including non-PyTorch "
                     "memory, this process has 73.06 GiB memory in use. Of the allocated memory 68.91 GiB is allocated "
                     "by PyTorch, and 2.73 GiB is reserved by PyTorch but unallocated. If reserved but unallocated "
                     "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
                     "fragmentation.  See documentation for Memory Management  "
                     "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
            short = "CUDA out of memory. Tried to allocate 7.50 GiB. GPU 5 has a total capacity of 79.19 GiB of which 6.12 GiB is free."
        else:
            w += frame(S("vllm/v1/worker/gpu_model_runner.py"), 2401, "_sample",
                       "sampler_output = self.sampler(", "self.sampler(")
            w += frame(S("vllm/v1/sample/sampler.py"), 96, "forward", "logits = self.apply_logits_processors(")
            w += frame(S("vllm/v1/sample/ops/topk_topp_sampler.py"), 104, "forward_native",
                       "return random_sample(probs, generators), logits_to_return")
            w.append(IMA_KEY)
            w += CUDA_ASYNC_NOTE
            short = "CUDA error: an illegal memory access was encountered"
        t = self.tick(t, 0.01, 0.2)
        for line in w:
            self.wk(t, k, "ERROR", "multiproc_executor.py:671", line)
        if kind == "ima":
            t = self.tick(t, 0.05, 0.3)
            lib = self.S("torch/lib")
            rank = f"[rank{k}]:"
            c10 = [f"[E{self.ck.c10(t)} ProcessGroupNCCL.cpp:1899] [PG ID 2 PG GUID 3 Rank {k}] Process group watchdog "
                   f"thread terminated with exception: {short}"] + CUDA_ASYNC_NOTE + [
                "",
                "Exception raised from c10_cuda_check_implementation at /pytorch/c10/cuda/CUDAException.cpp:43 (most "
                "recent call first):"]
            for i, (fn, lb) in enumerate([
                    ("c10::Error::Error(c10::SourceLocation, std::string) + 0x98", "libc10.so"),
                    ("c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0xe0",
                     "libc10.so"),
                    ("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x3c2",
                     "libc10_cuda.so"),
                    ("c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56",
                     "libtorch_cuda.so"),
                    ("c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x70", "libtorch_cuda.so"),
                    ("c10d::ProcessGroupNCCL::watchdogHandler() + 0x61b", "libtorch_cuda.so"),
                    ("c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "libtorch_cuda.so")]):
                c10.append(f"frame #{i}: {fn} (0x7f3c{rng.getrandbits(32):08x} in {lib}/{lb})")
            c10 += ["frame #7: <unknown function> + 0xdc253 (0x7f3c64a5b253 in /lib/x86_64-linux-gnu/libstdc++.so.6)",
                    "frame #8: <unknown function> + 0x94ac3 (0x7f3c6b894ac3 in /lib/x86_64-linux-gnu/libc.so.6)",
                    "frame #9: clone + 0x44 (0x7f3c6b925a04 in /lib/x86_64-linux-gnu/libc.so.6)", ""]
            self.sink.out(t, rank + c10[0], True)
            for line in c10[1:]:
                self.sink.out(t, line, True)
            self.sink.out(t, "terminate called after throwing an instance of 'c10::DistBackendError'", True)
            self.sink.out(t, f"  what():  [PG ID 2 PG GUID 3 Rank {k}] Process group watchdog thread terminated with "
                             f"exception: {short}", True)
            t = self.tick(t, 0.2, 0.6)
            self.core(t, "ERROR", "multiproc_executor.py:149",
                      f"Worker proc VllmWorker-{k} died unexpectedly, shutting down executor.")
        t = self.tick(t, 0.01, 0.1)
        e = ["EngineCore encountered a fatal error.", "Traceback (most recent call last):"]
        e += frame(S("vllm/v1/engine/core.py"), 701, "run_engine_core", "engine_core.run_busy_loop()")
        e += frame(S("vllm/v1/engine/core.py"), 728, "run_busy_loop", "self._process_engine_step()")
        e += frame(S("vllm/v1/engine/core.py"), 754, "_process_engine_step",
                   "outputs, model_executed = self.step_fn()", "self.step_fn()")
        e += frame(S("vllm/v1/engine/core.py"), 284, "step", "model_output = self.execute_model_with_error_logging(")
        e += frame(S("vllm/v1/executor/multiproc_executor.py"), 264, "get_response", "raise RuntimeError(")
        e.append(f"RuntimeError: Worker failed with error '{short}', please check the stack trace above for the root "
                 "cause")
        for line in e:
            self.core(t, "ERROR", "core.py:710", line)
        t = self.tick(t, 0.05, 0.3)
        a = ["AsyncLLM output_handler failed.", "Traceback (most recent call last):"]
        a += frame(S("vllm/v1/engine/async_llm.py"), 439, "output_handler",
                   "outputs = await engine_core.get_output_async()")
        a += frame(S("vllm/v1/engine/core_client.py"), 846, "get_output_async",
                   "raise self._format_exception(outputs) from None")
        a.append("vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) "
                 "for the root cause.")
        for line in a:
            self.api(t, "ERROR", "async_llm.py:480", line)
        acc = f"(APIServer pid={self.main}) INFO:     "
        for _ in range(rng.randint(4, 9)):
            self.sink.out(t, f'{acc}{client(rng)} - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error')
        self.api(t, "INFO", "launcher.py:101", "Shutting down FastAPI HTTP server.")
        for k2 in range(self.d.tp):
            if k2 != k:
                self.sink.out(t, c10_destroy_warning(k2, self.ck.c10(t)), True)
        return self.stop(t)
