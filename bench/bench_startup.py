#!/usr/bin/env python3
"""Start-up cost: CPU seconds of `crashdoc diagnose ONE-LINE-FILE --format json`, cold cache against warm cache.

    python bench/bench_startup.py                      # the repo's .venv/bin/crashdoc, 7 runs each
    python bench/bench_startup.py --runs 9 --imports 20
    python bench/bench_startup.py --crashdoc /tmp/base/.venv/bin/crashdoc --crashdoc .venv/bin/crashdoc

cold: every run gets a new, empty cache directory (`CRASHDOC_CACHE`): the rules are parsed from YAML and the
hyperscan databases are compiled. warm: the same directory for every run after one priming run. off:
`CRASHDOC_CACHE=off`. Baselines in the same invocation: `python -c pass`, `python -S -c pass` and
`python -c "import crashdoc"` with each crashdoc's interpreter. Several `--crashdoc` (a baseline build beside a
change) are measured interleaved, run by run, so that a busy machine weighs on all of them alike.

CPU seconds are user + system of the child (os.wait4); the table shows the minimum (the least disturbed run:
the machine is shared) and the median. The children run with bytecode writing on (PYTHONDONTWRITEBYTECODE
dropped) after a priming run, as an installed package has its .pyc files. Then the slowest imports of a warm run
of the last crashdoc (`python -X importtime`, cumulative; wall time, so noisy). Prints a table and one line per
build for the floor (warm <= 0.15 s of CPU); exits 0 either way (it reports, it does not judge).
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


def _python_of(exe: str) -> str:
    py = Path(exe).parent / "python"
    return str(py) if py.exists() else sys.executable


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crashdoc", action="append", help="a crashdoc executable (repeatable; default: the repo's "
                    ".venv/bin/crashdoc)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--imports", type=int, default=15, help="slowest imports to list (0: none)")
    ap.add_argument("--warm-only", action="store_true", help="skip the cold-cache and cache-off rows (each costs "
                    "seconds: the hyperscan databases are compiled)")
    a = ap.parse_args()
    exes = [shutil.which(c) or c for c in (a.crashdoc or [str(REPO / ".venv" / "bin" / "crashdoc")])]
    labels = [f"[{i}] " if len(exes) > 1 else "" for i in range(len(exes))]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    work = Path(tempfile.mkdtemp(prefix="crashdoc-startup-"))
    try:
        log = work / "one.log"
        log.write_text(LINE)
        argvs = [[exe, "diagnose", str(log), "--format", "json"] for exe in exes]
        pys = [_python_of(exe) for exe in exes]
        warm_envs = [{**env, "CRASHDOC_CACHE": str(work / f"warm{b}")} for b in range(len(exes))]
        for b, argv in enumerate(argvs):  # priming: .pyc files written, the warm cache filled
            _cpu(argv, warm_envs[b])
        rows: dict[str, list[float]] = {}

        def measure(name: str, argv: list[str], run_env: dict[str, str]) -> None:
            rows.setdefault(name, []).append(_cpu(argv, run_env))

        for i in range(a.runs):  # interleaved: every row and build once per round
            measure("python -c pass", [pys[0], "-c", "pass"], env)
            measure("python -S -c pass", [pys[0], "-S", "-c", "pass"], env)
            for b, argv in enumerate(argvs):
                measure(f"{labels[b]}python -c 'import crashdoc'", [pys[b], "-c", "import crashdoc"], env)
                if not a.warm_only:
                    measure(f"{labels[b]}diagnose, cold cache", argv, {**env, "CRASHDOC_CACHE": str(work / f"cold{b}-{i}")})
                measure(f"{labels[b]}diagnose, warm cache", argv, warm_envs[b])
                if not a.warm_only:
                    measure(f"{labels[b]}diagnose, cache off", argv, {**env, "CRASHDOC_CACHE": "off"})
        for b, exe in enumerate(exes):
            if labels[b]:
                print(f"{labels[b]}{exe}")
        print(f"{'run':40} {'CPU s (min)':>12} {'median':>8} {'max':>7}")
        for name in rows:
            xs = rows[name]
            print(f"{name:40} {min(xs):12.3f} {statistics.median(xs):8.3f} {max(xs):7.3f}")
        base = min(rows["python -c pass"])
        for b in range(len(exes)):
            warm = min(rows[f"{labels[b]}diagnose, warm cache"])
            cold = rows.get(f"{labels[b]}diagnose, cold cache")
            print(f"{labels[b]}{'PASS' if warm <= FLOOR else 'FAIL'}  warm start-up {warm:.3f} s of CPU <= {FLOOR} s "
                  f"({warm / base:.1f}x python -c pass" + (f"; cold {min(cold):.3f} s)" if cold else ")"))
        if a.imports:
            p = subprocess.run([pys[-1], "-X", "importtime", "-m", "crashdoc", *argvs[-1][1:]], env=warm_envs[-1],
                               capture_output=True, text=True)
            imp = []
            for ln in p.stderr.splitlines():
                parts = ln.split("|")
                if len(parts) == 3 and parts[1].strip().isdigit():
                    imp.append((int(parts[1]), parts[2].rstrip()))
            print(f"\nslowest imports of a warm run of {exes[-1]} (cumulative ms, `python -X importtime`):")
            for us, name in sorted(imp, reverse=True)[: a.imports]:
                print(f"{us / 1000:8.1f}  {name}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
