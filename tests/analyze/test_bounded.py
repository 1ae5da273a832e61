"""An open attempt's candidates are held in bounded memory (analyze/rank.py Pending): the candidates that no
later one can precede are folded into groups, and at most GROUP_LIMIT groups are kept (the rest counted). Below
the bound the verdict is exactly what folding every candidate at once gives."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

import crashdoc.analyze.rank as rank
from crashdoc.analyze.candidates import Candidate
from crashdoc.analyze.feed import feed_stream, make_scanner
from crashdoc.analyze.pipeline import Analysis, diagnosis
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Diagnosis

ASSETS = Path(__file__).parent / "assets"
WORDS = ["worker", "shard", "tensor", "buffer", "stream", "socket", "device", "kernel", "block", "cache", "token",
         "request", "batch", "layer", "expert", "weight", "scale", "bias", "config", "engine", "backend", "plugin"]
EXC = ["RuntimeError", "ValueError", "KeyError", "OSError", "TypeError", "ConnectionResetError"]
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.50 GiB. GPU 5 has a total capacity of 79.1 GiB"


def distinct_log(n: int, seed: int = 7) -> str:
    """n distinct error lines (no two fold), a third with a vLLM logger prefix, a known cause in the middle."""
    rng = random.Random(seed)
    out = []
    for i in range(1, n + 1):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12)))
        msg = f"{rng.choice(EXC)}: {words} failed at /opt/app/{rng.choice(WORDS)}_{i}.py"
        if i % 3 == 0:
            msg = f"(Worker_TP{i % 8} pid={1000 + i % 97}) ERROR 11-24 06:{i % 60:02d}:00 [x.py:{i % 500}] {msg}"
        out.append(msg)
        if i == n // 2:
            out.append(OOM)
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _run(kb: KnowledgeBase, text: str, held: list[int] | None = None) -> tuple[Diagnosis, Analysis]:
    p = Analysis(kb, make_scanner(kb))
    if held is not None:  # after every candidate: how many the open attempts hold, as they came or as groups
        add = p._add

        def counting(cand: Candidate) -> None:
            add(cand)
            held.append(sum(len(q.recent) + len(q.folder.groups) for q in p.pending.values()))

        setattr(p, "_add", counting)  # noqa: B010 (an instance attribute, over the method)
    feed_stream(p, io.BytesIO(text.encode()), json_lines=False)
    return diagnosis(p, "test"), p


STALE = ("(EngineCore_DP0 pid=5) ERROR 11-24 06:00:00 [core.py:1] Traceback (most recent call last):\n"
         '(EngineCore_DP0 pid=5) ERROR 11-24 06:00:00 [core.py:1]   File "/v/vllm/v1/engine/core.py", line 1, in run\n')
"""A traceback whose process never prints again: it stays open to the end and holds the horizon back."""


@pytest.mark.parametrize("head", ["", STALE], ids=["plain", "stale-traceback"])
def test_candidates_held_do_not_grow_with_the_number_of_distinct_errors(
        kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch, head: str) -> None:
    monkeypatch.setattr(rank, "SETTLE", 8)
    monkeypatch.setattr(rank, "GROUP_LIMIT", 16)
    monkeypatch.setattr(rank, "HOLD", 64)
    bound = 16 + 64 + 8 + 2  # the groups kept, the candidates waiting (and one incident's)
    peaks = []
    for n in (400, 1200):
        held: list[int] = []
        d, p = _run(kb, head + distinct_log(n), held)
        assert len(held) > n // 2  # every line is an error of its own: a candidate each (incidents take a few)
        peaks.append(max(held))
        assert max(held) <= bound
        assert p.dropped > n // 2 - bound
        assert d.root_cause is not None and d.root_cause.line == OOM  # the known cause is among the kept
        assert any(s.what == "distinct errors" and str(p.dropped) in s.reason for s in d.skipped)
    assert peaks[1] == peaks[0]


def test_below_the_bound_settling_early_gives_the_same_diagnosis(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    # tracebacks (their candidates come when they end), incidents, ranks' copies, two attempts
    text = ""
    for r in range(4):
        pre = f"(Worker_TP{r} pid={100 + r}) ERROR 11-30 09:00:00 [multiproc_executor.py:671] "
        text += (f"{pre}WorkerProc failed to start.\n{pre}Traceback (most recent call last):\n"
                 f'{pre}  File "/v/vllm/v1/worker/gpu_worker.py", line 9, in init_device\n'
                 f"{pre}RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n")
    # two ranks' tracebacks interleaved: the later one ends first, so its copy comes before the earlier copy
    tp = [f"(Worker_TP{r} pid={200 + r}) ERROR 11-30 09:00:02 [multiproc_executor.py:671] " for r in (0, 1)]
    for row in ("Traceback (most recent call last):", '  File "/v/vllm/v1/worker/gpu_model_runner.py", line 7, in load',
                "RuntimeError: shard 3 of the checkpoint is missing"):
        text += f"{tp[0]}{row}\n{tp[1]}{row}\n"
    text += tp[1].replace("ERROR", "INFO") + "Worker exiting\n" + distinct_log(40)
    text += tp[0].replace("ERROR", "INFO") + "Worker exiting\n" + (ASSETS / "torch.lone-watchdog-timeout.log").read_text()
    text += (ASSETS / "journal-short.first-failure-then-memory-held.log").read_text()
    folded: list[list[rank.Group]] = []
    ranked = rank.Pending.ranked

    def recording(self: rank.Pending) -> list[rank.Group]:
        folded.append(ranked(self))
        return folded[-1]

    monkeypatch.setattr(rank.Pending, "ranked", recording)
    whole, p = _run(kb, text)
    assert p.dropped == 0
    monkeypatch.setattr(rank, "SETTLE", 1)  # settle after every candidate: only the horizon keeps the order
    n = len(folded)
    settled, _ = _run(kb, text)
    assert settled == whole
    assert folded[n:] == folded[:n]  # every attempt's groups: representatives, copies' processes and ranks, order
    assert n >= 2 and sum(len(gs) for gs in folded[:n]) > 30


def test_attempt_tracker_banner_memory_is_bounded_and_changes_no_boundary() -> None:
    """The tracker remembers its start-banner test per line text (a crash loop repeats its lines); long or
    countless distinct texts do not grow that memory, and a banner after an error still opens an attempt."""
    from crashdoc.analyze.attempts import AttemptTracker
    from crashdoc.parse.lines import parse_line

    t = AttemptTracker()
    t.feed(parse_line(1, "(APIServer pid=1) INFO 11-24 06:00:08 [utils.py:233] non-default args: {}"))
    t.mark_error()
    rng = random.Random(3)
    for i in range(2, 12000):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 200)))  # mostly over the memo's length
        t.feed(parse_line(i, f"RuntimeError: {i} {text}"))
    assert len(t._banner) <= AttemptTracker.BANNERS_SEEN
    assert sum(len(k) for k in t._banner) <= AttemptTracker.BANNERS_SEEN * AttemptTracker.BANNER_TEXT
    assert len(t.attempts) == 1
    t.feed(parse_line(12000, "(APIServer pid=2) INFO 11-24 06:01:08 [utils.py:233] non-default args: {}"))
    assert len(t.attempts) == 2
