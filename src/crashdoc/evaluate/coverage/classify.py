"""Classify renderings through the production path (`classify_text`).

The knowledge base's own hyperscan prefilter (kb/prefilter.py) already limits each `classify` to the rules whose
regexes occur in the text, so every rendering goes through the whole knowledge base, as in `crashdoc diagnose`.
(An earlier coverage-level prefilter built a knowledge base per subset of rules, and each of those compiled its
own hyperscan database: 95% of the command's time.)
"""

from __future__ import annotations

from collections.abc import Iterable

from crashdoc.evaluate.coverage.model import Message, MessageResult
from crashdoc.evaluate.coverage.render import renderings
from crashdoc.evaluate.examples import classify_text
from crashdoc.kb.knowledge import KnowledgeBase


def _outcome(rule_id: str | None, msg: Message, rules: dict[str, tuple[str, bool]]) -> str:
    if rule_id is None:
        return "unknown"
    category, consequence = rules[rule_id]
    if msg.role == "consequence":
        return "classified" if consequence else "wrong"
    if consequence:
        return "wrong"  # a cause the ranker would never choose
    return "classified" if category == msg.category else "wrong"


def classify_messages(kb: KnowledgeBase, messages: Iterable[Message],
                      xid_names: dict[int, str] | None = None) -> list[MessageResult]:
    """Render and classify every message (identical renderings are classified once)."""
    rules = {r.id: (r.category, r.is_consequence) for r in kb.rules}
    cache: dict[str, list[str]] = {}
    out = []
    for msg in messages:
        texts = renderings(msg, (xid_names or {}).get(msg.line) if msg.kind == "xid" else None)
        got = []
        for text in texts:
            if text not in cache:
                cache[text] = [c.rule for c in classify_text(kb, text) if c.rule]
            seen = cache[text]
            chosen = next((r for r in seen if _outcome(r, msg, rules) == "classified"), seen[0] if seen else None)
            got.append(chosen)
        outcomes = [_outcome(r, msg, rules) for r in got]
        outcome = ("wrong" if "wrong" in outcomes else
                   "classified" if all(o == "classified" for o in outcomes) else "unknown")
        out.append(MessageResult(msg, texts, tuple(got), outcome))
    return out
