"""The block scanner selects the same lines whatever the block size and matcher, with true line numbers."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crashdoc.parse.blocks import COUNT_PIECE, MAX_LINE, count_lines
from crashdoc.parse.scan import Scanner

CORPUS_LOG = Path(__file__).resolve().parents[1] / "assets"


def _log() -> bytes:
    noise = b"".join(
        b"(Worker_TP%d pid=%d) INFO 11-30 09:12:%02d [loader.py:88] Loading weights shard %d of 64\n" % (i % 8, 100 + i % 8, i % 60, i)
        for i in range(3000)
    )
    tb = (
        b"(Worker_TP3 pid=103) ERROR 11-30 09:13:00 [multiproc_executor.py:671] Traceback (most recent call last):\n"
        b'(Worker_TP3 pid=103) ERROR 11-30 09:13:00 [multiproc_executor.py:671]   File "/v/vllm/x.py", line 3, in f\n'
        b"(Worker_TP3 pid=103) ERROR 11-30 09:13:00 [multiproc_executor.py:671]     g()\n"
        b"(Worker_TP3 pid=103) ERROR 11-30 09:13:00 [multiproc_executor.py:671] RuntimeError: boom\n"
    )
    return noise[: len(noise) // 2] + tb + noise[len(noise) // 2 :] + b"Nov 30 09:13:01 h systemd[1]: x.service: Main process exited, code=exited, status=1/FAILURE\n"


def _select(data: bytes, **kw: object) -> list[tuple[int, bytes]]:
    sc = Scanner(**kw)  # type: ignore[arg-type]
    return [(h.lineno, h.data) for h in sc.lines(io.BytesIO(data))]


def test_selects_only_windows_around_markers_with_true_line_numbers() -> None:
    data = _log()
    got = _select(data)
    lines = data.split(b"\n")
    assert all(lines[n - 1] == d for n, d in got)  # line numbers are the input's
    texts = [d for _, d in got]
    assert any(b"RuntimeError: boom" in t for t in texts)
    assert any(b"Main process exited" in t for t in texts)
    assert len(got) < 200  # noise is counted, not parsed


@pytest.mark.parametrize("block", [97, 1000, 4096, 1 << 20])
def test_block_size_does_not_change_the_selection(block: int) -> None:
    data = _log()
    assert _select(data, block_size=block) == _select(data)


def test_python_fallback_selects_the_same_lines_as_hyperscan() -> None:
    pytest.importorskip("hyperscan")
    data = _log()
    assert _select(data, use_hyperscan=False) == _select(data)


def test_a_line_longer_than_the_block_is_cut_and_the_rest_still_counted() -> None:
    data = b"INFO a\n" + b"x" * (3 * MAX_LINE) + b" RuntimeError: lost in the tail\n" + b"ValueError: after\n"
    sc = Scanner(block_size=MAX_LINE // 2)
    got = list(sc.lines(io.BytesIO(data)))
    assert sc.stats.lines == 3
    assert [h.lineno for h in got if b"ValueError" in h.data] == [3]
    assert all(len(h.data) <= MAX_LINE for h in got)


def test_last_line_without_newline_is_read() -> None:
    got = _select(b"INFO x\nRuntimeError: no newline at end")
    assert got[-1] == (2, b"RuntimeError: no newline at end")


def _crash_loop() -> bytes:
    """An error-dense log: restarts whose 4 ranks print the same traceback interleaved (every line a hit)."""
    out = []
    for attempt in range(40):
        out.append(b"Nov 30 09:%02d:00 h systemd[1]: Started x.service - X." % (attempt % 60))
        for i, frame in enumerate([b"Traceback (most recent call last):", b'  File "/v/vllm/x.py", line 3, in f',
                                   b"    g()", b"RuntimeError: flashinfer version mismatch"]):
            for rank in range(4):
                out.append(b"Nov 30 09:%02d:%02d h vllm[%d]: (Worker_TP%d pid=%d) ERROR [x.py:1] %s"
                           % (attempt % 60, i, 1000 + attempt, rank, 2000 + rank, frame))
        out.append(b"Nov 30 09:%02d:09 h systemd[1]: x.service: Main process exited, code=exited, status=1/FAILURE"
                   % (attempt % 60))
        out.extend(b"Nov 30 09:%02d:10 h vllm[1]: INFO ok %d" % (attempt % 60, k) for k in range(attempt % 7))
    return b"\n".join(out) + b"\n"


@pytest.mark.parametrize("block", [97, 1000, 4096])
def test_dense_log_selection_and_masks_do_not_depend_on_the_block_size(block: int) -> None:
    data = _crash_loop()

    def select(**kw: object) -> list[tuple[int, int, bytes]]:
        sc = Scanner(**kw)  # type: ignore[arg-type]
        return [(h.lineno, h.mask, h.data) for h in sc.lines(io.BytesIO(data))]

    whole = select()
    lines = data.split(b"\n")
    assert all(lines[n - 1] == d for n, _, d in whole)
    assert sum(1 for _, m, _ in whole if m) > 40 * 17  # every traceback line and systemd record is hot
    assert select(block_size=block) == whole


def test_before_context_across_a_block_edge_keeps_an_empty_line() -> None:
    """An empty line at the start of a block is still before-context of a hit in the next block."""
    data = b"INFO aaaa\n" * 3 + b"\n" + b"RuntimeError: boom\n"
    got = _select(data, block_size=1)
    assert got == _select(data)
    assert (4, b"") in got


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3 * 70_000), st.integers(0, 3 * 70_000), st.integers(0, 3 * 70_000))
def test_line_count_is_the_newline_count_of_any_span(data: bytes, a: int, b: int) -> None:
    """The count the scanner numbers lines by, over spans across its count pieces (parse/blocks.py)."""
    data = data.replace(b"\x00", b"\n")  # dense newlines too
    lo, hi = sorted((min(a, len(data)), min(b, len(data))))
    assert count_lines(data, lo, hi) == data.count(b"\n", lo, hi)
    big = b"x\n" * (COUNT_PIECE + 7)
    assert count_lines(big, 1, len(big) - 1) == big.count(b"\n", 1, len(big) - 1)


def test_a_logfmt_message_is_no_quoted_value_but_a_quote_inside_it_still_is() -> None:
    from crashdoc.parse.markers import LOGGED, MarkerClass, line_level, passes

    rule = MarkerClass("rule", ("x",), before=1, after=6, drop_quoted=LOGGED)
    said = b'time=2025-08-02T22:42:20Z level=INFO source=gpu.go:612 msg="Unable to load cudart library: cuda driver library init failure: 3"'
    quoted = b'time=2025-08-02T22:42:20Z level=INFO source=routes.go:1 msg="chat request" prompt="why cuda driver library init failure: 3"'
    for line, hot in ((said, True), (quoted, False)):
        pos = line.index(b"init failure") + len(b"init failure")
        assert passes(rule, line, pos, line_level(line)) is hot
