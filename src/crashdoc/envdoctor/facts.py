"""Run the probe in the target interpreter (locally or over ssh) and read its JSON answer into facts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

from packaging.utils import canonicalize_name

from crashdoc.envdoctor.errors import CheckSkipped, ProbeError
from crashdoc.errors import TransportError
from crashdoc.transport import Runner

#: seconds the probe may take: hashing a large environment with --verify all reads gigabytes
PROBE_TIMEOUT = 900.0



def canonical(name: str) -> str:
    """A distribution name PEP 503-normalised (packaging's canonicalize_name)."""
    return canonicalize_name(name)


@dataclass(frozen=True)
class Dist:
    """One installed distribution, as the probe found it."""

    name: str
    key: str
    """Canonical name."""
    version: str
    location: str
    """The sys.path entry it is installed in."""
    path: str
    """Its .dist-info / .egg-info."""
    requires: tuple[str, ...] = ()
    installed: float | None = None
    """Install time (epoch): the mtime of RECORD, which pip writes last."""
    installer: str | None = None
    editable: bool = False
    url: str | None = None
    shadowed_by: str | None = None
    """The .dist-info of the same name earlier on the path, when this one is hidden by it."""

    @property
    def label(self) -> str:
        """`name version`."""
        return f"{self.name} {self.version}"


@dataclass(frozen=True)
class ProbeFacts:
    """The probe's answer."""

    python: Mapping[str, Any]
    now: float
    """The target host's clock (epoch seconds) when the probe ran."""
    utc_offset: int
    dists: tuple[Dist, ...] = ()
    torch_build: str | None = None
    """torch/version.py as text."""
    sections: Mapping[str, Any] = field(default_factory=dict)
    errors: Mapping[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def active(self) -> dict[str, Dist]:
        """The distribution each name resolves to at import time (first on the path)."""
        return {d.key: d for d in self.dists if d.shadowed_by is None}

    def dist(self, name: str) -> Dist | None:
        """The active distribution of `name` (any spelling), or None."""
        return self.active.get(canonical(name))

    def section(self, name: str) -> Mapping[str, Any]:
        """A probe section, or CheckSkipped with the probe's error for it."""
        if name in self.sections:
            section: Mapping[str, Any] = self.sections[name]
            return section
        raise CheckSkipped(f"the probe could not collect {name}: {self.errors.get(name, 'not requested')}")

    @property
    def markers(self) -> dict[str, str]:
        """The target's environment markers (PEP 508), for evaluating requirements there."""
        return dict(self.python.get("markers", {}))

    @property
    def home(self) -> str:
        """The environment's root: the venv, or the interpreter's prefix."""
        return str(self.python.get("prefix", ""))


def probe_source(request: Mapping[str, Any]) -> bytes:
    """The probe script with the request put in front of it, ready for `python -I -` on stdin."""
    source = resources.files("crashdoc.envdoctor").joinpath("probe.py").read_text(encoding="utf-8")
    return f"CRASHDOC_REQUEST = {json.dumps(json.dumps(dict(request)))}\n{source}".encode()


def _dists(raw: Sequence[Mapping[str, Any]]) -> tuple[Dist, ...]:
    out = []
    for d in raw:
        if "error" in d:
            continue
        out.append(Dist(
            name=d["name"], key=canonical(d["name"]), version=d["version"], location=d["location"], path=d["path"],
            requires=tuple(d.get("requires") or ()), installed=d.get("installed"), installer=d.get("installer"),
            editable=bool(d.get("editable")), url=d.get("url"), shadowed_by=d.get("shadowed_by"),
        ))
    return tuple(out)


def parse_answer(stdout: bytes) -> ProbeFacts:
    """Read the probe's JSON; ProbeError when it is not what the probe prints."""
    try:
        raw = json.loads(stdout.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        raise ProbeError(f"the probe's answer is not JSON: {stdout[:200]!r}") from exc
    if not isinstance(raw, dict) or "python" not in raw:
        raise ProbeError("the probe's answer has no 'python' section")
    sections = {k: raw[k] for k in ("integrity", "debris", "host") if k in raw}
    return ProbeFacts(
        python=raw["python"], now=float(raw["now"]), utc_offset=int(raw.get("utc_offset", 0)),
        dists=_dists(raw.get("dists") or ()), torch_build=raw.get("torch_build"), sections=sections,
        errors=dict(raw.get("errors") or {}),
    )


def run_probe(runner: Runner, python: str, request: Mapping[str, Any], timeout: float = PROBE_TIMEOUT) -> ProbeFacts:
    """Run the probe with `python -I -`; ProbeError says why it did not answer.

    A TransportError from an ssh runner (host unreachable) is not caught: nothing else could run there either.
    """
    try:
        result = runner.run([python, "-I", "-"], timeout=timeout, stdin=probe_source(request))
    except TransportError as exc:
        if runner.host is not None and "no answer within" not in str(exc):
            raise
        raise ProbeError(str(exc)) from exc
    if not result.ok:
        reason = result.stderr_line() or f"exit status {result.returncode}"
        if result.returncode == 127:
            reason = f"{python}: no such interpreter on {runner.host or 'this machine'} ({reason})"
        raise ProbeError(reason)
    facts = parse_answer(result.stdout)
    return replace(facts, seconds=round(result.seconds, 3))
