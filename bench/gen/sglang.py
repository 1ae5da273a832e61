"""SGLang (0.4.x) server output: `[2025-06-02 10:00:00 TP0] ...` from the schedulers, `[2025-06-02 10:00:00] ...`
from the main process, unprefixed tqdm bars and traceback frames.

Startup (server_args, per-rank init, NCCL INFO, weight loading, KV pool, CUDA-graph capture, uvicorn), serving
(Prefill batch / Decode batch lines, uvicorn access log, health probes, metrics scrapes, the occasional
retraction under memory pressure), a handled ASGI error as decoy, and a scheduler's CUDA OOM while serving,
whose SIGQUIT line reaches the log before the traceback (sgl-project/sglang#5602).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .clock import SEC, Clocks
from .common import client, frame, nccl_block, progress, schedule
from .sinks import Sink

OOM_KEY = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.29 GiB. GPU 3"


@dataclass
class SglDeploy:
    model: str = "Qwen/Qwen3-32B"
    tp: int = 4
    src: str = "/sgl-workspace/sglang/python/sglang"
    site: str = "/usr/local/lib/python3.10/dist-packages"
    host: str = "sglang-0"
    nccl_debug: bool = True
    rps: float = 9.0


class Sglang:
    def __init__(self, sink: Sink, rng: random.Random, ck: Clocks, dep: SglDeploy) -> None:
        self.sink, self.rng, self.ck, self.d = sink, rng, ck, dep
        self.main = 1
        self.sched: list[int] = []
        self.usage = 0.1

    def new_attempt(self, main_pid: int, inv: str) -> None:
        self.main = main_pid
        base = main_pid + self.rng.randint(200, 260)
        self.sched = [base + 3 * k for k in range(self.d.tp)]
        self.sink.attempt(main_pid, inv)

    def m(self, t: int, msg: str, err: bool = False) -> None:
        """Main process line."""
        self.sink.out(t, f"[{self.ck.sgl(t)}] {msg}", err)

    def tp(self, t: int, k: int, msg: str, err: bool = False) -> None:
        self.sink.out(t, f"[{self.ck.sgl(t)} TP{k}] {msg}", err)

    def tick(self, t: int, lo: float, hi: float) -> int:
        return t + int(self.rng.uniform(lo, hi) * SEC)

    def start(self, t: int) -> int:
        d, rng = self.d, self.rng
        self.m(t, f"server_args=ServerArgs(model_path='{d.model}', tokenizer_path='{d.model}', tokenizer_mode='auto', "
                  "skip_tokenizer_init=False, load_format='auto', trust_remote_code=False, dtype='auto', "
                  "kv_cache_dtype='auto', quantization=None, quantization_param_path=None, context_length=None, "
                  f"device='cuda', served_model_name='{d.model}', chat_template=None, completion_template=None, "
                  "is_embedding=False, enable_multimodal=None, revision=None, host='0.0.0.0', port=30000, "
                  "mem_fraction_static=0.87, max_running_requests=None, max_total_tokens=None, "
                  "chunked_prefill_size=8192, max_prefill_tokens=16384, schedule_policy='fcfs', "
                  "schedule_conservativeness=1.0, cpu_offload_gb=0, page_size=1, "
                  f"tp_size={d.tp}, pp_size=1, max_micro_batch_size=None, stream_interval=1, stream_output=False, "
                  f"random_seed={rng.randint(10**8, 10**9)}, constrained_json_whitespace_pattern=None, "
                  "watchdog_timeout=300, dist_timeout=None, download_dir=None, base_gpu_id=0, gpu_id_step=1, "
                  "log_level='info', log_level_http=None, log_requests=False, log_requests_level=0, "
                  "show_time_cost=False, enable_metrics=True, decode_log_interval=40, api_key=None, "
                  "file_storage_path='sglang_storage', enable_cache_report=False, reasoning_parser='qwen3', "
                  "dp_size=1, load_balance_method='round_robin', ep_size=1, dist_init_addr=None, nnodes=1, "
                  "node_rank=0, json_model_override_args='{}', lora_paths=None, max_loras_per_batch=8, "
                  "attention_backend='flashinfer', sampling_backend='flashinfer', grammar_backend='xgrammar', "
                  "speculative_algorithm=None, enable_double_sparsity=False, disable_radix_cache=False, "
                  "disable_cuda_graph=False, disable_cuda_graph_padding=False, enable_nccl_nvls=False, "
                  "disable_outlines_disk_cache=False, disable_custom_all_reduce=False, enable_mixed_chunk=False, "
                  "enable_dp_attention=False, enable_torch_compile=False, torch_compile_max_bs=32, "
                  "cuda_graph_max_bs=160, cuda_graph_bs=None, torchao_config='', enable_nan_detection=False, "
                  "enable_p2p_check=False, triton_attention_reduce_in_fp32=False, triton_attention_num_kv_splits=8, "
                  "num_continuous_decode_steps=1, delete_ckpt_after_loading=False, enable_memory_saver=False, "
                  "allow_auto_truncate=False, enable_custom_logit_processor=False, tool_call_parser='qwen25', "
                  "enable_hierarchical_cache=False, hicache_ratio=2.0, warmups=None, debug_tensor_dump_output_folder=None)")
        t = self.tick(t, 4, 8)
        self.m(t, "Using default HuggingFace chat template with detected content format: string")
        t = self.tick(t, 6, 10)
        for k in range(d.tp):
            self.tp(t, k, "Attention backend not set. Use flashinfer backend by default.")
            self.tp(t, k, "Init torch distributed begin.")
        t = self.tick(t, 0.5, 1.5)
        for k in range(d.tp):
            self.tp(t, k, "sglang is using nccl==2.21.5")
        if d.nccl_debug:
            for _, line in nccl_block(rng, d.host, self.sched, "2.21.5"):
                t += rng.randint(50, 3000)
                self.sink.out(t, line)
        t = self.tick(t, 0.5, 1)
        for k in range(d.tp):
            self.tp(t, k, f"Init torch distributed ends. mem usage={rng.uniform(0.5, 1.1):.2f} GB")
        self.tp(t, 0, "Ignore import error when loading sglang.srt.models.glm4v_moe: No module named "
                      "'transformers.models.glm4v_moe'")
        for k in range(d.tp):
            self.tp(t, k, f"Load weight begin. avail mem={rng.uniform(77.5, 78.4):.2f} GB")
        ups, t = progress(rng, t, "Loading safetensors checkpoint shards", 17, 3.1, unit="s", completed_style=True)
        self.sink.bar(ups)
        for k in range(d.tp):
            t = self.tick(t, 0, 0.3)
            self.tp(t, k, f"Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem="
                          f"{rng.uniform(61.5, 63.5):.2f} GB, mem usage={rng.uniform(15.1, 15.6):.2f} GB.")
        for k in range(d.tp):
            self.tp(t, k, "KV Cache is allocated. #tokens: 1031211, K size: 23.60 GB, V size: 23.60 GB")
            self.tp(t, k, f"Memory pool end. avail mem={rng.uniform(13.2, 14.1):.2f} GB")
        for k in range(d.tp):
            self.tp(t, k, f"Capture cuda graph begin. This can take up to several minutes. avail mem="
                          f"{rng.uniform(12.9, 13.2):.2f} GB")
        bss = [160, 152, 144, 136, 128, 120, 112, 104, 96, 88, 80, 72, 64, 56, 48, 40, 32, 24, 16, 8, 4, 2, 1]
        self.tp(t, 0, f"Capture cuda graph bs {list(reversed(bss))}")
        ups = []
        el = 0.0
        for i, bs in enumerate(bss):
            el += rng.uniform(0.25, 0.45)
            n = i + 1
            bar = "█" * (n * 10 // 23) + ("▌" if n * 10 % 23 > 11 else "")
            ups.append((t + int(el * SEC), f"Capturing batches (bs={bs} avail_mem={12.94 - 0.03 * i:.2f} GB): "
                                           f"{n * 100 // 23:3d}%|{bar.ljust(10)}| {n}/23 [00:{int(el):02d}<00:"
                                           f"{int((23 - n) * el / n):02d},  {n / el:.2f}it/s]"))
        self.sink.bar(ups)
        t = ups[-1][0]
        for k in range(d.tp):
            self.tp(t, k, f"Capture cuda graph end. Time elapsed: {el:.2f} s. mem usage=0.71 GB. avail mem=12.41 GB.")
        self.tp(t, 0, "max_total_num_tokens=1031211, chunked_prefill_size=8192, max_prefill_tokens=16384, "
                      "max_running_requests=4096, context_len=40960, available_gpu_mem=12.41 GB")
        t = self.tick(t, 0.5, 1)
        for msg in (f"INFO:     Started server process [{self.main}]", "INFO:     Waiting for application startup.",
                    "INFO:     Application startup complete.",
                    "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)"):
            self.m(t, msg)
        t = self.tick(t, 0.5, 1)
        self.m(t, f'INFO:     127.0.0.1:{rng.randint(40000, 60000)} - "GET /get_model_info HTTP/1.1" 200 OK')
        self.tp(t, 0, "Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, "
                      "#running-req: 0, #queue-req: 0")
        t = self.tick(t, 0.5, 1.5)
        self.m(t, f'INFO:     127.0.0.1:{rng.randint(40000, 60000)} - "POST /generate HTTP/1.1" 200 OK')
        self.m(t, "The server is fired up and ready to roll!")
        return t

    def serve(self, t: int, target: int, decoys: list[int] | None = None) -> int:
        sink, rng, d = self.sink, self.rng, self.d
        out, rnd, ts = sink.out, rng.random, self.ck.sgl
        health, prom = schedule(rng, t, 10.0, 0.02), schedule(rng, t, 15.0, 0.0)
        nh, npr = health(), prom()
        todo = sorted(decoys or [])
        running = 10
        tokens = 20000
        mean = 1.0 / d.rps
        decode_every = 40 * 0.025  # decode_log_interval=40 steps of ~25 ms
        nd = t + int(decode_every * SEC)
        usage = self.usage
        while sink.size < target:
            t += int(rng.expovariate(1.0) * mean * SEC) + 1
            while nd <= t:
                running = max(1, min(300, running + rng.randint(-4, 4)))
                tokens = max(500, tokens + rng.randint(-3000, 3000))
                usage = min(0.99, max(0.01, usage + rng.uniform(-0.04, 0.04)))
                out(nd, f"[{ts(nd)} TP0] Decode batch. #running-req: {running}, #token: {tokens}, token usage: "
                        f"{usage:.2f}, cuda graph: {'True' if running <= 160 else 'False'}, gen throughput (token/s): "
                        f"{rng.uniform(400, 4200):.2f}, #queue-req: {0 if usage < 0.9 else rng.randint(1, 60)}")
                if usage > 0.95 and rnd() < 0.05:
                    out(nd, f"[{ts(nd)} TP0] Decode out of memory happened. #retracted_reqs: {rng.randint(1, 6)}, "
                            f"#new_token_ratio: {rng.uniform(0.3, 0.6):.4f} -> {rng.uniform(0.7, 0.9):.4f}")
                nd += int(decode_every * rng.uniform(0.8, 1.6) * SEC)
            while nh <= t:
                out(nh, f'[{ts(nh)}] INFO:     10.42.0.1:{rng.randint(30000, 65000)} - "GET /health HTTP/1.1" 200 OK')
                nh = health()
            while npr <= t:
                out(npr, f'[{ts(npr)}] INFO:     10.42.3.9:{rng.randint(30000, 65000)} - "GET /metrics HTTP/1.1" 200 OK')
                npr = prom()
            if rnd() < 0.55:
                new = rng.randint(1, 4)
                out(t, f"[{ts(t)} TP0] Prefill batch. #new-seq: {new}, #new-token: {rng.randint(16, 8192)}, "
                       f"#cached-token: {rng.choice((0, 0, rng.randint(64, 6000)))}, token usage: {usage:.2f}, "
                       f"#running-req: {running}, #queue-req: {0 if usage < 0.9 else rng.randint(1, 30)}")
            path = "POST /v1/chat/completions" if rnd() < 0.9 else rng.choice(("POST /generate", "POST /v1/completions",
                                                                               "GET /v1/models"))
            code = "200 OK" if rnd() > 0.004 else "400 Bad Request"
            out(t + 200, f'[{ts(t)}] INFO:     {client(rng)} - "{path} HTTP/1.1" {code}')
            if todo and sink.size >= todo[0]:
                todo.pop(0)
                t = self.decoy(t)
        self.usage = usage
        return t

    def decoy(self, t: int) -> int:
        site = self.d.site
        self.m(t, "ERROR:    Exception in ASGI application", True)
        tb = ["Traceback (most recent call last):"]
        tb += frame(f"{site}/uvicorn/protocols/http/httptools_impl.py", 409, "run_asgi",
                    "result = await app(  # type: ignore[func-returns-value]")
        tb += frame(f"{site}/starlette/responses.py", 265, "wrap", "await func()")
        tb += frame(f"{site}/starlette/responses.py", 252, "stream_response",
                    'await send({"type": "http.response.body", "body": chunk, "more_body": True})')
        tb.append("ConnectionResetError: [Errno 104] Connection reset by peer")
        for line in tb:
            self.sink.out(t, line, True)
        return t + 2000

    def crash_oom(self, t: int) -> int:
        """TP3's scheduler runs out of memory in the LM head; the parent's SIGQUIT line comes first."""
        rng, src, site = self.rng, self.d.src, self.d.site
        t = self.tick(t, 0.01, 0.1)
        self.m(t, "Received sigquit from a child process. It usually means the child failed.", True)
        tb = [f"[{self.ck.sgl(t)} TP3] Scheduler hit an exception: Traceback (most recent call last):"]
        tb += frame(f"{src}/srt/managers/scheduler.py", 2677, "run_scheduler_process", "scheduler.event_loop_overlap()")
        tb += frame(f"{site}/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)")
        tb += frame(f"{src}/srt/managers/scheduler.py", 781, "event_loop_overlap", "batch_result = self.run_batch(batch)")
        tb += frame(f"{src}/srt/managers/scheduler.py", 1681, "run_batch",
                    ") = self.tp_worker.forward_batch_generation(model_worker_batch)")
        tb += frame(f"{src}/srt/managers/tp_worker_overlap_thread.py", 243, "forward_batch_generation",
                    "logits_output, next_token_ids, can_run_cuda_graph = self.worker.forward_batch_generation(")
        tb += frame(f"{src}/srt/managers/tp_worker.py", 212, "forward_batch_generation",
                    "logits_output, can_run_cuda_graph = self.model_runner.forward(")
        tb += frame(f"{src}/srt/model_executor/model_runner.py", 1203, "forward", "return self.forward_extend(")
        tb += frame(f"{src}/srt/model_executor/model_runner.py", 1140, "forward_extend", "return self.model.forward(")
        tb += frame(f"{site}/torch/utils/_contextlib.py", 116, "decorate_context", "return func(*args, **kwargs)")
        tb += frame(f"{src}/srt/models/qwen3.py", 292, "forward", "return self.logits_processor(")
        tb += frame(f"{site}/torch/nn/modules/module.py", 1751, "_wrapped_call_impl",
                    "return self._call_impl(*args, **kwargs)")
        tb += frame(f"{src}/srt/layers/logits_processor.py", 331, "forward",
                    "logits = self._get_logits(pruned_states, lm_head, logits_metadata)")
        tb += frame(f"{src}/srt/layers/logits_processor.py", 480, "_get_logits", "logits = torch.matmul(")
        tb.append(OOM_KEY + " has a total capacity of 79.19 GiB of which 1.12 GiB is free. Process 2241 has 78.06 GiB "
                  "memory in use. Of the allocated memory 71.93 GiB is allocated by PyTorch, with 312.00 MiB allocated "
                  "in private pools (e.g., CUDA Graphs), and 2.71 GiB is reserved by PyTorch but unallocated. If "
                  "reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:"
                  "True to avoid fragmentation.  See documentation for Memory Management  "
                  "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
        tb.append("")
        for line in tb:
            self.sink.out(t, line, True)
        t = self.tick(t, 0.05, 0.2)
        for k in (0, 1, 2):
            self.sink.out(t, f"[rank{k}]:[W{self.ck.c10(t)} ProcessGroupNCCL.cpp:1479] Warning: WARNING: "
                             "destroy_process_group() was not called before program exit, which can leak resources. "
                             "For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown "
                             "(function operator())", True)
        _ = rng
        return t
