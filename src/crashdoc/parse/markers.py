"""The cheap markers that make a line worth parsing, and how much context each pulls in.

Each marker class has a context window: a traceback header pulls in the lines after it (the frames and the
exception, interleaved with other ranks), an error word a few lines (multi-line messages), a systemd or phase
line only itself. Knowledge-base rule regexes are added as a class of their own by the scanner.
"""

from __future__ import annotations

from dataclasses import dataclass

from crashdoc.parse.formats import scan_patterns


@dataclass(frozen=True)
class MarkerClass:
    """A set of patterns sharing one context window."""

    name: str
    patterns: tuple[str, ...]
    before: int
    """Lines of context before a hit."""
    after: int
    """Lines of context after a hit."""


TRACEBACK = MarkerClass(
    "traceback",
    (
        r"Traceback \(most recent call last\)",
        r"Exception Group Traceback",
        r"Stack \(most recent call",
        r"terminate called after throwing",
        r"goroutine \d+ \[",
        r"Fatal Python error",
    ),
    before=2,
    after=60,
)
"""Frames (`File "...", line N`) are hot themselves and extend the window, so a traceback stays covered for as
long as its frames keep coming, interleaved with other ranks' lines, without a fixed long window."""

EXCEPTION = MarkerClass(
    "exception",
    (
        r"[A-Za-z](?:Error|Exception|Exit|Interrupt|Warning)\b",
        r"(?:Error|ERROR|error|FATAL|Fatal|fatal|CRITICAL|panic)(?::| \d| ?\[|\]|\b)",
        r"\bwhat\(\): ",
        r'File "[^"]+", line \d+',
    ),
    before=2,
    after=30,
)

SIGNAL = MarkerClass(
    "signal",
    (
        r"Killed",
        r"killed",
        r"Segmentation fault",
        r"core dumped",
        r"[Ss]ignal",
        r"SIG[A-Z]{2,4}\b",
        r"Aborted",
        r"Out of memory",
        r"out of memory",
        r"oom",
        r"OOM",
        r"invalid opcode",
        r"Illegal instruction",
        r"denied",
        r"[Ff]ailed",
        r"FAIL",
        r"exit(?:ed)? (?:with )?(?:code|status)",
        r"NCCL WARN",
        r"Xid",
    ),
    before=1,
    after=3,
)

BOUNDARY = MarkerClass(
    "boundary",
    (
        r"Started ",
        r"Starting ",
        r"Stopped ",
        r"Stopping ",
        r"Scheduled restart",
        r"holdoff time over",
        r"Main process exited",
        r"Failed with result",
        r"Deactivated successfully",
        r"repeated too quickly",
        r"Consumed \d",
        r"API server version",
        r"non-default args",
        r"server_args=ServerArgs",
        r"Args \{",
        r"Initializing a V1 LLM engine",
        r"Initializing an LLM engine",
        r"version \d+\.\d+\.\d+",
        r"Application startup complete",
        r"Uvicorn running on",
        r"The server is fired up",
        r"Connected",
    ),
    before=0,
    after=0,
)

FORMAT = MarkerClass("format", scan_patterns(), before=2, after=30)
"""The error-format table's lines (data/error_formats.yaml): glog/TensorRT/TurboMind error headers, panics,
terminate, CUDA status strings, ggml asserts ... with the follow-on lines that complete them."""

CLASSES: tuple[MarkerClass, ...] = (TRACEBACK, EXCEPTION, SIGNAL, BOUNDARY, FORMAT)
