#!/usr/bin/env python3
"""A stand-in `vllm serve` whose model load runs out of GPU memory: a real traceback, torch's exception name.

Standard library only: it runs as /opt/venv/bin/vllm on a bare Debian python3 inside a fleet test node.
"""
import os
import sys


class OutOfMemoryError(RuntimeError):
    pass


OutOfMemoryError.__module__ = "torch"
pid = os.getpid()


def log(msg):
    sys.stdout.write(f"(EngineCore_DP0 pid={pid}) INFO 12-01 09:12:05 [gpu_model_runner.py:2602] {msg}\n")
    sys.stdout.flush()


def load_weights():
    raise OutOfMemoryError(
        "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which "
        "1.12 GiB is free. Including non-PyTorch memory, this process has 78.06 GiB memory in use.")


log("Starting to load model Qwen/Qwen3-235B-A22B...")
try:
    load_weights()
except OutOfMemoryError:
    import traceback
    for line in traceback.format_exc().splitlines():
        sys.stdout.write(f"(EngineCore_DP0 pid={pid}) ERROR 12-01 09:12:07 [core.py:708] {line}\n")
    sys.exit(1)
