"""Version words: public part, local label, CUDA variant, driver numbers, and pip commands built from them."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence

from packaging.version import InvalidVersion, Version

_CUDA_LABEL = re.compile(r"cu(\d+)(\d)$")
_TORCH_CUDA = re.compile(r"^cuda\s*(?::[^=]*)?=\s*['\"](\d+)\.(\d+)", re.MULTILINE)
_TORCH_HIP = re.compile(r"^hip\s*(?::[^=]*)?=\s*['\"]([\d.]+)", re.MULTILINE)


def public(version: str) -> str:
    """The version without its local label: `0.6.4+cu130` -> `0.6.4`."""
    return version.split("+", 1)[0]


def local(version: str) -> str | None:
    """The local label: `2.8.0+cu128` -> `cu128`; None when there is none."""
    return version.split("+", 1)[1] if "+" in version else None


def release(version: str, parts: int = 2) -> str:
    """The first `parts` numbers of the release: `2.8.0+cu128` -> `2.8`."""
    try:
        numbers = Version(version).release
    except InvalidVersion:
        numbers = tuple(int(n) for n in re.findall(r"\d+", public(version))[:parts])
    return ".".join(str(n) for n in numbers[:parts])


def same_public(a: str, b: str) -> bool:
    """True when two versions are equal once local labels are dropped (`0.6.4` and `0.6.4+cu130`)."""
    try:
        return Version(public(a)) == Version(public(b))
    except InvalidVersion:
        return public(a) == public(b)


def cuda_of_label(label: str | None) -> str | None:
    """`cu128` -> `12.8`, `cu118` -> `11.8`; None for `cpu`, `rocm6.3` or no label."""
    m = _CUDA_LABEL.match(label or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def label_of_cuda(cuda: str) -> str:
    """`12.8` -> `cu128`."""
    major, _, minor = cuda.partition(".")
    return f"cu{major}{minor or '0'}"


def torch_build(version: str, version_py: str | None) -> tuple[str | None, str]:
    """(CUDA version or None, variant) of a torch install: from torch/version.py, else from its local label.

    The variant is the download.pytorch.org index name: `cu128`, `cpu`, `rocm6.3`, or `unknown`.
    """
    if version_py:
        m = _TORCH_CUDA.search(version_py)
        if m:
            return f"{m.group(1)}.{m.group(2)}", label_of_cuda(f"{m.group(1)}.{m.group(2)}")
        hip = _TORCH_HIP.search(version_py)
        if hip:
            return None, f"rocm{release(hip.group(1))}"
        return None, "cpu"
    label = local(version)
    return cuda_of_label(label), label or "unknown"


def driver_tuple(version: str) -> tuple[int, ...]:
    """`570.86.10` -> (570, 86, 10), for comparing driver versions."""
    return tuple(int(n) for n in re.findall(r"\d+", version))


def pip_install(specs: Iterable[str], index: str | None = None, options: Sequence[str] = ()) -> str:
    """`pip install a==1 'b==2.*'` (quoted for a shell), with `--index-url` when the packages need one."""
    words = ["pip", "install", *options, *specs]
    if index:
        words += ["--index-url", index]
    return shlex.join(words)


def install_command(items: Iterable[tuple[str, str | None]], options: Sequence[str] = ()) -> str:
    """pip commands for (spec, index) pairs: one per index, joined with `&&`, PyPI first."""
    by_index: dict[str | None, list[str]] = {}
    for spec, index in items:
        by_index.setdefault(index, []).append(spec)
    order = sorted(by_index, key=lambda i: (i is not None, i or ""))
    return " && ".join(pip_install(by_index[i], i, options) for i in order)


def index_for(indexes: Mapping[str, str], key: str, variant: str | None) -> str | None:
    """The index URL a package of a group needs for `variant` (cu128, cpu), or None for PyPI."""
    template = indexes.get(key)
    if not template or not variant or variant == "unknown":
        return None
    return template.format(variant=variant)
