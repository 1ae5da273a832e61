"""One fuzz input through the real pipeline: `crashdoc.investigate.run` on the bytes (read the way a file is
read: gzip detection, the tolerant reader), then every renderer, and the properties every output must hold.

Properties: no exception other than a one-line CrashdocError; no raw control character in any report
(C0 but \\n and \\t, DEL, C1, bidi overrides and isolates, line/paragraph separators); the JSON report parses.
Failing inputs are kept (the smallest per failure) under tests/fuzz/regressions/ and replayed by
test_regressions.py.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from crashdoc.errors import CrashdocError
from crashdoc.investigate import run
from crashdoc.kb import KnowledgeBase
from crashdoc.model import Diagnosis
from crashdoc.report import render
from crashdoc.sources.file import Tolerant, _Gunzip
from crashdoc.sources.interface import ByteSource

REGRESSIONS = Path(__file__).resolve().parent / "regressions"
FORMATS = ("terminal", "json", "markdown")
#: what must never reach a report raw: C0 controls but newline and tab, DEL, C1, bidi and separator controls
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

_KB: KnowledgeBase | None = None


def knowledge() -> KnowledgeBase:
    """The shipped knowledge base, loaded once per process."""
    global _KB
    if _KB is None:
        _KB = KnowledgeBase.load()
    return _KB


class MemorySource(ByteSource):
    """Bytes read the way FileSource reads a file (gzip detected from the content, the tolerant reader)."""

    def __init__(self, data: bytes, label: str = "fuzz.log") -> None:
        self.data = data
        self.label = label

    @contextmanager
    def _open(self) -> Iterator[BinaryIO]:
        stream = io.BufferedReader(io.BytesIO(self.data), buffer_size=1 << 20)
        wrapped = Tolerant(_Gunzip(stream)) if self.data[:2] == b"\x1f\x8b" else Tolerant(stream)  # type: ignore[arg-type]
        with wrapped:
            yield wrapped  # type: ignore[misc]

    def open(self):  # type: ignore[no-untyped-def]
        return self._open()


def diagnose(data: bytes) -> Diagnosis | None:
    """The diagnosis of `data`, or None when crashdoc refuses it with a one-line error (exit 2)."""
    try:
        return run(MemorySource(data), kb=knowledge())
    except CrashdocError:
        return None


def rendered(diag: Diagnosis) -> dict[str, str]:
    """The report in every format (redaction on, as by default)."""
    out = {}
    for fmt in FORMATS:
        buf = io.StringIO()
        render(diag, fmt, buf, 100)
        out[fmt] = buf.getvalue()
    return out


def check(data: bytes) -> None:
    """Every property for one input; AssertionError or the pipeline's own exception when one fails."""
    diag = diagnose(data)
    if diag is None:
        return
    for fmt, text in rendered(diag).items():
        m = RAW_CONTROL.search(text)
        assert m is None, (f"{fmt} report holds a raw {m.group()!r} at {m.start()}: "
                           f"{text[max(0, m.start() - 80):m.start() + 20]!r}")
        if fmt == "json":
            json.loads(text)


def signature(exc: BaseException) -> str:
    """What makes two failures the same: the exception type and the innermost crashdoc frame."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/crashdoc/" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    kind = type(exc).__name__
    if isinstance(exc, AssertionError):
        kind += ":" + str(exc).split(" ", 1)[0]  # which report format
    return f"{kind}@{where}"


class Keeper:
    """Keeps the smallest failing input per failure signature, and writes each to tests/fuzz/regressions/."""

    def __init__(self) -> None:
        self.smallest: dict[str, bytes] = {}

    def check(self, data: bytes) -> None:
        """`check(data)`, remembering the input when it fails (the failure is raised again for hypothesis)."""
        try:
            check(data)
        except Exception as exc:
            sig = signature(exc)
            if sig not in self.smallest or len(data) < len(self.smallest[sig]):
                self.smallest[sig] = data
            raise

    def save(self) -> list[Path]:
        """Write the kept inputs as `<signature-hash>.bin` (one file per failure) and return their paths."""
        out = []
        for sig, data in self.smallest.items():
            REGRESSIONS.mkdir(exist_ok=True)
            name = re.sub(r"[^\w.-]+", "_", sig)[:60] + "-" + hashlib.sha1(data).hexdigest()[:10] + ".bin"
            path = REGRESSIONS / name
            path.write_bytes(data)
            out.append(path)
        return out
