"""The error-format table (data/error_formats.yaml): every row's example lines go through the production parser
and get the row's level (and, for a header, the text left after it); the table is well formed and linear."""

from __future__ import annotations

import io
import re
import time

import pytest

from crashdoc.investigate import diagnose_stream
from crashdoc.parse.errors import ERROR_LEVELS, is_error_line
from crashdoc.parse.formats import block_format, line_format, load_formats
from crashdoc.parse.lines import LineParser, parse_line

EXAMPLES = [pytest.param(f, e, id=f"{f.id}-{i}") for f in load_formats() for i, e in enumerate(f.examples)]


@pytest.mark.parametrize(("fmt", "example"), EXAMPLES)
def test_every_example_line_parses_at_its_level(fmt, example) -> None:  # type: ignore[no-untyped-def]
    line = parse_line(1, example.line)
    if fmt.where == "block":  # a stack dump's first line: the dump's, not an error of its own
        assert block_format(line.text) == fmt and not is_error_line(line)
        return
    if fmt.where == "header":
        assert (line.fmt, line.level) == (fmt.id, example.level)
        if example.text is not None:
            assert line.text == example.text
    else:
        assert line.level is None and line_format(line.text) == fmt
    assert is_error_line(line) == (example.level in ERROR_LEVELS)
    # the prefix cache of LineParser gives the same line
    assert LineParser().parse(1, example.line) == line


def test_every_family_has_a_row_and_an_example() -> None:
    ids = {f.id for f in load_formats()}
    for family in ("glog", "c10-bracketed", "tensorrt-logger", "tensorrt-llm-cpp", "turbomind", "host-pid-level",
                   "logfmt", "rust-tracing", "go-panic", "rust-panic", "cpp-terminate", "fatal-python-error",
                   "signal-death", "cuda-status", "ggml", "llama-func-error", "nccl-debug", "rich-traceback",
                   "faulthandler-stack", "go-goroutine-dump"):
        assert family in ids
    assert all(f.examples and f.family for f in load_formats())


_GROUP = re.compile(r"\(((?:[^()\\]|\\.)*)\)[+*]")
_PIECE = re.compile(r"(\\.|\[(?:[^\]\\]|\\.)*\]|[^\\\[])([*+?]|\{\d*,?\d*\})?")


def _ambiguous_repeats(pattern: str) -> list[str]:
    """Innermost repeated groups whose body has no mandatory piece (`(\\S+\\s*)+`, `(?:[~^]+\\s*)+`): each
    repetition can then take any share of the same text, and a failing match tries them all."""
    bad = []
    for m in _GROUP.finditer(pattern):
        body = m.group(1).removeprefix("?:")
        if not any(not q or (q.startswith("{") and not q.startswith("{0")) for _, q in _PIECE.findall(body)):
            bad.append(m.group(0))
    return bad


def test_the_ambiguity_check_finds_the_classic_shapes() -> None:
    assert _ambiguous_repeats(r"\s*(?:[~^]+\s*)+$") and _ambiguous_repeats(r"(\S+\s*)+")
    assert not _ambiguous_repeats(r"(?:::[\w-]+)*") and not _ambiguous_repeats(r"\s*[~^][~^\s]*$")


@pytest.mark.parametrize("fmt", load_formats(), ids=lambda f: f.id)
def test_patterns_are_linear(fmt) -> None:  # type: ignore[no-untyped-def]
    assert not _ambiguous_repeats(fmt.pattern.pattern)
    hostile = [" " * 20000 + "x", "[" * 20000, "E" + "1" * 20000, "a:" * 10000, "thread '" + "'" * 20000,
               "ggml_x: " + "f" * 20000, "level=" + "=" * 20000, "[TensorRT-LLM]" * 2000, "a" * 20000]
    run = fmt.pattern.search if fmt.where == "line" else fmt.pattern.match  # as parse/formats.py uses them
    t0 = time.perf_counter()
    for s in hostile:
        run(s)
    assert time.perf_counter() - t0 < 0.5


def diagnose(text: str):  # type: ignore[no-untyped-def]
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test")  # type: ignore[arg-type]


# (log, root line number): the first error of a format the dev set never showed is the root
ROOTS = [
    pytest.param("I0101 00:00:00.000001 7 server.cc:1] Started GRPCInferenceService\n"
                 "E0101 00:00:01.000001 7 model_lifecycle.cc:626] failed to load 'm' version 1: Internal: QZ9 bad plan\n"
                 "E0101 00:00:01.000002 7 model_repository_manager.cc:1325] Poll failed for model directory 'm'\n",
                 2, id="glog-first-error"),
    pytest.param("[TensorRT-LLM][INFO] Engine version 0.9.0 found in the config file\n"
                 "[TensorRT-LLM][WARNING] Parameter max_draft_len cannot be read from json\n"
                 "[TensorRT-LLM][ERROR] Assertion failed: QZ9 world size mismatch (/app/worldConfig.cpp:99)\n",
                 3, id="tensorrt-llm-error-not-warning"),
    pytest.param("[TM][WARNING] QZ9 max_context_token_num is not set\n[TM][FATAL] QZ9 unknown backend\n",
                 2, id="turbomind-fatal"),
    pytest.param('time=2024-01-01T00:00:00Z level=INFO source=a.go:1 msg="loading"\n'
                 'time=2024-01-01T00:00:01Z level=ERROR source=b.go:2 msg="QZ9 runner failed" error="exit 2"\n',
                 2, id="logfmt-error"),
    pytest.param("2024-01-01T00:00:00.000000Z  INFO text_generation_launcher: Starting shard rank=0\n"
                 "2024-01-01T00:00:01.000000Z ERROR text_generation_router::server: router/src/server.rs:9: QZ9\n",
                 2, id="rust-tracing-with-module-path"),
    pytest.param("ggml_vulkan: Found 1 Vulkan devices\nggml_vulkan: QZ9 vk::Device::allocateMemory: ErrorOutOfDeviceMemory\n",
                 2, id="ggml-backend-error"),
]


@pytest.mark.parametrize(("log", "lineno"), ROOTS)
def test_the_first_error_of_the_format_is_the_root(log: str, lineno: int) -> None:
    d = diagnose(log)
    assert d.root_cause is not None and d.root_cause.lineno == lineno


RICH = """\
Shard complete standard error output:

╭───────────────────── Traceback (most recent call last) ──────────────────────╮
│ /opt/conda/lib/python3.10/site-packages/text_generation_server/cli.py:78 in  │
│ serve                                                                        │
│ ❱  78 │   server.serve(                                                      │
│ ╭─────────────────────────────── locals ───────────────────────────────╮     │
│ │ dtype = None                                                          │     │
│ ╰──────────────────────────────────────────────────────────────────────╯     │
│ /opt/conda/lib/python3.10/site-packages/text_generation_server/models/flash_ │
│ causal_lm.py:692 in warmup                                                   │
│ ❱ 692 │   │   │   raise RuntimeError(                                        │
╰──────────────────────────────────────────────────────────────────────────────╯
RuntimeError: QZ9 the shard map is inconsistent
"""


def test_a_rich_box_traceback_is_rebuilt_as_frames_and_its_exception() -> None:
    from crashdoc.parse.traceback import TracebackBuilder

    b = TracebackBuilder()
    traces = [t for i, raw in enumerate(RICH.splitlines(), 1) for t in b.feed(parse_line(i, raw))]
    traces += list(b.close())
    assert len(traces) == 1 and traces[0].kind == "traceback"
    st = traces[0].stacks[0]
    assert (st.exc_type, st.message) == ("RuntimeError", "QZ9 the shard map is inconsistent")
    assert [(f.path.rsplit("/", 1)[-1], f.lineno, f.func, f.code) for f in st.frames] == [
        ("cli.py", 78, "serve", "server.serve("), ("flash_causal_lm.py", 692, "warmup", "raise RuntimeError(")]
    d = diagnose(RICH)
    assert d.root_cause is not None and d.root_cause.lineno == 14 and d.root_cause.where.frame.startswith(
        "flash_causal_lm.py:692")


@pytest.mark.parametrize(("raw", "error"), [
    ("Process exited before becoming ready: RuntimeError: Failed to load the default metallib.", True),
    ("Error when loading model: torch.OutOfMemoryError: CUDA out of memory.", True),
    ("request 12 finished: status ok, ValueError count 0", False),  # an exception's name, not a relayed one
    ("INFO 01-01 10:00:00 [x.py:1] retrying: ConnectionError: reset", False),  # its logger said INFO
    ("Loading weights: model.layers.0: done", False),
])
def test_a_line_relaying_an_exception_after_its_own_words_is_an_error(raw: str, error: bool) -> None:
    assert is_error_line(parse_line(1, raw)) is error


def test_a_relayed_exception_is_the_root_cause_of_an_otherwise_quiet_log() -> None:
    d = diagnose("Starting the model server\nProcess exited before becoming ready: RuntimeError: Failed to load "
                 "the default metallib.\nThis library is using language version 4.0 which is not supported on this OS.\n")
    assert d.root_cause is not None and d.root_cause.lineno == 2
