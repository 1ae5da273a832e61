"""Open a log for reading: a path (plain or gzip, by its magic bytes) or standard input."""

from __future__ import annotations

import io
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import BinaryIO

from crashdoc.errors import InputError
from crashdoc.sources.interface import ByteSource

_GZIP_MAGIC = b"\x1f\x8b"


def open_input(path: str) -> BinaryIO:
    """A binary stream over `path` (`-` is standard input); gzip is detected from the content."""
    if path == "-":
        if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
            raise InputError("standard input is closed: pass a log file, a unit name, or pipe a log in")
        raw: BinaryIO = sys.stdin.buffer
        if raw.isatty():
            raise InputError("no input: pass a log file, a unit name, or pipe a log into `crashdoc diagnose -`")
        stream: BinaryIO = io.BufferedReader(raw, buffer_size=1 << 20)  # type: ignore[type-var]
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
        return Tolerant(_Gunzip(stream))  # type: ignore[arg-type,return-value]
    return Tolerant(stream)  # type: ignore[return-value]


class _Gunzip(io.RawIOBase):
    """Streaming gunzip over zlib that returns everything decodable and only then reports a truncated or
    corrupt stream (gzip.GzipFile drops its buffered data when the end is missing)."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.z = zlib.decompressobj(wbits=31)
        self.pending = b""
        self.done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buf: bytearray) -> int:  # type: ignore[override]
        while not self.pending and not self.done:
            chunk = self.raw.read(1 << 20)
            if not chunk:
                self.done = True
                tail = self.z.flush()
                self.pending = tail
                if not self.z.eof:
                    self._truncated = True
                break
            out = self.z.decompress(chunk)
            while self.z.eof and self.z.unused_data:  # concatenated gzip members
                rest = self.z.unused_data
                self.z = zlib.decompressobj(wbits=31)
                out += self.z.decompress(rest)
            self.pending = out
        if not self.pending:
            if getattr(self, "_truncated", False):
                self._truncated = False
                raise EOFError("the gzip stream ends before its end marker (truncated file)")
            return 0
        n = min(len(buf), len(self.pending))
        buf[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n


class Tolerant:
    """A binary stream that turns a read failure (truncated gzip, I/O error) into end of input and remembers
    it in `problem`, so the report can diagnose what was read and say what is missing."""

    _ERRORS = (EOFError, zlib.error, OSError)  # (gzip.BadGzipFile is an OSError)

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.problem: str | None = None
        self.head = b""

    def _fail(self, exc: Exception) -> bytes:
        self.problem = f"input cut short: {exc}; diagnosed what could be read"
        return b""

    def read(self, n: int = -1) -> bytes:
        """Read up to n bytes; b"" at the end or after a failure."""
        if n is None or n < 0:
            n = 1 << 62
        parts: list[bytes] = []
        got = 0
        if self.head:
            parts.append(self.head[:n])
            got = len(parts[0])
            self.head = self.head[got:]
        if self.problem:
            return b"".join(parts)
        if not isinstance(self.raw, _Gunzip) and not parts:
            try:  # a plain file or pipe: one read, no copies
                return self.raw.read(n)
            except self._ERRORS as exc:
                return self._fail(exc)
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
        if hasattr(self.raw, "peek") and not self.head:
            try:
                return self.raw.peek(n)  # type: ignore[attr-defined,no-any-return,unused-ignore]
            except self._ERRORS as exc:
                return self._fail(exc)
        while len(self.head) < n and not self.problem:
            try:
                piece = self.raw.read(n - len(self.head))
            except self._ERRORS as exc:
                self._fail(exc)
                break
            if not piece:
                break
            self.head += piece
        return self.head[:n]

    def readline(self, limit: int = -1) -> bytes:
        """One line."""
        if self.head or not hasattr(self.raw, "readline") or isinstance(self.raw, _Gunzip):
            return self._slow_readline(limit)
        if self.problem:
            return b""
        try:
            return self.raw.readline(limit)
        except self._ERRORS as exc:
            return self._fail(exc)

    def _slow_readline(self, limit: int) -> bytes:
        limit = limit if limit and limit > 0 else 1 << 62
        while b"\n" not in self.head and len(self.head) < limit and not self.problem:
            piece = self.read(1 << 16)
            if not piece:
                break
            self.head += piece
        cut = self.head.find(b"\n")
        cut = len(self.head) if cut < 0 else cut + 1
        cut = min(cut, limit)
        line, self.head = self.head[:cut], self.head[cut:]
        return line

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

    def __enter__(self) -> Tolerant:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FileSource(ByteSource):
    """A log file (plain or gzip) or, for `-`, standard input; `on_read` (bytes read) drives a progress bar."""

    def __init__(self, path: str, on_read: Callable[[int], None] | None = None) -> None:
        self.path = path
        self.label = "standard input" if path == "-" else path
        self.on_read = on_read

    def open(self) -> AbstractContextManager[BinaryIO]:
        """The file's bytes (gzip decompressed); raises InputError when it cannot be read."""
        stream = open_input(self.path)
        if self.on_read is None:
            return stream
        return Metered(stream, self.on_read)  # type: ignore[return-value]


class Metered(io.RawIOBase):
    """A stream that reports how many bytes were read so far (for a progress bar), otherwise the stream itself."""

    def __init__(self, stream: BinaryIO, on_read: Callable[[int], None]) -> None:
        super().__init__()
        self._stream = stream
        self._on_read = on_read
        self.problem = getattr(stream, "problem", None)

    def readable(self) -> bool:
        """Always."""
        return True

    def read(self, n: int = -1) -> bytes:
        """Read, and report the bytes."""
        data = self._stream.read(n)
        self._on_read(len(data))
        self.problem = getattr(self._stream, "problem", None)
        return data

    def peek(self, n: int = 1) -> bytes:
        """Look ahead without consuming (nothing is reported)."""
        peek = getattr(self._stream, "peek", None)
        return peek(n) if peek is not None else b""

    def close(self) -> None:
        """Close the stream underneath."""
        self._stream.close()
        super().close()
