#!/usr/bin/env python3
"""Benchmark matrix: `crashdoc diagnose` on every input shape crashdoc reads, at several sizes, against grep.

    python bench/matrix.py                                   # every row at 100M, the repo's crashdoc
    python bench/matrix.py --sizes 100M,1G --rows journald-short,docker-json --crashdoc /path/to/crashdoc
    python bench/matrix.py --rows journal-file --journal-entries 540000 --out results.json
    python bench/matrix.py --list                            # the rows and what they hold

For each row and size: a realistic log of that shape (bench/gen/, cached under --cache and reused while the
generator is unchanged) with one planted root-cause error near the end, and a healthy variant of the same
shape without any error. Then, with the page cache warm: `grep -c Traceback FILE` (best of 3) and
`crashdoc diagnose FILE --format json` (best of 3; best of 1 when a run takes over --slow seconds), alternated
so both see the same machine; crashdoc's peak RSS and CPU seconds come from `/usr/bin/time -v` around it.
The row is WRONG unless crashdoc's root_cause.line contains the planted error's key. crashdoc runs once on
the healthy variant (it should exit 3, no root cause), and bench/hotlines.py counts, with crashdoc's own
scanner, the lines of the healthy variant that are hot (a marker or rule regex matches).

The journal-file row is a real journal (systemd-journal-remote) whose failing attempts hold --journal-entries
records; it runs `crashdoc diagnose UNIT --file F`, and its baseline is
`journalctl --file F -u UNIT -o json > /dev/null`. It is sized by records, so it runs once whatever --sizes is.

Prints a Markdown table and writes everything measured to --out (JSON). A run that would take longer than
--max-run seconds (predicted from a smaller size of the same row, or hitting the limit) is skipped and said so.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

import gen  # noqa: E402

MB = 1 << 20
TIME = "/usr/bin/time"

if hasattr(subprocess, "_USE_VFORK"):
    # NOTE: without /usr/bin/time a child's ru_maxrss includes this process's RSS at fork time (with vfork,
    # its lifetime peak); fork, not vfork, and keep this process small (generation runs in a child).
    subprocess._USE_VFORK = False  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------------------
# sizes, commands, cache
# ---------------------------------------------------------------------------------------------------------

def parse_size(s: str) -> int:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?)i?B?\s*", s, re.I)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {s!r} (use e.g. 30M, 100M, 1G)")
    n = float(m.group(1)) * {"": 1, "K": 1 << 10, "M": MB, "G": 1 << 30}[m.group(2).upper()]
    return int(n)


def size_label(n: int) -> str:
    for unit, v in (("G", 1 << 30), ("M", MB), ("K", 1 << 10)):
        if n >= v and n % v == 0:
            return f"{n // v}{unit}"
    return str(n)


def crashdoc_command(arg: str | None) -> list[str]:
    if arg:
        return shlex.split(arg)
    for p in (REPO / ".venv" / "bin" / "crashdoc",):
        if p.exists():
            return [str(p)]
    exe = shutil.which("crashdoc")
    if exe:
        return [exe]
    raise SystemExit("no crashdoc found: pass --crashdoc PATH (or `make dev` for the repo's .venv)")


def crashdoc_python(cmd: list[str]) -> str:
    """The interpreter of the crashdoc being measured (its entry point's shebang), for bench/hotlines.py."""
    exe = shutil.which(cmd[0]) or cmd[0]
    if len(cmd) >= 3 and cmd[1] == "-m":
        return cmd[0]
    try:
        first = Path(exe).read_bytes()[:200].split(b"\n", 1)[0]
        if first.startswith(b"#!"):
            interp = first[2:].decode().strip().split()[0]
            if Path(interp).exists():
                return interp
    except OSError:
        pass
    sib = Path(exe).parent / "python"
    return str(sib) if sib.exists() else sys.executable


def cached(cache: Path, row: gen.Row, size: int, healthy: bool, entries: int | None) -> tuple[Path, dict]:
    """The generated log for (row, size, variant), made now if the cache has no file of this generator version."""
    d = cache / gen.VERSION
    tag = f"{entries // 1000}k" if row.shape == "journal-file" else size_label(size)
    path = d / f"{row.name}-{tag}{'-healthy' if healthy else ''}.{row.ext}"
    meta_path = path.with_name(path.name + ".meta.json")
    if path.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("version") == gen.VERSION and meta.get("bytes") == gen.disk_bytes(path):
            meta["cached"] = True
            return path, meta
    d.mkdir(parents=True, exist_ok=True)
    print(f"  generating {path.name} ...", end="", flush=True)
    argv = [sys.executable, str(Path(__file__).resolve()), "--_gen", row.name, str(size), str(int(healthy)), str(path)]
    if entries:
        argv += ["--journal-entries", str(entries)]
    res = subprocess.run(argv, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"generating {path.name} failed:\n{res.stderr[-3000:]}")
    meta = json.loads(res.stdout.strip().splitlines()[-1])
    meta_path.write_text(json.dumps(meta, indent=1))
    print(f" {meta['bytes'] / MB:.1f} MB in {meta['seconds']:.1f} s", flush=True)
    meta["cached"] = False
    return path, meta


def stale_versions(cache: Path) -> list[Path]:
    return [p for p in cache.glob("*") if p.is_dir() and p.name != gen.VERSION and re.fullmatch(r"\d+-[0-9a-f]{10}", p.name)]


# ---------------------------------------------------------------------------------------------------------
# running and timing
# ---------------------------------------------------------------------------------------------------------

def warm(path: Path) -> None:
    files = sorted(path.glob("*.journal")) if path.is_dir() else [path]
    with open(os.devnull, "wb") as null:
        subprocess.run(["cat", *map(str, files)], stdout=null, check=True)


def run_timed(argv: list[str], out_path: Path | None, timeout: float) -> dict:
    """Run argv (stdout to out_path or /dev/null); wall seconds, peak RSS MB, CPU seconds, exit status."""
    use_time = Path(TIME).exists()
    fd, report = tempfile.mkstemp(prefix="matrix-time-", suffix=".txt")
    os.close(fd)
    full = [TIME, "-v", "-o", report, *argv] if use_time else argv
    err_path = Path(report + ".stderr")
    with open(out_path or os.devnull, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
        timed_out = False
        try:
            _, status, ru = os.wait4(p.pid, 0) if timeout is None else _wait4_timeout(p, timeout)
        except TimeoutError:
            timed_out = True
            os.killpg(p.pid, 9)  # the session this function started, nothing else
            _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    res = {"wall": wall, "rc": p.returncode, "timeout": timed_out,
           "stderr": err_path.read_text(errors="replace")[-1500:]}
    err_path.unlink(missing_ok=True)
    if use_time:
        rep = Path(report).read_text(errors="replace")
        def num(label: str) -> float | None:
            m = re.search(re.escape(label) + r":\s*([\d.]+)", rep)
            return float(m.group(1)) if m else None
        res["rss_mb"] = (num("Maximum resident set size (kbytes)") or 0) / 1024
        res["cpu"] = (num("User time (seconds)") or 0) + (num("System time (seconds)") or 0)
        rc = num("Exit status")
        if rc is not None and not timed_out:
            res["rc"] = int(rc)
    else:
        res["rss_mb"] = ru.ru_maxrss / 1024
        res["cpu"] = ru.ru_utime + ru.ru_stime
    Path(report).unlink(missing_ok=True)
    return res


def _wait4_timeout(p: subprocess.Popen, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            return pid, status, ru
        if time.monotonic() > deadline:
            raise TimeoutError
        time.sleep(0.01)


def check_report(path: Path, key: str | None) -> dict:
    try:
        rep = json.loads(path.read_text() or "null") or {}
    except (OSError, json.JSONDecodeError):
        return {"verdict": "ERROR", "line": None, "note": "no JSON report"}
    rc = rep.get("root_cause") or {}
    line = rc.get("line")
    info = {"line": line, "category": rc.get("category"), "rule": rc.get("rule"),
            "input": rep.get("input"), "summary": rep.get("summary")}
    if key is None:
        info["verdict"] = "clean" if not line else "FALSE POSITIVE"
    elif not line:
        info["verdict"] = "NONE"
    else:
        info["verdict"] = "ok" if key in line else "WRONG"
    return info


# ---------------------------------------------------------------------------------------------------------
# one row at one size
# ---------------------------------------------------------------------------------------------------------

def measure(row: gen.Row, size: int, args: argparse.Namespace, cmd: list[str], py: str, workdir: Path,
            predicted: float | None) -> dict:
    entries = args.journal_entries if row.shape == "journal-file" else None
    res: dict = {"row": row.name, "target": size, "shape": row.shape, "engine": row.engine, "scenario": row.scenario,
                 "desc": row.desc, "size": "%dk entries" % (entries // 1000) if entries else size_label(size),
                 "key": row.key, "load_before": [round(x, 2) for x in os.getloadavg()]}
    if predicted is not None and predicted > args.max_run:
        res.update(verdict="SKIPPED", note=f"a crashdoc run would take about {predicted:.0f} s "
                                           f"(> --max-run {args.max_run:.0f} s), predicted from a smaller size")
        return res
    path, meta = cached(args.cache, row, size, False, entries)
    res.update(file=str(path), bytes=meta["bytes"], mb=meta["bytes"] / MB, lines=meta.get("lines"),
               entries=meta.get("entries"), unit_entries=meta.get("unit_entries"), gen_seconds=meta["seconds"])
    hpath = hmeta = None
    if row.healthy:
        hsize = min(size, gen.HEALTHY_CAP)
        hpath, hmeta = cached(args.cache, row, hsize, True,
                              gen.HEALTHY_JOURNAL_ENTRIES if row.shape == "journal-file" else None)
    warm(path)
    journal = row.shape == "journal-file"
    target = [gen.UNIT, "--directory", str(path)] if journal else [str(path)]
    c_argv = cmd + ["diagnose", *target, "--format", "json"]
    g_argv = ["grep", "-r", "-c", "Traceback", str(path)] if journal else ["grep", "-c", "Traceback", str(path)]
    out_json = workdir / f"{row.name}-{res['size'].replace(' ', '')}.json"
    greps, runs = [], []
    for _ in range(args.runs):
        g = run_timed(g_argv, workdir / "grep.out", args.max_run)
        g["count"] = sum(int(x.rsplit(":", 1)[-1]) for x in (workdir / "grep.out").read_text().split() if x)
        greps.append(g)
        c = run_timed(c_argv, out_json, args.max_run)
        runs.append(c)
        if c["timeout"]:
            break
        if c["wall"] > args.slow:
            break
    best = min(runs, key=lambda r: r["wall"])
    gbest = min(greps, key=lambda r: r["wall"])
    res["crashdoc"] = {"best_s": best["wall"], "mbps": res["mb"] / best["wall"], "rss_mb": max(r["rss_mb"] for r in runs),
                       "cpu_s": best["cpu"], "rc": best["rc"], "runs": [round(r["wall"], 3) for r in runs],
                       "argv": c_argv}
    res["grep"] = {"best_s": gbest["wall"], "mbps": res["mb"] / gbest["wall"], "rss_mb": gbest["rss_mb"],
                   "count": gbest["count"], "runs": [round(r["wall"], 3) for r in greps]}
    res["ratio"] = res["crashdoc"]["mbps"] / res["grep"]["mbps"]
    if runs[-1]["timeout"]:
        res.update(verdict="TIMEOUT", note=f"crashdoc was stopped after --max-run {args.max_run:.0f} s")
        return res
    if journal:
        js = []
        for _ in range(args.runs):
            j = run_timed(["journalctl", "--no-pager", "--directory", str(path), "-u", gen.UNIT, "-o", "json"], None,
                          args.max_run)
            js.append(j)
            if j["wall"] > args.slow:
                break
        jb = min(js, key=lambda r: r["wall"])
        res["files"] = meta.get("files")
        res["baseline"] = {"tool": "journalctl --directory D -u UNIT -o json", "best_s": jb["wall"], "runs": [round(r["wall"], 3) for r in js],
                           "ratio": jb["wall"] / best["wall"], "rss_mb": jb["rss_mb"], "cpu_s": jb["cpu"]}
    rep = check_report(out_json, row.key)
    res.update(verdict=rep["verdict"] if best["rc"] in (0, 3) else f"ERROR rc={best['rc']}", named=rep["line"],
               category=rep["category"], rule=rep["rule"], report_input=rep["input"], summary=rep["summary"])
    if best["rc"] not in (0, 3):
        res["stderr"] = best["stderr"]
    # the healthy variant: crashdoc's verdict on it, and its hot-line share
    hot_src, mode = (hpath, "healthy") if hpath else (path, "self")
    if hpath is not None and not args.no_healthy_run:
        warm(hpath)
        htarget = [gen.UNIT, "--directory", str(hpath)] if journal else [str(hpath)]
        h = run_timed(cmd + ["diagnose", *htarget, "--format", "json"], workdir / "healthy.json", args.max_run)
        hrep = check_report(workdir / "healthy.json", None)
        res["healthy"] = {"file": str(hpath), "bytes": hmeta["bytes"], "mb": hmeta["bytes"] / MB, "seconds": h["wall"],
                          "mbps": hmeta["bytes"] / MB / h["wall"], "rc": h["rc"], "rss_mb": h["rss_mb"],
                          "verdict": hrep["verdict"] if h["rc"] in (0, 3) else f"ERROR rc={h['rc']}",
                          "named": hrep["line"]}
    if not args.no_hot:
        hm = "journal" if journal else ("json" if row.json_input else "text")
        hargv = [py, str(BENCH / "hotlines.py"), hm, str(hot_src)] + ([gen.UNIT] if journal else [])
        hr = subprocess.run(hargv, capture_output=True, text=True)
        if hr.returncode == 0:
            h = json.loads(hr.stdout)
            res["hot"] = {"measured_on": mode, "lines": h["lines"], "hot": h["hot"], "selected": h["selected"],
                          "share": h["hot"] / max(h["lines"], 1), "selected_share": h["selected"] / max(h["lines"], 1),
                          "per_class": h["per_class"], "patterns": h["patterns"][:8], "mode": h["mode"],
                          "engine": h.get("engine")}
        else:
            res["hot"] = {"error": hr.stderr.strip().splitlines()[-1] if hr.stderr.strip() else f"rc={hr.returncode}"}
    return res


# ---------------------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------------------

def pct(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{100 * x:.3f}%" if x < 0.01 else f"{100 * x:.2f}%"


def ordered(results: list[dict]) -> list[dict]:
    """Rows in the matrix's order, each row's sizes ascending."""
    order = {name: i for i, name in enumerate(gen.ROWS)}
    return sorted(results, key=lambda r: (order.get(r["row"], 99), r.get("target") or r.get("bytes") or 0))


def markdown(results: list[dict]) -> str:
    head = ("| row | size | MB | lines | crashdoc s | MB/s | grep MB/s | crashdoc/grep | other baseline | peak RSS MB "
            "| CPU s | hot share | parsed share | root cause | healthy variant |")
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in ordered(results):
        if r.get("verdict") == "SKIPPED" or "crashdoc" not in r:
            out.append(f"| {r['row']} | {r['size']} | {r.get('mb', 0):.0f} | | | | | | | | | | | "
                       f"{r.get('verdict')}: {r.get('note', '')} | |")
            continue
        c, g = r["crashdoc"], r["grep"]
        base = "—"
        if "baseline" in r:
            b = r["baseline"]
            base = f"`journalctl -u UNIT -o json` {b['best_s']:.2f} s: crashdoc/journalctl {b['ratio']:.2f}"
        lines = r.get("lines")
        lines_s = f"{lines / 1e6:.2f}M" if lines and lines >= 1e6 else (f"{lines / 1e3:.0f}k" if lines else "")
        if r.get("entries"):
            lines_s = f"{r['entries'] / 1e3:.0f}k entries"
        hot = r.get("hot") or {}
        hs = pct(hot.get("share")) + (" (self)" if hot.get("measured_on") == "self" else "") if "share" in hot else "—"
        ps = pct(hot.get("selected_share")) if "selected_share" in hot and hot.get("mode") == "text" else (
            "all (JSON)" if hot.get("mode") in ("json",) else "—")
        v = r["verdict"]
        if v not in ("ok",):
            v = f"**{v}**" + (f": `{(r.get('named') or '')[:90]}`" if r.get("named") else "")
        hv = "—"
        if "healthy" in r:
            h = r["healthy"]
            hv = (f"{h['verdict']} ({h['mb']:.0f} MB, {h['seconds']:.2f} s)" if h["verdict"] == "clean"
                  else f"**{h['verdict']}**: `{(h.get('named') or '')[:80]}`")
        runs = "/".join(f"{x:.2f}" for x in c["runs"])
        out.append(f"| {r['row']} | {r['size']} | {r['mb']:.0f} | {lines_s} | {c['best_s']:.2f} ({runs}) | "
                   f"{c['mbps']:.0f} | {g['mbps']:.0f} | {r['ratio']:.3f} | {base} | {c['rss_mb']:.0f} | "
                   f"{c['cpu_s']:.2f} | {hs} | {ps} | {v} | {hv} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--sizes", default="100M", help="comma-separated sizes (K/M/G = KiB/MiB/GiB), default 100M")
    ap.add_argument("--rows", default=",".join(gen.DEFAULT_ROWS), help="comma-separated row names (see --list)")
    ap.add_argument("--crashdoc", metavar="PATH", default=None,
                    help="crashdoc command (default: the repo's .venv/bin/crashdoc, else crashdoc on PATH)")
    ap.add_argument("--out", type=Path, default=None, help="results JSON (default: CACHE/results-<time>.json)")
    ap.add_argument("--merge", action="store_true", help="merge into an existing --out (same row+size replaced)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/crashdoc-bench"), help="generated logs (reused)")
    ap.add_argument("--runs", type=int, default=3, help="runs per tool; the best is reported (default 3)")
    ap.add_argument("--slow", type=float, default=60.0, help="a crashdoc run slower than this many seconds is run once")
    ap.add_argument("--max-run", type=float, default=600.0, help="skip or stop a run predicted to take longer")
    ap.add_argument("--journal-entries", type=int, default=gen.JOURNAL_ENTRIES,
                    help=f"records in the journal-file row's failing attempts (default {gen.JOURNAL_ENTRIES})")
    ap.add_argument("--no-healthy-run", action="store_true", help="do not run crashdoc on the healthy variants")
    ap.add_argument("--no-hot", action="store_true", help="skip the hot-line count")
    ap.add_argument("--list", action="store_true", help="list the rows and exit")
    ap.add_argument("--report", type=Path, metavar="RESULTS", help="print the Markdown table of a results JSON and exit")
    ap.add_argument("--_gen", nargs=4, metavar=("ROW", "SIZE", "HEALTHY", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args._gen:
        name, size, healthy, path = args._gen
        meta = gen.build(gen.ROWS[name], int(size), healthy == "1", Path(path),
                         entries=args.journal_entries if gen.ROWS[name].shape == "journal-file" else None)
        print(json.dumps(meta))
        return 0
    if args.report:
        data = json.loads(args.report.read_text())
        print(markdown(data["rows"]))
        return 0
    if args.list:
        for r in gen.ROWS.values():
            print(f"{r.name:<24} {r.desc}")
        return 0

    rows = []
    for name in [n.strip() for n in args.rows.split(",") if n.strip()]:
        if name not in gen.ROWS:
            ap.error(f"unknown row {name!r}; rows: {', '.join(gen.ROWS)}")
        rows.append(gen.ROWS[name])
    sizes = sorted(parse_size(s) for s in args.sizes.split(",") if s.strip())
    missing = gen.requirements(rows)
    if missing:
        print("missing for journal rows: " + "; ".join(missing), file=sys.stderr)
        return 2
    cmd = crashdoc_command(args.crashdoc)
    py = crashdoc_python(cmd)
    args.cache.mkdir(parents=True, exist_ok=True)
    out_path = args.out or args.cache / f"results-{dt.datetime.now():%Y%m%d-%H%M%S}.json"
    old = stale_versions(args.cache)
    if old:
        print(f"note: {len(old)} cache folder(s) of older generator versions in {args.cache} "
              f"({', '.join(p.name for p in old)}); remove them to free disk", file=sys.stderr)
    version = subprocess.run(cmd + ["--version"], capture_output=True, text=True).stdout.strip()
    meta = {"command": " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]), "crashdoc": cmd,
            "crashdoc_version": version, "crashdoc_python": py, "generator": gen.VERSION,
            "date": dt.datetime.now().isoformat(timespec="seconds"), "nproc": os.cpu_count(),
            "time_tool": TIME if Path(TIME).exists() else "os.wait4"}
    print(f"crashdoc: {' '.join(cmd)} ({version}); generator {gen.VERSION}; cache {args.cache}")

    with tempfile.TemporaryDirectory(prefix="crashdoc-matrix-") as tmp:
        workdir = Path(tmp)
        # warm-up: hyperscan database cache, imported modules
        warm_log = workdir / "warm.log"
        warm_log.write_text("INFO hello\nRuntimeError: warm-up\n")
        run_timed(cmd + ["diagnose", str(warm_log), "--format", "json"], workdir / "warm.json", 120)
        results: list[dict] = []
        for row in rows:
            last: tuple[int, float] | None = None
            for size in (sizes if row.sized else sizes[:1]):
                predicted = None
                if last is not None and "crashdoc" in results[-1]:
                    predicted = last[1] * size / last[0]
                print(f"{row.name} @ {size_label(size) if row.sized else 'journal'}", flush=True)
                try:
                    r = measure(row, size, args, cmd, py, workdir, predicted)
                except Exception as exc:
                    r = {"row": row.name, "size": size_label(size), "verdict": "ERROR", "note": str(exc)[-500:]}
                results.append(r)
                if "crashdoc" in r:
                    last = (size, r["crashdoc"]["best_s"])
                    c = r["crashdoc"]
                    print(f"  {r['mb']:.0f} MB: crashdoc {c['best_s']:.2f} s ({c['mbps']:.0f} MB/s, {c['rss_mb']:.0f} MB RSS)"
                          f", grep {r['grep']['mbps']:.0f} MB/s, ratio {r['ratio']:.3f}, {r['verdict']}", flush=True)
                else:
                    print(f"  {r['verdict']}: {r.get('note', '')}", flush=True)
                _save(out_path, meta, results, args.merge)
    print()
    print(markdown(results))
    print()
    print(f"command: {meta['command']}")
    print(f"results: {out_path}")
    return 0


def _save(path: Path, meta: dict, results: list[dict], merge: bool) -> None:
    """Write the results; with merge, keep the rows (and the invocations, under "runs") of an earlier file."""
    rows, runs = results, [meta]
    if merge and path.exists():
        try:
            old = json.loads(path.read_text())
            keep = {(r["row"], r["size"]) for r in results}
            rows = ordered([r for r in old.get("rows", []) if (r["row"], r["size"]) not in keep] + results)
            earlier = old.get("runs") or [old.get("meta")]
            runs = [m for m in earlier if m and m.get("date") != meta["date"]] + [meta]
        except (OSError, json.JSONDecodeError, KeyError):
            pass
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"meta": meta, "runs": runs, "rows": rows}, indent=1, default=str))
    tmp.replace(path)


if __name__ == "__main__":
    sys.exit(main())
