"""Lints of `crashdoc rules validate` that look at what a rule says about the world, beyond its schema.

- **Optional parts stay optional** (:func:`optional_problems`). A part of a regex quantified to be optional — a
  group `(...)?`, or one atom `x?` (also `??`, `{0,1}`, `{,1}`) — says that the message may come without it (a
  PID, an ISA name, a component prefix). For every `match` example the regex finds, each optional part that
  matched some text is cut out of the example (one at a time, then all of them together), and the shortened
  excerpt must still be classified as the rule by the whole knowledge base through the production parser
  (`crashdoc rules test`'s path): neither another rule nor the parser may depend on the part the regex calls
  optional.
- **Two wordings** (:func:`wording_problems`). A cause rule's `match` examples show the class in at least two
  wordings (`wording:` on the example: the engine, library or platform whose words they are), unless the rule
  declares `wordings: {single: <why>}` (the message is one library's own and every engine prints it unchanged).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.kb.model import Rule

_GROUP_OPEN = re.compile(r"\(\?(?:P<\w+>|[aiLmsux-]*:|[=!]|<[=!])|\(")
_FLAGS_ONLY = re.compile(r"\(\?[aiLmsux]+\)")
_QUANT = re.compile(r"(?:[?*+]|\{(\d*)(,?)(\d*)\})[?+]?")
_ESCAPE_LEN = {"x": 2, "u": 4, "U": 8}
OPTIONAL = "_crashdoc_opt"


def _atom_end(rx: str, i: int) -> int:
    """End of the escape or character class starting at *i*."""
    if rx[i] == "\\":
        return min(len(rx), i + 2 + _ESCAPE_LEN.get(rx[i + 1] if i + 1 < len(rx) else "", 0))
    j = i + 1
    if j < len(rx) and rx[j] == "^":
        j += 1
    if j < len(rx) and rx[j] == "]":
        j += 1
    while j < len(rx) and rx[j] != "]":
        j += 2 if rx[j] == "\\" else 1
    return j + 1


def optional_parts(rx: str) -> list[tuple[int, int]]:
    """(start, end) in *rx* of every atom or group quantified to occur zero times or once, with its quantifier."""
    out: list[tuple[int, int]] = []
    opens: list[int] = []
    i = 0
    while i < len(rx):
        c = rx[i]
        start = i
        if c == "(":
            flags = _FLAGS_ONLY.match(rx, i)
            if flags:
                i = flags.end()
                continue
            opened = _GROUP_OPEN.match(rx, i)
            opens.append(i)
            i = opened.end() if opened else i + 1
            continue
        if c == ")":
            start = opens.pop() if opens else i
            i += 1
        elif c in "\\[":
            i = _atom_end(rx, i)
        elif c in "|^$":
            i += 1
            continue
        else:
            quant = _QUANT.match(rx, i)
            if quant is not None and c in "?*+{":
                i = quant.end()  # a quantifier with nothing before it (cannot compile): skip
                continue
            i += 1
        quant = _QUANT.match(rx, i)
        if quant is None:
            continue
        q, low, comma, high = quant.group(0), quant.group(1), quant.group(2), quant.group(3)
        if q[0] == "?" or (q[0] == "{" and low in ("", "0") and comma and high == "1"):
            out.append((start, quant.end()))
        i = quant.end()
    return out


def marked(rx: str) -> tuple[str, int]:
    """*rx* with every optional part wrapped in a named group `_crashdoc_optN`, and how many there are."""
    parts = optional_parts(rx)
    # at one place: closings before openings; an enclosing part opens first and closes last
    inserts = [(s, 1, s - e, f"(?P<{OPTIONAL}{n}>") for n, (s, e) in enumerate(parts)]
    inserts += [(e, 0, -s, ")") for s, e in parts]
    out, at = [], 0
    for pos, _, _, text in sorted(inserts):
        out.append(rx[at:pos])
        out.append(text)
        at = pos
    out.append(rx[at:])
    return "".join(out), len(parts)


def shortened(rx: str, flags: int, text: str) -> list[tuple[str, str]]:
    """Versions of *text* without the optional parts the regex found in it: (dropped part, shortened text)."""
    wrapped, count = marked(rx)
    if not count:
        return []
    try:
        pattern = re.compile(wrapped, flags)
    except re.error:
        return []
    found = pattern.search(text)
    if found is None:
        return []
    spans = sorted({found.span(f"{OPTIONAL}{n}") for n in range(count) if found.start(f"{OPTIONAL}{n}") >= 0
                    and found.end(f"{OPTIONAL}{n}") > found.start(f"{OPTIONAL}{n}")})
    out = [(text[s:e], text[:s] + text[e:]) for s, e in spans]
    outer: list[tuple[int, int]] = []
    for s, e in spans:
        if not outer or s >= outer[-1][1]:
            outer.append((s, e))
    if len(outer) > 1:
        kept, at = [], 0
        for s, e in outer:
            kept.append(text[at:s])
            at = e
        kept.append(text[at:])
        out.append((" + ".join(repr(text[s:e]) for s, e in outer), "".join(kept)))
    return out


def optional_problems(kb: KnowledgeBase, rules: Sequence[Rule]) -> list[str]:
    """Match examples that stop being classified as their rule once an optional part of its regex is cut out."""
    from crashdoc.evaluate.examples import classify_text  # the production path

    problems: list[str] = []
    for rule in rules:
        flags = re.IGNORECASE if rule.ignore_case else 0
        for n, example in enumerate(rule.examples, 1):
            if example.kind != "match":
                continue
            tried: set[str] = set()
            for i, rx in enumerate(rule.regexes):
                for dropped, text in shortened(rx, flags, example.log):
                    if text in tried:
                        continue
                    tried.add(text)
                    got = {c.rule for c in classify_text(kb, text)}
                    if rule.id in got:
                        continue
                    others = ", ".join(sorted(r for r in got if r)) or "no rule"
                    label = f"match.regex[{i}]" if len(rule.regexes) > 1 else "match.regex"
                    problems.append(
                        f"{rule.path}: example {n} without the optional part {dropped!r} of {label} goes to "
                        f"{others}; make that part mandatory in the regex (the message always has it) or make "
                        "the rule win without it (the message may come without it)")
    return problems


def wording_problems(rules: Sequence[Rule]) -> list[str]:
    """Cause rules whose match examples show fewer than two wordings and that do not declare a single one."""
    out = []
    for rule in rules:
        if rule.is_consequence:
            continue
        shown = sorted({e.wording for e in rule.examples if e.kind == "match" and e.wording})
        if rule.single_wording:
            if len(shown) > 1:
                out.append(f"{rule.path}: declares one wording (`wordings: single`) but its match examples show "
                           f"{', '.join(shown)}; remove `wordings` (or fix the examples' `wording:`)")
            continue
        if len(shown) < 2:
            have = f"only {shown[0]}" if shown else "none tagged"
            out.append(f"{rule.path}: the match examples show one wording ({have}); add a match example in "
                       "another engine's or platform's words with `wording: <who>` on each, or declare "
                       "`wordings: {single: <why only one project words this>}`")
    return out
