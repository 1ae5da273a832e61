"""THE test for "is this an exception type name", and the split of `pkg.mod.SomeError: message`.

Used by the traceback builder, the candidate builder, the knowledge base and the live tracker alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

from crashdoc.regex import Regex

#: Exception types whose names do not end in one of the usual suffixes.
KNOWN_EXCEPTIONS = frozenset({
    "OfflineModeIsEnabled", "StopIteration", "StopAsyncIteration", "BackendCompilerFailed", "ShardCannotStart",
    "WebserverFailed", "Unsupported", "SkipFrame", "TllmException", "KeyboardInterrupt", "SystemExit",
    "GeneratorExit", "ChildFailedError",
})
#: Suffixes of exception class names (Python's own, and the engines' `...Failure`/`...Fault` classes).
SUFFIXES = ("Error", "Exception", "Warning", "Exit", "Interrupt", "Fault", "Failure", "ExceptionGroup")

_LINE = Regex(  # (`$`: a JVM nested class, `org.apache.tvm.Base$TVMError`)
    r"(?P<type>(?:[A-Za-z_][\w$]*\.)*(?P<last>[A-Za-z_][\w$]*))(?:\([\w.]*\)|\[[\w.]+\])?(?::(?:\s+(?P<msg>.*))?)?",
    re.S,
)


def is_exception_name(name: str) -> bool:
    """Whether `name` (dotted or not, `RayTaskError(RuntimeError)` allowed) names an exception type."""
    name = name.strip().split("(", 1)[0].split("[", 1)[0]
    if not name:
        return False
    last = name.rsplit(".", 1)[-1]
    if not last[:1].isalpha() and last[:1] != "_":
        return False
    if last.endswith(SUFFIXES) or last in KNOWN_EXCEPTIONS:
        return True
    # a module-qualified class: huggingface_hub.errors.OfflineModeIsEnabled
    return "." in name and name[:1].islower() and last[:1].isupper() and any(c.islower() for c in last)


@lru_cache(maxsize=256)  # NOTE: the candidate builder, the rules and the incident builder split the same line in turn
def split_exception(text: str) -> tuple[str | None, str]:
    """`pkg.mod.SomeError: message` -> ("pkg.mod.SomeError", "message"); (None, text) when there is no type.

    `RayTaskError(RuntimeError): ...` keeps the outer type.
    """
    m = _LINE.fullmatch(text.strip())
    if not m or not is_exception_name(m.group("type")):
        return None, text
    return m.group("type"), (m.group("msg") or "").strip()


def last_component(exception: str | None) -> str | None:
    """`torch.OutOfMemoryError` -> `OutOfMemoryError`; `RayTaskError(X)` -> `RayTaskError`."""
    if not exception:
        return None
    name = exception.strip().split("(", 1)[0]
    return name.rsplit(".", 1)[-1] or None


_COUNT_ONLY = Regex(r"(?<!\d)\d+ validation errors? for [\w.]+\s*$")
_STATED = Regex(r"^\s+\S.*\[type=\w+")


def stating_line(texts: list[str]) -> int:
    """Which line of a multi-line exception message states the error: the first, except after a line that only
    counts errors (pydantic's `1 validation error for LLMConfig`, then the field, then `  Value error, ... [type=
    value_error, ...]`), where it is the first error line under it, and after a line that only announces the error
    it wraps (torch's `BackendCompilerFailed: backend='inductor' raised:`), where it is the exception under it."""
    if not texts:
        return 0
    if texts[0].rstrip().endswith(":"):
        nxt = next((i for i, t in enumerate(texts) if i and t.strip()), 0)
        return nxt if nxt and split_exception(texts[nxt].strip())[0] is not None else 0
    if not _COUNT_ONLY.search(texts[0]):
        return 0
    return next((i for i, t in enumerate(texts) if i and _STATED.search(t)), 0)

