"""Bytes as they arrive -> whole lines, and the latest carriage-return update of a line still being written
(a progress bar redrawn with "\\r" writes no newline for minutes)."""

from __future__ import annotations

from crashdoc.parse.blocks import MAX_LINE


class LineSplitter:
    """Feed chunks; get complete lines (without their newline), longest MAX_LINE bytes."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._pending = bytearray()
        self._discarding = False
        self._shown = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        """Complete lines in `chunk` and what came before it."""
        out: list[bytes] = []
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                break
            piece = chunk[start:nl]
            if self._discarding:
                self._discarding = False
            else:
                self._pending += piece
                out.append(bytes(self._pending[: self.max_line]))
            self._pending.clear()
            self._shown = 0
            start = nl + 1
        rest = chunk[start:]
        if rest and not self._discarding:
            self._pending += rest
            if len(self._pending) > self.max_line:
                out.append(bytes(self._pending[: self.max_line]))  # an endless line: keep its start
                self._pending.clear()
                self._discarding = True
                self._shown = 0
        return out

    def progress_update(self) -> bytes | None:
        """The newest complete "\\r"-separated piece of the unfinished line, once per new piece."""
        end = self._pending.rfind(b"\r")
        if end <= self._shown:
            return None
        begin = self._pending.rfind(b"\r", 0, end) + 1
        self._shown = end
        piece = bytes(self._pending[begin:end])
        return piece if piece.strip() else None

    def flush(self) -> bytes | None:
        """The unfinished line at the end of the input, if any."""
        if self._discarding or not self._pending:
            self._pending.clear()
            return None
        line = bytes(self._pending)
        self._pending.clear()
        return line
