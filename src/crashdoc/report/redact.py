"""The one redactor: secrets (tokens, keys, passwords, URL credentials, secret arguments and values) replaced in
every string of a Diagnosis by placeholders, right before a report is rendered.

Patterns are data (data/redact.yaml, each with examples a test runs). Placeholders are consistent within one
report: the same secret is `<redacted:hf-token:1>` wherever it appears, so a reader can still follow it."""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml

from crashdoc.model import Diagnosis

PLACEHOLDER = re.compile(r"<redacted:[a-z0-9\-]+:\d+>")


@dataclass(frozen=True)
class Pattern:
    """One kind of secret."""

    kind: str
    regex: re.Pattern[str]
    entropy: float | None = None
    examples: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(line, the secrets that must disappear from it)."""


@lru_cache(maxsize=1)
def patterns() -> tuple[Pattern, ...]:
    """The patterns shipped in data/redact.yaml, in the order they apply."""
    from importlib.resources import files

    doc = yaml.safe_load((files("crashdoc") / "data" / "redact.yaml").read_text("utf-8"))
    out = []
    for p in doc["patterns"]:
        flags = re.IGNORECASE if p.get("ignore_case") else 0
        examples = tuple((str(e["text"]), tuple(str(s) for s in e.get("secrets") or ())) for e in p.get("examples") or ())
        out.append(Pattern(str(p["kind"]), re.compile(p["regex"], flags), p.get("entropy"), examples))
    return tuple(out)


@lru_cache(maxsize=1)
def secret_flags() -> re.Pattern[str]:
    """A command-line flag whose next argument is a secret (`--api-key`, `--hf-token` ...)."""
    from importlib.resources import files

    doc = yaml.safe_load((files("crashdoc") / "data" / "redact.yaml").read_text("utf-8"))
    return re.compile(doc["secret_flags"], re.IGNORECASE)


def _looks_random(value: str, bits: float) -> bool:
    """Letters and digits both present, and at least `bits` of Shannon entropy per character, in some piece
    between `-`, `_`, `/` and `.` that is 16 characters or longer (a model id or a path is words, not noise)."""
    for piece in re.split(r"[-_/.]", value):
        if len(piece) < 16 or not re.search(r"\d", piece) or not re.search(r"[A-Za-z]", piece):
            continue
        counts = Counter(piece)
        if -sum(c / len(piece) * math.log2(c / len(piece)) for c in counts.values()) >= bits:
            return True
    return False


class Redactor:
    """Replaces secrets in strings; one instance per report, so placeholders stay consistent across it."""

    def __init__(self, pats: tuple[Pattern, ...] | None = None) -> None:
        self.patterns = patterns() if pats is None else pats
        self.seen: dict[str, str] = {}
        self._per_kind: Counter[str] = Counter()

    @property
    def count(self) -> int:
        """Distinct secrets replaced so far."""
        return len(self.seen)

    def _placeholder(self, kind: str, secret: str) -> str:
        if secret not in self.seen:
            self._per_kind[kind] += 1
            self.seen[secret] = f"<redacted:{kind}:{self._per_kind[kind]}>"
        return self.seen[secret]

    def text(self, s: str) -> str:
        """`s` with every secret replaced (secrets already seen elsewhere in the report too)."""
        if not s:
            return s
        for pat in self.patterns:
            s = pat.regex.sub(lambda m, p=pat: self._sub(p, m), s)  # type: ignore[misc]
        for secret, ph in self.seen.items():  # a secret found in one string, repeated bare in another
            if len(secret) >= 8 and secret in s:
                s = s.replace(secret, ph)
        return s

    def _sub(self, pat: Pattern, m: re.Match[str]) -> str:
        whole = m.group(0)
        has_group = "secret" in pat.regex.groupindex
        secret = m.group("secret") if has_group else whole
        if not secret or PLACEHOLDER.fullmatch(secret):
            return whole
        if pat.entropy is not None and not _looks_random(secret, pat.entropy):
            return whole
        ph = self._placeholder(pat.kind, secret)
        if not has_group:
            return ph
        start, end = m.start("secret") - m.start(), m.end("secret") - m.start()
        return whole[:start] + ph + whole[end:]

    def value(self, v: Any, memo: dict[int, Any] | None = None) -> Any:
        """Any model value rebuilt with every string redacted: frozen dataclasses, tuples, lists, mappings.
        The same object rebuilds to the same object (the root cause is also the first finding)."""
        memo = {} if memo is None else memo
        if id(v) in memo:
            return memo[id(v)]
        out: Any
        if isinstance(v, str):
            return self.text(v)
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            out = dataclasses.replace(v, **{f.name: self.value(getattr(v, f.name), memo)
                                            for f in dataclasses.fields(v) if f.init})
        elif isinstance(v, (tuple, list)):
            items = [self._argument(x, v[i - 1] if i else None, memo) for i, x in enumerate(v)]
            out = tuple(items) if isinstance(v, tuple) else items
        elif isinstance(v, Mapping):
            out = {k: self.value(x, memo) for k, x in v.items()}
        else:
            return v
        memo[id(v)] = out
        return out


    def _argument(self, x: Any, prev: Any, memo: dict[int, Any]) -> Any:
        """One element of a sequence: the value after a secret flag (`["--api-key", "KEY"]`) is a secret."""
        if isinstance(x, str) and x and isinstance(prev, str) and secret_flags().match(prev) \
                and not PLACEHOLDER.fullmatch(x):
            return self._placeholder("cli-secret", x)
        return self.value(x, memo)


def redact_diagnosis(diag: Diagnosis) -> tuple[Diagnosis, int]:
    """`diag` with every string redacted, and how many distinct secrets were replaced."""
    r = Redactor()
    out = r.value(diag)
    return out, r.count
