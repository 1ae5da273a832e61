#!/usr/bin/env python3
"""A stand-in for a server that loads its weights through host memory until the container's memory limit ends it.

It prints vLLM's start lines, then "Loading safetensors checkpoint shards" while it really allocates memory
(8 MiB a step, every page written), until the kernel's OOM killer kills it (SIGKILL: exit 137). Like a real OOM
kill, it leaves no error in the log. Standard library only (it runs on the image's bare python3).
"""

from __future__ import annotations

import os
import sys
import time

STEP = 8 << 20
SHARDS = 64


def log(where: str, message: str) -> None:
    """One line with vLLM's process prefix and logger header, in one write."""
    sys.stdout.write(f"(APIServer pid={os.getpid()}) INFO {time.strftime('%m-%d %H:%M:%S')} [{where}] {message}\n")
    sys.stdout.flush()


def main() -> int:
    log("api_server.py:1839", "vLLM API server version 0.11.2")
    log("utils.py:233", "non-default args: {'model_tag': 'fake-org/Fake-70B', 'model': 'fake-org/Fake-70B'}")
    log("default_loader.py:267", "Loading weights took place in host memory (cpu offload)")
    held = []
    for shard in range(1, 100000):
        chunk = bytearray(STEP)
        chunk[::4096] = b"\x01" * len(range(0, STEP, 4096))  # touch every page: resident, not just reserved
        held.append(chunk)
        pct = min(99, shard * 100 // SHARDS)
        log("default_loader.py:312", f"Loading safetensors checkpoint shards: {pct:3d}% Completed | "
            f"{min(shard, SHARDS - 1)}/{SHARDS} [{len(held) * 8} MiB in host memory]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
