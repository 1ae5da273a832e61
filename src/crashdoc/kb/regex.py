"""A rule regex that is compiled when it is first searched.

The knowledge base holds well over a thousand regexes; Python compiles a regex in Python code (`re._parser`), so
compiling all of them costs more than the rest of a start. A start from the compiled knowledge base (kb/cache.py)
therefore keeps each regex as its source and flags, and compiles only those of the rules a text may match (the
hyperscan prefilter, kb/prefilter.py, names them). A rule loaded from its YAML file is compiled at once (the
loader checks that it compiles); pickling keeps the source and flags only.
"""

from __future__ import annotations

import re
import sys


class Regex:
    """`re.compile(pattern, flags)`, done at the first `search`; `pattern` and `flags` are those of the source."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0, compiled: re.Pattern[str] | None = None) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled = compiled

    @classmethod
    def compile(cls, pattern: str, flags: int = 0) -> Regex:
        """Compiled now (raises re.error on a bad pattern)."""
        return cls(pattern, flags, re.compile(pattern, flags))

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled on the first call)."""
        rx = self._compiled
        if rx is None:
            rx = self._compiled = re.compile(self.pattern, self.flags)
        return rx

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """`re.Pattern.search`."""
        return self.compiled.search(string, pos, endpos)

    @property
    def groupindex(self) -> dict[str, int]:
        """The named groups (`re.Pattern.groupindex`)."""
        return dict(self.compiled.groupindex)

    def __reduce__(self) -> tuple[type[Regex], tuple[str, int]]:
        return (Regex, (self.pattern, self.flags))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Regex) and (self.pattern, self.flags) == (other.pattern, other.flags)

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r}, {self.flags})"
