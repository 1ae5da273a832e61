#!/usr/bin/env python3
"""A fleet in one command against the same hosts one at a time: wall time of `crashdoc diagnose vllm --ssh-hosts
'node-*'` next to the sum (and the slowest) of `crashdoc diagnose vllm --host node-NN` run for each host.

The hosts are the fleet tests' nodes (tests/fleet/nodes.py): booted Debian containers, each with its own sshd on
its own loopback port and a crash-looping vllm.service, plus one alias whose port nobody listens on. The loops
are stopped before timing (`systemctl stop`: the failed attempts stay in the journal) so the figures measure
crashdoc, not the restarts. Every process is a fresh `crashdoc` (start-up and rule loading included, as a user
running them one by one pays it). Needs root, systemd-nspawn and the cached root filesystem (built on first use).

Note: here every "host" shares the machine's cores with crashdoc (sshd, journalctl and the key exchange of every
connection run on the same CPUs), so the overlap is bounded by the cores; on a real fleet each host does its own
part on its own CPUs while crashdoc waits.

Prints the medians and the ratios; never fails. Usage: .venv/bin/python bench/bench_fleet.py [--nodes N] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fleet.nodes import FLASHINFER, GPU_OOM, Fleet, Node  # noqa: E402
from tests.support.container import build_rootfs  # noqa: E402

CRASHDOC = [sys.executable, "-m", "crashdoc"]


def _timed(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    start = time.monotonic()
    proc = subprocess.run([*CRASHDOC, *args, "--no-history", "-f", "json", "-o", os.devnull], env=env,
                          capture_output=True, check=False)
    return time.monotonic() - start, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=3, help="booted nodes (plus one unreachable alias)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    opts = ap.parse_args()
    rootfs = build_rootfs()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with tempfile.TemporaryDirectory(prefix="crashdoc-bench-fleet-") as tmp:
        work = Path(tmp)
        nodes = [Node(work / f"node-{i:02d}", name=f"node-{i:02d}", failure=GPU_OOM if i % 3 == 0 else FLASHINFER)
                 for i in range(1, opts.nodes + 1)]
        fleet = Fleet(nodes, work, unreachable=f"node-{opts.nodes + 1:02d}")
        try:
            fleet.start(rootfs)
            for n in nodes:
                n.stop_loop()
            env["CRASHDOC_SSH_OPTIONS"] = fleet.ssh_options
            rows = []
            for _ in range(opts.runs):
                singles = {name: _timed(["diagnose", "vllm", "--host", name], env)[0] for name in fleet.names}
                wall, status = _timed(["diagnose", "vllm", "--ssh-hosts", "node-*"], env)
                serial, _ = _timed(["diagnose", "vllm", "--ssh-hosts", "node-*", "--forks", "1"], env)
                rows.append({"sum_single": sum(singles.values()), "slowest_single": max(singles.values()),
                             "fleet": wall, "fleet_forks_1": serial, "status": status})
        finally:
            fleet.stop()
    med = {k: statistics.median(r[k] for r in rows) for k in ("sum_single", "slowest_single", "fleet", "fleet_forks_1")}
    out = {"hosts": len(fleet.names), "runs": opts.runs, **{k: round(v, 2) for k, v in med.items()},
           "fleet_over_sum": round(med["fleet"] / med["sum_single"], 2),
           "fleet_over_slowest": round(med["fleet"] / med["slowest_single"], 2),
           "cores": os.cpu_count(), "load": os.getloadavg()[0]}
    if opts.json:
        print(json.dumps(out))
        return
    print(f"{out['hosts']} hosts ({opts.nodes} booted, 1 unreachable), median of {opts.runs} runs, {out['cores']} cores")
    print(f"  one at a time (sum of {out['hosts']} crashdoc runs): {out['sum_single']:6.2f} s")
    print(f"  slowest single host:                    {out['slowest_single']:6.2f} s")
    print(f"  fleet, one command (--forks 10):        {out['fleet']:6.2f} s   "
          f"= {out['fleet_over_sum']:.2f} of the sum, {out['fleet_over_slowest']:.2f}x the slowest host")
    print(f"  fleet, one command, --forks 1:          {out['fleet_forks_1']:6.2f} s")


if __name__ == "__main__":
    main()
