#!/usr/bin/env python3
"""How long from a crash to the printed diagnosis: `crashdoc run`, `crashdoc watch --file`, `crashdoc watch UNIT`.

Each case is run N times with the vLLM stand-in server of tests/support/vllm_standin.py (API server, engine core and 4
worker processes; a worker fails with flashinfer's version check, hidden under two wrapper errors):

  run          `crashdoc run -- vllm_standin.py`: from the server's exit (it writes time.time() just before it
               exits) to the moment crashdoc's stderr shows the root cause line.
  watch-file   `crashdoc watch --file LOG`: the benchmark writes a recorded crash log into LOG at the pace the
               server wrote it; from the moment its last line (the crash) is written to the root cause on stdout.
  watch-unit   `crashdoc watch UNIT --file X.journal`: a journal written while it runs (systemd-journal-remote);
               from systemd's "Main process exited" record to the root cause on stdout (skipped when
               systemd-journal-remote is missing).

Prints median and max seconds per case against the 2 s goal. Never fails: it reports figures.
Usage: .venv/bin/python bench/bench_watch.py [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.net import free_port  # noqa: E402 - after the path set-up
from tests.support.vllm_standin import command as standin  # noqa: E402
from tests.watch.helpers import start_crashdoc, stop  # noqa: E402

GOAL = 2.0
ROOT_CAUSE = r"flashinfer-cubin version \(0\.6\.3\) does not match"


def bench_run(tmp: Path) -> float:
    stamp = tmp / "exit"
    stamp.unlink(missing_ok=True)
    live = start_crashdoc("run", "--display", "plain", "--", *standin("--port", str(free_port()), "--exit-stamp", str(stamp)))
    try:
        shown = live.err.wait_for(r"^\s+RuntimeError: " + ROOT_CAUSE, timeout=60)
        live.wait(30)
    finally:
        stop(live.proc)
    return shown - float(stamp.read_text())


def _recorded_crash_log(tmp: Path) -> list[tuple[float, bytes]]:
    """One real run of the stand-in server, with the time each line came (replayed at the same pace)."""
    proc = subprocess.Popen(standin("--port", str(free_port())), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    t0 = time.time()
    lines = [(time.time() - t0, line) for line in proc.stdout]
    proc.wait()
    return lines


def bench_watch_file(tmp: Path, recorded: list[tuple[float, bytes]]) -> float:
    log = tmp / "server.log"
    log.unlink(missing_ok=True)
    live = start_crashdoc("watch", "--file", str(log), "--display", "plain")
    last_written = 0.0
    try:
        live.err.wait_for("does not exist yet")
        with open(log, "ab", buffering=0) as f:
            t0 = time.time()
            for at, line in recorded:
                delay = t0 + at - time.time()
                if delay > 0:
                    time.sleep(delay)
                f.write(line)
                last_written = time.time()
        shown = live.out.wait_for(r"^\s+RuntimeError: " + ROOT_CAUSE, timeout=60)
        live.wait(30)
    finally:
        stop(live.proc)
    return shown - last_written


def bench_watch_unit(tmp: Path) -> float | None:
    from tests.watch.live_journal import MSG_STARTING, LiveJournal, available  # noqa: F401

    if not available():
        return None
    path = tmp / f"u{time.time_ns()}.journal"
    journal = LiveJournal(path)
    while not path.exists():
        time.sleep(0.01)
    journal.systemd("Stopped fake-llm.service - fake LLM server.", None)  # a record, so journalctl -f can start
    exit_written: list[float] = []
    real_systemd = journal.systemd

    def systemd(message: str, inv: str | None, **extra: str) -> None:
        real_systemd(message, inv, **extra)
        if "Main process exited" in message:
            exit_written.append(time.time())

    journal.systemd = systemd  # type: ignore[method-assign]
    live = start_crashdoc("watch", "fake-llm", "--file", str(path), "--display", "plain")
    try:
        live.err.wait_for("watching fake-llm.service")
        time.sleep(0.5)
        t = threading.Thread(target=journal.run_attempt, args=(standin("--port", str(free_port())),),
                             kwargs={"restart_counter": 1}, daemon=True)
        t.start()
        shown = live.out.wait_for(r"^\s+RuntimeError: " + ROOT_CAUSE, timeout=60)
        live.wait(30)
        t.join(30)
    finally:
        stop(live.proc)
        journal.close()
    return shown - exit_written[0]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args()
    os.chdir(ROOT)
    results: dict[str, list[float]] = {"run": [], "watch-file": [], "watch-unit": []}
    with tempfile.TemporaryDirectory(prefix="crashdoc-bench-") as d:
        tmp = Path(d)
        recorded = _recorded_crash_log(tmp)
        for _ in range(args.runs):
            results["run"].append(bench_run(tmp))
            results["watch-file"].append(bench_watch_file(tmp, recorded))
            unit = bench_watch_unit(tmp)
            if unit is not None:
                results["watch-unit"].append(unit)
    table = {
        case: {"runs": len(v), "median_s": round(statistics.median(v), 3), "max_s": round(max(v), 3),
               "goal_s": GOAL, "within_goal": max(v) < GOAL}
        for case, v in results.items() if v
    }
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    print(f"time from the crash to the printed diagnosis ({args.runs} runs each; goal {GOAL:.0f} s)")
    print(f"{'case':<12} {'median':>8} {'max':>8}  verdict")
    for case, row in table.items():
        verdict = "within the goal" if row["within_goal"] else "OVER THE GOAL"
        print(f"{case:<12} {row['median_s']:>7.3f}s {row['max_s']:>7.3f}s  {verdict}")
    if not results["watch-unit"]:
        print("watch-unit   skipped: systemd-journal-remote is not installed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
