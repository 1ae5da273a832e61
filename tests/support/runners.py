"""Test doubles of the Runner contract: canned answers by argv prefix, no host touched."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

from crashdoc.errors import TransportError
from crashdoc.transport import CommandResult, Runner
from crashdoc.transport.interface import Streamed


class FakeRunner(Runner):
    """Answers argv prefixes with canned results; `stream` replays the same answers line by line."""

    def __init__(self, answers: dict[tuple[str, ...], tuple[int, str, str]], host: str | None = "gpu1") -> None:
        self.answers = answers
        self.host = host
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], *, timeout: float = 60.0, stdin: bytes | None = None) -> CommandResult:
        self.calls.append(tuple(argv))
        for prefix, (rc, out, err) in self.answers.items():
            if tuple(argv[: len(prefix)]) == prefix:
                return CommandResult(tuple(argv), rc, out.encode(), err.encode(), 0.01)
        raise TransportError(f"{argv[0]}: command not found on this machine")

    def stream(self, argv: Sequence[str]) -> Streamed:
        res = self.run(argv)
        return Streamed(iter(res.stdout.splitlines(keepends=True)), lambda: res)

    def popen(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        raise NotImplementedError("FakeRunner answers run() and stream() only")
