"""The one redactor: secrets (tokens, keys, passwords, URL credentials, secret arguments and values) replaced in
every string of a Diagnosis by placeholders, right before a report is rendered.

Patterns are data (data/redact.yaml, each with examples a test runs). Placeholders are consistent within one
report: the same secret is `<redacted:hf-token:1>` wherever it appears, so a reader can still follow it."""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from crashdoc.datafile import load_yaml, package_file
from crashdoc.model import Diagnosis, Skipped
from crashdoc.regex import Regex

PLACEHOLDER = Regex(r"<redacted:[a-z0-9\-]+:\d+>")


@dataclass(frozen=True)
class Pattern:
    """One kind of secret."""

    kind: str
    regex: Regex[str]
    entropy: float | None = None
    examples: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(line, the secrets that must disappear from it)."""
    needs: tuple[str, ...] = ()
    """Strings one of which every match contains (lower case for a caseless pattern); () when none is known."""

    def possible(self, s: str) -> bool:
        """False only when `s` holds none of `needs`: then no match, and no regex compiled or run. A caseless
        pattern is judged on the lowered text of an ASCII string only (Python's caseless matching also folds
        some other characters: `ſ` matches `s`)."""
        if not self.needs:
            return True
        if self.regex.flags & re.IGNORECASE:
            if not s.isascii():
                return True
            s = s.lower()
        return any(n in s for n in self.needs)


@lru_cache(maxsize=1)
def patterns() -> tuple[Pattern, ...]:
    """The patterns shipped in data/redact.yaml, in the order they apply."""
    doc = load_yaml(package_file("data", "redact.yaml").read_text("utf-8"), cache=True)
    out = []
    for p in doc["patterns"]:
        flags = re.IGNORECASE if p.get("ignore_case") else 0
        examples = tuple((str(e["text"]), tuple(str(s) for s in e.get("secrets") or ())) for e in p.get("examples") or ())
        out.append(Pattern(str(p["kind"]), Regex(p["regex"], flags), p.get("entropy"), examples,
                           tuple(str(n) for n in p.get("needs") or ())))
    return tuple(out)


@lru_cache(maxsize=1)
def secret_flags() -> Regex[str]:
    """A command-line flag whose next argument is a secret (`--api-key`, `--hf-token` ...)."""
    doc = load_yaml(package_file("data", "redact.yaml").read_text("utf-8"), cache=True)
    return Regex(doc["secret_flags"], re.IGNORECASE)


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
            if pat.possible(s):
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


_IPV4 = Regex(r"(?<![\w.<>~!+-])(?<![=<>~!]=)(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
                   r"(?![\w]|\.\w)")
_IPV6 = Regex(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])")
_URL_HOST = Regex(r"\b[A-Za-z][A-Za-z0-9+.\-]*://(?:[^\s/@<>\"']*@)?(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.\-]*[A-Za-z0-9])?)")
_HOST_ARG = Regex(r"(?:\b(?:host|hostname|master_addr)\s*[=:]|--host(?:=|\s+))\s*[\"']?"
                       r"(?:[\w.\-]+@)?(?P<host>[A-Za-z][A-Za-z0-9.\-]*[A-Za-z0-9])", re.IGNORECASE)
_USER_HOST = Regex(r"^(?:[^@\s]+@)?(?P<host>\[[0-9A-Fa-f:]+\]|[^:\s\[\]]+)(?::\d+)?$")


@dataclass(frozen=True)
class HostRules:
    """What `--redact-hosts` leaves as it is (data/redact.yaml `hosts`)."""

    keep: frozenset[str]
    """Public or uninformative names (`localhost`, `huggingface.co`), also as suffixes (`cdn-lfs.huggingface.co`)."""
    examples: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(line, the host names and addresses that must disappear from it)."""


@lru_cache(maxsize=1)
def host_rules() -> HostRules:
    """The `hosts` part of data/redact.yaml."""
    doc = load_yaml(package_file("data", "redact.yaml").read_text("utf-8"), cache=True)["hosts"]
    examples = tuple((str(e["text"]), tuple(str(h) for h in e.get("hosts") or ())) for e in doc.get("examples") or ())
    return HostRules(frozenset(str(k).lower() for k in doc["keep"]), examples)


class HostMapper(Redactor):
    """`--redact-hosts`: host names and IP addresses replaced by stable pseudonyms (`host-1`, `ip-1`), the same
    value the same pseudonym everywhere in one report. Names are learnt first from the whole Diagnosis (host
    fields, the syslog host column, URLs, `host=`/`--host` values), so the first string is as covered as the last;
    addresses are recognised wherever they appear (loopback and unspecified addresses stay)."""

    def __init__(self, rules: HostRules | None = None) -> None:
        super().__init__(())
        self.rules = host_rules() if rules is None else rules
        self.names: dict[str, str] = {}
        self.addresses: dict[str, str] = {}
        self._names_re: re.Pattern[str] | None = None

    def _name(self, host: str | None) -> None:
        host = (host or "").strip().strip("[]").rstrip(".")
        if not host or self._address(host):
            return
        low = host.lower()
        if (len(low) < 2 or low.isdigit() or PLACEHOLDER.search(low) or low in self.names
                or any(low == k or low.endswith("." + k) for k in self.rules.keep)):
            return
        self.names[low] = f"host-{len(self.names) + 1}"
        self._names_re = None

    def _address(self, text: str) -> bool:
        """Record `text` when it is an IP address that identifies a machine; True when it is an address."""
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            return False
        if not (ip.is_loopback or ip.is_unspecified or str(ip) in ("255.255.255.255",)) and text not in self.addresses:
            self.addresses[text] = f"ip-{len(self.addresses) + 1}"
        return True

    def learn(self, s: str, host_field: bool = False) -> None:
        """Find the host names and addresses in one string (`host_field`: the whole string names a host)."""
        if host_field:
            m = _USER_HOST.match(s.strip())
            self._name(m.group("host") if m else None)
        if s[:1].isalpha() or s[:1].isdigit():
            from crashdoc.parse.lines import parse_line

            self._name(parse_line(0, s[:300]).host)
        for rx in (_URL_HOST, _HOST_ARG):
            for m in rx.finditer(s):
                self._name(m.group("host"))
        for rx in (_IPV4, _IPV6):
            for m in rx.finditer(s):
                self._address(m.group(0))

    def learn_all(self, v: Any, key: str | None = None) -> None:
        """Learn from every string of a model value (dataclasses, sequences, mappings)."""
        if isinstance(v, str):
            self.learn(v, host_field=key == "host")
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                self.learn_all(getattr(v, f.name), f.name)
        elif isinstance(v, (tuple, list)):
            for x in v:
                self.learn_all(x, key)
        elif isinstance(v, Mapping):
            for k, x in v.items():
                self.learn_all(x, str(k))

    @property
    def count(self) -> int:
        """Distinct host names and addresses replaced."""
        return len(self.names) + len(self.addresses)

    def text(self, s: str) -> str:
        """`s` with every learnt name and every address replaced by its pseudonym."""
        if not s:
            return s
        s = _IPV4.sub(lambda m: self.addresses.get(m.group(0), m.group(0)), s)
        s = _IPV6.sub(lambda m: self.addresses.get(m.group(0), m.group(0)), s)
        if self.names:
            if self._names_re is None:
                alts = "|".join(re.escape(n) for n in sorted(self.names, key=len, reverse=True))
                self._names_re = re.compile(rf"(?<![\w.\-])(?:{alts})(?![\w\-])", re.IGNORECASE)
            s = self._names_re.sub(lambda m: self.names[m.group(0).lower()], s)
        return s

    def _argument(self, x: Any, prev: Any, memo: dict[int, Any]) -> Any:
        return self.value(x, memo)


def redact_hosts(diag: Diagnosis) -> Diagnosis:
    """`diag` with host names and IP addresses replaced by pseudonyms; `skipped` says how many (so every format
    shows it, and the JSON contract is unchanged)."""
    h = HostMapper()
    h.learn_all(diag)
    out: Diagnosis = h.value(diag)
    what = (f"{len(h.names)} host name{'' if len(h.names) == 1 else 's'} and {len(h.addresses)} IP "
            f"address{'' if len(h.addresses) == 1 else 'es'}")
    return dataclasses.replace(out, skipped=out.skipped + (Skipped(
        "host names and IP addresses", f"{what} replaced by stable pseudonyms (host-N, ip-N): --redact-hosts"),))


def redact_diagnosis(diag: Diagnosis, hosts: bool = False) -> tuple[Diagnosis, int]:
    """`diag` with every string redacted, and how many distinct secrets were replaced; with `hosts`
    (`--redact-hosts`) host names and IP addresses then get pseudonyms too (redact_hosts)."""
    r = Redactor()
    out = r.value(diag)
    return (redact_hosts(out) if hosts else out), r.count
