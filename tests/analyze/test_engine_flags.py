"""Engine-aware fixes: a remedy the rules write as a vLLM flag is named in the engine's own words when the log
shows another engine (data/engine_flags.yaml), and a unit's fix says which line of the unit to edit."""

from __future__ import annotations

import io

import pytest

from crashdoc.analyze.values import engine_flag
from crashdoc.investigate import diagnose_stream
from crashdoc.investigate.interpreter import unit_edit, with_interpreter
from crashdoc.kb import KnowledgeBase
from crashdoc.model import Diagnosis

BF16 = ("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU "
        "has compute capability 7.5.\n")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _diag(text: str, kb: KnowledgeBase) -> Diagnosis:
    return diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "test", kb=kb)  # type: ignore[arg-type]


def test_a_flag_in_the_engines_own_words(kb: KnowledgeBase) -> None:
    vllm = _diag(BF16, kb).root_cause
    assert vllm is not None and vllm.fix.command == "--dtype half"
    tgi = _diag("2024-01-17T19:54:02.802338Z ERROR text_generation_launcher: Shard 0 failed to start\n" + BF16,
                kb).root_cause
    assert tgi is not None and tgi.fix.command == "--dtype float16"


def test_the_table_keeps_values_and_unknown_flags() -> None:
    assert engine_flag("--max-model-len 8192", "sglang") == "--context-length 8192"
    assert engine_flag("--max-model-len 8192", "tgi") == "--max-total-tokens 8192"
    assert engine_flag("--enforce-eager", "tgi") == "--cuda-graphs 0"
    assert engine_flag("--trust-remote-code", "sglang") == "--trust-remote-code"
    assert engine_flag("--max-model-lenx 1", "sglang") == "--max-model-lenx 1"  # a prefix is no match
    assert engine_flag("--max-model-len 8192", "vllm") == "--max-model-len 8192"


def test_a_units_fix_names_the_line_to_edit(kb: KnowledgeBase) -> None:
    diag = with_interpreter(_diag(BF16, kb), None, unit="vllm.service")
    assert diag.root_cause is not None and diag.root_cause.fix.command == "--dtype half"
    assert "add `--dtype half` to the ExecStart= line of vllm.service (`systemctl edit --full vllm.service`)" in \
        diag.root_cause.fix.text
    env = unit_edit("export NCCL_P2P_DISABLE=1", "vllm.service") or ""
    assert "`Environment=NCCL_P2P_DISABLE=1` under [Service]" in env and "daemon-reload" in env
    assert unit_edit("pip install vllm==0.6.4", "vllm.service") is None
