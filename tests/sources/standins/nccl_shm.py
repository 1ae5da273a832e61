#!/usr/bin/env python3
"""A stand-in for a tensor-parallel worker whose NCCL communicator needs a shared-memory segment.

It really reserves the segment in /dev/shm with posix_fallocate, as NCCL's shm transport does (STANDIN_SHM_BYTES,
default 128 MiB). When the container's /dev/shm is too small, it prints NCCL's two warnings with the real errno
and raises torch's DistBackendError with NCCL's "unhandled system error", as torch.distributed does (exit 1);
with room enough it reports the communicator ready and exits 0. Standard library only.
"""

from __future__ import annotations

import os
import socket
import sys
import time

SIZE = int(os.environ.get("STANDIN_SHM_BYTES", str(128 << 20)))


class DistBackendError(RuntimeError):
    """torch.distributed.DistBackendError."""


DistBackendError.__module__ = "torch.distributed"


def say(text: str) -> None:
    sys.stdout.write(f"(Worker_TP0 pid={os.getpid()}) {text}\n")
    sys.stdout.flush()


def nccl(level: str, where: str, text: str) -> None:
    pid = os.getpid()
    where = f"{where} " if where else ""
    say(f"{socket.gethostname()}:{pid}:{pid} [0] {where}NCCL {level} {text}")


def main() -> int:
    say(f"INFO {time.strftime('%m-%d %H:%M:%S')} [api_server.py:1839] vLLM API server version 0.11.2")
    say(f"INFO {time.strftime('%m-%d %H:%M:%S')} [pynccl.py:70] vLLM is using nccl==2.21.5")
    nccl("INFO", "", "NCCL version 2.21.5+cuda12.4")
    nccl("INFO", "", "Channel 00/02 : 0 1 via SHM/direct/direct")
    path = f"/dev/shm/nccl-{os.getpid():06x}"
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        os.posix_fallocate(fd, 0, SIZE)
    except OSError as exc:
        err = f"{os.strerror(exc.errno or 0)} ({exc.errno})"
        nccl("WARN", "misc/shmutils.cc:72", f"Error: failed to extend {path} to {SIZE} bytes, error: {err}")
        nccl("WARN", "misc/shmutils.cc:113", f"Error while creating shared memory segment {path} (size {SIZE}), "
             f"error: {err}")
        raise DistBackendError(
            "NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error (run with "
            "NCCL_DEBUG=INFO for details), NCCL version 2.21.5\nncclSystemError: System call (e.g. socket, malloc) "
            f"or external library call failed or device error. \nLast error:\nError while creating shared memory "
            f"segment {path} (size {SIZE}), error: {err}"
        ) from None
    finally:
        os.close(fd)
        os.unlink(path)
    nccl("INFO", "", "comm 0x5581 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
