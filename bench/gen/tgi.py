"""text-generation-inference (3.x) launcher output: Rust `tracing` lines
`2025-03-11T09:00:00.123456Z  INFO text_generation_launcher: ...`, the pretty-printed `Args {` block, the
shards' messages relayed by the launcher, the router's per-request `Success` lines, client validation
errors (decoys), and a shard that hits a CUDA illegal memory access in Decode and is aborted by the NCCL
watchdog (the launcher then prints the shard's stderr, `Shard 1 crashed`, `Error: ShardFailed`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .clock import SEC, Clocks
from .common import frame
from .sinks import Sink

IMA_KEY = "RuntimeError: CUDA error: an illegal memory access was encountered"


@dataclass
class TgiDeploy:
    model: str = "meta-llama/Llama-3.3-70B-Instruct"
    shards: int = 4
    site: str = "/opt/conda/lib/python3.11/site-packages"
    hostname: str = "tgi-llama-70b-6d8f7c9b5-k2x7p"
    rps: float = 5.0


ARGS = """model_id: "{model}",
revision: None,
validation_workers: 2,
sharded: None,
num_shard: Some(
    {shards},
),
quantize: None,
speculate: None,
dtype: None,
kv_cache_dtype: None,
trust_remote_code: false,
max_concurrent_requests: 128,
max_best_of: 2,
max_stop_sequences: 4,
max_top_n_tokens: 5,
max_input_tokens: None,
max_input_length: None,
max_total_tokens: None,
waiting_served_ratio: 0.3,
max_batch_prefill_tokens: None,
max_batch_total_tokens: None,
max_waiting_tokens: 20,
max_batch_size: None,
cuda_graphs: None,
hostname: "{hostname}",
port: 80,
shard_uds_path: "/tmp/text-generation-server",
master_addr: "localhost",
master_port: 29500,
huggingface_hub_cache: None,
weights_cache_override: None,
disable_custom_kernels: false,
cuda_memory_fraction: 1.0,
rope_scaling: None,
rope_factor: None,
json_output: false,
otlp_endpoint: None,
otlp_service_name: "text-generation-inference.router",
cors_allow_origin: [],
api_key: None,
watermark_gamma: None,
watermark_delta: None,
ngrok: false,
ngrok_authtoken: None,
ngrok_edge: None,
tokenizer_config_path: None,
disable_grammar_support: false,
env: false,
max_client_batch_size: 4,
lora_adapters: None,
usage_stats: On,
payload_limit: 2000000,
enable_prefill_logprobs: false,"""


class Tgi:
    def __init__(self, sink: Sink, rng: random.Random, ck: Clocks, dep: TgiDeploy) -> None:
        self.sink, self.rng, self.ck, self.d = sink, rng, ck, dep

    def new_attempt(self, pid: int, inv: str) -> None:
        self.sink.attempt(pid, inv)

    def log(self, t: int, level: str, target: str, msg: str, err: bool = False) -> None:
        self.sink.out(t, f"{self.ck.tgi_ts(t)} {level:>5} {target}: {msg}", err)

    def tick(self, t: int, lo: float, hi: float) -> int:
        return t + int(self.rng.uniform(lo, hi) * SEC)

    def start(self, t: int) -> int:
        d, rng, L = self.d, self.rng, "text_generation_launcher"
        self.log(t, "INFO", L, "Args {")
        for line in ARGS.format(model=d.model, shards=d.shards, hostname=d.hostname).splitlines():
            self.sink.out(t, "    " + line)
        self.sink.out(t, "}")
        t = self.tick(t, 0.05, 0.2)
        self.log(t, "INFO", "hf_hub", 'Token file not found "/data/token"    ')
        t = self.tick(t, 1, 3)
        self.log(t, "INFO", L, "Using attention flashinfer - Prefix caching true")
        self.log(t, "WARN", L, "Unkown compute for card nvidia-h100-80gb-hbm3")
        self.log(t, "INFO", L, "Default `max_batch_prefill_tokens` to 8192")
        self.log(t, "INFO", L, f"Sharding model on {d.shards} processes")
        self.log(t, "INFO", L, "Using default cuda graphs [1, 2, 4, 8, 16, 32]")
        self.log(t, "INFO", "download: " + L, f"Starting check and download process for {d.model}")
        t = self.tick(t, 2, 4)
        self.log(t, "INFO", L, "Files are already present on the host. Skipping download.")
        t = self.tick(t, 0.5, 1)
        self.log(t, "INFO", "download: " + L, f"Successfully downloaded weights for {d.model}")
        for r in range(d.shards):
            t = self.tick(t, 0, 0.05)
            self.log(t, "INFO", "shard-manager: " + L, f"Starting shard rank={r}")
        t = self.tick(t, 3, 4)
        self.log(t, "INFO", L, "Using prefix caching = True")
        self.log(t, "INFO", L, "Using Attention = flashinfer")
        for _ in range(rng.randint(4, 6)):
            t = self.tick(t, 9.9, 10.1)
            for r in range(d.shards):
                self.log(t, "INFO", "shard-manager: " + L, f"Waiting for shard to be ready... rank={r}")
        for r in range(d.shards):
            t = self.tick(t, 0.1, 2)
            self.log(t, "INFO", L, f"Server started at unix:///tmp/text-generation-server-{r}")
            self.log(t, "INFO", "shard-manager: " + L, f"Shard ready in {rng.uniform(50, 62):.2f}s rank={r}")
        t = self.tick(t, 0.5, 1)
        self.log(t, "INFO", L, "Starting Webserver")
        self.log(t, "INFO", "text_generation_router_v3", "backends/v3/src/lib.rs:125: Warming up model")
        self.log(t, "INFO", L, f"KV-cache blocks: {rng.randint(200000, 300000)}, size: 1")
        self.log(t, "INFO", L, "Cuda Graphs are enabled for sizes [32, 16, 8, 4, 2, 1]")
        t = self.tick(t, 6, 9)
        self.log(t, "INFO", "text_generation_router_v3", "backends/v3/src/lib.rs:137: Setting max batch total tokens to 251280")
        self.log(t, "WARN", "text_generation_router_v3::backend", "backends/v3/src/backend.rs:39: Model supports "
                 "prefill chunking. `waiting_served_ratio` and `max_waiting_tokens` will be ignored.")
        self.log(t, "INFO", "text_generation_router_v3", "backends/v3/src/lib.rs:166: Using backend V3")
        self.log(t, "INFO", "text_generation_router", "backends/v3/src/main.rs:162: Maximum input tokens defaulted to 131071")
        self.log(t, "INFO", "text_generation_router", "backends/v3/src/main.rs:168: Maximum total tokens defaulted to 131072")
        self.log(t, "INFO", "text_generation_router::server", "router/src/server.rs:1797: Using config Some(Llama)")
        self.log(t, "WARN", "text_generation_router::server", "router/src/server.rs:1944: Invalid hostname, defaulting to 0.0.0.0")
        self.log(t, "INFO", "text_generation_router::server", "router/src/server.rs:2331: Connected")
        return t

    @staticmethod
    def params(rng: random.Random, max_new: int) -> str:
        return (f"GenerateParameters {{ best_of: None, temperature: Some({rng.choice(('0.7', '0.2', '1.0', '0.6'))}), "
                "repetition_penalty: None, frequency_penalty: None, top_k: None, "
                f"top_p: Some({rng.choice(('0.95', '0.9', '1.0'))}), typical_p: None, do_sample: true, "
                f"max_new_tokens: Some({max_new}), return_full_text: None, stop: [], truncate: None, watermark: false, "
                "details: true, decoder_input_details: false, seed: None, top_n_tokens: None, grammar: None, "
                "adapter_id: None }")

    def serve(self, t: int, target: int, decoys: list[int] | None = None) -> int:
        sink, rng, d = self.sink, self.rng, self.d
        out, rnd, ts = sink.out, rng.random, self.ck.tgi_ts
        todo = sorted(decoys or [])
        mean = 1.0 / d.rps
        compute = f'compute_type=Extension(ComputeType("{d.shards}-nvidia-h100-80gb-hbm3"))'
        while sink.size < target:
            t += int(rng.expovariate(1.0) * mean * SEC) + 1
            total = rng.uniform(0.2, 25.0)
            val = rng.uniform(0.2, 3.0)
            queue = rng.uniform(0.02, 900.0)
            n_tok = rng.randint(8, 2048)
            tpt = (total - val / 1000) / n_tok * 1000
            times = (f'total_time="{total:.9f}s" validation_time="{val:.6f}ms" queue_time="{queue:.3f}µs" '
                     f'inference_time="{total - val / 1000:.9f}s" time_per_token="{tpt:.6f}ms" '
                     f'seed="{"None" if rnd() < 0.5 else f"Some({rng.getrandbits(63)})"}"')
            r = rnd()
            if r < 0.7:
                out(t, f'{ts(t)}  INFO chat_completions{{parameters="{self.params(rng, rng.choice((512, 1024, 2048, 4096)))}" '
                       f'{times}}}: text_generation_router::server: router/src/server.rs:637: Success')
            elif r < 0.95:
                out(t, f"{ts(t)}  INFO compat_generate{{default_return_full_text=true {compute}}}:generate_stream{{"
                       f"parameters={self.params(rng, rng.choice((256, 512, 1024)))} {times}}}: "
                       "text_generation_router::server: router/src/server.rs:511: Success")
            else:
                out(t, f"{ts(t)}  INFO generate{{parameters={self.params(rng, rng.choice((64, 128, 256)))} {times}}}: "
                       "text_generation_router::server: router/src/server.rs:422: Success")
            if todo and sink.size >= todo[0]:
                todo.pop(0)
                given = rng.randint(130000, 131000)
                out(t, f"{ts(t)} ERROR chat_completions{{parameters=\"{self.params(rng, 2048)}\"}}: "
                       "text_generation_router::server: router/src/server.rs:1322: Input validation error: `inputs` "
                       f"tokens + `max_new_tokens` must be <= 131072. Given: {given} `inputs` tokens and 2048 "
                       "`max_new_tokens`")
        return t

    def crash_ima(self, t: int) -> int:
        d, rng, site, L = self.d, self.rng, self.d.site, "text_generation_launcher"
        t = self.tick(t, 0.01, 0.2)
        tb = ["Traceback (most recent call last):"]
        tb += frame("/opt/conda/bin/text-generation-server", 8, "<module>", "sys.exit(app())")
        tb += frame(f"{site}/typer/main.py", 323, "__call__", "return get_command(self)(*args, **kwargs)")
        tb += frame(f"{site}/click/core.py", 1161, "__call__", "return self.main(*args, **kwargs)")
        tb += frame(f"{site}/text_generation_server/cli.py", 119, "serve", "server.serve(")
        tb += frame(f"{site}/text_generation_server/server.py", 315, "serve", "asyncio.run(")
        tb += frame("/opt/conda/lib/python3.11/asyncio/base_events.py", 641, "run_until_complete", "self.run_forever()")
        tb += frame(f"{site}/grpc_interceptor/server.py", 165, "invoke_intercept_method",
                    "return await self.intercept(")
        tb += frame(f"{site}/text_generation_server/interceptor.py", 24, "intercept", "return await response")
        tb += frame(f"{site}/opentelemetry/instrumentation/grpc/_aio_server.py", 120, "_unary_interceptor", "raise error")
        tb += frame(f"{site}/text_generation_server/server.py", 221, "Decode",
                    "generations, next_batch, timings = self.model.generate_token(batch)")
        tb += frame("/opt/conda/lib/python3.11/contextlib.py", 81, "inner", "return func(*args, **kwds)")
        tb += frame(f"{site}/text_generation_server/models/flash_causal_lm.py", 1950, "generate_token",
                    "out, speculative_logits = self.forward(batch, adapter_data)")
        tb += frame(f"{site}/text_generation_server/models/flash_causal_lm.py", 1845, "forward",
                    "logits, speculative_logits = self.model.forward(")
        tb += frame(f"{site}/text_generation_server/layers/attention/cuda.py", 233, "attention",
                    "return decode_state.get().forward(")
        tb.append(IMA_KEY)
        tb += ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
               "might be incorrect.", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
               "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
        self.log(t, "ERROR", L, "Method Decode encountered an error.")
        for line in tb:
            self.sink.out(t, line)
        self.sink.out(t, " rank=1")
        t = self.tick(t, 0.01, 0.05)
        for _ in range(rng.randint(3, 6)):
            self.log(t, "ERROR", "batch{batch_size=12}:decode:decode{size=12}:decode{size=12}: text_generation_router_v3::client",
                     "backends/v3/src/client/mod.rs:54: Server error: CUDA error: an illegal memory access was encountered")
            self.log(t, "ERROR", f"compat_generate{{default_return_full_text=true compute_type=Extension(ComputeType("
                                 f'"{d.shards}-nvidia-h100-80gb-hbm3"))}}:generate_stream{{parameters='
                                 f"{self.params(rng, 1024)}}}:async_stream:generate_stream:infer:send_error: "
                                 "text_generation_router_v3::backend",
                     "backends/v3/src/backend.rs:488: Request failed during generation: Server error: CUDA error: an "
                     "illegal memory access was encountered")
        t = self.tick(t, 0.5, 1.5)
        self.log(t, "ERROR", "shard-manager: " + L, "Shard complete standard error output:")
        self.sink.out(t, "")
        self.sink.out(t, f"[rank1]:[E{self.ck.c10(t)} ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
                         "Process group watchdog thread terminated with exception: CUDA error: an illegal memory access "
                         "was encountered")
        self.sink.out(t, "terminate called after throwing an instance of 'c10::DistBackendError'")
        self.sink.out(t, "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog thread terminated "
                         "with exception: CUDA error: an illegal memory access was encountered")
        self.sink.out(t, " rank=1")
        self.log(t, "ERROR", "shard-manager: " + L, "Shard process was signaled to shutdown with signal 6 rank=1")
        self.log(t, "ERROR", L, "Shard 1 crashed")
        self.log(t, "INFO", L, "Terminating webserver")
        self.log(t, "INFO", L, "Waiting for webserver to gracefully shutdown")
        t = self.tick(t, 0.05, 0.2)
        self.log(t, "INFO", "text_generation_router::server", "router/src/server.rs:2400: signal received, starting "
                                                               "graceful shutdown")
        self.log(t, "INFO", L, "webserver terminated")
        self.log(t, "INFO", L, "Shutting down shards")
        for r in range(d.shards):
            if r != 1:
                self.log(t, "INFO", "shard-manager: " + L, f"Terminating shard rank={r}")
                self.log(t, "INFO", "shard-manager: " + L, f"Waiting for shard to gracefully shutdown rank={r}")
        t = self.tick(t, 1, 2)
        for r in range(d.shards):
            if r != 1:
                self.log(t, "INFO", "shard-manager: " + L, f"shard terminated rank={r}")
        self.sink.out(t, "Error: ShardFailed", True)
        return t
