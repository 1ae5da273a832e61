"""Every way one inventory message is written in a log: an error line with its project's prefix and, for a
Python `raise` / `assert`, the last line of a small traceback."""

from __future__ import annotations

import re

from crashdoc.evaluate.coverage.model import Message
from crashdoc.evaluate.coverage.samples import fill

_PY_EXC = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# C++ exception types and Rust error types as Python sees them (pybind11 / torch / pyo3 translation)
_CPP_TO_PY = {"runtime_error": "RuntimeError", "invalid_argument": "ValueError", "value_error": "ValueError",
              "type_error": "TypeError", "out_of_range": "IndexError", "index_error": "IndexError",
              "logic_error": "RuntimeError", "TllmException": "RuntimeError", "Error": "RuntimeError",
              "c10::Error": "RuntimeError", "_error": "RuntimeError", "NotImplementedError": "NotImplementedError"}
_PY_KINDS = frozenset({"raise", "assert"})
_LIBRARY_PROJECTS = frozenset({"flashinfer", "torch", "transformers", "huggingface_hub", "safetensors", "triton",
                               "xformers"})
_TS_VLLM = "12-01 10:00:00"
_TS_ISO = "2024-12-01T10:00:00.000000Z"


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1] or "main.py"


def _exception_name(msg: Message) -> str | None:
    """The exception type a Python log would print for this message, or None."""
    exc = msg.exception
    if msg.kind == "assert" and msg.file.endswith(".py"):
        return exc or "AssertionError"
    if msg.kind == "panic" and msg.project == "safetensors":
        return "PanicException"
    if not exc:
        if msg.kind in ("check", "throw") and msg.project in ("vllm", "sglang", "flashinfer", "xformers", "torch",
                                                                "lmdeploy"):
            return "RuntimeError"  # TORCH_CHECK / TVM_FFI_ICHECK surface as RuntimeError in Python
        return None
    if "::" in exc:  # Rust `SafetensorError::new_err`, TGI's `LauncherError::ArgumentValidation`, C++ `c10::Error`
        head, _, tail = exc.partition("::")
        if msg.project == "tgi":
            return None  # a Rust error of the launcher / router: logged as a line, not raised in Python
        exc = head if msg.project == "safetensors" else tail
    exc = _CPP_TO_PY.get(exc, exc)
    return exc if _PY_EXC.match(exc) else None


def _package_path(file: str) -> str:
    for lead in ("bindings/python/py_src/", "python/", "server/", "src/"):
        if file.startswith(lead):
            return file[len(lead):]
    return file


def _traceback(msg: Message, exc: str, text: str) -> str:
    path = f"/usr/local/lib/python3.12/site-packages/{_package_path(msg.file)}"
    stmt = "assert" if msg.kind == "assert" else f"raise {exc}(...)"
    return ("Traceback (most recent call last):\n"
            f'  File "{path}", line {msg.line or 1}, in load\n'
            f"    {stmt}\n"
            f"{exc}: {text}\n")


def _error_line(msg: Message, exc: str | None, text: str) -> str:
    """The message as one error line with the prefix its project writes."""
    body = f"{exc}: {text}" if exc else text
    base, line = _basename(msg.file), msg.line or 1
    p = msg.project
    native = msg.file.endswith((".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".c", ".m", ".mm"))
    if p == "cuda":
        return _cuda_line(msg, text)
    if p == "vllm" or p in _LIBRARY_PROJECTS and not (p == "torch" and native and exc is None):
        return f"(EngineCore_DP0 pid=4242) ERROR {_TS_VLLM} [{base}:{line}] {body}"
    if p == "torch":  # c10 / ProcessGroupNCCL C++ logging
        return f"[rank0]:[E1201 10:00:00.000000000 {base}:{line}] {body}"
    if p == "sglang":
        return f"[2024-12-01 10:00:00 TP0] {body}"
    if p == "tgi":
        return f"{_TS_ISO} ERROR text_generation_launcher: {body}"
    if p == "lmdeploy":
        if native:
            return f"[TM][ERROR] {body}"
        return f"2024-12-01 10:00:00,000 - lmdeploy - ERROR - {base}:{line} - {body}"
    if p == "tritonserver":
        return f"E1201 10:00:00.000000 1 {base}:{line}] {body}"
    if p == "nccl":
        if msg.kind == "warn":
            return f"gpu7:4242:4242 [0] NCCL WARN {text}"
        return text
    if p == "ollama":
        quoted = text.replace("\\", "\\\\").replace('"', '\\"')
        return f'time=2024-12-01T10:00:00.000Z level=ERROR source={base}:{line} msg="{quoted}"'
    if p == "llamacpp":
        if msg.kind in ("assert", "abort"):
            return f"/app/{msg.file}:{line}: {text}"
        if msg.kind == "throw" and msg.file == "common/arg.cpp":
            # common_params_parse prints what() of the argument parser's exceptions: an option's handler's
            # exception wrapped as `error while handling argument "<flag>": <what>` (+ the option's usage), the
            # parser's own (`error: invalid argument: <flag>`) bare
            if text.startswith("error: invalid argument"):
                return text
            return f'error while handling argument "--ctx-size": {text}\n\nusage:\n-c, --ctx-size N'
        if msg.kind == "throw" and msg.file.startswith("src/"):
            return f"llama_model_load: error loading model: {text}"
        return text
    return body


def _cuda_line(msg: Message, text: str) -> str:
    if msg.kind == "cuda_error" or msg.kind == "wrapper":
        return f"RuntimeError: CUDA error: {text}" if msg.kind == "cuda_error" else f"RuntimeError: {text}"
    if msg.kind == "cublas_status":
        return f"RuntimeError: CUDA error: {msg.exception} when calling `cublasCreate(handle)`: {text}"
    if msg.kind == "nccl_result":
        return ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                f"ProcessGroupNCCL.cpp:1970, {text}, NCCL version 2.21.5")
    return f"kernel: {text}"


def _xid_text(msg: Message, row_name: str | None) -> str:
    return msg.template.replace("{}", "PCI:0000:3b:00", 1).replace("{}", f"pid=4242, name=python3, {row_name or 'GPU error'}", 1)


def renderings(msg: Message, xid_name: str | None = None) -> tuple[str, ...]:
    """Every way this message is written in a log: an error line and, for Python raise/assert, a traceback."""
    text = _xid_text(msg, xid_name) if msg.kind == "xid" else fill(msg.template, msg.project)
    exc = _exception_name(msg)
    out = [_error_line(msg, exc, text)]
    if exc and msg.kind in _PY_KINDS and msg.file.endswith(".py"):
        out.append(_traceback(msg, exc, text))
    return tuple(out)
