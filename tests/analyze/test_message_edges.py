"""Where an error's message begins and ends when the log does not say so plainly: a bare exception followed by
another logger's record, a sentence the source wrapped, a wrapper that goes on to state why, a traceback an
excerpt cut inside a frame's line, a JVM exception's nested class name."""

from __future__ import annotations

import io

import pytest

from crashdoc.investigate import diagnose_stream
from crashdoc.model import Diagnosis
from crashdoc.parse.exceptions import split_exception


def diagnose(text: str) -> Diagnosis:
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test")  # type: ignore[arg-type]


TRACE = ('Traceback (most recent call last):\n'
         '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/detokenizer_manager.py", line 105, in trim\n'
         '    assert len(output) > 0\n'
         'AssertionError\n')


@pytest.mark.parametrize("after", [
    "[2025-02-11 01:42:04] Received sigquit from a child proces. It usually means the child failed.\n",
    "(EngineCore_DP0 pid=7) Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.\n",
])
def test_a_bare_exception_does_not_take_the_next_records_text_as_its_message(after: str) -> None:
    d = diagnose(TRACE + after)
    assert d.root_cause is not None and d.root_cause.lineno == 4
    assert d.root_cause.exception == "AssertionError" and d.root_cause.message == ""
    assert d.root_cause.role == "cause"


def test_a_bare_exception_still_takes_its_own_message_lines() -> None:
    d = diagnose(TRACE.replace("AssertionError\n", "ValueError: the first line\nand the second line of it\n"))
    assert d.root_cause is not None and d.root_cause.message == "the first line\nand the second line of it"


def test_a_sentence_the_source_wrapped_is_reported_at_its_exception_line() -> None:
    d = diagnose("RuntimeError: expand(CUDABoolType{[1, 1]}, size=[0]): the number of sizes\n"
                 "provided (1) must be greater or equal to the number of dimensions in the\n"
                 "tensor (2)\n")
    assert d.root_cause is not None and d.root_cause.lineno == 1
    assert d.root_cause.line.startswith("RuntimeError: expand(")


def test_a_follow_on_line_of_its_own_is_still_reported_where_the_rule_matched() -> None:
    d = diagnose("Error response from daemon: failed to create task for container: stderr: Auto-detected mode as 'legacy'\n"
                 "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver "
                 "to a newer version, or use an earlier cuda container: unknown\n")
    assert d.root_cause is not None and d.root_cause.lineno == 2


def test_a_wrapper_that_states_why_in_words_no_rule_knows_is_the_root_cause() -> None:
    log = ("ollama run codegeex4:9b\n"
           "Error: llama runner process has terminated: exit status 0xc0000409 error:failed to create context with "
           "model 'C:\\models\\blobs\\sha256-9161'\n")
    d = diagnose(log)
    assert d.root_cause is not None and d.root_cause.lineno == 2 and d.root_cause.role == "unknown"
    bare = diagnose("ollama run codegeex4:9b\nError: llama runner process has terminated: exit status 0xc0000409\n")
    assert bare.root_cause is None  # the wrapper alone says nothing of why: still only a consequence


def test_a_warning_explains_a_crash_whose_traceback_an_excerpt_cut_inside_a_frame() -> None:
    log = ("WARNING 06-24 21:44:48 _custom_ops.py:14] Failed to import from vllm._C with ImportError('libcudart.so.12: "
           "cannot open shared object file: No such file or directory')\n"
           "INFO 06-24 21:44:54 api_server.py:177] vLLM API server version 0.5.0.post1\n"
           "[rank0]:   File \"/root/venv/lib/python3.10/site-packages/vllm/worker/worker.py\", line 162, in profile\n"
           "[rank0]:     self.model_runner.profile_run()\n"
           "[rank0]:   File \"/root/venv/lib/python3.10/site-packages/vllm/worker/mo\n")
    d = diagnose(log)
    assert d.root_cause is not None and d.root_cause.lineno == 1 and d.root_cause.confidence == "low"
    healthy = diagnose(log.rsplit("[rank0]", 3)[0] + "INFO 06-24 21:45:00 api_server.py:200] Application startup complete.\n")
    assert healthy.root_cause is None  # the warning alone, and the server went on: a finding, no crash


@pytest.mark.parametrize(("text", "exc"), [
    ("org.apache.tvm.Base$TVMError: TVMError: Binary was created using {relax.Executable}", "org.apache.tvm.Base$TVMError"),
    ("java.lang.IllegalStateException: closed", "java.lang.IllegalStateException"),
    ("$HOME is not defined", None),
])
def test_a_jvm_nested_exception_class_is_an_exception_name(text: str, exc: str | None) -> None:
    assert split_exception(text)[0] == exc


def test_an_indented_jvm_exception_line_is_the_root_cause() -> None:
    d = diagnose("2025-03-20 19:21:25.825 24297-24467 AndroidRuntime ai.mlc.mlcchat I  loading\n"
                 "        org.apache.tvm.Base$TVMError: TVMError: Binary was created using {relax.Executable} but a loader "
                 "of that name is not registered.\n")
    assert d.root_cause is not None and d.root_cause.lineno == 2


def test_a_frame_line_a_paste_wrapped_is_one_frame() -> None:
    prefix = "(VllmWorker rank=1 pid=2699412) ERROR 08-11 10:45:36 [multiproc_executor.py:511] "
    d = diagnose(f"{prefix}WorkerProc failed to start.\n"
                 f"{prefix}Traceback (most recent call last):\n"
                 f'{prefix}  File "/venv/lib64/python3.11/site-packages/vllm/v1/executor/m\n'
                 '.py", line 485, in worker_main\n'
                 f"{prefix}    worker = WorkerProc(*args, **kwargs)\n"
                 f"{prefix}ValueError: the engine refused its arguments\n")
    assert d.root_cause is not None and d.root_cause.lineno == 6
    assert d.root_cause.where.frame is not None and d.root_cause.where.frame.startswith("m.py:485 in worker_main")


def test_a_rules_words_may_span_a_sentence_the_source_wrapped() -> None:
    d = diagnose("ValueError: Free memory on device cuda:0 (36.75/121.63 GiB) on startup is less than\n"
                 "desired GPU memory utilization (0.85, 103.38 GiB).\n")
    assert d.root_cause is not None and d.root_cause.rule == "free-memory-less-than-utilization"
    assert d.root_cause.lineno == 1
    apart = diagnose("ValueError: Free memory on device cuda:0 (36.75/121.63 GiB) on startup is less than.\n"
                     "desired GPU memory utilization (0.85, 103.38 GiB).\n")
    assert apart.root_cause is not None and apart.root_cause.rule is None  # a sentence ended: no wrap


@pytest.mark.parametrize(("raw", "error"), [
    (" -11 (PI_ERROR_BUILD_PROGRAM_FAILURE)Exception caught at file:D:/llm.cpp/ggml/src/ggml-sycl.cpp, line:3775", True),
    ("Exception caught at file:/src/llama.cpp/ggml/src/ggml-sycl.cpp, line:3438, func:operator()", False),  # no text
    ("*** Terminating app due to uncaught exception 'NSRangeException', reason:", True),
])
def test_error_formats_of_sycl_and_objective_c(raw: str, error: bool) -> None:
    from crashdoc.parse.errors import is_error_line
    from crashdoc.parse.lines import parse_line

    assert is_error_line(parse_line(1, raw)) is error


def test_warnings_in_a_healthy_log_stay_findings() -> None:
    ucx = ("[1746690477.974497] [llm206:611  :0]     ucp_context.c:1268 UCX  WARN  transports 'cuda_ipc','cuda_copy' "
           "are not available, please use one or more of: mm, posix, self, shm, tcp\n"
           "INFO:     Application startup complete.\n")
    assert diagnose(ucx).root_cause is None
    dump = ("WARNING 06-24 21:44:48 _custom_ops.py:14] Failed to import from vllm._C with ImportError('libcudart.so.12: "
            "cannot open shared object file: No such file or directory')\n"
            "INFO 06-24 21:44:54 api_server.py:200] Application startup complete.\n"
            '  File "/root/venv/lib/python3.10/site-packages/vllm/worker/worker.py", line 162, in profile\n'
            "    traceback.print_stack()\n")
    assert diagnose(dump).root_cause is None  # a stack printed whole, not cut: no crash


def test_a_rule_match_over_a_wrapped_break_is_reported_where_it_starts() -> None:
    d = diagnose("RuntimeError: Engine core initialization failed. See root cause above.\n"
                 "ValueError: Free memory on device cuda:0 (36.75/121.63 GiB) on startup is less than\n"
                 "desired GPU memory utilization (0.85, 103.38 GiB).\n")
    assert d.root_cause is not None and d.root_cause.lineno == 2

