"""The hyperscan prefilter of `classify` never changes an answer: on every rule example line, a sample of the
engines' inventory messages and every line of the dev corpus, classify with it equals trying every rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crashdoc.kb import KnowledgeBase
from crashdoc.kb.model import resolve_exception
from crashdoc.kb.prefilter import Gate, Prefilter
from crashdoc.parse.errors import bare_exception
from crashdoc.parse.lines import parse_line

DEV = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "dev" / "cases"


def _every_rule(kb: KnowledgeBase, exc: str | None, message: str, line: str) -> str | None:
    e = resolve_exception(exc, message, line)
    return next((r.id for r in kb.rules if r.match(e, message, line) is not None), None)


def _texts(kb: KnowledgeBase) -> list[str]:
    out = [ln for r in kb.rules for ex in r.examples for ln in ex.log.splitlines() if ln.strip()]
    from crashdoc.kb.inventory import read_rows

    rows = read_rows()
    out += [str(r["template"]).replace("{}", "qx7") for r in rows[::7] if r.get("template")]
    for log in sorted(DEV.glob("*.log")) if DEV.is_dir() else ():
        out += log.read_text(errors="replace").splitlines()[:400]
    return out


def test_the_prefilter_never_changes_a_verdict() -> None:
    kb = KnowledgeBase.load()
    if kb._prefilter.db is None:
        pytest.skip("hyperscan is not installed: classify tries every rule")
    checked = 0
    for raw in _texts(kb):
        text = parse_line(1, raw).text.strip()
        exc, msg = bare_exception(text)
        got = kb.classify(exc, msg, text)
        assert (got.rule.id if got else None) == _every_rule(kb, exc, msg, text), raw
        checked += 1
    assert checked > 3000


_BEYOND_ASCII = (
    lambda t: t.replace(" ", "\xa0"),  # a no-break space: Python's \\s, not a literal blank
    lambda t: t.replace("'", "\u2019").replace('"', "\u201c"),  # typographic quotes
    lambda t: t.translate(str.maketrans("0123456789", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669")),
    lambda t: f"\u2192 {t} «données» 模型",  # text beyond ASCII around the line
    lambda t: t.replace("k", "\u212a").replace("s", "\u017f"),  # letters Python's (?i) equates with k and s
    lambda t: t.replace("e", "\xe9", 2),
)


def test_text_beyond_ascii_keeps_every_verdict() -> None:
    """A line holding characters beyond ASCII (a prompt, a localised message) is read through its shadow
    (parse/patternset.py), not by trying every rule: on every rule example line changed two of six ways (in turn),
    classify with the prefilter equals trying every rule, and the prefilter still leaves most rules out."""
    kb = KnowledgeBase.load()
    prefilter = Prefilter(kb.rules)
    if prefilter.db is None:
        pytest.skip("hyperscan is not installed: classify tries every rule")
    lines = [ln for r in kb.rules for ex in r.examples for ln in ex.log.splitlines() if ln.strip()]
    found = pruned = 0
    n = len(_BEYOND_ASCII)
    for k, raw in enumerate(lines):
        for change in (_BEYOND_ASCII[k % n], _BEYOND_ASCII[(k + n // 2) % n]):
            text = change(parse_line(1, raw).text.strip())
            exc, msg = bare_exception(text)
            got = kb.classify(exc, msg, text)
            assert (got.rule.id if got else None) == _every_rule(kb, exc, msg, text), text
            found += got is not None
            maybe = prefilter.candidates(msg, text)
            pruned += maybe is not None and len(maybe) < len(kb.rules) // 2
    assert found > len(lines) * 2 // 3 and pruned == 2 * len(lines)  # (a third of the lines are no-match examples)


def test_the_values_gate_never_hides_a_value() -> None:
    """The gate in front of the log-value regexes (analyze/values.py) says "maybe" on every line where one of
    them matches (rule examples, inventory messages, the dev corpus), and "no" on most other lines."""
    from crashdoc.analyze import values

    gate = values._GATE
    if gate._database() is None:
        pytest.skip("hyperscan is not installed: every line is searched")
    kb = KnowledgeBase.load()
    regexes = [re.compile(p) for p in gate.patterns]
    hits = misses = 0
    for raw in _texts(kb):
        if any(rx.search(raw) for rx in regexes):
            assert gate.maybe(raw), raw
            hits += 1
        else:
            misses += not gate.maybe(raw)
    assert hits > 10 and misses > 1000


def test_the_gate_reads_text_beyond_ascii_as_python_does() -> None:
    gate = Gate([r"\bvalue\b"])
    if gate._database() is None:
        assert gate.maybe("données") is True
        return
    assert gate.maybe("nothing here") is False and gate.maybe("a value here") is True
    assert gate.maybe("données") is False and gate.maybe("la value é") is True and gate.maybe("valueé") is False
    assert Gate([r"a[^~]b"]).maybe("données") is True  # a pattern that reads a shadow otherwise: always "maybe"
