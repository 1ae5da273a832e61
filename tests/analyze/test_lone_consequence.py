"""When only consequences are there: a consequence that means something on its own (`alone:` in its rule) is
reported as a low-confidence root cause in the category it implies; wrappers that only point elsewhere are not."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_cli

ASSETS = Path(__file__).parent / "assets"


def test_a_lone_watchdog_timeout_is_a_collective_hang() -> None:
    r = run_cli("diagnose", str(ASSETS / "torch.lone-watchdog-timeout.log"), "--format", "json")
    assert r.status == 0
    rc = r.json["root_cause"]
    assert "Watchdog caught collective operation timeout" in rc["line"]
    assert rc["category"] == "nccl_distributed" and rc["confidence"] == "low" and rc["role"] == "consequence"
    assert "collective hang" in rc["fix"]["text"]


def test_a_child_that_died_without_a_word_was_killed_from_outside(tmp_path: Path) -> None:
    log = tmp_path / "died.log"
    log.write_text("(APIServer pid=2245) INFO 11-30 09:15:00 [api_server.py:1] vLLM API server version 0.11.0\n"
                   "(APIServer pid=2245) ERROR 11-30 09:15:59 [core_client.py:564] Engine core proc EngineCore_DP0 "
                   "died unexpectedly, shutting down client.\n")
    rc = run_cli("diagnose", str(log), "--format", "json").json["root_cause"]
    assert rc["category"] == "host_resources" and rc["confidence"] == "low"
    assert "OOM killer" in rc["fix"]["text"]


def test_the_dying_process_own_error_wins(tmp_path: Path) -> None:
    log = tmp_path / "died-after-error.log"
    log.write_text("(EngineCore_DP0 pid=2300) ERROR 11-30 09:15:58 [core.py:708] ValueError: QX77 bad shard map\n"
                   "(APIServer pid=2245) ERROR 11-30 09:15:59 [core_client.py:564] Engine core proc EngineCore_DP0 "
                   "died unexpectedly, shutting down client.\n")
    rc = run_cli("diagnose", str(log), "--format", "json").json["root_cause"]
    assert "QX77 bad shard map" in rc["line"] and rc["role"] != "consequence"


def test_a_wrapper_that_only_points_elsewhere_stays_no_root_cause(tmp_path: Path) -> None:
    log = tmp_path / "wrapper.log"
    log.write_text("(APIServer pid=1) ERROR 11-30 09:15:59 [core.py:1] RuntimeError: Engine core initialization "
                   "failed. See root cause above. Failed core proc(s): {}\n")
    r = run_cli("diagnose", str(log), "--format", "json")
    assert r.json["root_cause"] is None and r.status == 3
