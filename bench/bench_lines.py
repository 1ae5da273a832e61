#!/usr/bin/env python3
"""Long and many error lines: `crashdoc diagnose` on adversarial line shapes, against baselines in the same run.

    python bench/bench_lines.py                       # the repo's .venv/bin/crashdoc
    python bench/bench_lines.py --crashdoc crashdoc --distinct-mb 16 --runs 3

1. One 64 KiB error line of each shape (a file holding that line only): long word runs, repeated separators,
   near-misses of rule patterns (the start of a known message repeated without its end), caret runs, quote and
   bracket runs, a path-like run. Floor: each is diagnosed in under 1 s (wall). Baseline in the same run: the
   same command on a one-line file of 80 bytes (start-up), so the line's own cost is the difference.
2. `--distinct-mb` MB (16) of distinct ~190-byte error lines (varied exception types, messages, numbers,
   paths: nothing repeats, so no memo helps). Floor: >= 10 MB/s; baseline `grep -c Error FILE` in the same run
   (the ratio is printed, not judged). Then as many MB of distinct error lines of varied length (40-600 bytes)
   and logger prefix, reported beside it (not judged): a gain must not belong to one generator's shape.

Times are the best of `--runs` (wall) with the CPU seconds of that run (os.wait4; on a busy machine MB per CPU
second is the steadier figure, and it is printed beside MB/s); a run over `--limit`
seconds (60) is stopped and shown as TIMEOUT. It reports, it does not judge: the exit status is 0 even when a
floor fails.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINE = 64 << 10

SHAPES: dict[str, str] = {
    "word run": "RuntimeError: x " + "a" * LINE,
    "words and spaces": "RuntimeError: " + "error failed killed " * (LINE // 20),
    "colon separators": "ValueError: " + ": " * (LINE // 2),
    "dash separators": "ERROR " + "-" * LINE,
    "slash path run": "OSError: /" + "usr/lib/" * (LINE // 8),
    "dotted name run": "ModuleNotFoundError: No module named '" + "a." * (LINE // 2) + "'",
    "near-miss CUDA OOM": "torch.OutOfMemoryError: " + "CUDA out of memory. Tried to allocate " * (LINE // 38),
    "near-miss import": "ImportError: " + "cannot import name " * (LINE // 19),
    "near-miss undefined symbol": "ImportError: " + "undefined symbol: _Z" * (LINE // 20),
    "caret run": "    " + "^" * LINE + "x",
    "quote run": "KeyError: " + "'\"" * (LINE // 2),
    "bracket run": "RuntimeError: " + "[(" * (LINE // 2),
    "digits": "RuntimeError: CUDA error " + "9" * LINE,
    "frame-like": 'File "' + "x" * LINE + '", line 1',
}

EXC = ["RuntimeError", "ValueError", "KeyError", "OSError", "TypeError", "AssertionError", "ImportError",
       "torch.distributed.DistBackendError", "ConnectionResetError", "FileNotFoundError"]
WORDS = ["worker", "shard", "rank", "tensor", "buffer", "stream", "queue", "handle", "socket", "device", "kernel", "block", "cache", "page", "token", "request", "batch", "layer", "expert", "weight", "scale", "bias", "config", "engine", "backend", "plugin", "module"]


def distinct_lines(size: int, seed: int = 12) -> bytes:
    """`size` bytes of distinct error lines, ~190 bytes each, some with logger prefixes."""
    rng = random.Random(seed)
    out: list[str] = []
    n = total = 0
    while total < size:
        n += 1
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
        msg = f"{rng.choice(EXC)}: {words} {n} failed at /opt/app/{rng.choice(WORDS)}_{n}.py:{rng.randint(1, 999)}"
        if n % 3 == 0:
            msg = f"(Worker_TP{n % 8} pid={1000 + n % 97}) ERROR 11-24 06:{n % 60:02d}:00 [x.py:{n % 500}] {msg}"
        line = (msg + " " + "%08x" % rng.getrandbits(32) * 3)[:190] + "\n"
        out.append(line)
        total += len(line)
    return "".join(out).encode()


PREFIXES = [
    "",
    "(Worker_TP{r} pid={pid}) ERROR 11-24 06:{m:02d}:{s:02d} [{mod}.py:{ln}] ",
    "Nov 24 06:{m:02d}:{s:02d} gpu-node-3 python3[{pid}]: ",
    "E1124 06:{m:02d}:{s:02d}.{us:06d} {pid} {mod}.cc:{ln}] ",
    "[2025-11-24 06:{m:02d}:{s:02d} TP{r}] ",
    "[rank{r}]: ",
    "2025-11-24T06:{m:02d}:{s:02d}.{us:06d}Z ERROR {mod}: ",
]
NAMES = ["model.layers.{n}.mlp", "expert_{n}", "shard-{n}", "req-{h}", "cuda:{r}", "/data/ckpt/step_{n}.safetensors"]


def distinct_varied(size: int, seed: int = 21) -> bytes:
    """`size` bytes of distinct error lines of varied length (40 to 600 bytes) and logger prefixes (none, vLLM,
    journald, glog, SGLang, torch rank, tracing), with quoted names, hex ids and numbers: a real log of many
    distinct errors is not 190 bytes a line."""
    rng = random.Random(seed)
    out: list[str] = []
    n = total = 0
    while total < size:
        n += 1
        names = [rng.choice(NAMES).format(n=rng.randint(0, 999), h="%08x" % rng.getrandbits(32), r=n % 8)
                 for _ in range(rng.randint(0, 3))]
        words = " ".join(rng.choice(WORDS) for _ in range(rng.choice((2, 4, 8, 16, 32, 60))))
        quoted = " ".join(f"'{x}'" for x in names)
        msg = f"{rng.choice(EXC)}: {words} {quoted} ({n}, {rng.random():.4f})".replace("  ", " ")
        prefix = rng.choice(PREFIXES).format(r=n % 8, pid=1000 + n % 97, m=n // 60 % 60, s=n % 60,
                                             us=rng.randrange(10**6), mod=rng.choice(WORDS), ln=rng.randint(1, 999))
        line = prefix + msg + "\n"
        out.append(line)
        total += len(line)
    return "".join(out).encode()


def run(argv: list[str], runs: int, limit: float = 60.0) -> tuple[float, float, int]:
    """(best wall seconds, CPU seconds of that run, exit status); a run over `limit` seconds is stopped and
    reported as (inf, CPU so far, -9)."""
    best = (float("inf"), 0.0, 0)
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:  # NOTE: os.wait4, not p.wait: the child's rusage is wanted
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > limit:
                p.kill()
                _, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.01)
        p.returncode = rc = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0 if rc != -9 else float("inf")
        if wall <= best[0]:
            best = (wall, ru.ru_utime + ru.ru_stime, rc)
        if rc == -9:
            break
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crashdoc", default=str(REPO / ".venv" / "bin" / "crashdoc"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--distinct-mb", type=float, default=16.0)
    ap.add_argument("--limit", type=float, default=60.0, help="seconds before a run is stopped")
    a = ap.parse_args()
    exe = shutil.which(a.crashdoc) or a.crashdoc
    work = Path(tempfile.mkdtemp(prefix="crashdoc-lines-"))
    fails = 0
    try:
        short = work / "short.log"
        short.write_text("RuntimeError: CUDA error: an illegal memory access was encountered\n")
        base = run([exe, "diagnose", str(short), "--format", "json"], a.runs)
        print(f"{'64 KiB line shape':28} {'seconds':>8} {'CPU s':>7} {'- start-up':>11} {'status':>7}  floor < 1 s")
        print(f"{'(80-byte line: start-up)':28} {base[0]:8.3f} {base[1]:7.3f} {'':>11} {base[2]:7d}")
        for name, text in SHAPES.items():
            f = work / "line.log"
            f.write_text(text + "\n")
            wall, cpu, rc = run([exe, "diagnose", str(f), "--format", "json"], a.runs, a.limit)
            ok = wall < 1.0 and rc in (0, 2, 3)
            fails += not ok
            verdict = "PASS" if ok else ("FAIL (TIMEOUT)" if rc == -9 else "FAIL")
            print(f"{name:28} {wall:8.3f} {cpu:7.3f} {wall - base[0]:11.3f} {rc:7d}  {verdict}", flush=True)
        for label, make, judged in (("distinct error lines", distinct_lines, True),
                                    ("distinct error lines of varied length and prefix", distinct_varied, False)):
            data = make(int(a.distinct_mb * (1 << 20)))
            f = work / "distinct.log"
            f.write_bytes(data)
            mb = len(data) / (1 << 20)
            with open(f, "rb") as fh:  # the page cache, for both tools
                while fh.read(1 << 24):
                    pass
            g = run(["grep", "-c", "Error", str(f)], a.runs)
            c = run([exe, "diagnose", str(f), "--format", "json"], a.runs, max(a.limit, 600.0))
            nlines = data.count(b"\n")
            print(f"\n{mb:.0f} MB of {label} ({nlines} lines)")
            print(f"{'tool':28} {'seconds':>8} {'CPU s':>7} {'MB/s':>8} {'MB/CPU s':>9}")
            print(f"{'grep -c Error':28} {g[0]:8.3f} {g[1]:7.3f} {mb / g[0]:8.1f} {mb / max(g[1], 1e-3):9.1f}")
            print(f"{'crashdoc diagnose':28} {c[0]:8.3f} {c[1]:7.3f} {mb / c[0]:8.1f} {mb / max(c[1], 1e-3):9.1f}")
            if judged:  # the floor is the shape; the varied log is a check that the gain is not one shape's
                ok = mb / c[0] >= 10
                fails += not ok
                print(f"{'PASS' if ok else 'FAIL'}  {mb / c[0]:.1f} MB/s >= 10 MB/s (crashdoc/grep {g[0] / c[0]:.3f})")
        print(f"\n{fails} floor(s) failed")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
