#!/usr/bin/env python3
"""Peak memory and time of `crashdoc diagnose UNIT --directory D` on real journal files (written by
systemd-journal-remote) whose failing attempts hold ENTRIES records, against `journalctl` alone writing the same
query's JSON to /dev/null, in the same run.

usage: python bench/bench_journal_memory.py [--entries 510000] [--attempts 3] [--crashdoc PATH]
The journal is cached in /tmp/crashdoc-bench-journal (rebuilt when the arguments change).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.journal_files import JournalBuilder, available  # noqa: E402 - after the path set-up

SECOND = 1_000_000
NOISE = [
    "(Worker_TP{r} pid={p}) INFO 11-30 09:{m:02d}:{s:02d} [gpu_model_runner.py:2174] Loading weights took {t:.2f} seconds",
    "(Worker_TP{r} pid={p}) INFO 11-30 09:{m:02d}:{s:02d} [parallel_state.py:1208] rank {r} in world size 8 is assigned as DP rank 0, PP rank 0, TP rank {r}",
    "gpu-node-7:{p}:{p} [{r}] NCCL INFO Channel {c:02d}/0 : {r}[{r}] -> {n}[{n}] via P2P/CUMEM/read",
    "gpu-node-7:{p}:{p} [{r}] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
    "(APIServer pid={p}) WARNING 11-30 09:{m:02d}:{s:02d} [config.py:1012] Possibly too large swap space. 4.00 GiB out of the 15.54 GiB total CPU memory",
    "Loading safetensors checkpoint shards: {pct:3d}% Completed | {k}/64 [00:{s:02d}<00:31,  1.03it/s]",
]


def build(path: Path, entries: int, attempts: int) -> Path:
    b = JournalBuilder()
    per = entries // attempts
    t = b.boot_usec + 5 * SECOND
    for i in range(attempts):
        noise = [NOISE[k % len(NOISE)].format(r=k % 8, p=4000 + k % 8, m=(k // 60) % 60, s=k % 60, t=k / 1000,
                                              c=k % 32, n=(k + 1) % 8, pct=k % 101, k=k % 64).encode()
                 for k in range(per)]
        _, t = b.failed_attempt(t, index=i + 1, restart_counter=i + 1, extra_lines=noise, step_usec=20)
    return b.write(path)


def measure(argv: list[str]) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open("/dev/null", "wb") as sink:
        rc = subprocess.run(argv, stdout=sink, stderr=subprocess.DEVNULL, check=False).returncode
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"rc": rc, "wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "peak_rss_mb": after.ru_maxrss / 1024}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=510_000)
    ap.add_argument("--attempts", type=int, default=3)
    ap.add_argument("--crashdoc", default=str(ROOT / ".venv" / "bin" / "crashdoc"))
    args = ap.parse_args()
    if not available():
        print("needs systemd-journal-remote and journalctl (apt-get install systemd-journal-remote)")
        return 2
    cache = Path("/tmp/crashdoc-bench-journal") / f"{args.entries}-{args.attempts}"
    path = cache / "system.journal"
    if not path.exists():
        t0 = time.perf_counter()
        build(path, args.entries, args.attempts)
        print(f"built {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s")
    unit = JournalBuilder().unit
    # each measurement in a fresh child, so ru_maxrss is that child's own peak (RUSAGE_CHILDREN keeps the max)
    base = json.loads(subprocess.run([sys.executable, __file__, "--child", "journalctl", "--no-pager", "--directory",
                                      str(cache), "-u", unit, "-o", "json"], capture_output=True, text=True).stdout)
    ours = json.loads(subprocess.run([sys.executable, __file__, "--child", args.crashdoc, "diagnose", unit, "--directory",
                                      str(cache), "--attempts", str(args.attempts), "--format", "json"],
                                     capture_output=True, text=True).stdout)
    size = sum(p.stat().st_size for p in cache.glob("*.journal"))  # journal-remote rotates past 128 MB
    print(f"journal: {args.entries:,} entries in {args.attempts} failing attempts, {size / 1e6:.0f} MB in {cache}")
    print(f"journalctl -u UNIT -o json > /dev/null: {base['wall']:.1f} s, peak RSS {base['peak_rss_mb']:.0f} MB")
    print(f"crashdoc diagnose UNIT --directory D:     {ours['wall']:.1f} s (cpu {ours['cpu']:.1f} s), "
          f"peak RSS {ours['peak_rss_mb']:.0f} MB, exit {ours['rc']}")
    print(f"ratio crashdoc/journalctl time: {ours['wall'] / base['wall']:.2f}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(measure(sys.argv[2:])))
        sys.exit(0)
    sys.exit(main())
