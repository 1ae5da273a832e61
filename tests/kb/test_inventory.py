"""An error no rule knows takes the category the engines' message inventory gives its message family (labels by
family or by hand only; labels by file path are too often wrong to use)."""

from __future__ import annotations

from crashdoc.kb import KnowledgeBase
from crashdoc.kb.inventory import _known, lookup, read_rows
from tests.parse.helpers import diagnose


def _row(label_source: str, category: str) -> dict[str, object]:
    """A row of this label whose message no rule knows (so the inventory, not a rule, decides)."""
    kb = KnowledgeBase.load()
    return next(r for r in read_rows(having=(f'"label_source": "{label_source}"',))
                if r.get("category") == category and r.get("role") == "cause" and r.get("exception")
                and _usable(r, label_source)
                and kb.classify(str(r["exception"]), _render(str(r["template"])), "") is None)


def _usable(r: dict[str, object], label_source: str) -> bool:
    if label_source != "module":
        return _known(r) is not None
    return _known({**r, "label_source": "family"}) is not None


def _render(template: str) -> str:
    return template.replace("{}", "qx7")


def test_a_message_of_a_family_labelled_template_takes_its_category() -> None:
    row = _row("family", "model_config")
    d = diagnose(f"{row['exception']}: {_render(str(row['template']))}\n")
    assert d.root_cause is not None and d.root_cause.rule is None and d.root_cause.category == "model_config"
    assert "message inventory" in d.root_cause.explanation and str(row["file"]) in d.root_cause.explanation
    assert d.root_cause.confidence == "medium"


def test_a_path_labelled_template_gives_no_category() -> None:
    row = _row("module", "engine_bug")
    assert _known(row) is None
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
