"""A wrapper's text that goes on to state the error it wraps (`X failed: ValueError: ...`, `backend='inductor'
raised:` + `RuntimeError: ...`): the cause rule of the wrapped part, found in linear time on hostile lines."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from crashdoc.kb.model import ANY_TYPE
from crashdoc.parse.errors import bare_exception
from crashdoc.regex import Regex

if TYPE_CHECKING:
    from crashdoc.analyze.candidates import Classifier

_EMBEDDED = Regex(r"(?:^|[:\s'\"(])((?:[A-Za-z_]\w*\.){0,4}[A-Z]\w*(?:Error|Exception|Failure|Fault))(?:: (?=\S)|\((?=['\"]))")
"""An exception named inside a line as Python prints it (`ValueError: ...`) or as its repr (`ImportError('...')`,
a wrapper's `{e!r}`)."""
_REPR = Regex(r"((?:[A-Za-z_]\w*\.){0,4}[A-Z]\w*)\((['\"])([^\n]*?)(?:\2\)|$)")
"""An exception's repr at the start of a part: its name, the quote, the quoted text (to the closing `')`)."""
_STATED = Regex(r"[\s,;]*(?:error|Error|ERROR)[:=][ \t]*['\"]?[A-Za-z/]|(?<=[Ff]ailed):[ \t]+['\"]?[A-Za-z/]")
"""After a wrapper's own words: `error:` and the error it wraps (Ollama: `... has terminated: exit status 2 error:<why>`),
or words that end in `failed` and go on after a colon (SGLang: `Capture cuda graph failed: <why>`), on the same line:
a wrapper that ends its line there and goes on with its own advice (`Possible solutions: ...`) states nothing."""
_RAISED = Regex(r"\braised:?\s*$|\braised:\s", re.MULTILINE)
#: embedded errors tried per line, and how much text of each (linear time on hostile lines)
EMBEDDED_MAX, EMBEDDED_SPAN = 8, 4096


_EMBEDDED_ENDS = tuple(f"{name}{end}" for name in ("Error", "Exception", "Failure", "Fault") for end in (": ", "('", '("'))
"""How every `_EMBEDDED` match ends: a name's last word, then `: ` or the repr's opening quote."""


def _may_embed(text: str) -> bool:
    """Whether `_EMBEDDED` can find a name after the text's start: each match takes one of _EMBEDDED_ENDS, so
    with one in all and a match at the start that takes it, there is none after (a line's own `XError: ...`;
    the search tries every position, a few µs a line, the counts are one C pass each)."""
    n = 0
    for end in _EMBEDDED_ENDS:
        n += text.count(end)
        if n > 1:
            return True
    if n == 0:
        return False
    m = _EMBEDDED.match(text)
    return m is None or m.start(1) > 0


def embedded_cause(kb: Classifier, match: Any, text: str) -> Any:
    """A wrapper whose text goes on to state the error it wraps yields to that error: a consequence rule or no
    rule on `X failed: ValueError: ...`, `backend='inductor' raised:` + `RuntimeError: ...`, or a consequence's
    own words followed by why (`Download encountered an error: <why>`), or quoting it (a `wrapped` capture of the
    wrapper's rule: `Worker failed with error '<why>', please check ...`). The cause rule that matches the wrapped
    part wins; without one the verdict stands. A cause rule of the wrapper's own type (`BackendCompilerFailed`:
    "the compiler failed") yields only to an embedded exception's rule of at least its priority."""
    is_cause = match is not None and match.rule.role == "cause"
    parts: list[str] = []
    head = (getattr(match, "matched_text", None) or "") if match is not None else ""
    at = text.find(head) if head and not is_cause else -1
    if at >= 0:
        parts.append(text[at + len(head):])
    wrapped = (getattr(match, "captures", None) or {}).get("wrapped") if not is_cause else None
    for m in _EMBEDDED.finditer(text) if _may_embed(text) else ():
        if m.start(1) > 0:
            parts.append(text[m.start(1):m.start(1) + EMBEDDED_SPAN])
        if len(parts) >= EMBEDDED_MAX:  # a line of thousands of `XError: ` must not cost thousands of full scans
            break
    r = _RAISED.search(text)
    if r is not None:
        parts.append(text[r.end():])
    tried: list[tuple[str, bool]] = [(str(wrapped), True)] if wrapped else []
    stated = at >= 0 and _STATED.match(text, at + len(head)) is not None
    unknown = False  # the wrapper goes on to state why after `error:`, in words no rule knows
    for i, (raw, quoted) in enumerate(tried + [(p, False) for p in parts]):
        part = raw.lstrip(" :,.;-\n").strip()
        if len(part) < 12:
            continue
        r = _REPR.match(part) if not is_cause else None
        if r is not None:  # `ImportError('<why>')` reads as `ImportError: <why>`, as Python prints it (a cause
            part = f"{r.group(1)}: {r.group(3)}"  # rule's own wrapper, vLLM's `Failed to import ... with`, decides)
        exc, msg = bare_exception(part.split("\n")[0])
        found = kb.classify(exc, msg, part)
        if quoted and exc is None and (found is None or found.rule.role != "cause"):
            # the wrapper's rule names the part of its own words that quotes the error (`failed with error
            # '<str(e)>'`): its type is lost, so a rule that names types may match it by its regex alone
            found = kb.classify(ANY_TYPE, msg, part)
        unknown = unknown or (found is None and stated and i == len(tried))
        if found is None or found.rule.role != "cause" or found.rule is getattr(match, "rule", None):
            continue
        if not is_cause or found.rule.priority >= match.rule.priority:
            return found
    # a consequence that goes on to state why in words no rule knows (`... terminated: exit status 2 error:<its
    # last error line>`) is an error of its own; one that only quotes an error (`Worker failed with error '<why>'`,
    # whose worker printed it first) stays a consequence
    return None if unknown and match.rule.role == "consequence" else match  # (unknown: a head, so a match)
