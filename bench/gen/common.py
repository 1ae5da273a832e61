"""Text shared by the engines: traceback frames, prompts, client addresses, NCCL's INFO lines, tqdm bars,
torch's c10 warnings, and the interleaving of several processes writing to one stream."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from .clock import SEC

T = TypeVar("T")


def frame(path: str, line: int, func: str, code: str | None = None, caret: str | None = None) -> list[str]:
    """One traceback frame (`File "...", line N, in f` + the code line + Python 3.11+ carets)."""
    out = [f'  File "{path}", line {line}, in {func}']
    if code is not None:
        out.append("    " + code)
        if caret is not None:
            i = code.index(caret)
            out.append(" " * (4 + i) + "^" * len(caret))
    return out


def interleave(rng: random.Random, blocks: Sequence[Sequence[T]], start_spread: float = 0.12) -> list[tuple[int, T]]:
    """Merge per-process line blocks the way one shared pipe receives them: each process writes a few lines
    at a time, processes start at different moments. Returns (block index, item) in output order."""
    pos = [0] * len(blocks)
    order = list(range(len(blocks)))
    rng.shuffle(order)
    started = 0
    out: list[tuple[int, T]] = []
    while True:
        live = [k for k in order[: max(started, 1)] if pos[k] < len(blocks[k])]
        if started < len(order) and (not live or rng.random() < start_spread):
            started += 1
            continue
        if not live:
            return out
        k = rng.choice(live)
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
            if pos[k] >= len(blocks[k]):
                break
            out.append((k, blocks[k][pos[k]]))
            pos[k] += 1


# ------------------------------------------------------------------------------------------------------
# requests
# ------------------------------------------------------------------------------------------------------

SENTENCES = [
    "You are a helpful assistant. Answer concisely and cite the section you used.",
    "Summarize the following support ticket in two sentences for the on-call engineer.",
    "Translate to German: The deployment finished and all health checks are green.",
    "Write a SQL query that returns the ten most recent orders per customer, newest first.",
    "Explain the difference between a mutex and a semaphore with a short example in C.",
    "Classify the sentiment of this review as positive, neutral or negative: the battery lasts forever.",
    "Extract every date from the text below and return them as a JSON list in ISO 8601.",
    "def fibonacci(n):\\n    # complete this function without recursion\\n",
    "The customer reports that the invoice PDF shows the wrong VAT rate since the March release.",
    "Rewrite this paragraph for a ten-year-old reader, keep it under eighty words.",
    "Given the table of quarterly revenue below, which region grew fastest and by how much?",
    "List three risks of migrating the payments service to the new cluster and one mitigation each.",
    "Generate five unit tests for the function parse_duration(s: str) -> timedelta.",
    "What is the capital of Australia? Answer with one word.",
    "Draft a polite reply declining the meeting on Friday and proposing Tuesday at 10:00.",
    "Here is a stack trace from our Java service; explain in plain words what went wrong:",
    "Convert the following YAML to JSON and keep the key order:",
    "The quick brown fox jumps over the lazy dog near the riverbank at dawn.",
    "Compare PostgreSQL logical replication with physical streaming replication for a 2 TB database.",
    "Produce a haiku about distributed consensus.",
    "You are an agent with access to the tools get_weather(city) and search(query). Plan before acting.",
    "Return only valid JSON with the keys name, email and company extracted from the signature below.",
    "Book a meeting room for six people next Thursday afternoon and send the invite to the design team.",
    "I started learning Spanish last month; give me ten everyday phrases with their pronunciation.",
    "Write a product description for a waterproof hiking backpack with a 30 litre capacity.",
    "What are the side effects of ibuprofen and when should I stop taking it?",
    "Plan a three-day itinerary for Lisbon on a budget, including one day trip.",
    "Our checkout conversion dropped after the redesign; suggest five hypotheses we can test.",
    "Summarize this call transcript. The customer said the first payment failed and the second one went through.",
    "Draft release notes for version 2.4.1: faster search, a new dark mode and several bug fixes.",
    "How do I zoom out in a Jupyter notebook without changing the browser settings?",
    "Explain what a p-value is to a product manager in one paragraph.",
    "Create a weekly meal plan for a vegetarian family of four, with a shopping list.",
    "Rate this cover letter from 1 to 10 and point out the weakest sentence.",
    "Starting from the data below, compute the month-over-month growth and flag anomalies.",
    "What is the difference between TCP and UDP, and when would a game use each?",
    "Translate the following error message for our Japanese users: Your session has expired, please sign in again.",
    "Write a limerick about a cat who refuses to leave the living room.",
    "Refactor this function to remove the nested loops and explain the complexity before and after.",
    "List the steps to rotate a TLS certificate on an nginx reverse proxy without downtime.",
    "Answer as a support agent: the user was denied access to the shared folder after the migration.",
    "Give me a regular expression that matches ISO dates like 2024-05-01 but not 2024-13-01.",
    "Why did the Roman Empire split into east and west? Keep it under 150 words.",
    "Propose names for an internal tool that tracks GPU utilisation across clusters.",
    "Convert 72 degrees Fahrenheit to Celsius and show the formula.",
]

# NOTE: users paste errors into prompts, and vLLM's request log prints prompts verbatim: these lines carry
# crashdoc's error words without being errors of the service (about 3 % of prompts here).
TROUBLE = [
    "Why does my script fail with TypeError: 'NoneType' object is not subscriptable on line 12?",
    "Fix this for me: Traceback (most recent call last):\\n  File \"app.py\", line 3, in <module>\\n    import "
    "pandas\\nModuleNotFoundError: No module named 'pandas'",
    "Our nightly job was killed by the OOM killer again; how do I find out which process used the memory?",
    "The build failed with error: linker command failed with exit code 1 (use -v to see invocation). What now?",
    "Explain this Java error: Exception in thread \"main\" java.lang.NullPointerException at Main.run(Main.java:42)",
    "My pod shows CrashLoopBackOff and the last state says Reason: OOMKilled, Exit Code: 137. What should I check?",
]

CLIENT_NETS = ("10.20.3.", "10.20.4.", "10.42.0.", "10.42.1.", "172.16.8.")


def client(rng: random.Random) -> str:
    """`10.20.3.14:51234`"""
    return f"{rng.choice(CLIENT_NETS)}{rng.randint(2, 250)}:{rng.randint(30000, 65000)}"


def prompt_text(rng: random.Random) -> str:
    """A user prompt as the repr in a vLLM request log shows it (newlines escaped)."""
    k = rng.choice((1, 1, 2, 2, 3, 4, 6, 10))
    parts = rng.choices(SENTENCES, k=k)
    if rng.random() < 0.03:
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(TROUBLE))
    return " ".join(parts)


# ------------------------------------------------------------------------------------------------------
# tqdm
# ------------------------------------------------------------------------------------------------------

def tqdm_bar(desc: str, n: int, total: int, elapsed: float, rate: float, unit: str = "it", ascii_bar: bool = False,
             completed_style: bool = False) -> str:
    """One tqdm refresh, e.g. `Loading safetensors checkpoint shards:  45% Completed | 29/64 [02:31<03:02,  5.21s/it]`
    or `Capturing CUDA graphs (...): 43%|████▎     | 29/67 [00:04<00:05,  6.80it/s]`."""
    pct = int(100 * n / total) if total else 100
    remaining = (total - n) / rate if rate and unit == "it" else (total - n) * rate
    el = f"{int(elapsed) // 60:02d}:{int(elapsed) % 60:02d}"
    rem = f"{int(remaining) // 60:02d}:{int(remaining) % 60:02d}" if n else "?"
    speed = (f"{rate:5.2f}it/s" if unit == "it" else f"{rate:5.2f}s/it") if n else "?it/s"
    if completed_style:
        return f"{desc}: {pct:3d}% Completed | {n}/{total} [{el}<{rem}, {speed}]"
    filled = pct / 10
    full = int(filled)
    part = "" if full >= 10 else " ▏▎▍▌▋▊▉"[int((filled - full) * 8)]
    bar = ("█" * full + part).ljust(10) if not ascii_bar else ("#" * full).ljust(10)
    return f"{desc}: {pct:3d}%|{bar}| {n}/{total} [{el}<{rem}, {speed}]"


def progress(rng: random.Random, t: int, desc: str, total: int, per_item: float, unit: str = "it",
             completed_style: bool = False, refresh: float = 0.1) -> tuple[list[tuple[int, str]], int]:
    """The refreshes of one bar from 0 to total, starting at t; returns (updates, end time)."""
    ups = [(t, tqdm_bar(desc, 0, total, 0.0, 0.0, unit, completed_style=completed_style))]
    n, el = 0, 0.0
    while n < total:
        step = max(1, min(total - n, rng.randint(1, max(1, int(total * refresh)))))
        n += step
        dt = step * per_item * rng.uniform(0.85, 1.15)
        el += dt
        t += int(dt * SEC)
        rate = (n / el) if unit == "it" else (el / n)
        ups.append((t, tqdm_bar(desc, n, total, el, rate, unit, completed_style=completed_style)))
    return ups, t


# ------------------------------------------------------------------------------------------------------
# NCCL (NCCL_DEBUG=INFO): one rank's communicator setup; printed by the C library, so no engine prefix
# ------------------------------------------------------------------------------------------------------

def nccl_init_lines(rng: random.Random, host: str, pid: int, rank: int, nranks: int, version: str,
                    comm: int, comm_id: int, channels: int = 16) -> list[str]:
    tid = pid + rng.randint(60, 140)
    p0 = f"{host}:{pid}:{pid} [{rank}]"
    p = f"{host}:{pid}:{tid} [{rank}]"
    bus = f"{(0x18 + 0x1c * rank) % 0xff:x}000"
    out = [
        f"{p0} NCCL INFO Bootstrap: Using eth0:10.20.3.7<0>",
        f"{p0} NCCL INFO cudaDriverVersion 12080",
        f"{p0} NCCL INFO NCCL version {version}+cuda12.8",
        f"{p0} NCCL INFO Comm config Blocking set to 1",
        f"{p} NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.",
        f"{p} NCCL INFO Failed to open libibverbs.so[.1]",
        f"{p} NCCL INFO NET/Socket : Using [0]eth0:10.20.3.7<0> [1]docker0:172.17.0.1<0>",
        f"{p} NCCL INFO Initialized NET plugin Socket",
        f"{p} NCCL INFO Assigned NET plugin Socket to comm",
        f"{p} NCCL INFO Using network Socket",
        f"{p} NCCL INFO ncclCommInitRankConfig comm 0x{comm:x} rank {rank} nranks {nranks} cudaDev {rank} "
        f"nvmlDev {rank} busId {bus} commId 0x{comm_id:x} - Init START",
        f"{p} NCCL INFO RAS client listening socket at ::1<28028>",
        f"{p} NCCL INFO Bootstrap timings total 0.00{rng.randint(1000, 9999)} (create 0.00002, send 0.00011, "
        f"recv 0.00{rng.randint(100, 999)}, ring 0.00021, delay 0.00000)",
        f"{p} NCCL INFO Setting affinity for GPU {rank} to {'ffffffff,00000000' if rank < nranks // 2 else '00000000,ffffffff'}",
        f"{p} NCCL INFO NVLS multicast support is not available on dev {rank} (NVLS_NCHANNELS 0)",
        f"{p} NCCL INFO comm 0x{comm:x} rank {rank} nRanks {nranks} nNodes 1 localRanks {nranks} localRank {rank} MNNVL 0",
    ]
    nxt, prv = (rank + 1) % nranks, (rank - 1) % nranks
    trees = " ".join(f"[{c}] {nxt if rank + 1 < nranks else -1}/-1/-1->{rank}->{prv if rank else -1}" for c in range(4))
    out.append(f"{p} NCCL INFO Trees {trees}")
    out.append(f"{p} NCCL INFO P2P Chunksize set to 524288")
    if rank == 0:
        ring = " ".join(f"{r:>3d}" for r in range(nranks))
        out += [f"{p} NCCL INFO Channel {c:02d}/{channels:02d} : {ring}" for c in range(channels)]
    out.append(f"{p} NCCL INFO PROFILER/Plugin: Could not find: libnccl-profiler.so.")
    out.append(f"{p} NCCL INFO Check P2P Type isAllDirectP2p 1 directMode 0")
    out += [f"{p} NCCL INFO Channel {c:02d}/0 : {rank}[{rank}] -> {nxt}[{nxt}] via P2P/CUMEM/read"
            for c in range(channels)]
    out += [
        f"{p} NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
        f"{p} NCCL INFO Connected all trees",
        f"{p} NCCL INFO threadThresholds 8/8/64 | {8 * nranks}/8/64 | 512 | 512",
        f"{p} NCCL INFO {channels} coll channels, {channels} collnet channels, 0 nvls channels, 32 p2p channels, "
        "32 p2p channels per peer",
        f"{p} NCCL INFO TUNER/Plugin: Could not find: libnccl-tuner.so. Using internal tuner plugin.",
        f"{p} NCCL INFO ncclCommInitRankConfig comm 0x{comm:x} rank {rank} nranks {nranks} cudaDev {rank} "
        f"nvmlDev {rank} busId {bus} commId 0x{comm_id:x} - Init COMPLETE",
        f"{p} NCCL INFO Init timings - ncclCommInitRankConfig: rank {rank} nranks {nranks} total "
        f"{rng.uniform(0.4, 1.2):.2f} (kernels 0.{rng.randint(10, 40)}, alloc 0.{rng.randint(5, 20):02d}, bootstrap "
        f"0.00, allgathers 0.00, topo 0.{rng.randint(10, 30)}, graphs 0.01, connections 0.{rng.randint(3, 9):02d}, rest 0.01)",
    ]
    return out


def nccl_block(rng: random.Random, host: str, pids: Sequence[int], version: str) -> list[tuple[int, str]]:
    """All ranks' communicator setup, interleaved: (rank, line)."""
    comm_id = rng.getrandbits(64)
    blocks = [nccl_init_lines(rng, host, pid, k, len(pids), version, 0x55d000000000 + rng.getrandbits(32), comm_id)
              for k, pid in enumerate(pids)]
    return interleave(rng, blocks)


def c10_destroy_warning(rank: int, stamp: str) -> str:
    return (f"[rank{rank}]:[W{stamp} ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was not "
            "called before program exit, which can leak resources. For more info, please see "
            "https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())")


def schedule(rng: random.Random, t: int, every: float, jitter: float = 0.1) -> Callable[[], int]:
    """A periodic clock: each call returns the next time of an event that recurs `every` seconds."""
    state = [t + int(rng.uniform(0, every) * SEC)]

    def nxt() -> int:
        v = state[0]
        state[0] = v + int(every * rng.uniform(1 - jitter, 1 + jitter) * SEC)
        return v

    return nxt
