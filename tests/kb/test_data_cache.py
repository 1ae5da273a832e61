"""Packaged data tables parsed once (datafile.load_yaml with cache=True): the cached parse equals a fresh one;
a corrupt, foreign or untrusted entry is never used; what marshal cannot hold is parsed every time; nothing of
a user's file is written to the cache."""

from __future__ import annotations

import datetime
import marshal
import os
from importlib.resources import files
from pathlib import Path

import pytest
import yaml

from crashdoc.datafile import load_yaml


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("CRASHDOC_CACHE", str(d))
    return d


def _tables() -> list[str]:
    data = files("crashdoc") / "data"
    return [p.read_text("utf-8") for p in sorted(data.iterdir(), key=lambda p: p.name) if p.name.endswith(".yaml")]


def test_a_cached_table_equals_a_fresh_parse(_own_cache: Path) -> None:
    tables = _tables()
    assert len(tables) >= 3
    for text in tables:
        fresh = yaml.safe_load(text)
        assert load_yaml(text, cache=True) == fresh  # parsed and stored
        assert load_yaml(text, cache=True) == fresh  # read back
    assert len(list(_own_cache.glob("data-*.marshal"))) == len(set(tables))


def test_a_corrupt_entry_is_parsed_again(_own_cache: Path) -> None:
    text = "rows:\n  - id: a\n    n: 1\n"
    load_yaml(text, cache=True)
    (entry,) = _own_cache.glob("data-*.marshal")
    entry.write_bytes(marshal.dumps({"rows": [{"id": "a", "n": 1}]})[:-3])
    assert load_yaml(text, cache=True) == {"rows": [{"id": "a", "n": 1}]}
    assert marshal.loads(entry.read_bytes()) == {"rows": [{"id": "a", "n": 1}]}, "rewritten"


def test_an_entry_others_can_write_is_not_read(_own_cache: Path) -> None:
    text = "answer: 42\n"
    load_yaml(text, cache=True)
    (entry,) = _own_cache.glob("data-*.marshal")
    entry.write_bytes(marshal.dumps({"answer": "forged"}))
    os.chmod(entry, 0o666)
    assert load_yaml(text, cache=True) == {"answer": 42}


def test_what_marshal_cannot_hold_is_parsed_each_time(_own_cache: Path) -> None:
    text = "released: 2026-12-02\n"
    assert load_yaml(text, cache=True) == {"released": datetime.date(2026, 12, 2)}
    assert load_yaml(text, cache=True) == {"released": datetime.date(2026, 12, 2)}
    assert not list(_own_cache.glob("data-*.marshal"))


def test_users_files_are_not_copied_into_the_cache(_own_cache: Path) -> None:
    assert load_yaml("all:\n  hosts:\n    gpu7: {ansible_password: hunter2}\n") is not None
    assert not _own_cache.exists() or not list(_own_cache.iterdir())


def test_cache_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CRASHDOC_CACHE", "off")
    monkeypatch.chdir(tmp_path)
    assert load_yaml("a: 1\n", cache=True) == {"a": 1}
    assert list(tmp_path.iterdir()) == []
