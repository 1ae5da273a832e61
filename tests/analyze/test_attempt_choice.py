"""Across attempts: the first failure is the root of a loop; a later, different error is named as its consequence.
Every root cause says how sure it is."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_cli

ASSETS = Path(__file__).parent / "assets"
START = "Nov 30 09:{m:02d}:00 gpu1 systemd[1]: Started vllm.service - vLLM.\n"
FAILED = ("Nov 30 09:{m:02d}:30 gpu1 systemd[1]: vllm.service: Main process exited, code=exited, status=1/FAILURE\n"
          "Nov 30 09:{m:02d}:31 gpu1 systemd[1]: vllm.service: Scheduled restart job, restart counter is at {m}.\n")


def _attempt(m: int, body: str) -> str:
    return START.format(m=m) + "".join(f"Nov 30 09:{m:02d}:10 gpu1 vllm[{m}00]: {ln}\n" for ln in body.splitlines()) + FAILED.format(m=m)


def _diagnose(tmp_path: Path, text: str) -> dict:
    log = tmp_path / "loop.log"
    log.write_text(text)
    r = run_cli("diagnose", str(log), "--format", "json")
    assert r.status == 0, r.stderr
    return r.json


def test_first_failure_wins_over_what_it_left_behind() -> None:
    r = run_cli("diagnose", str(ASSETS / "journal-short.first-failure-then-memory-held.log"), "--format", "json")
    d = r.json
    assert "QX77 bad shard map" in d["root_cause"]["line"] and d["root_cause"]["where"]["attempt"] == 1
    assert d["summary"].startswith("first failed at attempt 1 with this error; the later 2 attempts fail with")
    assert "Free memory on device" in d["summary"]


def test_a_weak_first_error_yields_to_a_known_cause_later(tmp_path: Path) -> None:
    # attempt 1 only prints an unknown error line (not decisive); attempt 2 names a known cause
    text = _attempt(1, "ERROR: something odd happened") + _attempt(2, (
        "Traceback (most recent call last):\n  File \"/x/vllm/entrypoints/api_server.py\", line 1, in <module>\n"
        "OSError: [Errno 98] Address already in use"))
    d = _diagnose(tmp_path, text)
    assert "Address already in use" in d["root_cause"]["line"] and d["root_cause"]["confidence"] == "high"


def test_same_error_everywhere_is_one_verdict(tmp_path: Path) -> None:
    body = "Traceback (most recent call last):\n  File \"/x/vllm/y.py\", line 1, in f\nValueError: QX77 bad shard map"
    d = _diagnose(tmp_path, "".join(_attempt(m, body) for m in (1, 2, 3)))
    assert d["summary"] == "all 3 attempts failed with the same error"


def test_confidence_levels_say_why(tmp_path: Path) -> None:
    unknown = _diagnose(tmp_path, _attempt(1, "Traceback (most recent call last):\n  File \"/x/a.py\", line 1, in f\n"
                                              "ZorbError: the flux capacitor is cold"))["root_cause"]
    assert unknown["confidence"] == "medium" and "no rule knows" in unknown["confidence_reason"]
    known = _diagnose(tmp_path, _attempt(1, "OSError: [Errno 98] Address already in use"))["root_cause"]
    assert known["confidence"] == "high" and known["rule"] in known["confidence_reason"]
