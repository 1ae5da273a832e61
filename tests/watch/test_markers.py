"""The phase/readiness data (data/phases.yaml) as the watch reads it, and the tracker that applies it."""

from __future__ import annotations

import pytest

from crashdoc.parse.lines import parse_line
from crashdoc.parse.phases import load_phases, phase_of_line
from crashdoc.watch.markers import load_markers
from crashdoc.watch.tracker import StartTracker

M = load_markers()


def text(raw: str) -> str:
    return parse_line(1, raw).text


def test_analyzer_keys_still_work() -> None:
    """The analyzer's view of the table is unchanged by the watch-only keys."""
    assert [p.id for p in load_phases()] == [
        "import", "distributed", "build_model", "load_weights", "profile", "cuda_graphs", "serving"]
    assert phase_of_line("Loading safetensors checkpoint shards:  50% Completed | 2/4").id == "load_weights"  # type: ignore[union-attr]
    assert phase_of_line("torch.compile takes 30.1 s in total").id == "cuda_graphs"  # type: ignore[union-attr]
    # a router's `Connected` is a server up; NCCL's `Connected all rings` (start-up) announces no phase
    assert phase_of_line("router/src/server.rs:2331: Connected").id == "serving"  # type: ignore[union-attr]
    assert phase_of_line("gpu-node-07:254:356 [1] NCCL INFO Connected all rings, use ring PXN 0 GDR 1") is None


@pytest.mark.parametrize("line,phase,pct", [
    ("(APIServer pid=7) INFO 11-30 09:12:05 [api_server.py:1839] vLLM API server version 0.11.2", "import", None),
    ("(Worker_TP0 pid=9) INFO 11-30 09:12:05 [default_loader.py:267] Loading safetensors checkpoint shards:  50% "
     "Completed | 32/64 [01:10<01:10, 2.2s/it]", "load_weights", (50, 32, 64)),
    ("Loading safetensors checkpoint shards:  25%|██▌       | 1/4 [00:01<00:03,  1.0s/it]", "load_weights", (25, 1, 4)),
    ("(Worker_TP0 pid=9) INFO 11-30 09:12:05 [gpu_worker.py:298] Available KV cache memory: 20.14 GiB", "profile", None),
    ("(EngineCore_DP0 pid=8) INFO 11-30 09:12:05 [backends.py:548] torch.compile takes 31.2 s in total", "profile", None),
    ("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  50%|█████     | 34/67 [00:10<00:10,  3.1it/s]",
     "cuda_graphs", (50, 34, 67)),
    ("[2025-11-30 09:12:05 TP0] Capturing batches (bs=160 avail_mem=20.1 GB):  52%|█████▏    | 12/23 [00:05<00:04]",
     "cuda_graphs", (52, 12, 23)),
    ("(APIServer pid=7) INFO:     Application startup complete.", "serving", None),
    ("2025-11-30T09:12:05.1Z  INFO text_generation_router::server: router/src/server.rs:1900: Connected", "serving", None),
    ("gpu-node:812:990 [0] NCCL INFO Connected all rings", None, None),
    ("(Worker_TP0 pid=9) INFO 11-30 09:12:05 [x.py:1] Connected to the coordinator at tcp://10.0.0.1:5555", None, None),
])
def test_phase_and_progress(line: str, phase: str | None, pct: tuple[int, int, int] | None) -> None:
    t = text(line)
    ph = M.phase_of(t)
    assert (ph.id if ph else None) == phase
    if pct is not None:
        assert ph is not None
        prog = M.progress_of(ph, t)
        assert prog is not None and (prog.pct, prog.done, prog.total) == pct


def test_engines_ready_and_fatal() -> None:
    vllm = M.engine_of(text("(APIServer pid=7) INFO 11-30 09:12:05 [api_server.py:1839] vLLM API server version 0.11.2"))
    sglang = M.engine_of(text("[2025-11-30 09:12:05] server_args=ServerArgs(model_path='x', tp_size=8)"))
    assert vllm is not None and vllm.id == "vllm" and sglang is not None and sglang.id == "sglang"
    assert M.is_ready(text("(APIServer pid=7) INFO:     Application startup complete."), vllm)
    # SGLang is up only after its warm-up request, not when uvicorn starts
    assert not M.is_ready("Application startup complete.", sglang)
    assert M.is_ready("The server is fired up and ready to roll!", sglang)
    assert M.is_fatal(text("(APIServer pid=7) RuntimeError: Engine core initialization failed. See root cause above."), vllm)
    assert M.is_fatal("Fatal Python error: Segmentation fault", sglang)
    assert not M.is_fatal("Loading weights took 3.2 seconds", vllm)
    assert M.is_start(text("(APIServer pid=7) INFO 11-30 09:12:05 [api_server.py:1839] vLLM API server version 0.11.2"))


def test_every_line_pattern_is_searched_quickly() -> None:
    """The quick filter accepts every line a marker would accept."""
    for ph in M.phases:
        for rx in ph.lines:
            assert rx.pattern  # compiled
    assert M.quick.search("Loading safetensors checkpoint shards:  50% Completed | 2/4")
    assert not M.quick.search("INFO:     10.0.0.7:5123 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")


def test_tracker_moves_forward_and_keeps_progress() -> None:
    clock = iter(float(i) for i in range(100))
    tr = StartTracker(M, clock=lambda: next(clock))
    lines = [
        "(APIServer pid=7) INFO 11-30 09:12:05 [api_server.py:1839] vLLM API server version 0.11.2",
        "(Worker_TP0 pid=9) INFO 11-30 09:12:06 [default_loader.py:267] Loading safetensors checkpoint shards:  50% Completed | 2/4",
        "(Worker_TP1 pid=10) INFO 11-30 09:12:06 [parallel_state.py:1208] world_size=2 rank=1 local_rank=1 distributed_init_method=x",
        "(Worker_TP0 pid=9) INFO 11-30 09:12:07 [worker.py:294] Memory profiling takes 0.21 seconds",
        "(Worker_TP0 pid=9) ERROR 11-30 09:12:08 [multiproc_executor.py:597] RuntimeError: boom",
        "(APIServer pid=7) RuntimeError: Engine core initialization failed. See root cause above.",
    ]
    kinds = [[e.kind for e in tr.feed(parse_line(i, ln))] for i, ln in enumerate(lines, 1)]
    assert kinds[0] == ["engine", "phase"]
    assert kinds[1] == ["phase", "progress"]
    assert kinds[2] == []  # a late line of an earlier phase does not move it back
    assert [r.phase.id for r in tr.reached] == ["import", "load_weights", "profile"]
    assert tr.reached[1].progress is not None and tr.reached[1].progress.pct == 50
    assert "error" in kinds[4] and tr.first_error == "RuntimeError: boom"
    assert "fatal" in kinds[5] and tr.fatal_line is not None
    assert tr.status() == "profiling memory and sizing the KV cache"
    data = tr.data()
    assert data["engine"] == "vllm" and data["phase"] == "profile" and not data["ready"]


def test_tracker_ready() -> None:
    tr = StartTracker(M)
    tr.feed(parse_line(1, "(APIServer pid=7) INFO 11-30 09:12:05 [api_server.py:1839] vLLM API server version 0.11.2"))
    events = tr.feed(parse_line(2, "(APIServer pid=7) INFO:     Application startup complete."))
    assert [e.kind for e in events] == ["phase", "ready"]
    assert tr.ready_at is not None and tr.status().startswith("ready after")
