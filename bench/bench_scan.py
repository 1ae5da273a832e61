#!/usr/bin/env python3
"""Speed benchmark: `crashdoc diagnose` on a large realistic engine log, against `grep -c Traceback`.

    python bench/bench_scan.py                       # 1 GB log in a temp dir, default crashdoc
    python bench/bench_scan.py --size-mb 256 --keep  # smaller, keep the file
    python bench/bench_scan.py --crashdoc "crashdoc" --check

The log is a vLLM V1 server's output (APIServer, EngineCore_DP0, Worker_TP0..7 prefixes) over many hours:
access-log lines, stats lines, request logging, WARNINGs, progress bars, a few handled tracebacks spread
through the file, and near the end the real crash (a worker's CUDA OOM) followed by the wrapper errors
of the engine core and the API server. It is generated fast: a few MB of varied text are built once
(several variants) and written repeatedly with the clock advanced, so 1 GB takes seconds.

Then, with the page cache warm (the file is read once first), it times `grep -c Traceback FILE` and
`crashdoc diagnose FILE --format json` (wall time, MB/s, the child's peak RSS from os.wait4), checks that
crashdoc's root cause is the planted one, and prints a table plus PASS/FAIL lines for the floors
(crashdoc/grep throughput ratio >= 0.25, peak RSS < 200 MB, root cause found). It exits 0 even when a
floor fails, unless --check is given (then exit 1 on any FAIL).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MB = 1024 * 1024

RATIO_FLOOR = 0.25
RSS_CEILING_MB = 200.0

# on the worker's exception line only (the engine core's wrapper repeats the message without the type)
ROOT_KEY = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.50 GiB. GPU 5"

SITE = "/usr/local/lib/python3.12/dist-packages"
TS = "\x00TS\x00"          # placeholder for "MM-DD HH" in a chunk, replaced per repetition
API, CORE = 2301, 2477
WORKERS = [2544, 2549, 2553, 2558, 2566, 2571, 2575, 2580]
MODEL = "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"


# ---------------------------------------------------------------------------------------------
# generation
# ---------------------------------------------------------------------------------------------

def _vl(proc: str, pid: int, level: str, mmss: str, where: str, msg: str) -> str:
    return f"({proc} pid={pid}) {level} {TS}:{mmss} [{where}] {msg}"


PROMPTS = [
    "Summarize the following support ticket in two sentences",
    "Translate to German: The deployment finished without errors.",
    "You are a helpful assistant. Answer concisely.",
    "Write a SQL query that returns the ten most recent orders per customer",
    "Explain the difference between a mutex and a semaphore",
    "Classify the sentiment of this review: the battery lasts forever",
    "Extract all dates from the text below and return them as JSON",
    "def fibonacci(n):\\n    # complete this function",
]
PATHS = [("POST /v1/chat/completions", "200 OK")] * 14 + [
    ("POST /v1/completions", "200 OK"), ("GET /health", "200 OK"), ("GET /metrics", "200 OK"),
    ("GET /v1/models", "200 OK"), ("POST /v1/chat/completions", "400 Bad Request"),
    ("POST /tokenize", "200 OK"), ("GET /v1/modles", "404 Not Found")]
WARNINGS = [
    ("APIServer", "protocol.py:89", "The following fields were present in the request but ignored: {{'logit_bias_type'}}"),
    ("APIServer", "serving_chat.py:142", "Chat template kwargs {{'enable_thinking'}} are not supported by the "
                                         "tokenizer's chat template and will be ignored."),
    ("EngineCore_DP0", "scheduler.py:1021", "Preempting request chatcmpl-{h} because the KV cache is full "
                                            "(num_free_blocks=0)."),
    ("Worker_TP{k}", "fused_moe.py:728", "Using default MoE config. Performance might be sub-optimal! Config file "
                                         "not found at {site}/vllm/model_executor/layers/fused_moe/configs/E=128,"
                                         "N=192,device_name=NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8,block_shape=[128,128]"
                                         ".json"),
    ("APIServer", "utils.py:421", "Request chatcmpl-{h} took 31.2 s to first token (queue time 29.8 s)."),
]


def make_chunk(rng: random.Random, target_bytes: int) -> str:
    """A few MB of steady-state server output; minutes:seconds increase through the chunk."""
    out: list[str] = []
    size = 0
    n_est = target_bytes // 150
    sec = 0.0
    step = 3600.0 / max(n_est, 1)
    while size < target_bytes:
        sec = min(3599.0, sec + rng.uniform(0.2, 1.8) * step)
        mmss = f"{int(sec) // 60:02d}:{int(sec) % 60:02d}"
        r = rng.random()
        h = f"{rng.getrandbits(128):032x}"
        if r < 0.46:
            p, code = rng.choice(PATHS)
            line = (f'(APIServer pid={API}) INFO:     10.{rng.randint(0, 3)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}:'
                    f'{rng.randint(1024, 65535)} - "{p} HTTP/1.1" {code}')
        elif r < 0.66:
            pr = rng.choice(PROMPTS)
            line = _vl("APIServer", API, "INFO", mmss, "logger.py:43",
                       f"Received request chatcmpl-{h}: prompt: '<|im_start|>user\\n{pr}<|im_end|>\\n<|im_start|>"
                       f"assistant\\n', params: SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, "
                       f"repetition_penalty=1.0, temperature={rng.choice(['0.7', '0.0', '0.6', '1.0'])}, top_p=0.8, "
                       f"top_k=20, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], "
                       f"include_stop_str_in_output=False, ignore_eos=False, max_tokens={rng.randint(64, 8192)}, "
                       "min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, "
                       "spaces_between_special_tokens=True, truncate_prompt_tokens=None, structured_outputs=None, "
                       "extra_args=None), prompt_token_ids: None, prompt_embeds shape: None, lora_request: None.")
        elif r < 0.80:
            line = _vl("APIServer", API, "INFO", mmss, "async_llm.py:321", f"Added request chatcmpl-{h}.")
        elif r < 0.86:
            line = _vl("APIServer", API, "INFO", mmss, "loggers.py:123",
                       f"Engine 000: Avg prompt throughput: {rng.uniform(500, 30000):.1f} tokens/s, Avg generation "
                       f"throughput: {rng.uniform(100, 4000):.1f} tokens/s, Running: {rng.randint(0, 128)} reqs, "
                       f"Waiting: {rng.randint(0, 40)} reqs, GPU KV cache usage: {rng.uniform(0, 99):.1f}%, "
                       f"Prefix cache hit rate: {rng.uniform(0, 80):.1f}%")
        elif r < 0.89:
            # per-request warnings recur all day; the MoE-config one is a startup warning (rare here)
            proc, where, msg = rng.choices(WARNINGS, weights=(30, 30, 20, 0.05, 20))[0]
            k = rng.randrange(8)
            proc = proc.format(k=k)
            pid = API if proc == "APIServer" else CORE if proc.startswith("Engine") else WORKERS[k]
            line = _vl(proc, pid, "WARNING", mmss, where, msg.format(h=h, site=SITE))
        elif r < 0.93:
            k = rng.randrange(8)
            line = _vl(f"Worker_TP{k}", WORKERS[k], "INFO", mmss, "custom_all_reduce.py:203",
                       f"Registering {rng.randint(1000, 9000)} cuda graph addresses")
        elif r < 0.955:
            n = rng.randint(0, 67)
            pct = n * 100 // 67
            bar = ("█" * (pct // 10)).ljust(10)
            line = (f"(EngineCore_DP0 pid={CORE}) Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): "
                    f"{pct:3d}%|{bar}| {n}/67 [00:{n // 7:02d}<00:{(67 - n) // 7:02d},  7.{rng.randint(0, 99):02d}it/s]")
        elif r < 0.975:
            n = rng.randint(0, 48)
            line = (f"(Worker_TP0 pid={WORKERS[0]}) Loading safetensors checkpoint shards: {n * 100 // 48:3d}% "
                    f"Completed | {n}/48 [{n * 5 // 60:02d}:{n * 5 % 60:02d}<{(48 - n) * 5 // 60:02d}:"
                    f"{(48 - n) * 5 % 60:02d},  5.{rng.randint(0, 99):02d}s/it]")
        else:
            line = _vl("EngineCore_DP0", CORE, "INFO", mmss, "block_pool.py:311",
                       f"Evicted {rng.randint(1, 400)} cached blocks for request chatcmpl-{h}.")
        out.append(line)
        size += len(line.encode()) + 1
    return "\n".join(out) + "\n"


def frame(path: str, line: int, func: str, code: str) -> list[str]:
    return [f'  File "{SITE}/{path}", line {line}, in {func}', f"    {code}"]


def handled_traceback(kind: int) -> str:
    """Errors that happen and are handled while serving: never the root cause."""
    if kind == 0:
        tb = ["Error in preprocessing prompt inputs", "Traceback (most recent call last):"]
        tb += frame("vllm/entrypoints/openai/serving_chat.py", 226, "create_chat_completion",
                    ") = await self._preprocess_chat(")
        tb += frame("vllm/entrypoints/openai/serving_engine.py", 1109, "_validate_input", "raise ValueError(")
        tb.append("ValueError: This model's maximum context length is 131072 tokens. However, your request has "
                  "157204 input tokens. Please reduce the length of the input messages.")
        return "\n".join(_vl("APIServer", API, "ERROR", "12:01", "serving_chat.py:236", t) for t in tb) + "\n"
    if kind == 1:
        tb = ["Exception in ASGI application", "Traceback (most recent call last):"]
        tb += frame("uvicorn/protocols/http/httptools_impl.py", 409, "run_asgi",
                    "result = await app(  # type: ignore[func-returns-value]")
        tb += frame("starlette/responses.py", 260, "wrap", "await func()")
        tb += frame("starlette/responses.py", 249, "stream_response", "await send({\"type\": \"http.response.body\", "
                    "\"body\": chunk, \"more_body\": True})")
        tb.append("OSError: [Errno 104] Connection reset by peer")
        return "\n".join(f"(APIServer pid={API}) ERROR:    {t}" if i == 0 else f"(APIServer pid={API}) {t}"
                         for i, t in enumerate(tb)) + "\n"
    tb = ["Error in chat completion stream generator.", "Traceback (most recent call last):"]
    tb += frame("vllm/entrypoints/openai/serving_chat.py", 1137, "chat_completion_stream_generator",
                "tool_parser.extract_tool_calls_streaming(")
    tb += frame("vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py", 290, "extract_tool_calls_streaming",
                "args = json.loads(tool_call_portion)")
    tb.append("json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 42 (char 41)")
    return "\n".join(_vl("APIServer", API, "ERROR", "33:17", "serving_chat.py:1201", t) for t in tb) + "\n"


def crash_tail() -> str:
    """The real crash near the end: Worker_TP5 runs out of memory, then the wrappers."""
    w = ["WorkerProc hit an exception.", "Traceback (most recent call last):"]
    w += frame("vllm/v1/executor/multiproc_executor.py", 666, "worker_busy_loop",
               "output = func(*args, **kwargs)")
    w += frame("vllm/v1/worker/gpu_worker.py", 447, "execute_model",
               "output = self.model_runner.execute_model(scheduler_output,")
    w += frame("vllm/v1/worker/gpu_model_runner.py", 2276, "execute_model",
               "model_output = self._model_forward(")
    w += frame("vllm/model_executor/layers/fused_moe/fused_moe.py", 1671, "fused_experts_impl",
               "intermediate_cache1 = torch.empty((M, top_k_num, N),")
    w.append(ROOT_KEY + " has a total capacity of 79.19 GiB of which 6.12 GiB is free. Including non-PyTorch memory, "
             "this process has 73.06 GiB memory in use. Of the allocated memory 68.91 GiB is allocated by PyTorch, "
             "and 2.73 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
             "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
             "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    out = [_vl("Worker_TP5", WORKERS[5], "ERROR", "58:41", "multiproc_executor.py:671", t) for t in w]
    e = ["EngineCore encountered a fatal error.", "Traceback (most recent call last):"]
    e += frame("vllm/v1/engine/core.py", 701, "run_engine_core", "engine_core.run_busy_loop()")
    e += frame("vllm/v1/engine/core.py", 284, "step", "model_output = self.execute_model_with_error_logging(")
    e += frame("vllm/v1/executor/multiproc_executor.py", 264, "get_response",
               "raise RuntimeError(")
    e.append("RuntimeError: Worker failed with error 'CUDA out of memory. Tried to allocate 7.50 GiB. GPU 5 has a "
             "total capacity of 79.19 GiB of which 6.12 GiB is free.', please check the stack trace above for the "
             "root cause")
    out += [_vl("EngineCore_DP0", CORE, "ERROR", "58:41", "core.py:710", t) for t in e]
    a = ["AsyncLLM output_handler failed.", "Traceback (most recent call last):"]
    a += frame("vllm/v1/engine/async_llm.py", 439, "output_handler",
               "outputs = await engine_core.get_output_async()")
    a += frame("vllm/v1/engine/core_client.py", 846, "get_output_async",
               "raise self._format_exception(outputs) from None")
    a.append("vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) "
             "for the root cause.")
    out += [_vl("APIServer", API, "ERROR", "58:42", "async_llm.py:480", t) for t in a]
    for i in range(6):
        out.append(f'(APIServer pid={API}) INFO:     10.0.{i}.17:{40000 + i} - "POST /v1/chat/completions '
                   'HTTP/1.1" 500 Internal Server Error')
    out.append(_vl("APIServer", API, "INFO", "58:43", "launcher.py:101", "Shutting down FastAPI HTTP server."))
    out.append(f"(APIServer pid={API}) INFO:     Shutting down")
    out.append(f"(APIServer pid={API}) INFO:     Waiting for application shutdown.")
    out.append(f"(APIServer pid={API}) INFO:     Application shutdown complete.")
    return "\n".join(out) + "\n"


def generate(path: Path, size_mb: int, seed: int = 7, chunk_mb: float = 4.0, variants: int = 4) -> tuple[int, float]:
    """Write the log; returns (bytes written, seconds taken)."""
    t0 = time.perf_counter()
    rng = random.Random(seed)
    chunks = [make_chunk(random.Random(seed * 100 + i), int(chunk_mb * MB)).encode() for i in range(variants)]
    total = size_mb * MB
    start = dt.datetime(2025, 11, 24, 0, 0)
    # handled tracebacks at ~20 %, 45 %, 70 % of the file; the crash right before the end
    marks = {int(total * f): handled_traceback(k).encode() for k, f in enumerate((0.20, 0.45, 0.70))}
    tail = crash_tail().encode()
    written, hour = 0, 0
    with open(path, "wb", buffering=8 * MB) as f:
        while written < total - len(tail):
            stamp = (start + dt.timedelta(hours=hour)).strftime("%m-%d %H").encode()
            data = chunks[rng.randrange(variants)].replace(TS.encode(), stamp)
            room = total - len(tail) - written
            if len(data) > room:
                cut = data.rfind(b"\n", 0, room)
                data = data[: cut + 1] if cut > 0 else b""
                if not data:
                    break
            for m in [m for m in marks if written <= m < written + len(data)]:
                cut = data.find(b"\n", m - written) + 1
                tb = marks.pop(m).replace(TS.encode(), stamp)
                data = data[:cut] + tb + data[cut:]
            f.write(data)
            written += len(data)
            hour += 1
        stamp = (start + dt.timedelta(hours=hour)).strftime("%m-%d %H").encode()
        f.write(tail.replace(TS.encode(), stamp))
        written += len(tail)
    return written, time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------
# measurement
# ---------------------------------------------------------------------------------------------

def warm(path: Path) -> float:
    """`cat FILE > /dev/null` once, so every tool reads from the page cache."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        subprocess.run(["cat", str(path)], stdout=null, check=True)
    return time.perf_counter() - t0


# NOTE: a child's ru_maxrss (from wait4) also covers its life before exec, i.e. the RSS of this Python
# process at fork time (with vfork it would even be this process's lifetime peak). So this process stays
# lean: the log is generated in a separate process, the cache is warmed with `cat`, and children are
# forked, not vforked. The floor this leaves under every figure is this process's RSS (~10-15 MB).
if hasattr(subprocess, "_USE_VFORK"):
    subprocess._USE_VFORK = False  # type: ignore[attr-defined]


def run_measured(argv: list[str], env: dict | None, out_path: Path) -> tuple[float, float, int, str]:
    """Run argv with stdout to a file; return (wall seconds, peak RSS MB of the child, exit code, stderr tail)."""
    err_path = out_path.with_suffix(".stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    rss_mb = ru.ru_maxrss / 1024.0  # Linux: KiB
    return wall, rss_mb, p.returncode, err_path.read_text(errors="replace")[-2000:]


def crashdoc_command(arg: str | None) -> tuple[list[str], dict]:
    env = dict(os.environ)
    if arg:
        return shlex.split(arg), env
    venv = REPO / ".venv" / "bin" / "crashdoc"
    exe = str(venv) if venv.exists() else shutil.which("crashdoc")
    if exe:
        return [exe], env
    env["PYTHONPATH"] = str(REPO / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return [sys.executable, "-m", "crashdoc"], env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark crashdoc diagnose against grep on a large engine log.")
    ap.add_argument("--size-mb", type=int, default=1024, help="size of the generated log (default 1024)")
    ap.add_argument("--keep", action="store_true", help="keep the generated log (and print where it is)")
    ap.add_argument("--crashdoc", metavar="CMD", default=None,
                    help="crashdoc command (default: the repo's .venv/bin/crashdoc, else `crashdoc` on PATH, else `python -m crashdoc` with PYTHONPATH=src)")
    ap.add_argument("--dir", type=Path, default=None, help="where to write the log (default: a new temp dir)")
    ap.add_argument("--runs", type=int, default=3, help="run each tool N times; report the fastest run")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--check", action="store_true", help="exit 1 when a floor fails")
    ap.add_argument("--generate-only", type=Path, metavar="FILE", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.generate_only:   # the child process that writes the log (keeps the measuring process lean)
        nbytes, secs = generate(args.generate_only, args.size_mb, seed=args.seed)
        print(json.dumps({"bytes": nbytes, "seconds": secs}))
        return 0

    workdir = Path(tempfile.mkdtemp(prefix="crashdoc-bench-", dir=args.dir))
    log = workdir / f"engine-{args.size_mb}mb.log"
    try:
        gen = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--generate-only", str(log),
                              "--size-mb", str(args.size_mb), "--seed", str(args.seed)],
                             capture_output=True, text=True, check=True)
        info = json.loads(gen.stdout.strip().splitlines()[-1])
        nbytes, gen_s = info["bytes"], info["seconds"]
        size_mb = nbytes / MB
        print(f"generated {log} ({size_mb:.1f} MB) in {gen_s:.1f} s")
        print(f"page cache warmed in {warm(log):.2f} s")

        grep = shutil.which("grep") or "grep"
        g_best = None
        for _ in range(args.runs):
            wall, rss, code, err = run_measured([grep, "-c", "Traceback", str(log)], None, workdir / "grep.out")
            if g_best is None or wall < g_best[0]:
                g_best = (wall, rss, code, (workdir / "grep.out").read_text().strip())
        assert g_best is not None

        cmd, env = crashdoc_command(args.crashdoc)
        c_best = None
        for _ in range(args.runs):
            wall, rss, code, err = run_measured(cmd + ["diagnose", str(log), "--format", "json"], env,
                                                workdir / "crashdoc.json")
            if c_best is None or wall < c_best[0]:
                c_best = (wall, rss, code, err)
        assert c_best is not None
        try:
            report = json.loads((workdir / "crashdoc.json").read_text() or "null") or {}
        except json.JSONDecodeError:
            report = {}
        rc = report.get("root_cause") or {}
        found = ROOT_KEY in (rc.get("line") or "")

        g_rate = size_mb / g_best[0]
        c_rate = size_mb / c_best[0]
        ratio = c_rate / g_rate
        print()
        print(f"{'tool':<34} {'seconds':>9} {'MB/s':>9} {'peak RSS MB':>12} {'ratio':>7}")
        print(f"{'grep -c Traceback':<34} {g_best[0]:>9.2f} {g_rate:>9.1f} {g_best[1]:>12.1f} {'':>7}")
        label = " ".join(Path(cmd[0]).name if i == 0 else c for i, c in enumerate(cmd)) + " diagnose"
        print(f"{label[:34]:<34} {c_best[0]:>9.2f} {c_rate:>9.1f} {c_best[1]:>12.1f} {ratio:>7.3f}")
        print()
        print(f"grep: {g_best[3]} lines with 'Traceback' (exit {g_best[2]})")
        print(f"crashdoc: exit {c_best[2]}; root cause: {(rc.get('line') or '<none>')[:150]}")
        if c_best[2] not in (0, 3) and c_best[3].strip():
            print("crashdoc stderr (tail):\n" + c_best[3].strip()[-800:])
        checks = [
            (f"throughput ratio crashdoc/grep {ratio:.3f} >= {RATIO_FLOOR}", ratio >= RATIO_FLOOR),
            (f"crashdoc peak RSS {c_best[1]:.1f} MB < {RSS_CEILING_MB:.0f} MB", c_best[1] < RSS_CEILING_MB),
            ("crashdoc names the planted root cause (Worker_TP5 CUDA OOM)", found),
        ]
        print()
        for text, ok in checks:
            print(f"{'PASS' if ok else 'FAIL'}  {text}")
        if args.keep:
            print(f"\nkept {log}")
        return 1 if args.check and not all(ok for _, ok in checks) else 0
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
