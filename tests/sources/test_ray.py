"""`crashdoc diagnose ray:DIR` on the session folders of a real local Ray (CPU only, one CPU): a task that
logs its traceback and raises (as vLLM's Ray worker wrapper does), an actor whose worker ends with
`os._exit`, and a task killed by Ray's own memory monitor (its threshold set just above this machine's memory
use, so a task growing by a few hundred MB crosses it). Each driver runs as a subprocess that writes the pids
of its workers and waits for the failures it causes; the cluster stops when the driver calls ray.shutdown(),
and the fixture ends whatever of its process group is left."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crashdoc.investigate.ray import diagnose_ray
from crashdoc.sources.ray import RayLogs, classify_file, ray_target
from tests.sources.conftest import validate
from tests.support.cli import run_cli

pytestmark = pytest.mark.slow

DRIVER = r'''
import json, logging, os, sys, threading
import ray

work, scenario = sys.argv[1], sys.argv[2]
ray.init(num_cpus=1, _temp_dir=os.path.join(work, "ray"), include_dashboard=False, logging_level=logging.WARNING)
out = {}

@ray.remote(max_retries=0)
def load_model(path):
    open(os.path.join(path, "task.pid"), "w").write(str(os.getpid()))
    try:
        raise OSError("/models/llama-3-8b does not appear to have a file named config.json. Checkout "
                      "https://huggingface.co//models/llama-3-8b/tree/None for available files.")
    except OSError:
        logging.getLogger("vllm.executor.ray_utils").exception(
            "Error executing method 'load_model'. This might cause deadlock in distributed execution.")
        raise

@ray.remote(max_restarts=0)
class Worker:
    def pid(self):
        return os.getpid()
    def die(self):
        os._exit(3)

@ray.remote(max_retries=0)
def grow(path):
    open(os.path.join(path, "hog.pid"), "w").write(str(os.getpid()))
    chunks = []
    for _ in range(64):  # up to 4 GiB, 64 MiB at a time: the memory monitor kills it well before
        chunk = bytearray(64 << 20)
        chunk[::4096] = b"\1" * len(chunk[::4096])
        chunks.append(chunk)
    threading.Event().wait()

def failure(ref):
    try:
        ray.get(ref, timeout=90)
    except Exception as exc:
        return type(exc).__name__
    return None

if scenario == "errors":
    out["task_error"] = failure(load_model.remote(work))
    out["task_pid"] = int(open(os.path.join(work, "task.pid")).read())
    w = Worker.remote()
    out["actor_pid"] = ray.get(w.pid.remote())
    out["actor_error"] = failure(w.die.remote())
else:
    out["hog_error"] = failure(grow.remote(work))
    out["hog_pid"] = int(open(os.path.join(work, "hog.pid")).read())
ray.shutdown()
print(json.dumps(out))
'''


def _mem_threshold() -> float | None:
    """A memory-monitor threshold about 600 MB above what this machine uses now (None: too little free)."""
    info = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        key, _, rest = line.partition(":")
        info[key] = int(rest.split()[0]) * 1024
    total, avail = info["MemTotal"], info.get("MemAvailable", info["MemFree"])
    if avail < (5 << 30):
        return None
    return (total - avail + (600 << 20)) / total


def _run_driver(scenario: str, env: dict[str, str]) -> tuple[dict[str, Any], Path]:
    work = Path(tempfile.mkdtemp(prefix="cdray"))  # short: Ray's socket paths live under it
    script = work / "driver.py"
    script.write_text(DRIVER)
    proc = subprocess.Popen([sys.executable, str(script), str(work), scenario], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, **env}, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=150)  # the driver returns once its failures came back
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the cluster's processes left in the driver's group, if any
        except ProcessLookupError:
            pass
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    return json.loads(out.decode().strip().splitlines()[-1]), work / "ray" / "session_latest" / "logs"


@pytest.fixture(scope="module")
def sessions() -> Iterator[dict[str, tuple[dict[str, Any], Path]]]:
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (pip install -e '.[test]' installs it)")
    done: dict[str, tuple[dict[str, Any], Path]] = {}
    try:
        done["errors"] = _run_driver("errors", {})
        threshold = _mem_threshold()
        if threshold is not None:
            done["memory"] = _run_driver("memory", {"RAY_memory_usage_threshold": f"{threshold:.4f}",
                                                    "RAY_memory_monitor_refresh_ms": "100"})
        yield done
    finally:
        for _, logs in done.values():
            shutil.rmtree(logs.parents[2], ignore_errors=True)


def _worker_err(logs: Path, pid: int) -> str:
    names = [p.name for p in logs.glob(f"worker-*-{pid}.err")]
    assert len(names) == 1, sorted(p.name for p in logs.iterdir())
    return names[0]


def test_the_task_error_is_the_root_cause_named_by_its_worker_file_and_pid(sessions: dict[str, Any]) -> None:
    facts, logs = sessions["errors"]
    assert facts["task_error"] in ("RayTaskError(OSError)", "RayTaskError")
    diag = diagnose_ray(str(logs))
    doc = validate(diag)
    rc = doc["root_cause"]
    assert rc["exception"] == "OSError" and "config.json" in rc["message"]
    assert rc["category"] == "model_files"
    assert rc["where"]["process"] == _worker_err(logs, facts["task_pid"])
    assert rc["where"]["pid"] == facts["task_pid"]


def test_the_actor_that_exited_is_a_finding_on_its_own_worker(sessions: dict[str, Any]) -> None:
    facts, logs = sessions["errors"]
    assert facts["actor_error"] == "ActorDiedError"
    doc = validate(diagnose_ray(str(logs)))
    died = [f for f in doc["findings"] if f["rule"] == "ray-worker-exit-unexpected"]
    assert died, [f["rule"] for f in doc["findings"]]
    assert died[0]["where"]["process"] == _worker_err(logs, facts["actor_pid"])
    assert died[0]["where"]["pid"] == facts["actor_pid"]
    exits = doc["ray"]["worker_exits"]
    assert {"exit_type": "SYSTEM_ERROR", "pid": facts["actor_pid"]}.items() <= next(
        e for e in exits if e["pid"] == facts["actor_pid"]).items()
    # Ray's notes about its optional dashboard packages are never the root cause
    assert "ray[default]" not in doc["root_cause"]["line"]


def test_a_memory_monitor_kill_names_the_killed_worker(sessions: dict[str, Any]) -> None:
    if "memory" not in sessions:
        pytest.skip("less than 5 GiB of memory available: the memory-monitor session did not run")
    facts, logs = sessions["memory"]
    assert facts["hog_error"] == "OutOfMemoryError"
    res = run_cli("diagnose", f"ray:{logs}", "--format", "json", "--no-history")
    assert res.status == 0, res.stderr
    doc = res.json
    rc = doc["root_cause"]
    assert (rc["rule"], rc["category"]) == ("ray-memory-monitor-kill", "host_resources")
    assert rc["where"]["pid"] == facts["hog_pid"]
    assert rc["where"]["process"] == _worker_err(logs, facts["hog_pid"])
    assert doc["ray"]["summary"].startswith("1 worker process; 1 ended abnormally (1 NODE_OUT_OF_MEMORY)")


def test_files_are_processes_and_a_folder_without_ray_logs_is_one_line(tmp_path: Path) -> None:
    f = classify_file(Path("worker-2612ded38e24fa62a78e833f62a53ed68e5c61a51010dc87fabc27ab-01000000-5454.err"))
    assert (f.role, f.pid, f.worker_id[:8] if f.worker_id else None) == ("worker", 5454, "2612ded3")
    assert classify_file(Path("python-core-driver-01000000ffffffffffffffff_5220.log")).pid == 5220
    assert classify_file(Path("raylet.out")).role == "raylet"
    assert ray_target("ray:") == "/tmp/ray/session_latest/logs" and ray_target("ray:/x/logs") == "/x/logs"
    assert ray_target("docker:x") is None
    (tmp_path / "notes.txt").write_text("hello\n")
    res = run_cli("diagnose", f"ray:{tmp_path}", "--no-history")
    assert res.status == 2 and "no Ray log files here" in res.stderr and res.stderr.count("\n") == 1
    res = run_cli("diagnose", f"ray:{tmp_path}/missing", "--no-history")
    assert res.status == 2 and "no such folder" in res.stderr
    assert RayLogs.__doc__
