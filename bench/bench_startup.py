#!/usr/bin/env python3
"""Start-up cost: CPU seconds of `crashdoc diagnose ONE-LINE-FILE --format json`, cold cache against warm cache.

    python bench/bench_startup.py                      # the repo's .venv/bin/crashdoc, 5 runs each
    python bench/bench_startup.py --runs 9 --crashdoc /path/to/crashdoc --imports 20

cold: every run gets a new, empty cache directory (`CRASHDOC_CACHE`): the rules are parsed from YAML and the
hyperscan database is compiled. warm: the same directory for every run after one priming run. Baselines in the
same invocation: `python -c pass` and `python -c "import crashdoc"` with crashdoc's interpreter. CPU seconds are
user + system of the child (os.wait4), the median of the runs. Then the slowest imports of a warm run
(`python -X importtime`, cumulative). Prints a table and one line for the floor (warm <= 0.15 s of CPU); exits 0
either way (it reports, it does not judge).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FLOOR = 0.15
LINE = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0\n"


def _cpu(argv: list[str], env: dict[str, str]) -> float:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 2, 3):  # 2/3: a diagnosis with / without a root cause
        raise SystemExit(f"{argv} failed with status {os.waitstatus_to_exitcode(status)}")
    return ru.ru_utime + ru.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crashdoc", default=str(REPO / ".venv" / "bin" / "crashdoc"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--imports", type=int, default=15, help="slowest imports to list (0: none)")
    a = ap.parse_args()
    exe = shutil.which(a.crashdoc) or a.crashdoc
    py = str(Path(exe).parent / "python")
    if not Path(py).exists():
        py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="crashdoc-startup-"))
    try:
        log = work / "one.log"
        log.write_text(LINE)
        argv = [exe, "diagnose", str(log), "--format", "json"]
        env = dict(os.environ)
        rows: list[tuple[str, list[float]]] = []
        rows.append(("python -c pass", [_cpu([py, "-c", "pass"], env) for _ in range(a.runs)]))
        rows.append(("python -c 'import crashdoc'", [_cpu([py, "-c", "import crashdoc"], env) for _ in range(a.runs)]))
        cold = []
        for i in range(a.runs):
            cold.append(_cpu(argv, {**env, "CRASHDOC_CACHE": str(work / f"cold{i}")}))
        rows.append(("diagnose, cold cache", cold))
        warm_env = {**env, "CRASHDOC_CACHE": str(work / "warm")}
        _cpu(argv, warm_env)
        rows.append(("diagnose, warm cache", [_cpu(argv, warm_env) for _ in range(a.runs)]))
        rows.append(("diagnose, cache off", [_cpu(argv, {**env, "CRASHDOC_CACHE": "off"}) for _ in range(a.runs)]))
        print(f"{'run':32} {'CPU s (median)':>15} {'min':>7} {'max':>7}")
        for name, xs in rows:
            print(f"{name:32} {statistics.median(xs):15.3f} {min(xs):7.3f} {max(xs):7.3f}")
        warm = statistics.median(rows[3][1])
        print(f"{'PASS' if warm <= FLOOR else 'FAIL'}  warm start-up {warm:.3f} s of CPU <= {FLOOR} s "
              f"(cold {statistics.median(cold):.3f} s)")
        if a.imports:
            p = subprocess.run([py, "-X", "importtime", "-m", "crashdoc", *argv[1:]], env=warm_env,
                               capture_output=True, text=True)
            imp = []
            for ln in p.stderr.splitlines():
                parts = ln.split("|")
                if len(parts) == 3 and parts[1].strip().isdigit():
                    imp.append((int(parts[1]), parts[2].rstrip()))
            print("\nslowest imports of a warm run (cumulative ms, `python -X importtime`):")
            for us, name in sorted(imp, reverse=True)[: a.imports]:
                print(f"{us / 1000:8.1f}  {name}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
