"""YAML through libyaml's C parser when PyYAML has it (5-10x faster than the pure-Python one: the error-format
table alone took 40 ms of every start), with the same safe semantics either way."""

from __future__ import annotations

from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """`yaml.safe_load(text)`, parsed by the C loader when it is available."""
    return yaml.load(text, Loader=_LOADER)
