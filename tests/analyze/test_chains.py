"""Ranking principles inside chains and pairs (issue 10, item 5), each on a synthetic log written for it: an
ImportError is an optional-import probe only when its handler raises an unrelated error; a wrapper that states
the error it wraps yields to it; of two errors a few lines apart that name the same object, the earlier is the
cause; an exception without a message yields to an error line that says why."""

from __future__ import annotations

from tests.parse.helpers import diagnose

_PROBE = """Traceback (most recent call last):
  File "/srv/app/qx/ops.py", line 3, in <module>
    import qxkern
ModuleNotFoundError: No module named 'qxkern'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/app/qx/ops.py", line 5, in <module>
    raise {raised}
{last}
"""


def _root(text: str) -> tuple[str, str]:
    d = diagnose(text)
    assert d.root_cause is not None
    return d.root_cause.line, d.root_cause.category


def test_an_import_error_re_raised_as_an_import_error_is_the_cause() -> None:
    text = _PROBE.format(raised='ImportError("the fused kernels need qxkern")',
                         last="ImportError: the fused kernels need qxkern")
    assert _root(text) == ("ModuleNotFoundError: No module named 'qxkern'", "missing_dependency")


def test_a_handler_that_names_the_module_keeps_the_import_error_the_cause() -> None:
    text = _PROBE.format(raised='RuntimeError("Failed to load the qxkern kernels")',
                         last="RuntimeError: Failed to load the qxkern kernels")
    assert _root(text)[0] == "ModuleNotFoundError: No module named 'qxkern'"


def test_an_unrelated_error_raised_while_handling_an_import_probe_wins() -> None:
    text = _PROBE.format(raised='ValueError(f"{name}: bad shard map")', last="ValueError: QX77 bad shard map")
    assert _root(text)[0] == "ValueError: QX77 bad shard map"


def test_a_consequence_that_goes_on_to_state_why_yields_to_what_it_states() -> None:
    line, category = _root("Download encountered an error: MemoryError: Unable to allocate 2.00 GiB for an array\n"
                           "Error: DownloadError\n")
    assert line.startswith("Download encountered an error: MemoryError") and category == "host_resources"


def test_a_wrapper_that_quotes_the_error_yields_to_the_quoted_error() -> None:
    """vLLM's `Worker failed with error '<why>', please check the stack trace above`: the wrapper's rule
    captures the quoted part, and a cause rule on it wins; an unknown quoted text leaves only the wrapper."""
    head = "(EngineCore_DP0 pid=9) ERROR 11-19 12:54:26 [core.py:710] "
    line, category = _root(head + "RuntimeError: Worker failed with error 'LoRA rank 32 is greater than "
                           "max_lora_rank 16.', please check the stack trace above for the root cause\n")
    assert "LoRA rank 32" in line and category == "cli_config_error"
    d = diagnose(head + "RuntimeError: Worker failed with error 'qx zz 77', please check the stack trace above\n")
    assert d.root_cause is None


def test_an_unknown_wrapper_exception_yields_to_the_exception_it_embeds() -> None:
    text = ('Traceback (most recent call last):\n  File "/srv/app/run.py", line 9, in main\n    load()\n'
            "qx.errors.StageFailed: stage 'load' raised: MemoryError: Unable to allocate 8.00 GiB for an array\n")
    assert _root(text)[1] == "host_resources"


def test_a_wrapper_cause_rule_yields_only_to_an_embedded_rule_of_at_least_its_priority() -> None:
    text = ('Traceback (most recent call last):\n  File "/srv/app/run.py", line 12, in main\n    out = f(x)\n'
            "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised: MemoryError: out of host memory\n")
    assert _root(text)[1] == "kernel_compile_error"  # host-memory-error (45) is below torch-compile-failed (50)


def test_the_earlier_of_two_errors_naming_the_same_package_is_reported_with_the_later_ones_rule() -> None:
    line, category = _root(
        "importlib.metadata.PackageNotFoundError: qxkern\n"
        "Exception: qxkern with minimum required version 0.1.6 is not installed. Please reinstall the latest version.\n")
    assert line == "importlib.metadata.PackageNotFoundError: qxkern" and category == "dependency_version_mismatch"


def test_an_earlier_error_about_another_object_does_not_take_the_place() -> None:
    line, _ = _root(
        "importlib.metadata.PackageNotFoundError: zzother\n"
        "Exception: qxkern with minimum required version 0.1.6 is not installed. Please reinstall the latest version.\n")
    assert line.startswith("Exception: qxkern")


def test_a_bare_assertion_yields_to_the_error_line_that_says_why() -> None:
    line, _ = _root(
        "[03/27/2026-11:09:02] [TRT] [E] 6: The QX plan could not be loaded: expecting layout 7 got 9, please rebuild.\n"
        'Traceback (most recent call last):\n  File "/srv/app/runtime.py", line 176, in __init__\n'
        "    assert self.engine is not None\nAssertionError\n")
    assert "The QX plan could not be loaded" in line


def test_a_bare_assertion_alone_is_still_the_root() -> None:
    line, _ = _root('Traceback (most recent call last):\n  File "/srv/app/runtime.py", line 176, in __init__\n'
                    "    assert self.engine is not None\nAssertionError\n")
    assert line == "AssertionError"


def test_an_indented_check_failure_in_a_library_error_box_is_an_error() -> None:
    line, _ = _root("---------------------------------------------------------------\n"
                    "An error occurred during the execution of QX.\n"
                    "---------------------------------------------------------------\n"
                    "  Check failed: (fload.defined()) is false: QX runtime cannot find qx_load_module\n"
                    "Stack trace:\n"
                    '  File "/srv/qx/cpp/chat.cc", line 246\n')
    assert "Check failed" in line


def test_a_traceback_before_a_later_error_line_on_the_same_package_is_its_cause() -> None:
    line, category = _root(
        'Traceback (most recent call last):\n  File "/srv/app/qx/version.py", line 3, in check\n'
        '    v = importlib.metadata.version("qxkern")\nimportlib.metadata.PackageNotFoundError: qxkern\n\n'
        "2026-12-01 10:00:05 ERROR main: Exception: qxkern with minimum required version 0.1.6 is not installed.\n")
    assert line == "importlib.metadata.PackageNotFoundError: qxkern" and category == "dependency_version_mismatch"


_PYDANTIC = ("pydantic_core._pydantic_core.ValidationError: 1 validation error for QxConfig\nshard_layout\n"
             "  Value error, Unsupported shard layout: zigzag [type=value_error, input_value='zigzag', input_type=str]\n"
             "    For further information visit https://errors.pydantic.dev/2.10/v/value_error\n")


def test_a_validation_error_is_reported_at_the_line_that_states_it() -> None:
    assert "Unsupported shard layout: zigzag" in _root(_PYDANTIC)[0]
    tb = 'Traceback (most recent call last):\n  File "/srv/app/cfg.py", line 3, in load\n    QxConfig(**raw)\n'
    assert "Unsupported shard layout: zigzag" in _root(tb + _PYDANTIC)[0]


def test_an_error_quoted_as_its_repr_is_embedded_like_one_printed() -> None:
    """`... with ImportError('<why>')` (a wrapper logging `{e!r}`): the repr states the error as `Type: <why>`
    would; without the repr form the line stays the wrapper's own verdict."""
    head = "(EngineCore_DP0 pid=7) ERROR 01-01 00:00:00 [loader.py:12] Failed to load qxkern with "
    why = "dlopen(/srv/qx/build/qxkern.so, 0x0002): Symbol not found: __ZN3c104impl3qxEv"
    assert _root(head + f"ImportError('{why}')\n")[1] == "abi_mismatch"
    assert _root(head + f'ImportError("{why}")\n')[1] == "abi_mismatch"
    d = diagnose(head + f"ImportError <{why}>\n")
    assert d.root_cause is not None and d.root_cause.category == "abi_mismatch"  # the regex alone still knows it
    d = diagnose(head + "ImportError('qx zz 77 unknown words')\n")
    assert d.root_cause is None or d.root_cause.category != "abi_mismatch"


def test_a_warning_a_rule_knows_yields_to_the_error_it_quotes() -> None:
    """vLLM's `Failed to import from vllm._C with ImportError(...)` at WARNING: the extension rule (missing
    install) yields to the quoted loader error (built against another torch)."""
    text = ("WARNING 03-19 00:20:58 [_custom_ops.py:21] Failed to import from vllm._C with ImportError('dlopen("
            "/src/vllm/vllm/_C.abi3.so, 0x0002): Symbol not found: __ZNK3c1011StorageImpl5qxErrEv')\n"
            "ERROR 03-19 00:21:00 [engine.py:9] RuntimeError: qx stopped\n")
    d = diagnose(text)
    finding = next(f for f in d.findings if "_C.abi3.so" in f.line)
    assert finding.category == "abi_mismatch"


def test_a_traceback_cut_before_its_exception_line_is_a_failure_for_a_warning_hint() -> None:
    """A warning a rule knows explains a crash only when something failed: a traceback printed as a crash (no
    level, or an error level) counts even when the excerpt lost its last lines; one logged at INFO does not."""
    # (an extension's loader error logged as a warning: vLLM's own `Failed to import from vllm._C` warning is a
    # cause at any level, so it is not the hint here)
    hint = ("WARNING 03-19 00:20:58 [loader.py:21] Failed to load qxkern: dlopen(/src/qx/qxkern.abi3.so, 0x0002): "
            "Symbol not found: __ZNK3c1011StorageImpl5qxErrEv\n")
    cut = ('Traceback (most recent call last):\n  File "<frozen runpy>", line 198, in _run_module_as_main\n'
           '  File "/src/vllm/vllm/entrypoints/cli/main.py", line 9, in main\n')
    assert _root(hint + "[rank0]: " + cut.replace("\n  ", "\n[rank0]:   "))[1] == "abi_mismatch"
    logged = "".join(f"INFO 03-19 00:21:00 [api.py:3] {ln}\n" for ln in cut.splitlines())
    d = diagnose(hint + logged)
    assert d.root_cause is None and any("no failure" in s.reason for s in d.skipped)
    # the same stream goes on to serve: the cut traceback did not end it
    d = diagnose(hint + cut + "INFO:     Application startup complete.\nINFO:     Uvicorn running on http://0.0.0.0:8000\n")
    assert d.root_cause is None


def test_a_child_crash_relayed_line_by_line_at_info_is_a_failure() -> None:
    """A launcher that relays its child's stderr through its own logger writes every line of the child's crash at
    its INFO level: a traceback whose header and frames open their messages is the crash; the same header quoted
    inside a request log's message is not."""
    child = ["Traceback (most recent call last):",
             '  File "/srv/env/lib/python3.11/site-packages/qxserve/configs/vl.py", line 51, in <module>',
             "    from transformers.models.mllama.image_processing_mllama import is_valid_list_of_images",
             "ImportError: cannot import name 'is_valid_list_of_images' from 'transformers.models.mllama."
             "image_processing_mllama' (/srv/env/lib/python3.11/site-packages/transformers/models/mllama/x.py)"]
    relayed = "".join(f"2025-03-05 14:07:59,305 - __main__ - INFO - {ln}\n" for ln in child)
    d = diagnose(relayed + "2025-03-05 14:08:04,305 - __main__ - INFO - server exited, restarting\n")
    assert d.root_cause is not None and "cannot import name 'is_valid_list_of_images'" in d.root_cause.line
    assert d.root_cause.category == "dependency_version_mismatch"
    quoted = ("2025-03-05 14:07:59,305 - api - INFO - Received request chat-1: prompt: 'why does my script print "
              "Traceback (most recent call last): File \"x.py\", line 3, in <module> ImportError: no'\n")
    assert diagnose(quoted).root_cause is None


def test_a_cut_traceback_whose_header_states_the_error_is_reported_at_the_header() -> None:
    """A wrapper that prints `{e}, {traceback}` states the error on the header's line: when the excerpt loses the
    exception line, the header (with what it states) is the report, not the last frame that survived."""
    text = ("(VllmWorkerProcess pid=110) ERROR 08-07 14:32:00 multiproc_worker_utils.py:226] Exception in worker "
            "VllmWorkerProcess while processing method start_worker_execution_loop: Attempted to assign 7 x 256 = "
            "1792 image tokens to 504 placeholders, Traceback (most recent call last):\n"
            '(VllmWorkerProcess pid=110) ERROR 08-07 14:32:00 multiproc_worker_utils.py:226]   File "/usr/lib/'
            'python3.10/site-packages/vllm/executor/multiproc_worker_utils.py", line 223, in _run_worker_process\n'
            "(VllmWorkerProcess pid=110) ERROR 08-07 14:32:00 multiproc_worker_utils.py:226]     output = "
            "executor(*args, **kwargs)\n")
    d = diagnose(text)
    assert d.root_cause is not None and "Attempted to assign 7 x 256" in d.root_cause.line
    assert d.root_cause.message == "Attempted to assign 7 x 256 = 1792 image tokens to 504 placeholders"
    # a header whose words only announce the traceback states nothing: its last frame stays the report
    bare = text.replace("start_worker_execution_loop: Attempted to assign 7 x 256 = 1792 image tokens to 504 "
                        "placeholders, ", "start_worker_execution_loop: ")
    d = diagnose(bare)
    assert d.root_cause is not None and "output = executor" in d.root_cause.line or "File " in d.root_cause.line
