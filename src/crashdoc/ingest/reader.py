"""Open a log for reading: a path (plain or gzip, by its magic bytes) or standard input."""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from typing import BinaryIO, Iterator

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
        gz = gzip.GzipFile(fileobj=stream, mode="rb")
        return Tolerant(gz)  # type: ignore[arg-type,return-value]
    return Tolerant(stream)  # type: ignore[return-value]


class Tolerant:
    """A binary stream that turns a read failure (truncated gzip, I/O error) into end of input and remembers
    it in `problem`, so the report can diagnose what was read and say what is missing."""

    _ERRORS = (EOFError, zlib.error, gzip.BadGzipFile, OSError)

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.problem: str | None = None

    def _fail(self, exc: Exception) -> bytes:
        self.problem = f"input cut short: {exc}; diagnosed what could be read"
        return b""

    def read(self, n: int = -1) -> bytes:
        """Read up to n bytes; b"" at the end or after a failure."""
        if self.problem:
            return b""
        if n is None or n < 0:
            n = 1 << 62
        parts: list[bytes] = []
        got = 0
        while got < n:  # small pieces, so a failure loses at most the last piece
            try:
                piece = self.raw.read(min(n - got, 1 << 18))
            except self._ERRORS as exc:
                self._fail(exc)
                break
            if not piece:
                break
            parts.append(piece)
            got += len(piece)
        return b"".join(parts)

    def peek(self, n: int = 1) -> bytes:
        """Look ahead without consuming."""
        try:
            return self.raw.peek(n) if hasattr(self.raw, "peek") else b""  # type: ignore[attr-defined]
        except self._ERRORS as exc:
            return self._fail(exc)

    def readline(self, limit: int = -1) -> bytes:
        """One line."""
        if self.problem:
            return b""
        try:
            return self.raw.readline(limit)
        except self._ERRORS as exc:
            return self._fail(exc)

    def __iter__(self) -> Iterator[bytes]:
        while True:
            line = self.readline(1 << 24)
            if not line:
                return
            yield line

    def close(self) -> None:
        """Close the underlying stream."""
        try:
            self.raw.close()
        except OSError:
            pass

    def __enter__(self) -> "Tolerant":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
