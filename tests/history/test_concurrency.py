"""A fleet's crashdoc runs write to one incident memory at once: separate processes, started together on a
file none of them has created yet, each recording diagnoses and fixes; every write lands, none fails."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from crashdoc.history import Memory

WORKERS = 6
EACH = 40

WRITER = r"""
import json, sys
from crashdoc.history import Memory
from crashdoc.model import Diagnosis, Finding, Fix

path, worker, each = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print("ready", flush=True)
sys.stdin.readline()                      # the start signal: every worker begins at once
done = 0
with Memory(path) as memory:
    for i in range(each):
        fp = f"fp{i % 5}"
        rc = Finding(line="E", lineno=1, exception="RuntimeError", message=f"boom {i}", category="other",
                     fix=Fix("x", "pip install x==1"), fingerprint=fp)
        history = memory.record_diagnosis(Diagnosis("unit u.service", rc, (rc,)), host=f"node-{worker:02d}",
                                          unit=f"u{i}.service")
        if i % 10 == 0:
            memory.record_verdict(memory.start_fix(history.incident, "pip install x==1"), "fixed")
        done += 1
print(json.dumps({"worker": worker, "done": done, "notes": memory.notes}), flush=True)
"""


def test_many_processes_write_at_once(tmp_path: Path) -> None:
    path = tmp_path / "state" / "history.db"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w), str(EACH)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(WORKERS)]
    for p in procs:                       # wait until each is up (imports done), then release them together
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert sorted(r["done"] for r in results) == [EACH] * WORKERS
    assert all(r["notes"] == [] for r in results)
    with Memory(path) as memory:
        incidents = memory.incidents(limit=10_000)
        assert len(incidents) == WORKERS * EACH
        assert sum(len(i.fixes) for i in incidents) == WORKERS * (EACH // 10)
        assert len({i.id for i in incidents}) == WORKERS * EACH
        history = memory.history_of("fp0")
        assert history.total == WORKERS * EACH // 5 and "(verified)" in history.summary
        check = memory.store.connection().execute("PRAGMA integrity_check").fetchone()[0]
    assert check == "ok"


def _release(procs: list[subprocess.Popen[str]]) -> list[dict[str, object]]:
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    out = []
    for p in procs:
        stdout, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def test_runs_that_find_the_same_damaged_file_set_it_aside_once(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    path.write_bytes(b"damaged by a full disk\n" * 200)
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w), "5"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(4)]
    results = _release(procs)
    assert sorted(r["done"] for r in results) == [5] * 4
    assert sum(len(r["notes"]) for r in results) == 1            # one of them moved it, the others found it new
    [aside] = tmp_path.glob("history.db.corrupt-*")
    assert aside.read_bytes().startswith(b"damaged by a full disk")
    with Memory(path) as memory:
        assert len(memory.incidents(limit=100)) == 20
