"""The current attempt's output, kept on disk and bounded: its first bytes and its last bytes.

A server can run for weeks before it crashes; what a diagnosis needs is the start of the attempt (versions,
arguments) and its end (the crash). The first `head` bytes are kept, then the output goes to tail segments of
`segment` bytes of which only the newest two are kept, so disk use stays under head + 2 x segment and memory
use is constant. Files are anonymous temporary files: nothing is left behind.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections import deque
from typing import BinaryIO

HEAD = 8 << 20
SEGMENT = 16 << 20


class _Part:
    """One temporary file and how much was written to it."""

    def __init__(self) -> None:
        self.file = tempfile.TemporaryFile(prefix="crashdoc-watch-")  # noqa: SIM115 - closed by Capture
        self.size = 0

    def write(self, data: bytes) -> None:
        self.file.write(data)
        self.size += len(data)


class Capture:
    """Bytes of one attempt (raw log text or journal JSON lines), bounded."""

    def __init__(self, head: int = HEAD, segment: int = SEGMENT) -> None:
        self.head_limit = head
        self.segment_limit = segment
        self._head = _Part()
        self._tail: deque[_Part] = deque()
        self.total = 0
        """Bytes written since the last reset."""
        self.dropped = 0
        """Bytes written but no longer kept (the middle of a long attempt)."""

    def write(self, data: bytes) -> None:
        """Append bytes."""
        if not data:
            return
        self.total += len(data)
        room = self.head_limit - self._head.size
        if room > 0 and not self._tail:
            self._head.write(data[:room])
            data = data[room:]
            if not data:
                return
        if not self._tail or self._tail[-1].size >= self.segment_limit:
            self._tail.append(_Part())
            while len(self._tail) > 2:
                old = self._tail.popleft()
                self.dropped += old.size
                old.file.close()
        self._tail[-1].write(data)

    def reset(self) -> None:
        """Forget everything (a new attempt starts)."""
        self.close()
        self._head = _Part()
        self.total = 0
        self.dropped = 0

    def close(self) -> None:
        """Remove the temporary files."""
        self._head.file.close()
        for part in self._tail:
            part.file.close()
        self._tail.clear()

    def stream(self) -> BinaryIO:
        """A reader over what is kept (head, a note of what was dropped, the tail from its first full line)."""
        parts = [self._head, *self._tail]
        for p in parts:
            p.file.flush()
        pieces: list[tuple[int, int, int] | bytes] = [(self._head.file.fileno(), 0, self._head.size)]
        skip_partial = False
        if self.dropped:
            pieces.append(f"\n[crashdoc: {self.dropped} bytes of this attempt's output were not kept]\n".encode())
            skip_partial = True
        for p in self._tail:
            pieces.append((p.file.fileno(), 0, p.size))
        return io.BufferedReader(_Chain(pieces, skip_partial), buffer_size=1 << 20)  # type: ignore[type-var]


class _Chain(io.RawIOBase):
    """Reads file ranges (with os.pread: the writers' positions stay put) and literal bytes, in order."""

    def __init__(self, pieces: list[tuple[int, int, int] | bytes], skip_partial: bool) -> None:
        self.pieces = deque(pieces)
        self.skip_partial = skip_partial
        self.after_note = False

    def readable(self) -> bool:
        return True

    def readinto(self, buf: bytearray) -> int:  # type: ignore[override]
        while self.pieces:
            piece = self.pieces[0]
            if isinstance(piece, bytes):
                self.pieces.popleft()
                self.after_note = True
                if not piece:
                    continue
                n = min(len(buf), len(piece))
                buf[:n] = piece[:n]
                if n < len(piece):
                    self.pieces.appendleft(piece[n:])
                return n
            fd, off, end = piece
            if off >= end:
                self.pieces.popleft()
                continue
            data = os.pread(fd, min(len(buf), end - off, 1 << 20), off)
            if not data:
                self.pieces.popleft()
                continue
            if self.skip_partial and self.after_note:
                nl = data.find(b"\n")
                if nl < 0:
                    self.pieces[0] = (fd, off + len(data), end)
                    continue
                data = data[nl + 1:]
                off += nl + 1
                self.skip_partial = False
                self.pieces[0] = (fd, off, end)
                if not data:
                    continue
            self.pieces[0] = (fd, off + len(data), end)
            buf[: len(data)] = data
            return len(data)
        return 0
