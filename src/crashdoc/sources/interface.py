"""The EvidenceSource contract: where evidence comes from, as bytes or as records.

A source is either a byte source (a log file, standard input, a capture of a command's output: text or JSON
lines, sniffed by the parser) or a record source (a journal query: records already decoded by the transport,
streamed, never re-encoded). investigate.run() takes either; a new source (a container's logs, a pod, a Ray log
folder) is one new module here with one of these two shapes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any, BinaryIO


class EvidenceSource(ABC):
    """Where evidence comes from; `label` names it in reports (a path, `standard input`, `unit X on host`)."""

    label: str


class ByteSource(EvidenceSource):
    """Evidence as a byte stream: log text, or JSON lines (journal export, docker json-file)."""

    @abstractmethod
    def open(self) -> AbstractContextManager[BinaryIO]:
        """The stream, opened (and closed by the caller's `with`); raises InputError when it cannot be read."""


class RecordSource(EvidenceSource):
    """Evidence as structured records (a journal's fields), in order, one at a time."""

    @abstractmethod
    def records(self) -> Iterator[Mapping[str, Any]]:
        """The records, as they arrive."""


class StreamSource(ByteSource):
    """A byte source from any opener (the capture of an attempt's output in `watch`/`run`)."""

    def __init__(self, label: str, opener: Callable[[], AbstractContextManager[BinaryIO]]) -> None:
        self.label = label
        self._opener = opener

    def open(self) -> AbstractContextManager[BinaryIO]:
        """Open through the opener."""
        return self._opener()
