"""Sample values for the `{}` placeholders of a template, chosen by the words around each."""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBERS = ("32", "6", "3", "7", "5", "12", "9")

# (words that may precede the placeholder, sample value); the first table whose word is among the last two
# words before `{}` wins.
_BY_WORD: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"version", "versions", "ver", "v"}), "2.5.1"),
    (frozenset({"dir", "directory", "folder", "dirname", "root", "cache_dir", "local_dir", "workdir"}),
     "/models/Llama-3.1-8B-Instruct"),
    (frozenset({"path", "file", "filename", "files", "checkpoint", "ckpt", "location", "filepath", "gguf",
                "safetensors", "weights", "archive"}), "/models/Llama-3.1-8B-Instruct/model-00001-of-00004.safetensors"),
    (frozenset({"model", "repo", "repo_id", "model_id", "model_name", "repository", "revision_of", "adapter",
                "model_path"}), "meta-llama/Llama-3.1-8B-Instruct"),
    (frozenset({"named"}), "'flash_attn'"),  # Python's "No module named 'x'" quotes the name
    (frozenset({"module", "modules", "package", "packages", "library", "import", "extension"}), "flash_attn"),
    (frozenset({"dtype", "dtypes", "data_type", "datatype", "kv_cache_dtype", "precision"}), "torch.float16"),
    (frozenset({"port", "ports", "master_port"}), "29500"),
    (frozenset({"host", "hostname", "address", "addr", "ip", "master_addr", "endpoint", "url"}), "10.0.0.7"),
    (frozenset({"device", "devices", "gpu", "gpus"}), "cuda:0"),
    (frozenset({"backend", "backends", "attention_backend", "attn_backend"}), "FLASH_ATTN"),
    (frozenset({"model_type"}), "qwen3_next"),
    (frozenset({"architecture", "architectures", "arch", "class", "cls", "model_type", "model_class"}),
     "LlamaForCausalLM"),
    (frozenset({"method", "quantization", "quant_method", "quant", "scheme", "quantization_method"}), "fp8"),
    (frozenset({"shape", "shapes", "size_of", "sizes", "stride", "strides"}), "[4, 4096]"),
    (frozenset({"error", "err", "exception", "exc", "reason", "e", "message", "msg", "details", "because",
                "cause", "status", "what", "traceback"}), "see the log above"),
    (frozenset({"capability", "sm", "arch_version"}), "CAPABILITY"),
    (frozenset({"activation", "act", "act_fn", "hidden_act"}), "gelu_new"),
    (frozenset({"modality", "modalities"}), "audio"),
    (frozenset({"type", "types", "got_type"}), "<class 'list'>"),
    (frozenset({"layout", "kv_layout"}), "NHD"),
    (frozenset({"key", "keys", "weight", "weights_name", "tensor", "param", "parameter", "parameters", "prefix",
                "layer", "layers_name"}), "model.layers.0.mlp.gate_proj.weight"),
    (frozenset({"argument", "arguments", "arg", "option", "options", "flag", "setting"}), "--example-option"),
    (frozenset({"variable", "var", "env"}), "EXAMPLE_VAR"),
    (frozenset({"name", "names", "field", "attribute", "attr", "config", "value_of", "op", "operator", "mode",
                "format", "strategy", "policy", "kernel", "function", "func", "target", "variant", "parser",
                "token", "tokenizer", "task", "runner", "scheduler"}), "example_name"),
)
_MISSING_THING = re.compile(r"(?:not found|does not exist|doesn't exist|not exists|is missing|cannot open|"
                            r"could not open|failed to open|unable to open|cannot read|failed to read)\W{0,3}$", re.I)
_FILE_NOUNS = frozenset({"file", "files", "path", "dir", "directory", "folder", "config", "checkpoint", "weights",
                         "model", "index", "cache"})
_DIR_NOUNS = frozenset({"dir", "directory", "folder"})
_BY_PAIR = {"model type": "qwen3_next", "data type": "torch.float16", "quantization method": "fp8",
            "attention backend": "FLASH_ATTN", "device type": "cuda", "file type": "gguf", "model architecture":
            "LlamaForCausalLM", "tokenizer class": "LlamaTokenizerFast", "config class": "LlamaConfig",
            "chat template": "default", "model name": "meta-llama/Llama-3.1-8B-Instruct"}
_NUMBER_WORDS = frozenset({
    "size", "sizes", "len", "length", "num", "number", "count", "rank", "ranks", "dim", "dims", "dimension",
    "index", "idx", "id", "tokens", "blocks", "bytes", "heads", "layers", "world_size", "tp", "pp", "dp", "ep",
    "tp_size", "pp_size", "dp_size", "ep_size", "got", "of", "is", "be", "by", "than", "to", "and", "vs", "at",
    "least", "most", "max", "min", "limit", "code", "capacity", "batch", "step", "sm", "capability", "xid",
    "k", "n", "m", "d", "h", "w", "x", "q", "b", "t", "s", "page_size", "block_size", "head_dim", "num_heads",
    "hidden_size", "num_experts", "experts", "topk", "ndim", "nheads", "group_size", "width", "pid", "gib",
    "mib", "gb", "mb", "seconds", "timeout", "retries", "attempts", "ratio", "stage", "expected", "have", "has",
    "are", "with", "for", "only", "requested", "received", "after", "total", "free", "used", "available",
})


def _value_for(before: str, after: str, n_numbers: int, project: str) -> tuple[str, bool]:
    """A sample value for one `{}` from the text around it; (value, is_number)."""
    words = [w.lower() for w in _WORD.findall(before[-48:])]
    last = words[-2:]
    quoted = before.endswith(("'", '"', "`"))
    if not before.strip() and after.startswith(":") and project in ("llamacpp", "lmdeploy", "nccl"):
        return "llama_model_load", False  # llama.cpp's LOG_ERR("%s: ...", __func__)
    if before.endswith(("sm_", "sm", "SM", "SM_")):
        return ("9" if after == "" else "90"), True  # `SM{}{}` (major, minor) -> SM90
    if after.startswith(("GiB", " GiB", "MiB", " MiB", " GB", "GB", " bytes", "%", " MB", "MB")):
        return "1.5" if "iB" in after[:5] or "GB" in after[:4] else _NUMBERS[n_numbers % len(_NUMBERS)], True
    if after.startswith((".json", ".py", ".so", ".bin", ".safetensors", ".gguf", ".h", ".cu", ".yaml")):
        return "model", False
    if _MISSING_THING.search(before) and _FILE_NOUNS & set(words[-6:]):
        # "Config file not found: {}", "checkpoint path does not exist: {}": the thing is a path
        return ("/models/Llama-3.1-8B-Instruct" if _DIR_NOUNS & set(words[-6:])
                else "/models/Llama-3.1-8B-Instruct/config.json"), False
    pair = " ".join(last)
    if pair in _BY_PAIR:
        return _BY_PAIR[pair], False
    for word in reversed(last):
        for keys, value in _BY_WORD:
            if word in keys:
                if value == "CAPABILITY":
                    return ("90", "80")[n_numbers % 2], True
                return value, False
    if quoted or after.startswith(("'", '"', "`")):
        return "example_name", False
    if before.endswith(("/", "\\")):
        return "model.safetensors", False
    if (not words or words[-1] in _NUMBER_WORDS or before.rstrip().endswith(("=", ":", "(", "[", "<", ">", "*",
                                                                              "+", "-", "x", ","))):
        return _NUMBERS[n_numbers % len(_NUMBERS)], True
    return "default", False


def fill(template: str, project: str = "") -> str:
    """The template with every `{}` replaced by a sample value chosen from the words around it."""
    parts = template.split("{}")
    if len(parts) == 1:
        return template
    out = [parts[0]]
    n_numbers = 0
    for i, after in enumerate(parts[1:]):
        before = "".join(out)[-60:]
        if i > 0 and parts[i] == "" and before[-1:].isdigit():
            value, is_number = "0", True  # a placeholder glued to a number: `{}.{}` minor, `SM{}{}`
        else:
            value, is_number = _value_for(before, after, n_numbers, project)
        n_numbers += is_number
        out.append(value)
        out.append(after)
    return "".join(out)
