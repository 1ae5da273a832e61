"""The incident memory through the command: `diagnose docker:NAME` records and says "seen before" (terminal
and JSON, validated against the schema), `--no-history`, plain files are not recorded, a damaged file is a
`skipped` entry, and `crashdoc history` lists what is kept.

The container is answered by a stand-in `docker` executable on PATH that prints real recorded `docker
inspect` and `docker logs --timestamps` output (tests/sources/assets), through crashdoc's real LocalRunner."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import jsonschema
import pytest

from crashdoc.history import Memory
from crashdoc.model import Diagnosis, Finding, Fix
from crashdoc.report.json import schema_text
from tests.support.cli import run_cli

ASSETS = Path(__file__).resolve().parents[1] / "sources" / "assets"
FINGERPRINT = "container:oom-killer"
FIX = "docker update --memory 32g vllm"

DOCKER = f"""#!{sys.executable}
import sys, pathlib
assets = pathlib.Path({str(ASSETS)!r})
verb = sys.argv[1:2]
if verb == ["inspect"]:
    sys.stdout.write((assets / "docker-inspect-vllm-oom.json").read_text())
elif verb == ["logs"]:
    sys.stdout.buffer.write((assets / "vllm-oom.stdout").read_bytes())
    sys.stderr.buffer.write((assets / "vllm-oom.stderr").read_bytes())
else:
    sys.exit(125)
"""


@pytest.fixture
def docker(tmp_path: Path) -> dict[str, str]:
    """PATH with the stand-in docker first."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker").write_text(DOCKER)
    (bin_dir / "docker").chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}


def _earlier_fix_on(host: str) -> None:
    """What `crashdoc fix` on another host left in the memory: the same root cause, fixed and verified."""
    rc = Finding(line="", lineno=0, exception=None, message="OOMKilled by the container's 16 GiB limit (exit 137)",
                 category="host_resources", fix=Fix("raise the limit", FIX), fingerprint=FINGERPRINT)
    with Memory() as memory:
        history = memory.record_diagnosis(Diagnosis("docker container vllm on node-03", rc, (rc,)), host=host,
                                          unit="docker:vllm")
        assert history is not None and history.incident is not None
        fix = memory.start_fix(history.incident, FIX)
        memory.log_command(fix, FIX, 0)
        memory.record_verdict(fix, "fixed", "ready again")


def test_diagnose_says_seen_before_on_another_host(docker: dict[str, str], state_dir: Path) -> None:
    _earlier_fix_on("node-03")
    out = run_cli("diagnose", "docker:vllm", "--format", "json", env=docker)
    assert out.status == 0, out.stderr
    doc = out.json
    jsonschema.validate(doc, json.loads(schema_text()))
    history = doc["history"]
    assert history["fingerprint"] == FINGERPRINT and history["total"] == 1
    assert history["summary"].startswith("seen before: node-03 (docker:vllm), ")
    assert history["summary"].endswith(f"fixed by `{FIX}` (verified)")
    assert history["seen_before"][0]["verdict"] == "fixed"
    text = run_cli("diagnose", "docker:vllm", "--width", "200", env=docker)
    [line] = [ln for ln in text.stdout.splitlines() if ln.startswith("History")]
    assert "seen before: node-03 (docker:vllm)" in line and "(verified)" in line
    listed = run_cli("history", "vllm", "--format", "json")
    incidents = listed.json["incidents"]
    assert [i["host"] for i in incidents][-1] == "node-03" and len(incidents) == 2
    assert incidents[0]["diagnoses"] == 2            # diagnosed twice here: one incident
    assert incidents[1]["fixes"][0]["commands"] == [FIX]
    words = run_cli("history", "--host", "node-03").stdout.splitlines()
    assert words[0].startswith("#1 ") and "node-03 docker:vllm [host_resources]" in words[0]
    assert words[1] == f"    fix {words[0][3:23]}: {FIX} -> fixed (verified) (ready again)"


def test_no_history_and_plain_files_record_nothing(docker: dict[str, str], state_dir: Path,
                                                   repo_root: Path) -> None:
    out = run_cli("diagnose", "docker:vllm", "--format", "json", "--no-history", env=docker)
    assert out.status == 0 and "history" not in out.json
    log = run_cli("diagnose", str(repo_root / "examples" / "founding-case.log"), "--format", "json")
    assert log.status == 0 and "history" not in log.json
    assert not (state_dir / "history.db").exists()
    assert run_cli("history").stdout.startswith("no incidents recorded in ")


def test_a_damaged_memory_is_skipped_not_a_crash(docker: dict[str, str], state_dir: Path) -> None:
    (state_dir / "history.db").write_bytes(b"\0garbage" * 1000)
    out = run_cli("diagnose", "docker:vllm", "--format", "json", env=docker)
    assert out.status == 0, out.stderr
    [skip] = [s for s in out.json["skipped"] if s["what"] == "history"]
    assert "damaged" in skip["reason"] and "moved aside" in skip["reason"]
    assert out.json["history"]["incident"] == 1
    assert len(list(state_dir.glob("history.db.corrupt-*"))) == 1


def test_an_unusable_memory_is_skipped(docker: dict[str, str], tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    out = run_cli("diagnose", "docker:vllm", "--format", "json", env={**docker, "CRASHDOC_STATE_DIR": str(blocker)})
    assert out.status == 0, out.stderr
    [skip] = [s for s in out.json["skipped"] if s["what"] == "history"]
    assert skip["reason"].startswith("cannot create")
    listed = run_cli("history", env={"CRASHDOC_STATE_DIR": str(blocker / "x")})
    assert listed.status == 0
