"""Ranking and fixes on small real-shaped logs: what wins, what is folded, what the fix says."""

from __future__ import annotations

import io

from crashdoc.investigate import diagnose_stream


def diagnose(text: str):  # type: ignore[no-untyped-def]
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test")  # type: ignore[arg-type]


def test_fix_command_takes_the_python_version_from_the_lines_after_the_error() -> None:
    d = diagnose(
        "/tmp/tmpe6/cuda_utils.c:6:10: fatal error: Python.h: No such file or directory\n"
        "    6 | #include <Python.h>\n"
        "compilation terminated.\n"
        "/opt/venv/lib/python3.10/site-packages/triton/x.py:1: UserWarning: Triton fell back\n"
    )
    assert d.root_cause is not None and d.root_cause.fix.command == "apt-get install -y python3.10-dev"


def test_without_a_version_nearby_the_fallback_command_is_used() -> None:
    d = diagnose("/tmp/t/main.c:5:10: fatal error: Python.h: No such file or directory\ncompilation terminated.\n")
    assert d.root_cause is not None and d.root_cause.fix.command == "apt-get install -y python3-dev"


def test_wrapper_after_the_real_error_never_wins_and_copies_fold() -> None:
    rows = []
    for rank in range(4):
        p = f"(Worker_TP{rank} pid={100 + rank}) ERROR 11-30 09:00:00 [multiproc_executor.py:671] "
        rows += [f"{p}WorkerProc failed to start.", f"{p}Traceback (most recent call last):",
                 f'{p}  File "/v/vllm/v1/worker/gpu_worker.py", line 9, in init_device',
                 f"{p}RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"]
    e = "(EngineCore_DP0 pid=90) ERROR 11-30 09:00:01 [core.py:708] "
    rows += [f"{e}EngineCore failed to start.", f"{e}Traceback (most recent call last):",
             f'{e}  File "/v/vllm/v1/engine/core.py", line 1, in run',
             f"{e}Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.",
             "(APIServer pid=80) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"]
    d = diagnose("\n".join(rows) + "\n")
    rc = d.root_cause
    assert rc is not None and "NCCL error: unhandled system error" in rc.line
    assert rc.count == 4 and rc.ranks == (0, 1, 2, 3)
    assert rc.where.phase == "initialising devices and the distributed group"
    roles = {f.message.split(".")[0]: f.role for f in d.findings}
    assert roles["Engine core initialization failed"] == "consequence"


def test_an_earlier_unknown_error_loses_to_a_later_known_cause() -> None:
    d = diagnose(
        "ERROR 01-01 00:00:00 [x.py:1] Something odd happened in the scheduler\n"
        "Traceback (most recent call last):\n"
        '  File "/v/vllm/worker.py", line 3, in load_model\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB\n"
    )
    assert d.root_cause is not None and d.root_cause.category == "gpu_oom"
    assert d.root_cause.where.phase == "loading weights"


def test_identical_crash_loop_attempts_fold_into_one_summary() -> None:
    attempt = (
        "Nov 30 09:00:0{i} h systemd[1]: Started vllm.service - vLLM.\n"
        "Nov 30 09:00:0{i} h python3[1{i}]: ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (43520). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n"
        "Nov 30 09:00:0{i} h systemd[1]: vllm.service: Main process exited, code=exited, status=1/FAILURE\n"
        "Nov 30 09:00:0{i} h systemd[1]: vllm.service: Failed with result 'exit-code'.\n"
        "Nov 30 09:00:0{i} h systemd[1]: vllm.service: Scheduled restart job, restart counter is at {i}.\n"
    )
    d = diagnose("".join(attempt.format(i=i) for i in range(1, 7)))
    assert len(d.attempts) == 6 and d.summary == "all 6 attempts failed with the same error"
    assert all(a.outcome == "failed (exit 1)" for a in d.attempts)
    assert d.root_cause is not None and d.root_cause.category == "kv_cache_insufficient"


def test_no_traceback_kernel_oom_gets_a_finding() -> None:
    d = diagnose(
        "Nov 30 03:11:29 gpu kernel: python3 invoked oom-killer: gfp_mask=0x140dca, order=0, oom_score_adj=0\n"
        "Nov 30 03:11:29 gpu kernel: Out of memory: Killed process 90104 (python3) total-vm:132501840kB\n"
        "Nov 30 03:11:29 gpu systemd[1]: vllm.service: Main process exited, code=killed, status=9/KILL\n"
    )
    assert d.root_cause is not None and "Killed process 90104" in d.root_cause.line
    assert d.root_cause.category == "host_resources" and d.attempts[0].outcome == "killed (9/KILL)"


def test_classify_gets_a_bounded_window_of_a_long_error_line() -> None:
    """The analysis hands the rules the head and the tail of a very long error text, not all of it: a rule that
    names the error at the start still knows a 64 KiB line, and one that names the cause at its end too."""
    from crashdoc.analyze.pipeline import CLASSIFY_WINDOW, _Memo, window
    from crashdoc.kb.knowledge import KnowledgeBase

    filler = "x " * (32 << 10)
    head = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.50 GiB. " + filler
    assert len(window(head)) == 2 * CLASSIFY_WINDOW + 1 and window("short") == "short"
    memo = _Memo(KnowledgeBase.load())
    found = memo.classify(None, head, head)
    assert found is not None and found.category == "gpu_oom"  # type: ignore[attr-defined]
    tail = "RuntimeError: worker failed: " + filler + " torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    found = memo.classify(None, tail, tail)
    assert found is not None and found.category == "gpu_oom"  # type: ignore[attr-defined]
