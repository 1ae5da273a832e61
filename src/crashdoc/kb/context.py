"""A rule's context parts: who words its messages, what it may see beyond the error it matched
(MatchContext), the overrides decided on that context, and the known upstream bugs behind its messages."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from crashdoc.regex import Regex

#: Who words a message: the engines and libraries of the message inventory, and the platforms whose loaders and
#: C libraries word the same failure differently. A `match` example names one (`wording: tgi`); a cause rule
#: shows at least two, or declares `wordings: {single: <why>}` (docs/RULES.md).
WORDINGS: frozenset[str] = frozenset({
    "vllm", "sglang", "tgi", "tensorrt-llm", "tritonserver", "llamacpp", "ollama", "lmdeploy", "openllm", "localai",
    "aphrodite", "exllama", "flashinfer", "torch", "nccl", "cuda", "nvidia-driver", "transformers", "huggingface_hub",
    "safetensors", "triton", "xformers", "flash-attn", "deepspeed", "ray", "pip", "python", "numpy", "gcc", "clang", "ninja",
    "setuptools", "uv", "pydantic", "mindie", "go", "rust", "systemd", "docker", "kubernetes", "linux", "macos",
    "windows", "glibc", "musl", "kernel", "rocm", "xla", "vulkan", "metal", "ascend", "neuron",
})
#: the keys of an override's `when:` that are not captures: every message of the chain, the logged arguments
CONTEXT_KEYS: tuple[str, ...] = ("chain", "args")


_PLACEHOLDER = Regex(r"\$\{(\w+)\}")


@dataclass(frozen=True)
class MatchContext:
    """What a rule may see beyond the error it matched (an override's `chain:` and `args:`)."""

    chain: tuple[str, ...] = ()
    """Every message of the error's traceback chain (`Type: message`) and its frames (`path in function`), or
    every line of an incident; a lone error line is its own chain."""
    args: str | None = None
    """The attempt's logged arguments (the engine's `non-default args: {...}`, `Namespace(...)`, a command
    line), when the log shows them."""


@dataclass(frozen=True)
class Override:
    """Another category (and fix) for what the rule matched, when a capture or the context says so: a shared
    object the loader may not read is a permission problem, not a missing library."""

    when: tuple[tuple[str, str], ...]
    """(key, regex) pairs, all of which must hold: a capture name (searched in its value), `chain` (searched in
    every message of the chain) or `args` (the logged arguments). `${name}` in a regex is the capture's value,
    escaped."""
    category: str
    fix_text: str | None = None
    fix_command: str | None = None
    explanation: str | None = None

    @property
    def needs_context(self) -> bool:
        """True when a condition looks beyond the captures (it is decided where the chain and arguments are known)."""
        return any(key in CONTEXT_KEYS for key, _ in self.when)

    def holds(self, captures: dict[str, str], context: MatchContext | None) -> bool:
        """Whether every condition holds; a condition on a missing capture or an unknown context does not."""
        for key, template in self.when:
            names = _PLACEHOLDER.findall(template)
            if any(n not in captures for n in names):
                return False
            pattern = _when_pattern(_PLACEHOLDER.sub(lambda m: re.escape(captures[m.group(1)]), template))
            if key == "chain":
                texts: tuple[str, ...] = context.chain if context is not None else ()
            elif key == "args":
                texts = (context.args,) if context is not None and context.args else ()
            else:
                texts = (captures[key],) if key in captures else ()
            if not any(pattern.search(t) for t in texts):
                return False
        return True


@lru_cache(maxsize=512)
def _when_pattern(source: str) -> re.Pattern[str]:
    return re.compile(source)


@dataclass(frozen=True)
class Upstream:
    """A known upstream bug behind a rule's message: where it is tracked, which releases have it, which fixed it."""

    url: str
    """The issue or pull request (https)."""
    project: str
    """The distribution whose releases have the bug (`vllm`, `sglang`), PEP 503 normalised."""
    affected: str
    """Its affected releases as a PEP 440 specifier (`<0.5.3`, `>=0.4.0,<0.4.2`)."""
    fixed_in: str | None = None
    """The first release with the fix (None: not fixed in a release, only worked around)."""
    when: re.Pattern[str] | None = field(default=None, compare=False, repr=False, hash=False)
    """Which of the rule's messages is this bug (searched in the error's message and line); None: all of them."""
    workaround: str | None = None
    """The command that gets past the bug without the fixed release (pinning the dependency back), as confirmed
    upstream: the fix when the host's release is unknown."""

    def applies(self, message: str, line: str) -> bool:
        """True when the error is this bug's message."""
        return self.when is None or any(self.when.search(t) for t in (message, line) if t)
