"""Open a log for reading: a path (plain or gzip, by its magic bytes) or standard input."""

from __future__ import annotations

import gzip
import io
import os
import sys
from typing import BinaryIO

from crashdoc.errors import InputError

_GZIP_MAGIC = b"\x1f\x8b"


def open_input(path: str) -> BinaryIO:
    """A binary stream over `path` (`-` is standard input); gzip is detected from the content."""
    if path == "-":
        raw: BinaryIO = sys.stdin.buffer
        if raw.isatty():
            raise InputError("no input: pass a log file, a unit name, or pipe a log into `crashdoc diagnose -`")
        stream: BinaryIO = io.BufferedReader(raw, buffer_size=1 << 20)  # type: ignore[arg-type]
    else:
        if os.path.isdir(path):
            raise InputError(f"{path} is a directory; pass a log file (or --directory for journal files)")
        try:
            stream = open(path, "rb", buffering=1 << 20)  # noqa: SIM115 - returned to the caller
        except FileNotFoundError as exc:
            raise InputError(f"{path}: no such file") from exc
        except PermissionError as exc:
            raise InputError(f"{path}: permission denied (try sudo, or copy the log somewhere readable)") from exc
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from exc
    head = stream.peek(2)[:2] if hasattr(stream, "peek") else b""
    if head == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[return-value]
    return stream
