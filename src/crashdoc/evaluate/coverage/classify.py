"""Classify renderings through the production path (`classify_text`), with a hyperscan prefilter."""

from __future__ import annotations

from collections.abc import Iterable

from crashdoc.evaluate.coverage.model import Message, MessageResult
from crashdoc.evaluate.coverage.render import renderings
from crashdoc.evaluate.examples import classify_text
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.kb.model import Rule
from crashdoc.kb.scan import exception_pattern, to_scan_pattern


def _outcome(rule_id: str | None, msg: Message, rules: dict[str, tuple[str, bool]]) -> str:
    if rule_id is None:
        return "unknown"
    category, consequence = rules[rule_id]
    if msg.role == "consequence":
        return "classified" if consequence else "wrong"
    if consequence:
        return "wrong"  # a cause the ranker would never choose
    return "classified" if category == msg.category else "wrong"


class _Prefilter:
    """Which rules can match a rendering at all: one hyperscan pass over every rule's scanner pattern.

    The patterns are the ones the production hot-line scanner uses (`kb.scan_patterns()`, per rule). A rule
    none of whose patterns hits a rendering cannot match it, so `classify_text` runs with a knowledge base of
    only the rules that can (same precedence order, so the same result), and not at all when none can.
    Without the hyperscan wheel, or when a pattern does not compile, every rendering is classified by the
    whole knowledge base (same result, slower). `tests/evaluate/test_coverage.py` checks the equivalence.
    """

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self.db: object | None = None
        self.always: list[Rule] = []
        self.owners: list[list[Rule]] = []
        self._kbs: dict[frozenset[str], KnowledgeBase] = {}
        try:
            import hyperscan
        except ImportError:
            return
        index: dict[str, int] = {}
        for rule in kb.rules:
            pats = [to_scan_pattern(rx, rule.ignore_case) for rx in rule.regexes]
            if not rule.regexes and rule.exceptions:
                pats = [exception_pattern(rule.exceptions)]
            if not pats or any(p is None for p in pats):
                self.always.append(rule)  # a pattern the scanner cannot use: always try this rule
                continue
            for pat in pats:
                assert pat is not None
                if pat not in index:
                    index[pat] = len(self.owners)
                    self.owners.append([])
                self.owners[index[pat]].append(rule)
        try:
            db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            db.compile(expressions=[p.encode() for p in index], ids=list(index.values()), elements=len(index),
                       flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(index))
            self.db, self.scratch = db, hyperscan.Scratch(db)
        except Exception:  # a pattern hyperscan rejects: classify everything with the whole knowledge base
            self.db = None

    def kb_for(self, text: str) -> KnowledgeBase | None:
        """The knowledge base of the rules that can match *text* (None: no rule can)."""
        if self.db is None:
            return self.kb
        hits: set[int] = set()

        def on_match(ident: int, _from: int, _to: int, _flags: int, _ctx: object) -> None:
            hits.add(ident)

        self.db.scan(text.encode("utf-8"), match_event_handler=on_match, scratch=self.scratch)  # type: ignore[attr-defined]
        rules = {r.id: r for i in hits for r in self.owners[i]}
        rules.update((r.id, r) for r in self.always)
        if not rules:
            return None
        key = frozenset(rules)
        if key not in self._kbs:
            self._kbs[key] = KnowledgeBase.from_rules(list(rules.values()))
        return self._kbs[key]


def classify_messages(kb: KnowledgeBase, messages: Iterable[Message],
                      xid_names: dict[int, str] | None = None, prefilter: bool = True) -> list[MessageResult]:
    """Render and classify every message (identical renderings are classified once).

    *prefilter*: skip `classify_text` for renderings no rule pattern can match (see :class:`_Prefilter`).
    """
    rules = {r.id: (r.category, r.is_consequence) for r in kb.rules}
    cache: dict[str, list[str]] = {}
    pre = _Prefilter(kb) if prefilter else None
    out = []
    for msg in messages:
        texts = renderings(msg, (xid_names or {}).get(msg.line) if msg.kind == "xid" else None)
        got = []
        for text in texts:
            if text not in cache:
                sub = pre.kb_for(text) if pre is not None else kb
                cache[text] = [c.rule for c in classify_text(sub, text) if c.rule] if sub is not None else []
            seen = cache[text]
            chosen = next((r for r in seen if _outcome(r, msg, rules) == "classified"), seen[0] if seen else None)
            got.append(chosen)
        outcomes = [_outcome(r, msg, rules) for r in got]
        outcome = ("wrong" if "wrong" in outcomes else
                   "classified" if all(o == "classified" for o in outcomes) else "unknown")
        out.append(MessageResult(msg, texts, tuple(got), outcome))
    return out
