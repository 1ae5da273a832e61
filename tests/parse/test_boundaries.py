"""Error boundaries in bare tracebacks: where an exception's multi-line message ends, and how copies fold.

Synthetic logs written for the mechanism (issue 10, item 1): a worker's raw traceback followed by its parent's
one-line wrapper, both unprefixed; message continuations that must stay; identical messages in one chain.
"""

from __future__ import annotations

import pytest

from crashdoc.analyze.candidates import Candidate
from crashdoc.analyze.rank import fold
from crashdoc.parse.lines import parse_line
from crashdoc.parse.traceback import Stack, Trace
from tests.parse.helpers import build, diagnose

TB = (
    "Traceback (most recent call last):\n"
    '  File "/srv/app/pkg/loader.py", line 88, in build\n'
    '    raise ValueError(f"{name}: bad shard map")\n'
)


# (log, root line number, root exception, the root's message, number of findings)
CASES = [
    pytest.param(
        TB + "ValueError: QX77 bad shard map\n"
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n",
        4, "ValueError", "QX77 bad shard map", 2, id="typed-wrapper-ends-the-message"),
    pytest.param(
        TB + "ValueError: QX77 bad shard map\n"
        "Engine core initialization failed. See root cause above. Failed core proc(s): {}\n",
        4, "ValueError", "QX77 bad shard map", 1, id="untyped-consequence-line-ends-the-message"),
    pytest.param(
        TB + "ValueError: QX77 bad shard map\nthe shard index lists 3 files, 4 were found\n",
        4, "ValueError", "QX77 bad shard map\nthe shard index lists 3 files, 4 were found", 1,
        id="plain-continuation-stays"),
    # (the message keeps both lines; the line reported is the one that states the error: parse/exceptions.py
    # stating_line)
    pytest.param(
        TB + "ValueError: loader 'fast' raised:\nKeyError: 'qx77_shard_map'\n",
        5, "ValueError", "loader 'fast' raised:\nKeyError: 'qx77_shard_map'", 1,
        id="announced-embedded-error-stays"),
    pytest.param(
        TB + "ValueError: QX77 bad shard map\n rank=0\nError: ShardCannotStart\n",
        4, "ValueError", "QX77 bad shard map\n rank=0", 2, id="launcher-error-after-indented-suffix"),
]


@pytest.mark.parametrize(("log", "lineno", "exc", "message", "n_findings"), CASES)
def test_boundary_in_bare_traceback(log: str, lineno: int, exc: str, message: str, n_findings: int) -> None:
    d = diagnose(log)
    rc = d.root_cause
    assert rc is not None and (rc.lineno, rc.exception, rc.message) == (lineno, exc, message)
    assert len(d.findings) == n_findings


# (log, exception types of the stacks, lines of the first stack's message)
BUILDER = [
    pytest.param(TB + "ValueError: a\nRuntimeError: b\n", ["ValueError"], 1, id="new-type-line-closes"),
    pytest.param(
        TB + "torch.distributed.DistBackendError: NCCL error in: x.cpp:1, unhandled system error\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed.\n"
        "Last error:\nsocket() failed\n",
        ["torch.distributed.DistBackendError"], 4, id="c-status-name-continues"),
    pytest.param(
        "".join(f"(EngineCore pid=7) ERROR 11-30 09:00:00 [core.py:1] {ln}\n" for ln in [
            "Traceback (most recent call last):", '  File "/a.py", line 1, in f', "ValueError: a",
            "RuntimeError: b"]),
        ["ValueError"], 2, id="logged-record-keeps-its-lines"),
]


@pytest.mark.parametrize(("log", "types", "n_lines"), BUILDER)
def test_builder_message_lines(log: str, types: list[str], n_lines: int) -> None:
    traces = build(log)
    assert [s.exc_type for s in traces[0].stacks] == types
    assert len(traces[0].stacks[0].lines) == n_lines


def _cand(lineno: int, role: str, score: int, trace: Trace | None = None, stack: Stack | None = None) -> Candidate:
    line = parse_line(lineno, "RuntimeError: shard map invalid")
    return Candidate(line, "RuntimeError", "shard map invalid", "traceback" if stack else "line", 1, score,
                     role, None, stack, trace)  # type: ignore[arg-type]


def test_a_consequence_copy_never_replaces_a_cause_copy() -> None:
    groups = fold([_cand(1, "cause", 40), _cand(2, "consequence", 90)])[1]
    assert len(groups) == 1 and groups[0].first.role == "cause" and groups[0].first.line.lineno == 1


def test_a_cause_copy_replaces_a_consequence_copy() -> None:
    groups = fold([_cand(1, "consequence", 60), _cand(2, "cause", 40)])[1]
    assert len(groups) == 1 and groups[0].first.line.lineno == 2


def test_two_links_of_one_chain_never_fold_and_copies_fold_per_link() -> None:
    def chain(base: int) -> list[Candidate]:
        stacks = tuple(Stack("RuntimeError", "shard map invalid", (), (parse_line(base + i, "RuntimeError: x"),),
                             "cause" if i else None) for i in range(2))
        trace = Trace("main", stacks)
        return [_cand(base + i, "unknown", 40, trace, s) for i, s in enumerate(stacks)]

    groups = fold(chain(1) + chain(10))[1]
    assert len(groups) == 2
    assert sorted(g.first.line.lineno for g in groups) == [1, 2]
    assert groups[0].fingerprint != groups[1].fingerprint
