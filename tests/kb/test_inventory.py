"""An error no rule knows takes the category the engines' message inventory gives its message family (labels by
family or by hand only; a file's path is no label)."""

from __future__ import annotations

import json

from crashdoc.kb import KnowledgeBase
from crashdoc.kb.inventory import _known, lookup, read_rows
from tests.parse.helpers import diagnose


def _row(label_source: str | None, category: str | None) -> dict[str, object]:
    """A Python row of this label whose message no rule knows (so the inventory, not a rule, decides)."""
    kb = KnowledgeBase.load()
    return next(r for r in read_rows(having=(f'"label_source": {json.dumps(label_source)}',))
                if r.get("category") == category and r.get("exception") and str(r.get("file")).endswith(".py")
                and _usable(r, label_source)
                and kb.classify(str(r["exception"]), _render(str(r["template"])), "") is None)


def _usable(r: dict[str, object], label_source: str | None) -> bool:
    if label_source is not None:
        return r.get("role") == "cause" and _known(r) is not None
    # an unlabelled row that would be usable had it a label, and no labelled template is found in its text
    return (_known({**r, "label_source": "family", "role": "cause", "category": "engine_bug"}) is not None
            and lookup(_render(str(r["template"]))) is None)


def _render(template: str) -> str:
    return template.replace("{}", "qx7")


def test_a_message_of_a_family_labelled_template_takes_its_category() -> None:
    row = _row("family", "model_config")
    d = diagnose(f"{row['exception']}: {_render(str(row['template']))}\n")
    assert d.root_cause is not None and d.root_cause.rule is None and d.root_cause.category == "model_config"
    assert "message inventory" in d.root_cause.explanation and str(row["file"]) in d.root_cause.explanation
    assert d.root_cause.confidence == "medium"


def test_an_unlabelled_template_gives_no_category() -> None:
    """Rows whose wording names no class are unlabelled (a file's path is no label): no category from them."""
    row = _row(None, None)
    assert _known(row) is None and _known({**row, "label_source": "module", "category": "engine_bug"}) is None
    d = diagnose(f"{row['exception']}: {_render(str(row['template']))}\n")
    assert d.root_cause is not None and d.root_cause.category == "other"


def test_the_pieces_must_come_in_order() -> None:
    text = "Model architectures ['QxLM'] are not supported for now. Supported architectures: [...]"
    assert lookup(text) is not None and lookup(text).category == "model_config"  # type: ignore[union-attr]
    swapped = "are not supported for now. Supported architectures: Model architectures ['QxLM']"
    hit = lookup(swapped)
    assert hit is None or hit.template != lookup(text).template  # type: ignore[union-attr]


def test_a_short_generic_template_is_never_used() -> None:
    assert _known({"label_source": "family", "role": "cause", "category": "engine_bug",
                   "template": "not supported: {}"}) is None
