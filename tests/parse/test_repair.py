"""Reconstruction of damaged text (issue 10, item 4): flattened and escaped tracebacks, tracebacks cut after
their last frame, hard-wrapped lines, Markdown quotes and numbered lines. Synthetic logs written for each
damage; the tests assert the structure the parser recovers (root line, exception, message, frame)."""

from __future__ import annotations

import io
import json

import pytest

from crashdoc.investigate import diagnose_stream
from crashdoc.parse.repair import split_escaped, split_flattened
from crashdoc.parse.text import clean


def diagnose(text: str):  # type: ignore[no-untyped-def]
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test")  # type: ignore[arg-type]


TB = [
    "Traceback (most recent call last):",
    '  File "/srv/app/pkg/cli.py", line 12, in main',
    "    build(cfg)",
    '  File "/srv/app/pkg/loader.py", line 88, in build',
    '    raise ValueError(f"{name}: bad shard map")',
    "ValueError: QZ9 the shard map lists 3 files, 4 were found",
]
MSG = "QZ9 the shard map lists 3 files, 4 were found"


def wrapped(lines: list[str], width: int) -> str:
    """The log as a terminal `width` columns wide shows it (every longer line cut into pieces)."""
    out = []
    for ln in lines:
        while len(ln) > width:
            out.append(ln[:width])
            ln = ln[width:]
        out.append(ln)
    return "\n".join(out) + "\n"


PREFIX = "(EngineCore_DP0 pid=4242) "
LONG_TB = [PREFIX + "Traceback (most recent call last):"] + [
    PREFIX + ln for ln in [
        '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core_engine_with_a_long_module_name.py", '
        "line 144, in __init__",
        "    kv_cache_config = self._initialize_kv_caches(vllm_config)",
        '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/core/kv_cache_utils_with_a_long_name.py", '
        "line 758, in _check_enough_kv_cache_memory",
        "    raise ValueError(",
        "ValueError: QZ9 To serve at least one request with the model's max seq len (100000), 4.26 GiB KV cache is "
        "needed, which is larger than the available KV cache memory (4.25 GiB).",
    ]
]

# (log, root line, exception, message start, innermost frame as `file:line in func`, or None)
CASES = [
    pytest.param(" ".join(ln.strip() for ln in TB) + "\n", 1, "ValueError", MSG, "loader.py:88 in build",
                 id="flattened-after-the-header"),
    pytest.param("ERROR: QZ9 the loader died: " + " ".join(ln.strip() for ln in TB) + "\n", 1, "ValueError", MSG,
                 "loader.py:88 in build", id="flattened-after-text-before-the-header"),
    pytest.param('E0101 00:00:00.000001 7 model.py:248] "' + "\\n".join(TB).replace('"', '\\"') + '\\n"\n',
                 1, "ValueError", MSG, "loader.py:88 in build", id="escaped-newlines-in-a-logged-repr"),
    pytest.param(json.dumps({"level": "ERROR", "message": "\n".join(TB)}) + "\n", 1, "ValueError", MSG,
                 "loader.py:88 in build", id="newlines-in-a-json-record"),
    pytest.param("\n".join(TB[:5]) + "\n[... gap in source ...]\n", 5, "ValueError", "{name}: bad shard map",
                 "loader.py:88 in build", id="cut-after-the-last-frame-uses-the-raise"),
    pytest.param("".join(f"> {ln}\n" for ln in TB), 6, "ValueError", MSG, "loader.py:88 in build",
                 id="markdown-quoted"),
    pytest.param("".join(f"\u258e {ln}\n" for ln in TB), 6, "ValueError", MSG, "loader.py:88 in build",
                 id="quoted-with-a-rendered-quote-bar"),
    pytest.param("".join(f"{i:>3} | {ln}\n" for i, ln in enumerate(TB, 40)), 6, "ValueError", MSG,
                 "loader.py:88 in build", id="numbered-lines"),
    pytest.param("".join(f"> {i:>3} {ln}\n" for i, ln in enumerate(TB, 55)), 6, "ValueError", MSG,
                 "loader.py:88 in build", id="quoted-with-a-gutter-of-numbers"),
    pytest.param("* I0101 00:00:00.000001 1 server.cc:1] QZ9 loading model m\n"
                 "* E0101 00:00:01.000001 1 logging.cc:43] ValueError: QZ9 the plan file was built by another version\n",
                 2, "ValueError", "QZ9 the plan file", None, id="markdown-list-of-log-lines"),
    pytest.param(wrapped(LONG_TB, 100), None, "ValueError", "QZ9 To serve at least one request",
                 "kv_cache_utils_with_a_long_name.py:758 in _check_enough_kv_cache_memory", id="hard-wrapped-at-100"),
]


@pytest.mark.parametrize(("log", "lineno", "exc", "msg", "frame"), CASES)
def test_damaged_log_is_read_whole(log: str, lineno: int | None, exc: str, msg: str, frame: str | None) -> None:
    d = diagnose(log)
    rc = d.root_cause
    assert rc is not None and rc.exception == exc and rc.message.startswith(msg)
    if lineno is not None:
        assert rc.lineno == lineno
    if frame is not None:
        assert rc.where.frame is not None and rc.where.frame.startswith(frame)


def test_a_hard_wrapped_message_is_whole_again() -> None:
    rc = diagnose(wrapped(LONG_TB, 100)).root_cause
    assert rc is not None and "which is larger than the available KV cache memory (4.25 GiB)." in rc.message


# what must stay as it is
UNTOUCHED = [
    pytest.param("loading C:\\new\\nvidia\\models\\m.gguf\n", id="windows-path-is-no-escaped-newline"),
    pytest.param("pydantic_core._pydantic_core.ValidationError: 1 validation error for LLMConfig\nmodel\n",
                 id="a-count-is-no-line-number"),
    pytest.param('  File "/a.py", line 1, in f\n> File "/b.py", line 2, in g\n    x()\n', id="loguru-frame-marker"),
    pytest.param("- name: vllm\n- port: 8000\n", id="a-yaml-list-is-no-markdown-list-of-log-lines"),
    pytest.param("3 requests waiting\n5 requests running\n", id="counts-that-do-not-follow-on-are-no-gutter"),
    pytest.param("0 cuda:0 NVIDIA H100 80GB\n1 cuda:1 NVIDIA H100 80GB\n2 cuda:2 NVIDIA H100 80GB\n",
                 id="an-index-column-outside-a-quote-is-no-gutter"),
    pytest.param("0   libggml-base.dylib   0x000000010d4c1f48 ggml_print_backtrace + 276\n"
                 "1   libggml-base.dylib   0x000000010d4c1d34 ggml_abort + 156\n", id="apple-backtrace-frame-numbers"),
    pytest.param("\u2503 Metric \u2503 Value \u2503\n\u2503 tokens \u2503 12 \u2503\n", id="a-rich-table-border-is-no-quote"),
    # lines of one length (>= 80) followed by lines no terminal cut gives: an indented code line, a bracket
    # right after a non-blank (a log prefix), an exception line of its own
    pytest.param("".join(f"/srv/app/torch_{i}.py:83: FutureWarning: `ReduceOp` is deprecated, use ReduceOp.SUM {i:03d}\n"
                         f"  if hasattr(value, '__dict__'):\n" for i in range(4)), id="equal-lengths-then-code"),
    pytest.param("".join(f"RuntimeError: shard {i:03d} lost its stream while the engine was draining the queue 9f1c\n"
                         f"(Worker_TP{i} pid=7) ok\nValueError: {i}\n" for i in range(4)), id="equal-lengths-then-prefix"),
]


@pytest.mark.parametrize("log", UNTOUCHED)
def test_undamaged_lines_stay(log: str) -> None:
    from crashdoc.parse.blocks import HotLine
    from crashdoc.parse.repair import repair

    lines = [HotLine(i, ln.encode()) for i, ln in enumerate(log.splitlines(), 1)]
    assert [h.data.decode() for h in repair(lines)] == log.splitlines()


def test_the_splitters_on_their_own() -> None:
    flat = split_flattened(" ".join(ln.strip() for ln in TB))
    assert flat == ["Traceback (most recent call last):", '  File "/srv/app/pkg/cli.py", line 12, in main',
                    "    build(cfg)", '  File "/srv/app/pkg/loader.py", line 88, in build',
                    '    raise ValueError(f"{name}: bad shard map")', f"ValueError: {MSG}"]
    assert split_flattened('  File "/a.py", line 1, in f') is None
    glog = "E0101 00:00:00.000001 7 m.py:1] "
    assert split_escaped(glog + '"a\\n  b\\n"') == [glog + "a", glog + "  b", glog]
    assert split_escaped("plain line") is None


def test_viewer_exports_and_syslog_escapes() -> None:
    assert clean("#033[31mERROR#033[0m text") == "ERROR text"
    rc = diagnose("2023-07-12T16:57:37.051+02:00 | ValueError: QZ9 the shard map is broken\n"
                  "  | 2023-07-12T16:57:37.802+02:00 | INFO done\n").root_cause
    assert rc is not None and rc.exception == "ValueError"
