"""Repeated tracebacks are folded (analyze/fold.py): read once by the traceback builder, rebuilt for every copy,
and the diagnosis is exactly the one of reading every copy."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from crashdoc.analyze.feed import feed_stream, make_scanner
from crashdoc.analyze.pipeline import Analysis, diagnosis
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Diagnosis
from tests.support.shared import SHARED

ROOT = Path(__file__).resolve().parents[2]
FRAMES = [
    ("/usr/lib/python3.12/multiprocessing/process.py", 314, "_bootstrap", "self.run()"),
    ("/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", 743, "worker_main",
     "worker = WorkerProc(*args, **kwargs)"),
    ("/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/deepseek_v2.py", 919, "__init__",
     "self.mla_attn = MultiHeadLatentAttentionWrapper("),
    ("/usr/local/lib/python3.12/dist-packages/flashinfer/__init__.py", 40, "<module>", "_check_version()"),
]
ERROR = ("RuntimeError: flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4). Please install "
         "the same version of both packages.")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _traceback() -> list[str]:
    out = ["Traceback (most recent call last):"]
    for path, n, func, code in FRAMES:
        out += [f'  File "{path}", line {n}, in {func}', f"    {code}"]
    return [*out, ERROR]


def crash_loop(attempts: int, seed: int = 7) -> bytes:
    """A unit restarting `attempts` times: every attempt its ranks print the same traceback, interleaved in
    another order, with other pids and times; systemd's records between attempts."""
    rng = random.Random(seed)
    out: list[str] = []
    pid = 41000
    for a in range(attempts):
        clock = f"Nov 30 10:{a // 2:02d}:{(a % 2) * 30:02d}"
        out.append(f"{clock} gpu7 systemd[1]: Started vllm.service - vLLM.")
        head = f"{clock} gpu7 vllm[{pid}]:"
        out.append(f"{head} (APIServer pid={pid}) INFO 11-30 10:00:01 [api_server.py:1] vLLM API server version 0.16.0")
        queues = [[f"{head} (Worker_TP{r} pid={pid + 10 + r}) ERROR 11-30 10:00:{r:02d} [multiproc_executor.py:772] {t}"
                   for t in _traceback()] for r in range(rng.choice((3, 4)))]
        while any(queues):
            q = rng.choice([q for q in queues if q])
            out.append(q.pop(0))
        out.append(f"{clock} gpu7 systemd[1]: vllm.service: Main process exited, code=exited, status=1/FAILURE")
        out.append(f"{clock} gpu7 systemd[1]: vllm.service: Scheduled restart job, restart counter is at {a + 1}.")
        pid += 2311
    return ("\n".join(out) + "\n").encode()


def _diagnose(kb: KnowledgeBase, data: bytes, fold: bool, json_lines: bool = False,
              attempts: bool = False) -> tuple[Diagnosis, Analysis]:
    """`fold`: repeated tracebacks; `attempts`: repeated attempts too (tests/analyze/test_attempt_copies.py)."""
    p = Analysis(kb, make_scanner(kb, json_lines=json_lines, fold_attempts=attempts), fold=fold)
    feed_stream(p, io.BytesIO(data), json_lines=json_lines)
    return diagnosis(p, "log"), p


def test_a_crash_loop_reads_its_traceback_once_and_reports_the_same(kb: KnowledgeBase) -> None:
    data = crash_loop(12)
    folded, p = _diagnose(kb, data, fold=True)
    plain, _ = _diagnose(kb, data, fold=False)
    assert folded == plain
    assert p.folder is not None and p.folder.stats.templates == 1  # the builder read one traceback of that text
    tracebacks = data.count(b"Traceback (most recent call last)")
    # the first attempt's ranks print at once: all of them are read before the first one is complete
    read = data.split(b"restart counter is at 1.")[0].count(b"Traceback (most recent call last)")
    assert p.folder.stats.copies == tracebacks - read and p.folder.stats.replayed == 0
    assert p.folder.stats.lines == (tracebacks - read) * len(_traceback())
    assert len(folded.attempts) == 12 and all(a.root_message and "flashinfer-cubin" in a.root_message for a in folded.attempts)
    assert folded.root_cause is not None and folded.root_cause.where.attempt == 1
    assert folded.summary == "all 12 attempts failed with the same error"


def test_a_copy_that_goes_on_differently_is_read_by_the_builder(kb: KnowledgeBase) -> None:
    """A later traceback that starts like the first and then differs (another exception) is replayed into the
    builder at the line where it differs: its own exception is what the analysis sees."""
    first = _traceback()
    other = [*first[:-1], "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"]
    head = "Nov 30 10:00:00 gpu7 vllm[1]: (Worker_TP{r} pid={pid}) {level} 11-30 10:00:00 [{loc}] {t}"
    lines = [head.format(r=r, pid=10 + r, level="ERROR", loc="x.py:1", t=t) for r, tb in ((0, first), (1, other)) for t in tb]
    lines.insert(len(first), head.format(r=0, pid=10, level="INFO", loc="y.py:2", t="exiting"))  # closes the first
    data = ("\n".join(lines) + "\n").encode()
    folded, p = _diagnose(kb, data, fold=True)
    assert folded == _diagnose(kb, data, fold=False)[0]
    assert p.folder is not None and p.folder.stats.replayed == 1 and p.folder.stats.copies == 0
    assert {f.exception for f in folded.findings} >= {"RuntimeError", "ImportError"}


def _logs() -> list[Path]:
    own = [*sorted((ROOT / "tests" / "assets" / "logs").glob("*.log")), *sorted((ROOT / "tests" / "analyze" / "assets").glob("*.log")),
           ROOT / "examples" / "founding-case.log"]
    corpora = [*sorted((ROOT / "tests").glob("corpus_*/cases")), SHARED / "corpus" / "dev" / "cases"]
    return [*own, *(log for c in corpora for log in sorted(c.glob("*.log")))]


def test_folding_changes_no_diagnosis_of_any_asset_or_corpus_log(kb: KnowledgeBase) -> None:
    folded_any = 0
    for log in _logs():
        data = log.read_bytes()
        if data.count(b"Traceback (most recent call last)") < 2:
            continue  # nothing to fold
        json_lines = data.lstrip()[:1] == b"{"  # journal export, docker json-file
        folded, p = _diagnose(kb, data, fold=True, json_lines=json_lines)
        assert folded == _diagnose(kb, data, fold=False, json_lines=json_lines)[0], log.name
        assert folded == _diagnose(kb, data, fold=True, json_lines=json_lines, attempts=True)[0], log.name
        folded_any += bool(p.folder and p.folder.stats.copies)
    assert folded_any >= 3
