#!/usr/bin/env python3
"""Growth check: is crashdoc's time linear in the input size on hostile shapes? (`make fuzz` runs it.)

    python bench/bench_growth.py               # every shape at 256 KiB and 512 KiB
    python bench/bench_growth.py --kib 1024    # larger
    python bench/bench_growth.py --max-ratio 3

For each shape — the fuzz generators of tests/fuzz/inputs.py (mutated real logs, journal export and docker
json-file with wrong types, the traceback grammar, control bytes) fed with fresh seeds until the size is
reached, and adversarial single shapes (one line without a newline, a line of carriage-return redraws,
ANSI-dense text, a traceback chain thousands deep, one JSON record with a huge MESSAGE) — it times diagnose
plus the three renderers in process CPU time (best of --repeat) at N and 2N bytes and prints t(2N)/t(N).
Linear work gives ~2; quadratic ~4. No absolute time is judged, only the ratio: exit 1 when a ratio is over
--max-ratio (3 by default, room for noise on a shared machine).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz import inputs
from tests.fuzz.harness import diagnose, knowledge, rendered


def generated(name: str) -> Callable[[int], bytes]:
    gen = inputs.GENERATORS[name]

    def make(size: int) -> bytes:
        rnd, out = random.Random(7), bytearray()
        while len(out) < size:
            out += gen(rnd) + b"\n"
        return bytes(out[:size])

    return make


def repeated(unit: bytes, sep: bytes = b"") -> Callable[[int], bytes]:
    def make(size: int) -> bytes:
        return (unit + sep) * (size // (len(unit) + len(sep)) + 1)

    return make


def deep_chain(size: int) -> bytes:
    link = (b"Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n    g()\nValueError: bad value\n"
            b"\nThe above exception was the direct cause of the following exception:\n\n")
    return link * (size // len(link) + 1) + b"RuntimeError: top\n"


def huge_record(size: int) -> bytes:
    return b'{"__REALTIME_TIMESTAMP": "1764000000000000", "MESSAGE": "RuntimeError: ' + b"x " * (size // 2) + b'"}\n'


SHAPES: dict[str, Callable[[int], bytes]] = {
    **{f"fuzz:{n}": generated(n) for n in inputs.GENERATORS},
    "one line, no newline": repeated(b"RuntimeError: CUDA error: out of memory; "),
    "carriage-return redraws": repeated(b"Loading safetensors shards: 42%|####      | 21/50\r"),
    "ANSI-dense": repeated(b"\x1b[1;31mERROR\x1b[0m \x1b]0;t\x07[rank3]: NCCL error\x1b[0m", b"\n"),
    "traceback chain": deep_chain,
    "one huge JSON record": huge_record,
}


def cpu(data: bytes, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        diag = diagnose(data)
        if diag is not None:
            rendered(diag)
        best = min(best, time.process_time() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1] if __doc__ else None)
    ap.add_argument("--kib", type=int, default=256, help="the smaller size N (the larger is 2N)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-ratio", type=float, default=3.0)
    args = ap.parse_args()
    knowledge()
    n = args.kib * 1024
    worst = 0.0
    print(f"{'shape':<28} {'N':>8} {'t(N) s':>8} {'t(2N) s':>8} {'ratio':>6}")
    for name, make in SHAPES.items():
        small, large = make(n)[:n], make(2 * n)[: 2 * n]
        t1, t2 = cpu(small, args.repeat), cpu(large, args.repeat)
        ratio = t2 / t1 if t1 > 0 else 0.0
        worst = max(worst, ratio)
        flag = "" if ratio <= args.max_ratio else "  SUPER-LINEAR"
        print(f"{name:<28} {args.kib:>6}Ki {t1:>8.3f} {t2:>8.3f} {ratio:>6.2f}{flag}", flush=True)
    print(f"worst ratio {worst:.2f} (limit {args.max_ratio})")
    return 0 if worst <= args.max_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
