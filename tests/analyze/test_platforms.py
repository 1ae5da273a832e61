"""Verdicts on lines of other accelerators and of tools around the engine: AMD's errors get AMD's fix, a refused
request or a driver banner alone is no failure of the service, an install command echoed by a build is no
missing package, a wrapper quoting an error with quotes inside it yields to that error."""

from __future__ import annotations

from tests.parse.helpers import diagnose

_SERVING = ("INFO 12-19 10:21:00 api_server.py:727] Started server process [1]\n"
            'INFO:     10.0.0.7:51234 - "POST /v1/completions HTTP/1.1" 200 OK\n')


def test_amd_errors_get_amd_advice() -> None:
    d = diagnose("RuntimeError: HIP error: invalid device function\n")
    assert d.root_cause is not None and d.root_cause.category == "cuda_driver_mismatch"
    assert d.root_cause.fix.command == "rocminfo" and "HSA_OVERRIDE_GFX_VERSION" in d.root_cause.fix.text
    d = diagnose("Memory access fault by GPU node-1 (Agent handle: 0x55d1) on address 0x7f2c3a000000. Reason: Page not present or supervisor privilege.\n")
    assert d.root_cause is not None and d.root_cause.category == "engine_bug"
    assert "HIP_LAUNCH_BLOCKING" in d.root_cause.fix.text and "CUDA_LAUNCH_BLOCKING" not in d.root_cause.fix.text
    d = diagnose("RuntimeError: CUDA error: invalid device function\n")  # NVIDIA's words keep NVIDIA's advice
    assert d.root_cause is not None and "nvidia-smi" in (d.root_cause.fix.command or "")


def test_a_refused_request_logged_as_a_warning_is_no_failure_of_the_server() -> None:
    d = diagnose(_SERVING + "WARNING 12-19 10:21:05 scheduler.py:161] Input prompt (1217 tokens) is too long and "
                 "exceeds the capacity of block_manager\n" + _SERVING)
    assert d.root_cause is None


def test_the_ngc_driver_banner_alone_is_a_low_confidence_finding() -> None:
    banner = ("ERROR: This container was built for NVIDIA Driver Release 550.54 or later, but\n"
              "       version 535.161.08 was detected and compatibility mode is UNAVAILABLE.\n")
    d = diagnose(banner + "I1105 01:26:08.079242 1 server.cc:120] Initializing Triton Inference Server\n")
    assert d.root_cause is not None and d.root_cause.confidence == "low"
    assert d.root_cause.category == "cuda_driver_mismatch"
    d = diagnose(banner + "RuntimeError: CUDA error: system has unsupported display driver / cuda driver combination\n")
    assert d.root_cause is not None and "unsupported display driver" in d.root_cause.line


def test_an_install_command_echoed_by_a_build_is_no_missing_package() -> None:
    for line in ("#8 [4/6] RUN pip install vllm==0.9.0", "Step 4/6 : RUN pip install vllm",
                 "Run pip install -r requirements.txt", "[notice] To update, run: pip install --upgrade pip",
                 "(ai) user@box ~/.venv $ pip install openllm"):
        assert diagnose(line + "\n").root_cause is None, line
    d = diagnose("ImportError: Please install bitsandbytes>=0.44.0 via `pip install bitsandbytes>=0.44.0`\n")
    assert d.root_cause is not None and d.root_cause.category in ("missing_dependency", "dependency_version_mismatch")


def test_a_raise_statement_that_lost_its_indentation_is_no_error_line() -> None:
    d = diagnose('File "/x/vllm/quantization/bitsandbytes.py", line 141, in __init__\n'
                 'raise ImportError("Please install bitsandbytes>=0.44.0 via "\n'
                 "ImportError: Please install bitsandbytes>=0.44.0 via `pip install bitsandbytes>=0.44.0` to use it.\n")
    assert d.root_cause is not None and d.root_cause.line.startswith("ImportError: Please install")


def test_a_wrapper_quoting_an_error_with_quotes_in_it_yields_to_that_error() -> None:
    d = diagnose("(EngineCore_DP0 pid=9) ERROR 11-19 12:54:26 [core.py:710] RuntimeError: Worker failed with error "
                 "'No module named 'flash_attn'', please check the stack trace above for the root cause\n")
    assert d.root_cause is not None and d.root_cause.category == "missing_dependency"


def test_a_quoted_error_whose_type_was_lost_matches_a_rule_that_names_types() -> None:
    """`str(e)` in `Worker failed with error '...'` has no exception type: a rule for `ValueError` with a regex that
    matches still applies to it, and a rule of types alone (no regex) does not."""
    head = "(EngineCore_DP0 pid=9) ERROR 11-19 12:54:26 [core.py:710] RuntimeError: Worker failed with error "
    d = diagnose(head + "'Unknown RoPE scaling type extended', please check the stack trace above for the root cause\n")
    assert d.root_cause is not None and d.root_cause.category == "model_config"
    d = diagnose(head + "'qx zz 77 whatever', please check the stack trace above for the root cause\n")
    assert d.root_cause is None


def test_a_line_cut_short_is_the_known_error_it_begins() -> None:
    """An excerpt or a terminal cut one rank's copy (`... Watchdog caught col`): the copy a rule knows is the
    evidence, not the earlier cut line that no rule knows; an unknown line that begins no known one stays."""
    cut = "[rank3]:[E1016 03:31:38.919469923 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught col\n"
    whole = ("[rank1]:[E1016 03:31:38.928019586 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE, NumelIn=19008, NumelOut=152064, "
             "Timeout(ms)=600000) ran for 600071 milliseconds before timing out.\n")
    d = diagnose(cut + whole)
    assert d.root_cause is not None and "collective operation timeout" in d.root_cause.line
    d = diagnose("[rank3]:[E1016 03:31:38.919 ProcessGroupNCCL.cpp:607] [Rank 3] qx zz failure of another kind\n" + whole)
    assert any("qx zz failure" in f.line for f in (d.root_cause, *d.findings) if f is not None)


def test_a_quoted_error_is_no_modified_install_for_naming_a_package_path() -> None:
    """The installed-package rules test the exception type (`type_required`): a quoted `str(e)` that only names a
    path under site-packages is not an edited install."""
    head = "(EngineCore_DP0 pid=9) ERROR 11-19 12:54:26 [core.py:710] RuntimeError: Worker failed with error "
    d = diagnose(head + "'[Errno 2] No such file or directory: '/usr/local/lib/python3.12/site-packages/triton/"
                 "backends/nvidia/bin/ptxas'', please check the stack trace above for the root cause\n")
    assert d.root_cause is None or d.root_cause.category != "modified_install"


def test_a_line_that_begins_a_plain_wrapper_is_not_folded_into_it() -> None:
    """Only a cause, or a consequence that means something alone, takes in a line cut short: an unknown error that
    begins a wrapper's line stays the finding."""
    line = "(EngineCore_DP0 pid=9) ERROR 11-19 12:54:26 [core.py:710] RuntimeError: Worker failed with error 'qx zz 77'"
    d = diagnose(line + "\n" + line + ", please check the stack trace above for the root cause\n")
    assert d.root_cause is not None and d.root_cause.lineno == 1
