"""The Renderer contract."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TextIO

from crashdoc.model import Diagnosis


class Renderer(ABC):
    """Writes a Diagnosis to a text stream."""

    @abstractmethod
    def render(self, diag: Diagnosis, out: TextIO) -> None:
        """Write the report."""
