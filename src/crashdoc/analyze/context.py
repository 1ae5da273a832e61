"""Chain-level matching: a rule's overrides decided once the whole traceback chain and the attempt's logged
arguments are known (an unknown quantization method given on the command line is a configuration error, the
same method read from the checkpoint a model problem). See docs/RULES.md, "Overrides"."""

from __future__ import annotations

import dataclasses

from crashdoc.analyze.candidates import Candidate
from crashdoc.analyze.rank import Group
from crashdoc.kb.context import MatchContext

#: how much of the chain a condition searches (linear time on a huge traceback)
CHAIN_ITEMS, CHAIN_SPAN = 200, 4096


def chain_of(c: Candidate) -> tuple[str, ...]:
    """Every message of the candidate's traceback chain (`Type: message`) and every frame (`path in function`),
    or every line of an incident; an error line outside a traceback is its own chain."""
    out: list[str] = [c.line.text.strip(), c.message[:CHAIN_SPAN]]
    if c.trace is not None:
        for stack in c.trace.stacks:
            if stack.header is not None:
                out.append(stack.header.text.strip()[:CHAIN_SPAN])
            out += [ln.text.strip()[:CHAIN_SPAN] for ln in stack.lines]
            out += [f"{f.path} in {f.func}" for f in stack.frames]
    return tuple(out[:CHAIN_ITEMS])


def in_context(g: Group, args: str | None) -> Group:
    """The group with its rule's override decided in context (the chain, the logged arguments)."""
    c = g.first
    m = c.match
    rule = getattr(m, "rule", None)
    if m is None or rule is None or not getattr(rule, "overrides", ()):
        return g
    again = rule.in_context(m, MatchContext(chain_of(c), args))
    if again is m:
        return g
    return dataclasses.replace(g, first=dataclasses.replace(c, match=again))
