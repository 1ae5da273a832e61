"""A healthy log has no root cause, whatever its requests quote and whatever warnings a rule knows."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_cli

HEALTHY = (
    "(APIServer pid=1) INFO 11-24 06:07:00 [api_server.py:1] vLLM API server version 0.11.0\n"
    "(APIServer pid=1) WARNING 11-24 06:07:40 [serving_chat.py:142] Chat template kwargs {'enable_thinking'} are "
    "not supported by the model and will be ignored\n"
    "(APIServer pid=1) INFO 11-24 06:09:13 [logger.py:43] Received request chatcmpl-1: prompt: 'why does this fail?"
    "\\nTraceback (most recent call last):\\n  File \"x.py\", line 1, in <module>\\nModuleNotFoundError: No module "
    "named \\'foo\\'\\n', params: SamplingParams(n=1)\n"
    "(APIServer pid=1) INFO:     127.0.0.1:5000 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n"
)


def test_a_healthy_log_with_quoted_tracebacks_and_known_warnings_has_no_root_cause(tmp_path: Path) -> None:
    log = tmp_path / "healthy.log"
    log.write_text(HEALTHY)
    r = run_cli("diagnose", str(log), "--format", "json")
    assert r.status == 3 and r.json["root_cause"] is None, r.json["root_cause"]


def test_the_same_warning_explains_a_crash_when_something_failed(tmp_path: Path) -> None:
    log = tmp_path / "crash.log"
    log.write_text(HEALTHY + "(APIServer pid=1) ERROR 11-24 06:10:00 [core_client.py:564] RuntimeError: Engine core "
                   "initialization failed. See root cause above. Failed core proc(s): {}\n")
    r = run_cli("diagnose", str(log), "--format", "json")
    assert r.json["root_cause"] is not None
