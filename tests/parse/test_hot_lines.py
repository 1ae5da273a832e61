"""Hot-line selection is narrow: on the benchmark generators' healthy logs (bench/gen, a few MB each) at most
0.1% of the lines are hot, and a marker word counts only where a failure prints it (parse/markers.py)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from crashdoc.analyze.feed import make_scanner
from crashdoc.investigate import diagnose_stream
from crashdoc.kb import KnowledgeBase
from crashdoc.parse.markers import line_level, strict_boundary
from crashdoc.parse.scan import Scanner

from .helpers import diagnose

BENCH = Path(__file__).resolve().parents[2] / "bench"
SIZE = 8 << 20
"""Bytes per generated healthy log: a whole start-up plus a few thousand requests (10k-45k lines)."""
SIZES = {"journal-json": 24 << 20}
"""Journal records are ~1.4 KB of JSON each: 24 MB is about as many records as 8 MB of text has lines."""
MAX_HOT = 0.001

sys.path.insert(0, str(BENCH))
gen = pytest.importorskip("gen")

def _rows() -> list[object]:
    out = []
    for name, row in gen.ROWS.items():
        if not (row.healthy and row.sized):
            continue
        marks = []
        if row.shape == "journal-json" and gen.requirements([row]):
            marks.append(pytest.mark.skip(reason="; ".join(gen.requirements([row]))))
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


@pytest.mark.parametrize("name", _rows())
def test_healthy_generated_log_has_few_hot_lines(name: str, kb: KnowledgeBase, tmp_path: Path) -> None:
    row = gen.ROWS[name]
    path = tmp_path / f"{name}.{row.ext}"
    gen.build(row, SIZES.get(name, SIZE), healthy=True, path=path)
    sc = make_scanner(kb, json_lines=row.json_input)
    with open(path, "rb") as f:
        hot = [h.data[:200] for h in sc.lines(f) if h.mask]
    lines = sc.stats.lines
    assert lines > 5000
    with open(path, "rb") as f:  # and the healthy log is diagnosed healthy (journal records of one length once
        d = diagnose_stream(f, name)  # next to a hot record were joined as a hard wrap into an undecodable line)
    assert d.root_cause is None, d.root_cause.line[:300]
    assert len(hot) / lines <= MAX_HOT, f"{len(hot)} of {lines} lines hot ({len(hot) / lines:.3%}), e.g. {hot[:5]}"


def _hot(text: str, kb: KnowledgeBase) -> list[str]:
    sc = make_scanner(kb)
    return [h.data.decode() for h in sc.lines(io.BufferedReader(io.BytesIO(text.encode()))) if h.mask]  # type: ignore[arg-type]


PROMPT = ("(APIServer pid=1) INFO 11-24 06:07:25 [logger.py:43] Received request chatcmpl-7040: prompt: "
          "'<|user|>my pod was Killed (OOM), access denied, it failed with Traceback (most recent call last): "
          "ModuleNotFoundError: No module named \\'pandas\\' and Segmentation fault', params: SamplingParams(n=1)")


def test_failure_words_inside_logged_information_are_not_hot(kb: KnowledgeBase) -> None:
    lines = [
        PROMPT,
        "gpu-node-07:39017:39136 [1] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
        "gpu-node-07:39017:39136 [1] NCCL INFO Failed to open libibverbs.so[.1]",
        "(APIServer pid=1) INFO:     10.0.0.3:5144 - \"GET /v1/models HTTP/1.1\" 200 OK",
        "(Worker_TP0 pid=232) DEBUG 11-24 06:00:46 [utils.py:12] error probing TPU: No module named 'libtpu'",
        "(APIServer pid=1) WARNING 11-24 06:00:08 [x.py:1] request failed validation, error ignored",
        "2025-11-24T06:00:02.615331Z  INFO download: text_generation_launcher: Starting check and download process",
        "Nov 24 00:00:10 gpu-node-07 vllm[38811]: prompt says: Started foo.service and Stopped bar",
    ]
    assert _hot("\n".join(lines) + "\n", kb) == []


def test_the_same_words_on_failure_lines_are_hot(kb: KnowledgeBase) -> None:
    lines = [
        "(Worker_TP5 pid=240) ERROR 11-24 18:21:05 [multiproc_executor.py:671] RuntimeError: CUDA error: an "
        "illegal memory access was encountered",
        "ModuleNotFoundError: No module named 'pandas'",
        "Traceback (most recent call last):",
        "Nov 24 00:00:03 gpu-node-07 systemd[1]: vllm.service: Main process exited, code=killed, status=9/KILL",
        "Nov 24 00:00:03 gpu-node-07 systemd[1]: Started vllm.service - vLLM.",
        "Nov 24 00:00:03 gpu-node-07 kernel: Out of memory: Killed process 38811 (python3)",
        "2025-11-24T06:01:13.794524Z  INFO text_generation_router::server: router/src/server.rs:2331: Connected",
        "(EngineCore_DP0 pid=563) INFO 12-23 23:34:23 [gpu_worker.py:298] Available KV cache memory: -2.77 GiB",
        "Segmentation fault (core dumped)",
        "ValueError: log level INFO is not one of DEBUG, WARNING",
    ]
    hot = _hot("\n".join(lines) + "\n", kb)
    assert hot == lines


@pytest.mark.parametrize(("line", "level"), [
    (b"(APIServer pid=1) INFO 11-24 06:07:25 [logger.py:43] Received", "INFO"),
    (b"Nov 24 00:00:10 host vllm[1]: (APIServer pid=1) WARNING 11-24 00:00:10 [x.py:1] y", "WARNING"),
    (b"2025-11-24T06:00:02.615331Z  WARN text_generation_router: x", "WARNING"),
    (b"INFO:     127.0.0.1:1 - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal Server Error", "INFO"),
    (b'time=2025-01-01T00:00:00Z level=INFO source=server.go:1 msg="failed"', "INFO"),
    (b"I1128 16:31:49.479201 227 model_lifecycle.cc:756] failed to load 'tensorrt_llm'", "INFO"),
    (b"E1128 16:31:49.479201 227 model_lifecycle.cc:756] failed to load 'tensorrt_llm'", "ERROR"),
    (b'{"log":"(APIServer pid=1) INFO 11-24 06:00:07 [utils.py:299] x\\n","stream":"stdout"}', "INFO"),
    (b'{"__CURSOR":"s=1","_PID":"7","MESSAGE":"(APIServer pid=7) ERROR 11-24 [core.py:1] x"}', "ERROR"),
    (b"RuntimeError: NCCL error: unhandled system error", None),
    (b"2025-08-13 04:39:39,837 - __main__ - INFO - ERROR 08-13 04:39:39 engine.py:400] CUDA error: x", "ERROR"),
    (b"2025-08-13 04:39:39,837 - __main__ - ERROR - INFO 08-13 04:39:39 cuda.py:229] Using backend", "INFO"),
    (b"(APIServer pid=1) INFO 11-24 06:00:00 [api.py:1] ERROR rates are fine", "INFO"),
    (b"2025-08-13 04:39:32.837 | INFO     | launcher:pump:12 - ERROR 08-13 04:39:39 engine.py:400] x", "ERROR"),
    (b"2025-08-13 04:39:31,837 - m - INFO - (EngineCore_DP0 pid=1) ERROR 08-13 04:39:39 [core.py:7] x", "ERROR"),
    (b"2025-08-13 04:39:39,837 - app - INFO - ERROR count: 0 of 100 requests failed", "INFO"),
])
def test_line_level(line: bytes, level: str | None) -> None:
    assert line_level(line)[0] == level


def test_boundary_hits_pass_the_strict_check_only_where_the_tracker_reads_them() -> None:
    assert strict_boundary(b"Nov 24 00:00:03 host systemd[1]: Started vllm.service - vLLM.")
    assert strict_boundary(b"vllm.service: Scheduled restart job, restart counter is at 3.")
    assert strict_boundary(b'{"MESSAGE":"Started vllm.service","MESSAGE_ID":"39f53479d3a045ac8e11786248231fbf"}')
    assert strict_boundary(b"(APIServer pid=1) INFO 11-24 06:00:08 [utils.py:233] non-default args: {}")
    assert strict_boundary(b"(Worker_TP0 pid=232) INFO 11-24 06:00:46 [r.py:1] Starting to load model m...")
    assert not strict_boundary(b"host:1:2 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1")
    assert not strict_boundary(b"host:1:2 [0] NCCL INFO Connected to proxy localRank 0")
    assert not strict_boundary(b"2025-11-24T06:00:02Z  INFO text_generation_launcher: Starting shard rank=0")
    assert not strict_boundary(b"(APIServer pid=1) INFO 11-24 [logger.py:43] prompt: 'Started a band, version 2.4.1'")


def test_an_error_inside_a_prompt_is_no_finding_and_a_real_one_still_is() -> None:
    healthy = diagnose(PROMPT + "\n")
    assert healthy.root_cause is None and not healthy.findings
    crashed = diagnose(PROMPT + "\n(Worker_TP5 pid=240) ERROR 11-24 18:21:05 [multiproc_executor.py:671] "
                       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.50 GiB. GPU 5\n")
    assert crashed.root_cause is not None and "Tried to allocate 7.50 GiB" in crashed.root_cause.line


def test_scanner_without_hyperscan_selects_the_same_lines(kb: KnowledgeBase) -> None:
    text = "\n".join([PROMPT, "Traceback (most recent call last):", "  File \"a.py\", line 1, in <module>",
                      "KeyError: 'x'", "gpu-node-07:1:2 [1] NCCL INFO Connected all rings"]) + "\n"
    got = []
    for hs in (True, False):
        sc = Scanner(extra_patterns=tuple(kb.scan_patterns()), use_hyperscan=hs)
        got.append([(h.lineno, h.mask) for h in sc.lines(io.BufferedReader(io.BytesIO(text.encode())))])  # type: ignore[arg-type]
    assert got[0] == got[1]



def test_line_level_remembered_by_digit_blind_head_is_the_level_of_the_line_itself() -> None:
    """line_level remembers a head with its digits read as 0 (a crash loop's heads then repeat): on every line of
    the asset and corpus logs, and on the same lines with other digits, it answers what a search of the line says."""
    from crashdoc.parse.markers import LEVEL_WINDOW, level_of_head

    root = Path(__file__).resolve().parents[2]
    logs = [*sorted((root / "tests" / "assets" / "logs").glob("*.log")),
            *sorted((root / "tests" / "corpus_extra" / "cases").glob("*.log")),
            *sorted((root / "tests" / "corpus_fresh" / "cases").glob("*.log"))]
    shifted = bytes.maketrans(b"0123456789", b"7890123456")
    checked = 0
    for log in logs:
        for line in log.read_bytes().split(b"\n"):
            if line[:1] == b"{":
                continue
            for variant in (line, line.translate(shifted)):
                assert line_level(variant) == level_of_head(variant[:LEVEL_WINDOW]), (log.name, variant)
                checked += 1
    assert checked > 5000


def test_a_relogged_line_has_one_level_for_the_scanner_and_the_parser() -> None:
    """A wrapper's logger relogging its child's lines: the scanner's level check and the line parser read the same
    level (the child's when a child's logger header follows, else the wrapper's)."""
    from crashdoc.parse.lines import parse_line

    wrappers = ("2025-08-13 04:39:39,837 - __main__ - {w} - ", "2025-08-13 04:39:32.837 | {w}     | run:pump:12 - ")
    children = ("{c} 08-13 04:39:39 engine.py:400] CUDA error: x", "(EngineCore_DP0 pid=7) {c} 08-13 04:39:39 [core.py:7] x",
                "{c} count: 0 of 100 requests failed", "{c}: plain words")
    for wrap in wrappers:
        for child in children:
            for w, c in (("INFO", "ERROR"), ("ERROR", "INFO"), ("WARNING", "CRITICAL")):
                line = wrap.format(w=w) + child.format(c=c)
                assert line_level(line.encode())[0] == parse_line(1, line).level, line
