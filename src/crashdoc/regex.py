"""A regex compiled when it is first used: THE lazy regex of crashdoc (rule regexes, and the module-level
patterns of the parser, the analysis and the reports).

Python compiles a regex in Python code (`re._parser`): the knowledge base's ~1,500 regexes and the ~200 patterns
of the other modules cost more to compile than the rest of a start. So a module writes `_X = Regex(r"...")` where
it would write `re.compile(r"...")`: nothing is compiled at import, and a pattern a run never uses (a parser for
a log shape the input does not have, a rule the prefilter never names) is never compiled. The first call of a
method compiles the pattern and puts the compiled pattern's own bound methods on the instance, so every later
call is the compiled method itself (no wrapper in the hot loop).

A rule loaded from its YAML file is compiled at once (`Regex.compile`: the loader checks that it compiles); a
pickle keeps the source and flags only (the compiled knowledge base, kb/cache.py).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic

_METHODS = ("search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer")


class Regex(Generic[AnyStr]):
    """`re.compile(pattern, flags)`, done at the first use; `pattern` and `flags` are those of the source."""

    _compiled: re.Pattern[AnyStr] | None = None
    """The compiled pattern once compiled (an instance attribute then), else None."""

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self.flags = flags

    @classmethod
    def compile(cls, pattern: AnyStr, flags: int = 0) -> Regex[AnyStr]:
        """Compiled now (raises re.error on a bad pattern)."""
        rx = cls(pattern, flags)
        rx._install(re.compile(pattern, flags))  # (a check: not kept in the table, which holds the patterns used)
        return rx

    def _compile(self) -> re.Pattern[AnyStr]:
        compiled: re.Pattern[AnyStr] = re.compile(self.pattern, self.flags)
        self._install(compiled)
        return compiled

    def _install(self, compiled: re.Pattern[AnyStr]) -> None:
        d = self.__dict__
        for name in _METHODS:  # NOTE: instance attributes shadow the methods below: later calls skip them
            d[name] = getattr(compiled, name)
        d["_compiled"] = compiled

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled pattern (compiled on the first call)."""
        rx = self._compiled
        return rx if rx is not None else self._compile()

    def search(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        """`re.Pattern.search`."""
        return self._compile().search(string, pos, endpos)

    def match(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        """`re.Pattern.match`."""
        return self._compile().match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        """`re.Pattern.fullmatch`."""
        return self._compile().fullmatch(string, pos, endpos)

    def sub(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0) -> AnyStr:
        """`re.Pattern.sub`."""
        return self._compile().sub(repl, string, count)

    def subn(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr,
             count: int = 0) -> tuple[AnyStr, int]:
        """`re.Pattern.subn`."""
        return self._compile().subn(repl, string, count)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        """`re.Pattern.split`."""
        return self._compile().split(string, maxsplit)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        """`re.Pattern.findall`."""
        return self._compile().findall(string, pos, endpos)

    def finditer(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[AnyStr]]:
        """`re.Pattern.finditer`."""
        return self._compile().finditer(string, pos, endpos)

    @property
    def groupindex(self) -> dict[str, int]:
        """The named groups (`re.Pattern.groupindex`)."""
        return dict(self.compiled.groupindex)

    @property
    def groups(self) -> int:
        """The number of groups (`re.Pattern.groups`)."""
        return self.compiled.groups

    def __reduce__(self) -> tuple[type[Regex[AnyStr]], tuple[AnyStr, int]]:
        return (type(self), (self.pattern, self.flags))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Regex) and (self.pattern, self.flags) == (other.pattern, other.flags)

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r}, {self.flags})"
