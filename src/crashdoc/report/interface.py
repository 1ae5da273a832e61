"""The Renderer contract."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TextIO

from crashdoc.model import Diagnosis


class Renderer(ABC):
    """Writes a Diagnosis to a text stream."""

    redactions: int = 0
    """How many distinct secrets the redactor replaced in the Diagnosis given to `render` (the report says so)."""

    @abstractmethod
    def render(self, diag: Diagnosis, out: TextIO) -> None:
        """Write the report."""
