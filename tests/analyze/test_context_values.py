"""Values a parser prints under its error (analyze/fixes.py `context_values`): clap's suggestion for an invalid
value, exported under the option's variable when the option is a switch (its value can only have come from the
environment); through the real pipeline and the packaged launcher rule."""

from __future__ import annotations

import io

import pytest

from crashdoc.investigate import diagnose_stream
from crashdoc.kb import KnowledgeBase


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _command(text: str, kb: KnowledgeBase) -> str | None:
    diag = diagnose_stream(io.BufferedReader(io.BytesIO(text.encode())), "t", kb=kb)  # type: ignore[arg-type]
    assert diag.root_cause is not None and diag.root_cause.rule == "launcher-argument-parse-error"
    return diag.root_cause.fix.command


def test_a_switch_with_a_wrong_value_is_exported_as_suggested(kb: KnowledgeBase) -> None:
    log = ("error: invalid value 'True' for '--disable-custom-kernels'\n  [possible values: true, false]\n\n"
           "  tip: a similar value exists: 'true'\n\nFor more information, try '--help'.\n")
    assert _command(log, kb) == "export DISABLE_CUSTOM_KERNELS=true"


def test_an_option_with_a_value_may_be_on_the_command_line(kb: KnowledgeBase) -> None:
    log = ("error: invalid value 'bitsandbytes-nf5' for '--quantize <QUANTIZE>'\n"
           "  [possible values: awq, eetq, gptq, bitsandbytes, bitsandbytes-nf4, bitsandbytes-fp4]\n\n"
           "  tip: a similar value exists: 'bitsandbytes-nf4'\n")
    assert _command(log, kb) is None


def test_no_suggestion_no_command(kb: KnowledgeBase) -> None:
    assert _command("error: invalid value 'yes' for '--disable-custom-kernels'\n  [possible values: true, false]\n",
                    kb) is None


def test_a_suggestion_is_log_text_and_filtered(kb: KnowledgeBase) -> None:
    log = ("error: invalid value 'x' for '--trust-remote-code'\n  [possible values: true, false]\n\n"
           "  tip: a similar value exists: '$(reboot)'\n")
    assert _command(log, kb) is None
