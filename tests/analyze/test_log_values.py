"""Fix commands completed with values from elsewhere in the log (analyze/values.py): the engine and its version
from the start banner, the model from the logged arguments, the engine's own upgrade command; through the
real pipeline, the packaged rules and the capture safety filter."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from crashdoc.analyze.values import LogValues
from crashdoc.investigate import diagnose_stream
from crashdoc.kb import KnowledgeBase
from crashdoc.model import Diagnosis

BANNER = "INFO 06-13 11:40:00 api_server.py:149] vLLM API server version 0.5.0.post1\n"
ARGS = ("INFO 06-13 11:40:00 api_server.py:150] args: Namespace(host=None, port=8000, "
        "model='meta-llama/Llama-2-7b-hf', dtype='auto')\n")
UNDEFINED = ("WARNING 06-13 11:42:20 _custom_ops.py:11] Failed to import from vllm._C with ImportError('/usr/local/"
             "lib/python3.8/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN5torch7LibraryC1ENS0_4KindE')\n")
NAME_ERROR = "NameError: name 'helper' is not defined (/opt/venv/lib/python3.11/site-packages/vllm/engine/arg_utils.py)\n"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _diag(text: str, kb: KnowledgeBase) -> Diagnosis:
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test", kb=kb)  # type: ignore[arg-type]


def _command(text: str, kb: KnowledgeBase) -> str | None:
    root = _diag(text, kb).root_cause
    assert root is not None
    return root.fix.command


def test_the_banner_version_pins_the_engine_release_the_host_runs(kb: KnowledgeBase) -> None:
    assert _command(BANNER + ARGS + UNDEFINED, kb) == "pip install vllm==0.5.0.post1"
    # no banner: the look, not a guess
    assert _command(UNDEFINED, kb) == "pip show vllm torch"


def test_an_engine_extension_with_an_undefined_symbol(kb: KnowledgeBase) -> None:
    err = ("ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-gnu.so: undefined "
           "symbol: _ZN2at4_ops15to_dtype_layout4callERKNS_6TensorE\n")
    assert _command(BANNER + err, kb) == "pip install vllm==0.5.0.post1"
    assert (_command(err, kb) or "").startswith("pip list")  # the release is not known: the look
    other = err.replace("dist-packages/vllm/_C", "dist-packages/somekernels/_ops")
    assert (_command(BANNER + other, kb) or "").startswith("pip list")  # not the engine's own extension


def test_a_value_printed_after_the_error_counts_too(kb: KnowledgeBase) -> None:
    assert _command(UNDEFINED + BANNER, kb) == "pip install vllm==0.5.0.post1"


def test_a_modified_install_is_reinstalled_at_the_same_release(kb: KnowledgeBase) -> None:
    root = _diag(BANNER + NAME_ERROR, kb).root_cause
    assert root is not None and root.category == "modified_install"
    assert root.fix.command == "pip install --force-reinstall --no-deps vllm==0.5.0.post1"
    root = _diag(NAME_ERROR, kb).root_cause
    assert root is not None and root.fix.command == "pip install --force-reinstall --no-deps vllm"


def test_the_upgrade_command_is_the_engines_own(kb: KnowledgeBase) -> None:
    lmdeploy = ("2024-06-27 11:10:22,420 - lmdeploy - ERROR - AttributeError: 'LlavaNextConfig' object has no "
                "attribute 'hidden_size'\n")
    assert _command(lmdeploy, kb) == "pip install --upgrade lmdeploy"
    ollama = ("llama_model_load: error loading model: done_getting_tensors: wrong number of tensors; expected 724, "
              "got 723\n"
              'time=2024-10-18T16:54:33.575Z level=ERROR source=sched.go:344 msg="error loading llama server" '
              'error="llama runner process has terminated: signal: aborted (core dumped) "\n')
    assert _command(ollama, kb) == "curl -fsSL https://ollama.com/install.sh | sh"
    # no engine in the log: no upgrade command is made up
    assert _command(ollama.splitlines()[0] + "\n", kb) is None


def test_log_values_banner_signs_and_model() -> None:
    v = LogValues()
    for line in ('  File "/usr/lib/python3/site-packages/vllm/worker.py", line 3, in f',
                 '  File "/usr/lib/python3/site-packages/sglang/srt/server.py", line 9, in g',
                 "[2025-01-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2-7B', tp_size=1)"):
        v.feed(line)
    assert v.engine() == "sglang"  # SGLang imports vLLM's code: the engine that runs is SGLang
    assert v.captures() == {"engine": "sglang", "model": "Qwen/Qwen2-7B"}
    v.feed("INFO 01-01 vLLM API server version 0.6.3")  # a banner names the engine outright
    assert v.engine() == "vllm" and v.captures()["engine_version"] == "0.6.3"


def test_a_model_value_goes_through_the_capture_filter(tmp_path: Path) -> None:
    (tmp_path / "model_files").mkdir()
    (tmp_path / "model_files" / "test-gated.yaml").write_text(
        "id: test-gated\ncategory: model_files\nrole: cause\npriority: 99\n"
        "match:\n  regex: 'TestGatedError: access denied'\n"
        "explanation: A test rule.\n"
        "fix:\n  text: Log in, then fetch the model.\n  command: huggingface-cli download {model}\n"
        "examples:\n  - match: |\n      TestGatedError: access denied\n  - no-match: |\n      access granted\n",
        encoding="utf-8")
    kb = KnowledgeBase.load(extra_dirs=(tmp_path,))
    err = "ERROR 01-01 10:00:00 loader.py:1] TestGatedError: access denied\n"
    good = "INFO 01-01 10:00:00 api_server.py:1] non-default args: {'model': 'org/model-7b', 'port': 8000}\n"
    assert _command(good + err, kb) == "huggingface-cli download org/model-7b"
    evil = "INFO 01-01 10:00:00 api_server.py:1] non-default args: {'model': 'x;rm -rf ~', 'port': 8000}\n"
    assert _command(evil + err, kb) is None
