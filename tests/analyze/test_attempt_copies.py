"""Attempts of a crash loop that repeat an earlier one are read only in their skeleton (parse/regions.py,
analyze/attempt_copies.py), and the diagnosis is the one of reading every line: the same root cause, findings,
attempts (boundaries, outcomes, exit statuses, verdicts) and summary."""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

import pytest

from crashdoc.analyze.feed import feed_stream, make_scanner
from crashdoc.analyze.pipeline import Analysis, diagnosis
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Diagnosis
from crashdoc.parse.regions import fingerprint

BENCH = Path(__file__).resolve().parents[2] / "bench"
ERRORS = {
    "cubin": "RuntimeError: flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4).",
    "oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.50 GiB. GPU 0 has a total capacity of 79.10 GiB",
    "import": "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
}


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _diagnose(kb: KnowledgeBase, data: bytes, fold_attempts: bool, json_lines: bool = False) -> tuple[Diagnosis, Analysis]:
    p = Analysis(kb, make_scanner(kb, json_lines=json_lines, fold_attempts=fold_attempts))
    feed_stream(p, io.BytesIO(data), json_lines=json_lines)
    return diagnosis(p, "log"), p


def _attempt(rng: random.Random, clock: str, pid: int, error: str | None, end: str, n: int, serving: bool) -> list[str]:
    """One start of a unit: systemd's records, INFO lines with a random handle, every rank's traceback interleaved."""
    head = f"{clock} gpu7 vllm[{pid}]:"
    out = [f"{clock} gpu7 systemd[1]: Started vllm.service - vLLM.",
           f"{head} (APIServer pid={pid}) INFO 11-30 10:00:01 [api_server.py:1] vLLM API server version 0.16.0",
           f"{head} (EngineCore_DP0 pid={pid + 1}) INFO 11-30 10:00:02 [shm_broadcast.py:289] handle "
           f"psm_{rng.getrandbits(32):08x}"]
    if serving:
        out.append(f"{head} (APIServer pid={pid}) INFO 11-30 10:00:09 [launcher.py:37] Application startup complete.")
    if error is not None:
        tb = ["Traceback (most recent call last):",
              '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/executor/multiproc_executor.py", line 743, in worker_main',
              "    worker = WorkerProc(*args, **kwargs)", error]
        queues = [[f"{head} (Worker_TP{r} pid={pid + 10 + r}) ERROR 11-30 10:00:{r:02d} [multiproc_executor.py:772] {t}"
                   for t in tb] for r in range(4)]
        while any(queues):
            q = rng.choice([q for q in queues if q])
            out.append(q.pop(0))
    if end == "failed":
        out += [f"{clock} gpu7 systemd[1]: vllm.service: Main process exited, code=exited, status=1/FAILURE",
                f"{clock} gpu7 systemd[1]: vllm.service: Failed with result 'exit-code'.",
                f"{clock} gpu7 systemd[1]: vllm.service: Scheduled restart job, restart counter is at {n}.",
                f"{clock} gpu7 systemd[1]: Stopped vllm.service - vLLM."]
    elif end == "stopped":
        out += [f"{clock} gpu7 systemd[1]: Stopping vllm.service - vLLM...",
                f"{clock} gpu7 systemd[1]: vllm.service: Deactivated successfully.",
                f"{clock} gpu7 systemd[1]: Stopped vllm.service - vLLM."]
    return out


def loop(plan: list[tuple[str | None, str]], seed: int = 3, serving: bool = False) -> bytes:
    """A unit's journal: one attempt per (error, end) of `plan`."""
    rng = random.Random(seed)
    out: list[str] = []
    for n, (err, end) in enumerate(plan):
        clock = f"Nov 30 1{n // 60 % 10}:{n % 60:02d}:{(n * 7) % 60:02d}"
        out += _attempt(rng, clock, 41000 + 2311 * n, ERRORS[err] if err else None, end, n + 1, serving)
    return ("\n".join(out) + "\n").encode()


SHAPES = {
    "same error every attempt": [("cubin", "failed")] * 12,
    "two errors alternating": [("cubin", "failed"), ("oom", "failed")] * 7,
    "a run of one error, then another": [("import", "failed")] * 6 + [("cubin", "failed")] * 6,
    "a healthy attempt stopped by hand in between": [("oom", "failed")] * 5 + [(None, "stopped")] + [("oom", "failed")] * 5,
    "the last attempt still starting": [("cubin", "failed")] * 8 + [(None, "")],
}


@pytest.mark.parametrize("name", SHAPES)
def test_a_loop_read_with_copies_is_diagnosed_as_read_whole(kb: KnowledgeBase, name: str) -> None:
    data = loop(SHAPES[name])
    folded, p = _diagnose(kb, data, True)
    whole, q = _diagnose(kb, data, False)
    assert folded == whole
    copies = p.scanner.regions.copies if p.scanner.regions is not None else 0
    assert copies >= 4
    # a copy reads its skeleton (at most 7 lines here), not its ranks' 16 traceback lines
    assert q.scanner.stats.selected - p.scanner.stats.selected >= copies * 10
    assert len(folded.attempts) == len(SHAPES[name])


def test_a_loop_of_undecided_attempts_reports_the_same_attempt(kb: KnowledgeBase) -> None:
    """No attempt is decisive (no record says how it ended): the latest strongest one is reported, and a copy
    never is (its lines were not read); the last attempt is never a copy."""
    data = loop([("oom", "")] * 10, serving=True)
    folded, p = _diagnose(kb, data, True)
    assert folded == _diagnose(kb, data, False)[0]
    assert p.copies is not None and p.copies.of and folded.root_cause is not None
    assert folded.root_cause.where.attempt == 10 and 10 not in p.copies.of


def _engine_only(data: bytes) -> list[str]:
    """The same loop as a container's log: the engine's own lines, no service manager (a banner begins each start)."""
    out = []
    for line in data.decode().splitlines():
        if " systemd[1]: " in line:
            continue
        text = line.split("]: ", 1)[1]
        out.append(text.replace("vLLM API server version", "non-default args: {'model': 'm'} vLLM API server version"))
    return out


def test_a_container_restart_loop_is_read_with_copies(kb: KnowledgeBase) -> None:
    """No systemd: the engine's start banner after a failure begins each attempt, in plain text and in docker's
    json-file lines."""
    lines = _engine_only(loop([("cubin", ""), ("oom", "")] * 6))
    plain = ("\n".join(lines) + "\n").encode()
    docker = "".join(json.dumps({"log": f"{ln}\n", "stream": "stderr", "time": f"2025-11-30T10:00:{i % 60:02d}.{i:09d}Z"}) + "\n"
                     for i, ln in enumerate(lines)).encode()
    for data, json_lines in ((plain, False), (docker, True)):
        folded, p = _diagnose(kb, data, True, json_lines)
        whole = _diagnose(kb, data, False, json_lines)[0]
        assert len(folded.attempts) == 12 and p.copies is not None and len(p.copies.of) >= 6
        assert all(model % 2 == copy % 2 for copy, model in p.copies.of.items())
        # no record says how an attempt ended, so none is decisive and the strongest error's latest attempt is
        # reported: read whole, that is attempt 11; with copies, the latest attempt of that error that was read
        assert folded.attempts == whole.attempts and folded.summary == whole.summary
        assert folded.root_cause is not None and whole.root_cause is not None
        assert (folded.root_cause.message, folded.root_cause.rule) == (whole.root_cause.message, whole.root_cause.rule)
        assert whole.root_cause.where.attempt == 11
        chosen = folded.root_cause.where.attempt
        assert chosen not in p.copies.of and chosen == max(a for a in range(1, 12, 2) if a not in p.copies.of)


def _journal_json(data: bytes, seed: int = 5) -> bytes:
    """The same loop as `journalctl -u vllm -o json` writes it: a cursor, a clock and an invocation id per record."""
    rng = random.Random(seed)
    out, invocation = [], ""
    for seq, line in enumerate(data.decode().splitlines(), 1):
        head, msg = line.split("]: ", 1)
        ident, pid = head.rsplit(" ", 1)[1].split("[")
        if ident == "systemd" and msg.startswith("Started "):
            invocation = f"{rng.getrandbits(128):032x}"
        rec = {"__CURSOR": f"s={rng.getrandbits(64):x};i={seq:x};b=5f2c;x={rng.getrandbits(64):x}",
               "__REALTIME_TIMESTAMP": str(1764496800000000 + seq * 1000), "_PID": pid, "SYSLOG_IDENTIFIER": ident,
               "MESSAGE": msg}
        rec.update({"UNIT": "vllm.service", "INVOCATION_ID": invocation} if ident == "systemd"
                   else {"_SYSTEMD_UNIT": "vllm.service", "_SYSTEMD_INVOCATION_ID": invocation})
        out.append(json.dumps(rec, separators=(",", ":")))
    return ("\n".join(out) + "\n").encode()


def test_a_unit_journal_is_read_with_copies(kb: KnowledgeBase) -> None:
    """journalctl's JSON, and its export format as the unit source feeds it (one entry line per record,
    sources/journal_export.py)."""
    data = _journal_json(loop([("cubin", "failed"), ("oom", "failed")] * 6))
    entries = b"".join(b"\x1e".join(f"{k}={v}".encode() for k, v in json.loads(ln).items()) + b"\n"
                       for ln in data.splitlines())
    for shape in (data, entries):
        folded, p = _diagnose(kb, shape, True, json_lines=True)
        assert folded == _diagnose(kb, shape, False, json_lines=True)[0]
        assert len(folded.attempts) == 12 and p.copies is not None and len(p.copies.of) >= 6
        assert all(a.exit_status == "exited 1/FAILURE" and a.invocation_id for a in folded.attempts)


def test_copies_name_the_attempt_they_repeat(kb: KnowledgeBase) -> None:
    data = loop([("cubin", "failed"), ("oom", "failed")] * 5)
    _, p = _diagnose(kb, data, True)
    assert p.copies is not None and len(p.copies.of) >= 4
    assert all(model % 2 == copy % 2 for copy, model in p.copies.of.items())  # each the model of its own error


def test_the_fingerprint_leaves_out_digits_hex_and_order() -> None:
    a = b"10:00:01 vllm[12]: ERROR x\n10:00:01 vllm[13]: ERROR y\n10:00:01 INFO handle psm_ab12\n"
    assert fingerprint(a) == fingerprint(b"10:03:09 vllm[98]: ERROR y\n10:03:09 vllm[97]: ERROR x\n11:00:00 INFO handle psm_c3\n")
    assert fingerprint(a) != fingerprint(b"10:00:01 vllm[12]: ERROR x\n10:00:01 vllm[13]: ERROR x\n10:00:01 INFO handle psm_\n")
    assert fingerprint(a) != fingerprint(b"10:00:01 vllm[12]: ERROR x\n10:00:01 vllm[13]: ERROR y\n")


def test_a_generated_crash_loop_is_diagnosed_as_read_whole(kb: KnowledgeBase, tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    gen = pytest.importorskip("gen")
    path = tmp_path / "crashloop.log"
    gen.build(gen.ROWS["crashloop"], 3 << 20, healthy=False, path=path)
    data = path.read_bytes()
    folded, p = _diagnose(kb, data, True)
    whole, q = _diagnose(kb, data, False)
    assert folded == whole
    assert p.scanner.regions is not None and p.scanner.regions.copies >= len(folded.attempts) // 2
    assert folded.root_cause is not None and "flashinfer-cubin" in folded.root_cause.line
