"""Terminal helpers of `run`: writing all of a buffer to a file descriptor, telling terminals apart."""

from __future__ import annotations

import os
import time
from typing import TextIO


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            time.sleep(0.01)
            continue
        view = view[n:]


def short(cmd: str, limit: int = 80) -> str:
    return cmd if len(cmd) <= limit else cmd[: limit - 1] + "…"



def same_tty(fd: int, stream: TextIO) -> bool:
    """True when `fd` and the stream are the same terminal (the live view and the output would collide)."""
    try:
        other = stream.fileno()
        return os.isatty(fd) and os.path.samestat(os.fstat(fd), os.fstat(other))
    except (OSError, AttributeError, ValueError):
        return False
