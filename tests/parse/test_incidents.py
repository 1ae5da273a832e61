"""Incidents, not lines: an error line and the lines that finish telling it become one candidate, reported at
its most specific line (issue 10, item 2). Synthetic logs written for the mechanism."""

from __future__ import annotations

import pytest

from tests.parse.helpers import build, diagnose

NCCL_CHAIN = (
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
    "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
    "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
    "Last error:\n"
    "QZ9 bootstrap handshake refused by peer 10.0.0.2\n"
)
RANKED_CHAIN = "".join(f"[rank0]: {ln}\n" if i else f"{ln}\n" for i, ln in enumerate(NCCL_CHAIN.splitlines()))
TERMINATE = (
    "terminate called after throwing an instance of 'std::runtime_error'\n"
    "  what():  QZ9 the engine plan was built for another device\n"
    "Aborted (core dumped)\n"
)
RUST_PANIC = (
    "thread 'main' panicked at router/src/main.rs:10:5:\n"
    "QZ9 the shard count must divide the number of heads\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)
NCCL_BURST = (
    "2024-01-01T00:00:00.100000Z gpu7:4242:4250 [0] transport/p2p.cc:1 NCCL WARN QZ9 peer 3 not reachable\n"
    "2024-01-01T00:00:00.200000Z gpu7:4242:4250 [0] transport/p2p.cc:2 NCCL WARN QZ9 giving up on peer 3\n"
    "2024-01-01T00:00:00.300000Z gpu7:4242:4250 [0] init.cc:3 NCCL WARN QZ9 init failed for rank 0\n"
)
GLOG_BURST = (
    "2024-01-01T00:00:00.100000Z E0101 00:00:00.100000 7 loader.cc:1] QZ9 model m is unavailable\n"
    "2024-01-01T00:00:00.400000Z E0101 00:00:00.400000 7 loader.cc:2] QZ9 failed to map /models/m/plan\n"
)
CMAKE = (
    "CMake Error at ggml/src/ggml-cuda/CMakeLists.txt:65 (message):\n"
    "  QZ9 compute capability 121 used, use 121a for the specific features\n"
    "  optimizations\n"
)
SLOW = (
    "2024-01-01T00:00:00.100000Z E0101 00:00:00.100000 7 loader.cc:1] QZ9 cannot map the plan file\n"
    "2024-01-01T00:00:05.100000Z E0101 00:00:05.100000 7 loader.cc:2] QZ9 model m unavailable\n"
)

# (log, root line, root exception, number of findings)
CASES = [
    pytest.param(NCCL_CHAIN, 4, "torch.distributed.DistBackendError", 1, id="last-error-names-the-cause"),
    pytest.param(RANKED_CHAIN, 4, "torch.distributed.DistBackendError", 1, id="follow-ons-with-a-rank-prefix"),
    pytest.param(TERMINATE, 2, None, 1, id="terminate-points-at-what"),
    pytest.param(RUST_PANIC, 2, None, 1, id="rust-panic-message-on-the-next-line"),
    pytest.param(NCCL_BURST, 1, None, 1, id="nccl-warn-burst-is-one-candidate"),
    pytest.param(GLOG_BURST, 1, None, 1, id="a-burst-points-at-its-first-line"),
    pytest.param(SLOW, 1, None, 2, id="seconds-apart-are-two"),
    pytest.param(CMAKE, 2, None, 1, id="cmake-error-header-announces-its-message"),
    pytest.param("Error: QZ9 first failure\n\nError: QZ9 second failure\n", 1, "Error", 2, id="blank-line-ends"),
    pytest.param("Error: QZ9 first failure\nINFO 01-01 00:00:00 [x.py:1] retrying\nError: QZ9 second failure\n",
                 1, "Error", 2, id="a-record-that-is-no-error-ends"),
    pytest.param("Error: QZ9 unknown failure:\n  Engine core initialization failed. See root cause above.\n",
                 1, "Error", 1, id="a-follow-on-consequence-does-not-make-a-wrapper"),
]


@pytest.mark.parametrize(("log", "lineno", "exc", "n_findings"), CASES)
def test_incident_root(log: str, lineno: int, exc: str | None, n_findings: int) -> None:
    d = diagnose(log)
    rc = d.root_cause
    assert rc is not None and (rc.lineno, rc.exception) == (lineno, exc)
    assert rc.role != "consequence"
    assert len(d.findings) == n_findings


# (log, [(first line, number of lines) of each incident])
SHAPES = [
    pytest.param(NCCL_CHAIN, [(1, 4)], id="chain"),
    pytest.param(TERMINATE, [(1, 3)], id="terminate"),
    pytest.param(NCCL_BURST, [(1, 3)], id="burst"),
    pytest.param(SLOW, [], id="slow"),
    pytest.param("pydantic_core._pydantic_core.ValidationError: 1 validation error for EngineConfig\n"
                 "accelerator_type\n  Value error, QZ9 unsupported accelerator [type=value_error]\n\nINFO done\n",
                 [(1, 3)], id="an-exception-message-goes-on-unindented"),
    pytest.param("[2025-01-01 00:00:00 TP0] Error: QZ9 a\n[2025-01-01 00:00:00 TP1] Error: QZ9 a\n", [],
                 id="another-process-ends"),
    pytest.param("Error: QZ9 a\nTraceback (most recent call last):\n"
                 '  File "/a.py", line 1, in f\nValueError: QZ9 b\n', [], id="a-traceback-ends"),
    pytest.param("Error: QZ9 a\n[... gap in source ...]\nError: QZ9 b\n", [], id="a-gap-ends"),
]


@pytest.mark.parametrize(("log", "shapes"), SHAPES)
def test_incident_shape(log: str, shapes: list[tuple[int, int]]) -> None:
    incidents = [t for t in build(log) if t.kind == "incident"]
    got = []
    for t in incidents:
        st = t.stacks[0]
        assert st.header is not None
        got.append((st.header.lineno, 1 + len(st.lines)))
    assert got == shapes
