"""The one prefix stripper (parse/prefixes.py through parse_line) and the one exception-name test."""

from __future__ import annotations

import pytest

from crashdoc.parse.exceptions import is_exception_name, last_component, split_exception
from crashdoc.parse.lines import parse_line

CASES = [
    # raw line -> text the program printed
    ("(EngineCore_DP0 pid=59619) ERROR 10-15 08:32:29 [core.py:708] RuntimeError: boom", "RuntimeError: boom"),
    ("(VllmWorker rank=5 pid=3073) ERROR 05-01 10:00:00 [multiproc_executor.py:1] x", "x"),
    ("(RayWorkerWrapper pid=854, ip=10.0.0.1) ERROR 06-28 14:00:48 worker_base.py:148] y", "y"),
    ("[rank0]: RuntimeError: CUDA error", "RuntimeError: CUDA error"),
    ("[2025-02-27T16:30:43.486Z] [rank3]:[E227 16:30:43.526 ProcessGroupNCCL.cpp:1834] Timeout at NCCL work: 32",
     "Timeout at NCCL work: 32"),  # a collector's bracketed RFC 3339 time, then torch's rank and glog header
    (" [rank3]:[E227 16:30:43.526 ProcessGroupNCCL.cpp:630] Some NCCL operations have failed",
     "Some NCCL operations have failed"),
    ("[2025-03-10 14:17:52] Load weight end.", "Load weight end."),  # SGLang's own time (no `T`): its prefix
    # a hosting platform's level tag: one blank after it goes with it, an indentation stays
    ("[warning]WARNING 10-09 08:58:51 [chat_utils.py:376] x is not supported", "x is not supported"),
    ("[error]Please install vllm[audio] for audio support", "Please install vllm[audio] for audio support"),
    ("[error] Please install vllm[audio] for audio support", "Please install vllm[audio] for audio support"),
    ("Feb 09 18:55:00 asus ollama[11630]: Error: boom", "Error: boom"),
    # a parallel launcher's task label: srun --label (padded), Open MPI --tag-output, torchrun --tee
    ("0: [rank1]:E1122 18:59:53.660000 1739086 fake_tensor.py:2755] RuntimeError: a and b", "RuntimeError: a and b"),
    (" 1: [11/22/2025-18:59:53] [TRT-LLM] [RANK 1] [E] Failed to initialize executor", "Failed to initialize executor"),
    ("[1,3]<stderr>:ValueError: boom", "ValueError: boom"),
    ("[default0]:RuntimeError: CUDA error", "RuntimeError: CUDA error"),
    # Ray's coloured prefix copied without its escape characters: blanks stand where they were
    (" [36m(RayWorkerVllm pid=5085) [0m [E ProcessGroupNCCL.cpp:475] [Rank 4] Watchdog caught", "[Rank 4] Watchdog caught"),
    ("   0: std::panicking::begin_panic_handler", "0: std::panicking::begin_panic_handler"),  # a Rust frame: no label
    ("Thg 2 24 17:32:24 x-team sub.sh[4352]: ModuleNotFoundError: x", "ModuleNotFoundError: x"),
    ("2月 25 17:49:00 host python3[41]: hello", "hello"),
    ("2026-02-08T00:40:07.136582+00:00 host python3[41]: hello", "hello"),
    ("Nov 20 15:10:43 inky kernel: Out of memory: Killed process 1 (python)", "Out of memory: Killed process 1 (python)"),
    ("2023-10-16T06:54:28.059380Z ERROR text_generation_launcher: Shard 0 failed to start", "Shard 0 failed to start"),
    ("2023-07-13T13:36:36.063775Z ERROR shard-manager: text_generation_launcher: Error when initializing model",
     "Error when initializing model"),
    ("2026-03-11T17:57:32.372168462Z (EngineCore_DP0 pid=269) ERROR 03-11 17:57:32 [core.py:1006] Exception: x",
     "Exception: x"),
    ("[2025-03-17 17:15:55 TP1] Scheduler hit an exception: Traceback", "Scheduler hit an exception: Traceback"),
    ("[2025-07-02 07:41:59 DP7 TP7] max_total_tokens=1", "max_total_tokens=1"),
    ("[12-16 14:27:08] Rank 0 scheduler is dead.", "Rank 0 scheduler is dead."),
    ("backend-vllm-openai-1  | (RayWorkerWrapper pid=643) ERROR 06-14 07:04:12 worker_base.py:148] z", "z"),
    ("ERROR:    PermissionError: [Errno 13] Permission denied: '/x'", "PermissionError: [Errno 13] Permission denied: '/x'"),
    ("W1223 23:34:22.775000 1116 torch/utils/cpp_extension.py:2425] TORCH_CUDA_ARCH_LIST is not set",
     "TORCH_CUDA_ARCH_LIST is not set"),
    ("[rank0]:[W520 00:55:14.796578616 ProcessGroupNCCL.cpp:1553] Warning: WARNING: x", "Warning: WARNING: x"),
    ("2023-08-25 10:45:21,197 WARNING worker.py:2037 -- A worker died", "A worker died"),
    ("2025-05-23 03:12:20.499 | INFO     | text_generation_server.utils.import_utils:<module>:80 - Detected ipex",
     "Detected ipex"),
    ("\x1b[0;36m(EngineCore_DP0 pid=738)\x1b[0;0m \x1b[31mERROR\x1b[0m \x1b[90m01-26 09:25:37\x1b[0m "
     "\x1b[90m[core.py:935]\x1b[0m ValueError: Free memory", "ValueError: Free memory"),
    ("^[[0;36m(EngineCore_DP0 pid=738)^[[0;0m ^[[31mERROR^[[0m ^[[90m01-26 09:25:37^[[0m ^[[90m[core.py:935]^[[0m x", "x"),
    ('time=2024-07-04T22:08:23.991+08:00 level=INFO source=routes.go:1111 msg="Listening on 127.0.0.1"',
     "Listening on 127.0.0.1"),
    ('{"levelname": "WARNING", "message": "total resources available: {}."}', "total resources available: {}."),
    ("░░ An ExecStart= process belonging to unit ollama.service has exited.",
     "An ExecStart= process belonging to unit ollama.service has exited."),
    ("kernel: [1728595.660950] traps: python3[213941] trap invalid opcode", "traps: python3[213941] trap invalid opcode"),
    ("(vLLMHttpServer pid=1) ERROR 04-07 12:12:08 [multiproc_executor.py:597] x() [repeated 2x across cluster]", "x()"),
    ("ERROR 2025-07-21 14:34:24.934 async_trtllm_engine_factory.py:62] Bfloat16 is only supported",
     "Bfloat16 is only supported"),
    # a cloud log viewer's severity and RFC 3339 time; Docker BuildKit's step timing and its error summary's timing
    ("ERROR 2026-06-15T14:10:59.392125190Z AssertionError: Committed KV cache already freed",
     "AssertionError: Committed KV cache already freed"),
    ("#11 1.374 Using CUDA architectures: 121", "Using CUDA architectures: 121"),
    ("2.272 CMake Error at ggml/src/ggml-cuda/CMakeLists.txt:65 (message):",
     "CMake Error at ggml/src/ggml-cuda/CMakeLists.txt:65 (message):"),
    ("0.5 of grep", "0.5 of grep"),  # a number that is no BuildKit time
    # a CI log view's gutter before its bracketed time (Buildkite's copied log); a table's bar before other text stays
    ("  | [2025-07-11T20:13:34Z] KeyError: 'enable_server_load_tracking'", "KeyError: 'enable_server_load_tracking'"),
    ("  | [note] text", "| [note] text"),
    # a JSON record a paste cut short: the whole line stays its text (an `error` field after `msg` is read too)
    ('{"level":"error","msg":"failed to load model","error":"CUDA error: out of memory","caller":"x.go:88","stack',
     '{"level":"error","msg":"failed to load model","error":"CUDA error: out of memory","caller":"x.go:88","stack'),
    ("plain text stays", "plain text stays"),
]


@pytest.mark.parametrize(("raw", "expected"), CASES)
def test_prefixes_are_stripped(raw: str, expected: str) -> None:
    assert parse_line(1, raw).text.strip() == expected


def test_blanks_after_a_ray_prefix_stay_unless_a_lost_colour_code_left_them() -> None:
    line = parse_line(1, "(RayWorkerWrapper pid=5085)     [worker.execute_method.remote(m) for worker in ws]")
    assert line.text == "    [worker.execute_method.remote(m) for worker in ws]" and line.process == "RayWorkerWrapper"
    assert parse_line(2, " 100: std::rt::lang_start").text.strip() == "100: std::rt::lang_start"  # a Rust frame


def test_a_launcher_task_label_is_the_line_s_stream() -> None:
    """Two tasks' lines under their labels are two streams (their tracebacks are read apart), with no engine
    prefix of their own; TensorRT-LLM's `[RANK n]` gives the rank."""
    a, b = parse_line(1, "0: Traceback (most recent call last):"), parse_line(2, "1: Traceback (most recent call last):")
    assert a.text == b.text == "Traceback (most recent call last):" and a.stream != b.stream
    line = parse_line(3, "[1,2]<stdout>:[11/22/2025-18:59:53] [TRT-LLM] [RANK 2] [E] boom")
    assert (line.text, line.level, line.rank) == ("boom", "ERROR", 2)


def test_a_viewer_s_severity_is_the_stream_s_not_the_line_s() -> None:
    """A container's stderr is ERROR to the collector whatever it prints: the line's own level decides."""
    line = parse_line(1, "ERROR 2026-06-15T14:10:59.392125190Z [2026-06-15 14:10:59 TP7] Load weight end.")
    assert (line.text, line.level, line.ts) == ("Load weight end.", None, "2026-06-15T14:10:59.392125190Z")
    step = parse_line(2, "#11 ERROR: process \"/bin/sh -c cmake -B build\" did not complete successfully: exit code: 2")
    assert step.level == "ERROR" and step.text.startswith("process") and step.stream != parse_line(3, "x").stream


def test_a_level_tag_keeps_the_indentation_after_it() -> None:
    assert parse_line(1, '[warn]  File "/x.py", line 3, in f').text == '  File "/x.py", line 3, in f'


@pytest.mark.parametrize(
    ("text", "exception", "message"),
    [
        ("RuntimeError: boom", "RuntimeError", "boom"),
        ("torch.OutOfMemoryError: CUDA out of memory.", "torch.OutOfMemoryError", "CUDA out of memory."),
        ("huggingface_hub.utils._http.OfflineModeIsEnabled: Cannot reach", "huggingface_hub.utils._http.OfflineModeIsEnabled",
         "Cannot reach"),
        ("KeyError: 'qwen3_moe'", "KeyError", "'qwen3_moe'"),
        ("MemoryError", "MemoryError", ""),
        ("Error: ShardCannotStart", "Error", "ShardCannotStart"),
        ("ray.exceptions.RayTaskError(RuntimeError): ray::x", "ray.exceptions.RayTaskError", "ray::x"),
        ("Traceback (most recent call last):", None, "Traceback (most recent call last):"),
        ("Killed", None, "Killed"),
        ("Shard 0 failed to start", None, "Shard 0 failed to start"),
    ],
)
def test_split_exception(text: str, exception: str | None, message: str) -> None:
    assert split_exception(text) == (exception, message)


def test_last_component() -> None:
    assert last_component("torch.OutOfMemoryError") == "OutOfMemoryError"
    assert last_component("ray.exceptions.RayTaskError(RuntimeError)") == "RayTaskError"
    assert last_component(None) is None


@pytest.mark.parametrize(("raw", "level"), [
    ("[rank0]:[W520 00:55:14.796578616 ProcessGroupNCCL.cpp:1553] Warning: x", "WARNING"),
    ("2023-08-25 10:45:21,197 WARNING worker.py:2037 -- A worker died", "WARNING"),
    ('time=2024-07-04T22:08:23.991+08:00 level=ERROR source=server.go:1 msg="llama runner terminated"', "ERROR"),
    ('{"levelname": "ERROR", "message": "boom"}', "ERROR"),
    # a JSON record a paste cut short (no closing brace): its first level field (not one nested further on)
    ('{"timestamp":1699689763,"level":"WARNING","function":"server_params_parse","message":"Not compiled with GPU o',
     "WARNING"),
    ('{"level":"info","msg":"ok","extra":{"level":"error"', "INFO"),
    # a launcher's logger relogging its vLLM server's lines: the server's own header gives the level
    ("2025-08-13 04:39:39,837 - __main__ - INFO - ERROR 08-13 04:39:39 engine.py:400] CUDA error: x", "ERROR"),
    ("2025-08-13 04:39:39,318 - __main__ - ERROR - INFO 08-13 04:39:39 cuda.py:229] Using backend.", "INFO"),
    ("2025-08-13 04:39:39,318 - __main__ - INFO - WARNING: a word, not a child's header", "INFO"),
    ("2025-08-13 04:39:31,837 - m - INFO - (EngineCore_DP0 pid=1) ERROR 08-13 04:39:39 [core.py:7] x", "ERROR"),
    ("2025-08-13 04:39:39,318 - __main__ - INFO - Errors are counted", "INFO"),
    # a hosting platform's lower-case tag before each relayed line; the line's own level (an engine header, an
    # error-format row, logfmt, a JSON record) wins, and an info tag gives none
    ("[error]Please install vllm[audio] for audio support", "ERROR"),
    ("[warning]WARNING 10-09 08:58:51 [chat_utils.py:376] x is not supported", "WARNING"),
    ("[error]INFO 10-09 08:58:50 [chat_utils.py:473] a line on stderr", "INFO"),
    ('[info]time=2024-10-09T08:58:50Z level=ERROR source=server.go:12 msg="llama runner process has terminated"', "ERROR"),
    ("[info]E1009 08:58:51.123456 12345 file.cc:12] Check failed: x == y", "ERROR"),
    ('[info]{"level":"error","msg":"model load failed"}', "ERROR"),
    ("[info]torch.OutOfMemoryError: CUDA out of memory.", None),
])
def test_levels_come_from_the_header(raw: str, level: str | None) -> None:
    assert parse_line(1, raw).level == level


@pytest.mark.parametrize(("name", "ok"), [
    ("ShardCannotStart", True), ("BusFault", True), ("WorkerFailure", True), ("torch.OutOfMemoryError", True),
    ("huggingface_hub.errors.OfflineModeIsEnabled", True), ("RayTaskError(RuntimeError)", True),
    ("ExceptionGroup", True), ("Traceback", False), ("INFO", False), ("Shard", False), ("vllm.config", False),
])
def test_one_answer_to_is_this_an_exception(name: str, ok: bool) -> None:
    assert is_exception_name(name) is ok

def test_a_process_prefix_whose_opening_parenthesis_a_paste_cut_is_still_the_prefix() -> None:
    line = parse_line(1, "EngineCore_0 pid=1248800) ValueError: CUDAGraphMode.FULL is not supported with this backend")
    assert (line.process, line.pid, line.text) == (
        "EngineCore_0", 1248800, "ValueError: CUDAGraphMode.FULL is not supported with this backend")
    plain = parse_line(2, "worker pid=12 finished) ok")  # words that only look like one: no process
    assert plain.process is None and plain.text == "worker pid=12 finished) ok"
