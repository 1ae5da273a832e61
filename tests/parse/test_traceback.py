"""Tracebacks are rebuilt per process stream: chains, groups, carets, multi-line messages, truncation."""

from __future__ import annotations

from tests.parse.helpers import build


def test_chain_with_direct_cause_keeps_both_stacks_in_order() -> None:
    traces = build(
        "Traceback (most recent call last):\n"
        '  File "/site-packages/flash_attn/__init__.py", line 3, in <module>\n'
        "    import flash_attn_2_cuda\n"
        "ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c105Error\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/site-packages/transformers/utils/import_utils.py", line 1, in _get_module\n'
        "    return importlib.import_module('.' + module_name, self.__name__)\n"
        "RuntimeError: Failed to import transformers.models.bert.modeling_bert because of the following error\n"
    )
    assert len(traces) == 1
    stacks = traces[0].stacks
    assert [s.exc_type for s in stacks] == ["ImportError", "RuntimeError"]
    assert stacks[1].link == "cause"
    assert stacks[0].frames[0].code == "import flash_attn_2_cuda"


def test_during_handling_marks_context_link() -> None:
    traces = build(
        "Traceback (most recent call last):\n"
        '  File "/a.py", line 1, in f\n'
        "ModuleNotFoundError: No module named 'sphinx'\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/b.py", line 2, in g\n'
        "ValueError: real problem\n"
    )
    assert [(s.exc_type, s.link) for s in traces[0].stacks] == [("ModuleNotFoundError", None), ("ValueError", "context")]


def test_python311_carets_and_elided_lines_are_not_exceptions() -> None:
    traces = build(
        "Traceback (most recent call last):\n"
        '  File "/v/vllm/model_executor/models/deepseek_v2.py", line 1004, in __init__\n'
        "    self.self_attn = attn_cls(\n"
        "                     ^^^^^^^^^\n"
        "    ...<5 lines>...\n"
        '  File "/v/flashinfer/jit/env.py", line 105, in _get_cubin_dir\n'
        "    raise RuntimeError(\n"
        "    ~~~~~~~~~~~~~~~~~~^\n"
        "RuntimeError: flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)\n"
    )
    st = traces[0].stacks[0]
    assert st.exc_type == "RuntimeError" and len(st.frames) == 2
    assert st.frames[0].code == "self.self_attn = attn_cls(" and st.frames[0].func == "__init__"


def test_multi_line_message_of_a_logged_traceback() -> None:
    p = "(EngineCore_DP0 pid=5) ERROR 11-30 09:00:00 [core.py:708] "
    traces = build(
        f"{p}Traceback (most recent call last):\n"
        f'{p}  File "/v/vllm/config.py", line 9, in __post_init__\n'
        f"{p}pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig\n"
        f"{p}tensor_parallel_size\n"
        f"{p}  Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0]\n"
        "(APIServer pid=4) INFO 11-30 09:00:01 [api.py:1] unrelated\n"
    )
    st = traces[0].stacks[0]
    assert st.exc_type == "pydantic_core._pydantic_core.ValidationError"
    assert "Input should be greater than or equal to 1" in st.message
    assert [ln.lineno for ln in st.lines] == [3, 4, 5]


def test_interleaved_ranks_are_demultiplexed() -> None:
    a, b = "(Worker_TP0 pid=10) ERROR 11-30 09:00:00 [m.py:1] ", "(Worker_TP1 pid=11) ERROR 11-30 09:00:00 [m.py:1] "
    traces = build(
        f"{a}Traceback (most recent call last):\n{b}Traceback (most recent call last):\n"
        f'{a}  File "/x.py", line 1, in f\n{b}  File "/y.py", line 2, in g\n'
        f"{b}    g()\n{a}    f()\n"
        f"{a}RuntimeError: rank zero\n{b}ValueError: rank one\n"
    )
    got = {t.stream: (t.stacks[0].exc_type, t.stacks[0].frames[0].path) for t in traces}
    assert got == {"Worker_TP0:10": ("RuntimeError", "/x.py"), "Worker_TP1:11": ("ValueError", "/y.py")}


def test_sglang_unprefixed_traceback_lines_follow_their_header() -> None:
    traces = build(
        "[2025-03-17 17:15:55 TP1] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/s/sglang/srt/managers/scheduler.py", line 1, in run_scheduler_process\n'
        "    scheduler = Scheduler(server_args)\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB\n"
        "[2025-03-17 17:15:56] Received sigquit from a child process. It usually means the child failed.\n"
    )
    assert len(traces) == 1 and traces[0].stream == "TP1" and traces[0].intro == "Scheduler hit an exception"
    assert traces[0].stacks[0].exc_type == "torch.OutOfMemoryError"


def test_exception_group_sub_exceptions() -> None:
    traces = build(
        "  + Exception Group Traceback (most recent call last):\n"
        '  |   File "/a.py", line 1, in <module>\n'
        '  |     raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])\n'
        "  | ExceptionGroup: eg (2 sub-exceptions)\n"
        "  +-+---------------- 1 ----------------\n"
        "    | ValueError: 1\n"
        "    +---------------- 2 ----------------\n"
        "    | TypeError: 2\n"
        "    +------------------------------------\n"
    )
    types = [s.exc_type for s in traces[0].stacks]
    assert types[0] == "ExceptionGroup" and "ValueError" in types and "TypeError" in types


def test_traceback_cut_off_is_reported_as_truncated() -> None:
    traces = build('Traceback (most recent call last):\n  File "/a.py", line 1, in f\n    f()\n[... gap in source ...]\n')
    st = traces[0].stacks[0]
    assert st.truncated and st.exc_type is None and st.frames[0].path == "/a.py"


def test_excerpt_starting_inside_a_traceback() -> None:
    traces = build('  File "/a.py", line 9, in main\n    run()\nKeyError: \'qwen3_moe\'\n')
    assert traces[0].stacks[0].exc_type == "KeyError" and traces[0].stacks[0].message == "'qwen3_moe'"


def test_a_traceback_printed_indented_keeps_its_shape() -> None:
    """A child's traceback that pip (`error: subprocess-exited-with-error`) or a launcher prints indented: its
    exception line is on the header's margin, its code lines further in; an excerpt whose header lost the indent
    takes the margin from the first frame line."""
    body = ('        File "<string>", line 2, in <module>\n'
            '        File "/src/qx/setup.py", line 42, in <module>\n'
            '          raise RuntimeError("qx requires sm75+")\n'
            "      RuntimeError: qx requires sm75+\n")
    for header in ("      Traceback (most recent call last):\n", "Traceback (most recent call last):\n"):
        (trace,) = build(header + body)
        (stack,) = trace.stacks
        assert (stack.exc_type, stack.message, len(stack.frames)) == ("RuntimeError", "qx requires sm75+", 2)
        assert stack.frames[-1].code == 'raise RuntimeError("qx requires sm75+")' and not stack.truncated


def test_code_lines_that_lost_their_indentation_stay_code_lines() -> None:
    """A copy that flattened the traceback (an issue's paste): a statement under a frame line is its code, not the
    exception line; the exception line after the last frame is still read as one."""
    (trace,) = build(
        "Traceback (most recent call last):\n"
        'File "/x/vllm/model_executor/layers/linear.py", line 172, in __init__\n'
        "self.quant_method = quant_config.get_quant_method(self,\n"
        'File "/x/vllm/model_executor/layers/quantization/bitsandbytes.py", line 141, in __init__\n'
        'raise ImportError("Please install bitsandbytes>=0.44.0 via "\n'
        "ImportError: Please install bitsandbytes>=0.44.0 via `pip install bitsandbytes>=0.44.0`.\n")
    (stack,) = trace.stacks
    assert stack.exc_type == "ImportError" and stack.message.startswith("Please install bitsandbytes")
    assert [f.code for f in stack.frames] == ["self.quant_method = quant_config.get_quant_method(self,",
                                              'raise ImportError("Please install bitsandbytes>=0.44.0 via "']
