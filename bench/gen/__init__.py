"""Generators for the benchmark matrix (bench/matrix.py): one realistic log per row and size, plus a healthy
variant of the same shape, written to a cache directory and reused while the generator is unchanged.

    from gen import ROWS, build, VERSION
    meta = build(ROWS["journald-short"], 100 << 20, healthy=False, path=Path("/tmp/x.log"))

`VERSION` is GEN_VERSION plus a digest of this package's sources, so any edit to a generator invalidates the
cache. Generation is deterministic: the same row, size and variant give the same bytes.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import scenarios as sc
from .clock import Clocks, epoch_us
from .sglang import OOM_KEY as SGL_OOM_KEY
from .sglang import SglDeploy
from .sinks import Export, journal_remote, make_text_sink
from .tgi import IMA_KEY as TGI_IMA_KEY
from .vllm import FLASHINFER_KEY, IMA_KEY, OOM_KEY, Deploy

GEN_VERSION = 1
"""Bump by hand when the meaning of a row changes; source edits change VERSION on their own."""

JOURNAL_ENTRIES = 540_000
"""Service records in the failing attempts of the journal-file row (six attempts)."""
HEALTHY_JOURNAL_ENTRIES = 100_000
HEALTHY_CAP = 128 << 20
"""Healthy variants are at most this big: the hot-line share is a rate and does not need the whole size."""


@dataclass(frozen=True)
class Row:
    """One input shape of the matrix."""

    name: str
    shape: str
    """journald-short | journald-short-iso | journald-short-precise | journal-json | docker-json | cri | kubectl |
    plain | journal-file"""
    engine: str
    scenario: str
    key: str
    """A piece of the planted root-cause line; crashdoc's root_cause.line must contain it."""
    desc: str
    reserve: int = 600_000
    """Bytes left after the serving phase for the ending (the planted crash and what follows)."""
    healthy: bool = True
    """False when the shape has no healthy form (the crash loop): the hot-line share is taken on the file itself."""
    sized: bool = True
    """False for the journal-file row, which is sized by records, not by --sizes."""
    opts: dict = field(default_factory=dict)

    @property
    def ext(self) -> str:
        return {"journal-file": "journal.d", "journal-json": "json", "docker-json": "log"}.get(self.shape, "log")

    @property
    def json_input(self) -> bool:
        """crashdoc reads this row record by record (journal JSON / docker json-file), not with the block scanner."""
        return self.shape in ("journal-json", "docker-json", "journal-file")


ROWS: dict[str, Row] = {r.name: r for r in [
    Row("journald-short", "journald-short", "vllm", "restart-flashinfer", FLASHINFER_KEY,
        "journalctl -u UNIT (short): vLLM TP8 serving for hours, stopped for a reinstall, then two starts die on "
        "the flashinfer-cubin/flashinfer version gate in all 8 ranks"),
    Row("journald-short-iso", "journald-short-iso", "vllm", "restart-flashinfer", FLASHINFER_KEY,
        "the same journal as `journalctl -o short-iso`"),
    Row("journald-short-precise", "journald-short-precise", "vllm", "restart-flashinfer", FLASHINFER_KEY,
        "the same journal as `journalctl -o short-precise`"),
    Row("journal-json", "journal-json", "vllm", "restart-flashinfer", FLASHINFER_KEY,
        "`journalctl -u UNIT -o json` of a real journal file (systemd-journal-remote) with the same story",
        reserve=2_400_000),
    Row("docker-json", "docker-json", "vllm", "runtime-ima", IMA_KEY,
        "docker json-file log of a vLLM TP8 container (request logging off) that dies of a CUDA illegal memory "
        "access in Worker_TP3 while serving", reserve=200_000,
        opts={"deploy": Deploy(model="Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", served="qwen3-235b", chat="qwen",
                               arch="Qwen3MoeForCausalLM", quant="fp8", request_log=False, rps=14.0,
                               site="/usr/local/lib/python3.12/dist-packages", host="0b7c2e1d9a4f")}),
    Row("cri", "cri", "tgi", "runtime-ima", TGI_IMA_KEY,
        "containerd CRI log file of a TGI 4-shard pod whose shard 1 hits a CUDA illegal memory access in Decode",
        reserve=60_000),
    Row("kubectl", "kubectl", "sglang", "runtime-oom", SGL_OOM_KEY,
        "`kubectl logs --prefix` of an SGLang TP4 pod whose TP3 scheduler runs out of GPU memory while serving",
        reserve=60_000, opts={"deploy": SglDeploy(host="sglang-qwen3-32b-0")}),
    Row("vllm-plain", "plain", "vllm", "runtime-oom", OOM_KEY,
        "`vllm serve ... > vllm.log 2>&1`: vLLM TP8 with request logging, Worker_TP5 CUDA OOM while serving",
        reserve=150_000,
        opts={"deploy": Deploy(model="meta-llama/Llama-3.1-405B-Instruct-FP8", served="llama-405b", chat="llama",
                               arch="LlamaForCausalLM", quant="fp8", nccl_debug=False, rps=4.0,
                               site="/home/ml/venvs/vllm/lib/python3.12/site-packages")}),
    Row("sglang-plain", "plain", "sglang", "runtime-oom", SGL_OOM_KEY,
        "`python -m sglang.launch_server ... > sglang.log 2>&1`: TP3 scheduler CUDA OOM while serving",
        reserve=60_000, opts={"deploy": SglDeploy(src="/usr/local/lib/python3.10/dist-packages/sglang",
                                                  host="gpu-node-11", nccl_debug=False)}),
    Row("tgi-plain", "plain", "tgi", "runtime-ima", TGI_IMA_KEY,
        "text-generation-launcher output: shard 1 CUDA illegal memory access in Decode, watchdog abort",
        reserve=60_000),
    Row("crashloop", "journald-short", "vllm", "crashloop", FLASHINFER_KEY,
        "error-dense: journalctl -u UNIT of a unit restarting every ~40 s, each attempt 8 interleaved ranks' "
        "flashinfer tracebacks + wrappers", healthy=False),
    Row("journal-file", "journal-file", "vllm", "journal-attempts", OOM_KEY,
        "a real journal file (systemd-journal-remote): six failing attempts of the unit, 90k records each "
        "(serving, then Worker_TP5 CUDA OOM), plus other units' and kernel records; "
        "`crashdoc diagnose UNIT --file F`", sized=False),
]}

DEFAULT_ROWS = list(ROWS)


def _digest() -> str:
    h = hashlib.sha256()
    for p in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:10]


VERSION = f"{GEN_VERSION}-{_digest()}"
UNIT = sc.UNIT


def _seed(row: Row, size: int, healthy: bool) -> int:
    return int(hashlib.sha256(f"{row.name}/{size}/{healthy}".encode()).hexdigest()[:12], 16)


def _count_lines(path: Path) -> int:
    n = 0
    with open(path, "rb") as f:
        while True:
            b = f.read(16 << 20)
            if not b:
                return n
            n += b.count(b"\n")


def _export_sink(path: Path, ck: Clocks, rng: random.Random, measure: str, noise: bool) -> Export:
    return Export(path, ck, unit=sc.UNIT, ident="vllm", host="gpu-node-07",
                  cmdline="/opt/vllm/.venv/bin/python3 /opt/vllm/.venv/bin/vllm serve moonshotai/Kimi-K2.5 "
                          "--tensor-parallel-size 8 --trust-remote-code --max-model-len 131072 "
                          "--enable-auto-tool-choice --tool-call-parser kimi_k2 --reasoning-parser kimi_k2",
                  boot_id=hashlib.md5(b"boot").hexdigest(), machine_id=hashlib.md5(b"machine").hexdigest(),
                  boot_us=epoch_us(2025, 11, 1), measure=measure, noise=random.Random(rng.random()) if noise else None)


def _run(row: Row, sink: object, rng: random.Random, ck: Clocks, target: int, healthy: bool) -> None:
    if row.scenario == "restart-flashinfer":
        sc.restart_flashinfer(sink, rng, ck, target, healthy, row.reserve)  # type: ignore[arg-type]
    elif row.scenario == "crashloop":
        sc.crashloop(sink, rng, ck, target, healthy, row.reserve)  # type: ignore[arg-type]
    elif row.scenario.startswith("runtime-"):
        sc.runtime(sink, rng, ck, target, healthy, row.reserve, engine=row.engine,  # type: ignore[arg-type]
                   kind=row.scenario.split("-", 1)[1], deploy=row.opts.get("deploy"))
    else:
        raise ValueError(f"{row.name}: unknown scenario {row.scenario}")


def build(row: Row, size: int, healthy: bool, path: Path, entries: int | None = None) -> dict:
    """Write one log of `row` at about `size` bytes (journal-file: `entries` records) to `path`; returns its
    manifest (bytes, lines, key, seconds ...)."""
    t0 = time.perf_counter()
    rng = random.Random(_seed(row, size, healthy))
    ck = Clocks()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    meta: dict = {"row": row.name, "shape": row.shape, "engine": row.engine, "scenario": row.scenario,
                  "healthy": healthy, "target_bytes": size, "key": None if healthy else row.key, "version": VERSION}
    if row.shape == "journal-file":
        # NOTE: a journal file is rotated at 128 MB (journald's and systemd-journal-remote's default cap), so the
        # records land in a directory of rotated files, as in /var/log/journal/MACHINE-ID/ on a real host.
        entries = entries or (HEALTHY_JOURNAL_ENTRIES if healthy else JOURNAL_ENTRIES)
        dtmp = path.with_name(path.name + ".part")
        shutil.rmtree(dtmp, ignore_errors=True)
        dtmp.mkdir(parents=True)
        sink = _export_sink(dtmp / "system.journal", ck, rng, "records", noise=True)
        sc.journal_attempts(sink, rng, ck, entries, healthy)
        sink.close()
        shutil.rmtree(path, ignore_errors=True)
        dtmp.replace(path)
        files = sorted(path.glob("*.journal"))
        meta.update(entries=sink.records, unit_entries=sink.unit_records, lines=sink.records, unit=sc.UNIT,
                    files=[f.name for f in files])
    elif row.shape == "journal-json":
        jtmp = path.with_name(path.stem + ".part.journal")
        sink = _export_sink(jtmp, ck, rng, "json", noise=False)
        _run(row, sink, rng, ck, size, healthy)
        sink.close()
        with open(tmp, "wb") as out:
            subprocess.run(["journalctl", "--no-pager", "--file", str(jtmp), "-u", sc.UNIT, "-o", "json"],
                           stdout=out, check=True)
        jtmp.unlink()
        tmp.replace(path)
        meta.update(entries=sink.records, lines=_count_lines(path))
    else:
        kw = {}
        if row.shape == "kubectl":
            kw = {"pod": "sglang-qwen3-32b-0", "container": "sglang"}
        sink = make_text_sink(row.shape, tmp, ck, **kw)
        _run(row, sink, rng, ck, size, healthy)
        sink.close()
        tmp.replace(path)
        meta.update(lines=sink.lines)
    meta["bytes"] = disk_bytes(path)
    meta["seconds"] = round(time.perf_counter() - t0, 2)
    return meta


def disk_bytes(path: Path) -> int:
    """Size of a log file, or of all journal files in a journal directory."""
    if path.is_dir():
        return sum(f.stat().st_size for f in path.glob("*.journal"))
    return path.stat().st_size


def requirements(rows: list[Row]) -> list[str]:
    """What is missing on this machine for these rows (one sentence each)."""
    missing = []
    if any(r.shape in ("journal-json", "journal-file") for r in rows):
        if journal_remote() is None:
            missing.append("systemd-journal-remote (apt-get install systemd-journal-remote)")
        if shutil.which("journalctl") is None:
            missing.append("journalctl (systemd)")
    return missing
