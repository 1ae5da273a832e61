"""The compiled knowledge base on disk (kb/cache.py): a warm start gives the same rules as a cold one; a changed
rule file, a corrupt or foreign cache file, caching switched off or an unwritable directory never give stale
rules or an error."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from crashdoc.kb import KnowledgeBase, inventory, knowledge
from crashdoc.kb import cache as kb_cache

VALID = """\
id: acme-license-server-down
category: other
role: cause
priority: 77
match:
  regex: 'ACME license server (?P<host>[\\w.-]+) unreachable'
explanation: The in-house license check could not reach its server.
fix:
  text: Start the license server on {host}.
examples:
  - match: |
      RuntimeError: ACME license server lic.acme.lan unreachable
  - no-match: |
      INFO ACME license server lic.acme.lan reachable
"""


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CRASHDOC_RULES", raising=False)
    d = tmp_path / "cache"
    monkeypatch.setenv("CRASHDOC_CACHE", str(d))
    return d


def _summary(kb: KnowledgeBase) -> tuple[object, ...]:
    return tuple((r.id, r.priority, r.regexes, tuple(p.pattern for p in r.patterns)) for r in kb.rules), tuple(
        kb.scan_patterns())


def _user_rules(tmp_path: Path, text: str = VALID) -> Path:
    d = tmp_path / "rules"
    (d / "other").mkdir(parents=True, exist_ok=True)
    (d / "other" / "acme-license-server-down.yaml").write_text(text, encoding="utf-8")
    return d


def test_warm_start_gives_the_rules_of_a_cold_start(_own_cache: Path) -> None:
    cold = KnowledgeBase.load()
    assert list(_own_cache.glob("knowledge-*.pickle")), "a cold start stores the compiled rules"
    warm = KnowledgeBase.load()
    assert _summary(warm) == _summary(cold)
    line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0"
    found = warm.classify(None, line, line)
    assert found is not None and found.rule.id == "cuda-out-of-memory"


def test_an_edited_user_rule_is_never_served_from_the_cache(tmp_path: Path) -> None:
    rules = _user_rules(tmp_path)
    first = KnowledgeBase.load(extra_dirs=(rules,))
    assert first.get("acme-license-server-down").priority == 77  # type: ignore[union-attr]
    _user_rules(tmp_path, VALID.replace("priority: 77", "priority: 78"))
    second = KnowledgeBase.load(extra_dirs=(rules,))
    assert second.get("acme-license-server-down").priority == 78  # type: ignore[union-attr]
    assert KnowledgeBase.load().get("acme-license-server-down") is None


def test_a_corrupt_cache_is_rebuilt(_own_cache: Path) -> None:
    expected = _summary(KnowledgeBase.load())
    for f in _own_cache.glob("knowledge-*.pickle"):
        f.write_bytes(b"\x80\x05not a pickle")
    assert _summary(KnowledgeBase.load()) == expected
    assert all(f.read_bytes()[:2] != b"\x80\x05n" for f in _own_cache.glob("knowledge-*.pickle")), "rewritten"


def _header(path: Path) -> dict[str, object]:
    with open(path, "rb") as f:
        header = pickle.load(f)
    assert isinstance(header, dict)
    return header


def test_a_cache_file_others_can_write_is_not_trusted(_own_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    KnowledgeBase.load()
    (path,) = _own_cache.glob("knowledge-*.pickle")
    key = _header(path)["key"]
    assert kb_cache.load_cached(path.stem, None, lambda: str(key))[0] is not None
    os.chmod(path, 0o666)
    assert kb_cache.load_cached(path.stem, None, lambda: str(key))[0] is None


def test_a_stamped_start_reads_no_rule_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the rule files are older than RACY seconds, a start checks their stats only; touching a file (same
    content) costs one content check and keeps the entry."""
    monkeypatch.setattr(kb_cache, "RACY", 0.0)
    rules = _user_rules(tmp_path)
    cold = KnowledgeBase.load(extra_dirs=(rules,))

    def no_reading(*_: object) -> None:
        raise AssertionError("rule files read on a stamped start")

    with monkeypatch.context() as m:
        m.setattr(knowledge, "_content_key", no_reading)
        m.setattr(knowledge, "load_dirs", no_reading)
        assert _summary(KnowledgeBase.load(extra_dirs=(rules,))) == _summary(cold)
    monkeypatch.setattr(knowledge, "load_dirs", no_reading)  # a touch: the content key matches, no rebuild
    path = rules / "other" / "acme-license-server-down.yaml"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert _summary(KnowledgeBase.load(extra_dirs=(rules,))) == _summary(cold)


def test_an_edit_that_keeps_size_and_mtime_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stamp holds the ctime too: a rewrite that puts the old mtime back (an editor, `cp -p`, a checkout)
    is still a change."""
    monkeypatch.setattr(kb_cache, "RACY", 0.0)
    rules = _user_rules(tmp_path)
    path = rules / "other" / "acme-license-server-down.yaml"
    old = path.stat()
    assert KnowledgeBase.load(extra_dirs=(rules,)).get("acme-license-server-down").priority == 77  # type: ignore[union-attr]
    while True:  # rewritten until the file system's clock has moved past the old ctime (its granularity)
        _user_rules(tmp_path, VALID.replace("priority: 77", "priority: 78"))
        if path.stat().st_ctime_ns != old.st_ctime_ns:
            break
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert path.stat().st_size == old.st_size and path.stat().st_mtime_ns == old.st_mtime_ns
    assert KnowledgeBase.load(extra_dirs=(rules,)).get("acme-license-server-down").priority == 78  # type: ignore[union-attr]


def test_fresh_files_are_not_stamped(tmp_path: Path, _own_cache: Path) -> None:
    """A rule file written less than RACY seconds ago could change again within the same clock tick, keeping its
    stats: its entry records no stamp, so starts check the content until the file is older."""
    rules = _user_rules(tmp_path)
    KnowledgeBase.load(extra_dirs=(rules,))
    headers = [_header(p) for p in _own_cache.glob("knowledge-*.pickle")]
    assert [h["stamp"] for h in headers if h["stamp"] is None], headers


def test_a_warm_start_compiles_only_the_regexes_a_text_needs(_own_cache: Path) -> None:
    KnowledgeBase.load()
    warm = KnowledgeBase.load()
    every = [p for r in warm.rules for p in r.patterns]
    assert every and not any(p._compiled is not None for p in every)
    line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0"
    found = warm.classify(None, line, line)
    assert found is not None and found.rule.id == "cuda-out-of-memory"
    if warm._prefilter.db is not None:  # with hyperscan, only the rules the prefilter names are tried
        assert sum(p._compiled is not None for p in every) < len(every) // 10


def test_cache_off_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRASHDOC_CACHE", "off")
    monkeypatch.chdir(tmp_path)
    kb = KnowledgeBase.load()
    assert kb.rules and list(tmp_path.iterdir()) == []


def test_an_unwritable_cache_location_is_no_error(_own_cache: Path) -> None:
    _own_cache.write_text("a file where the directory should be: nothing can be written below it")
    assert KnowledgeBase.load().rules


def test_the_inventory_index_follows_its_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engines' message index is kept in the cache too (decoding the inventory costs a start): an edited
    inventory file gives the new labels."""
    d = tmp_path / "inventory"
    d.mkdir()
    row = {"project": "acme", "version": "1", "file": "acme/core.py", "line": 3, "role": "cause",
           "label_source": "family", "category": "engine_bug", "template": "the acme frobnicator exploded at {} K"}
    text = "RuntimeError: the acme frobnicator exploded at 9000 K"
    monkeypatch.setattr(inventory, "INVENTORY_DIR", d)
    try:
        for category in ("engine_bug", "gpu_oom", "gpu_oom"):
            (d / "acme.jsonl").write_text(json.dumps({**row, "category": category}) + "\n", encoding="utf-8")
            inventory._index.cache_clear()
            found = inventory.lookup(text)
            assert found is not None and found.category == category
    finally:
        inventory._index.cache_clear()


def test_the_code_in_the_key_exists() -> None:
    """Every module named in the cache key is there: a moved one would leave every start without a stamp (each
    then reading all rule files for the content key)."""
    here = Path(kb_cache.__file__).parent
    missing = [name for name in kb_cache._CODE if not (here / name).is_file()]
    assert not missing
