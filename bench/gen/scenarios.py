"""What happens in each log: an engine, a sink, and the story from the first start to the planted crash.

- restart_flashinfer: a unit serves for hours on the old install, the admin stops it, a "clean" reinstall
  leaves flashinfer-cubin 0.6.3 next to flashinfer 0.6.4, and the next starts crash-loop on the version gate
  (the project's founding case, every rank's traceback interleaved).
- runtime: a server starts, serves, hits a few handled request errors, and dies of one real error while
  serving (a worker's CUDA OOM, a CUDA illegal memory access) with its wrappers after it.
- crashloop: a unit that restarts every few seconds with the same multi-rank traceback (error-dense).
- journal_attempts: six attempts that each serve for a while and die of the same CUDA OOM (for a journal file
  whose failing attempts hold hundreds of thousands of records).

A healthy variant is the same deployment serving, with no decoy and no crash.
"""

from __future__ import annotations

import hashlib
import random

from .clock import SEC, Clocks, epoch_us
from .sglang import Sglang, SglDeploy
from .sinks import Export, Sink
from .tgi import Tgi, TgiDeploy
from .vllm import Deploy, Vllm

UNIT = "vllm-kimi-k25.service"
DESC = "vLLM Kimi-K2.5"
MSG_STARTED = "39f53479d3a045ac8e11786248231fbf"
MSG_STOPPING = "de5b426a63be47a7b6ac3eaac82e2f6f"
MSG_STOPPED = "9d1aaa27d60140bd96365438aad20286"
MSG_PROCESS_EXIT = "98e322203f7a4ed290d09fe03c09fe15"
MSG_UNIT_FAILURE = "d9b373ed55a64feb8242e02dbe79a49c"
MSG_UNIT_SUCCESS = "7ad2d189f7e94e70a38c781354912448"
MSG_RESTART_SCHEDULED = "5eb03494b6584870a536b337290809b3"
MSG_RESOURCES = "ae8f7b866b0347b9af31fe1c80b127c0"

DECOY_EVERY = 25 << 20
"""One handled request error per this many bytes of serving (at least three per log)."""


def inv_id(seed: str) -> str:
    return hashlib.md5(seed.encode()).hexdigest()


def decoy_marks(start: int, end: int) -> list[int]:
    n = max(3, (end - start) // DECOY_EVERY)
    return [start + (end - start) * (i + 1) // (n + 1) for i in range(n)]


def started(sink: Sink, t: int) -> None:
    sink.systemd(t, f"Started {UNIT} - {DESC}.", JOB_TYPE="start", JOB_RESULT="done", MESSAGE_ID=MSG_STARTED)


def failed(sink: Sink, rng: random.Random, t: int, restart: int, status: int = 1) -> int:
    """systemd's records after a failed attempt, up to the scheduled restart; returns the next start time."""
    t += int(rng.uniform(1.2, 2.2) * SEC)
    sink.systemd(t, f"{UNIT}: Main process exited, code=exited, status={status}/FAILURE", PRIORITY="5",
                 MESSAGE_ID=MSG_PROCESS_EXIT, EXIT_CODE="exited", EXIT_STATUS=str(status), COMMAND="ExecStart")
    sink.systemd(t + 200, f"{UNIT}: Failed with result 'exit-code'.", PRIORITY="4", MESSAGE_ID=MSG_UNIT_FAILURE,
                 UNIT_RESULT="exit-code")
    cpu = rng.uniform(170, 200)
    sink.systemd(t + 400, f"{UNIT}: Consumed {int(cpu) // 60}min {cpu % 60:.3f}s CPU time, "
                          f"{rng.uniform(11, 14):.1f}G memory peak, 0B memory swap peak.", MESSAGE_ID=MSG_RESOURCES)
    t += 30 * SEC + rng.randint(50_000, 200_000)  # RestartSec=30
    sink.systemd(t, f"{UNIT}: Scheduled restart job, restart counter is at {restart}.", PRIORITY="5",
                 MESSAGE_ID=MSG_RESTART_SCHEDULED, N_RESTARTS=str(restart))
    sink.systemd(t + 300, f"Stopped {UNIT} - {DESC}.", JOB_TYPE="restart", JOB_RESULT="done", MESSAGE_ID=MSG_STOPPED)
    return t + 1000


def stopped_by_admin(sink: Sink, v: Vllm, t: int) -> int:
    sink.systemd(t, f"Stopping {UNIT} - {DESC}...", JOB_TYPE="stop", MESSAGE_ID=MSG_STOPPING)
    t = v.stop(t)
    t += 2 * SEC
    sink.systemd(t, f"{UNIT}: Deactivated successfully.", MESSAGE_ID=MSG_UNIT_SUCCESS)
    sink.systemd(t + 100, f"Stopped {UNIT} - {DESC}.", JOB_TYPE="stop", JOB_RESULT="done", MESSAGE_ID=MSG_STOPPED)
    sink.systemd(t + 200, f"{UNIT}: Consumed 3d 7h 41min 12.402s CPU time, 118.7G memory peak, 0B memory swap peak.",
                 MESSAGE_ID=MSG_RESOURCES)
    return t + 300


def restart_flashinfer(sink: Sink, rng: random.Random, ck: Clocks, target: int, healthy: bool,
                       reserve: int) -> None:
    v = Vllm(sink, rng, ck, Deploy())
    t = epoch_us(2025, 11, 24, 0, 0, 3)
    v.new_attempt(38811, inv_id(f"{rng.random()}"))
    started(sink, t)
    t = v.start(t)
    if healthy:
        v.serve(t, target)
        return
    begin = sink.size
    t = v.serve(t, target - reserve, decoy_marks(begin, target - reserve))
    t = stopped_by_admin(sink, v, t + 40 * SEC)
    t += 37 * 60 * SEC  # the reinstall
    v.d.version = "0.16.0"
    for n, pid in enumerate((41237, 43610), start=1):
        v.new_attempt(pid, inv_id(f"{rng.random()}"))
        started(sink, t)
        t = v.frontend(t)
        t = v.engine(t)
        t = v.workers_init(t)
        t = v.crash_flashinfer(t, late=n - 1)
        t = failed(sink, rng, t, n)


def crashloop(sink: Sink, rng: random.Random, ck: Clocks, target: int, healthy: bool, reserve: int) -> None:
    """Error-dense: nothing but failing starts, each with every rank's traceback and the wrappers."""
    v = Vllm(sink, rng, ck, Deploy(nccl_debug=False, version="0.16.0"))
    t = epoch_us(2025, 11, 30, 9, 12, 1)
    n = 0
    pid = 41237
    while sink.size < target:
        n += 1
        v.new_attempt(pid, inv_id(f"loop{n}"))
        started(sink, t)
        t = v.frontend(t)
        t = v.engine(t)
        t = v.workers_init(t)
        t = v.crash_flashinfer(t, late=rng.choice((0, 0, 1, 2)))
        t = failed(sink, rng, t, n)
        pid += rng.randint(2300, 2500)


def runtime(sink: Sink, rng: random.Random, ck: Clocks, target: int, healthy: bool, reserve: int, *,
            engine: str, kind: str, deploy: object = None) -> None:
    t = epoch_us(2025, 11, 24, 6, 0, 0)
    if engine == "vllm":
        e: object = Vllm(sink, rng, ck, deploy or Deploy())  # type: ignore[arg-type]
    elif engine == "sglang":
        e = Sglang(sink, rng, ck, deploy or SglDeploy())  # type: ignore[arg-type]
    else:
        e = Tgi(sink, rng, ck, deploy or TgiDeploy())  # type: ignore[arg-type]
    e.new_attempt(1, inv_id("rt"))  # type: ignore[attr-defined]
    t = e.start(t)  # type: ignore[attr-defined]
    if healthy:
        e.serve(t, target)  # type: ignore[attr-defined]
        return
    begin = sink.size
    t = e.serve(t, target - reserve, decoy_marks(begin, target - reserve))  # type: ignore[attr-defined]
    if engine == "vllm":
        e.crash_runtime(t, kind)  # type: ignore[attr-defined]
    elif engine == "sglang":
        e.crash_oom(t)  # type: ignore[attr-defined]
    else:
        e.crash_ima(t)  # type: ignore[attr-defined]


def journal_attempts(sink: Export, rng: random.Random, ck: Clocks, entries: int, healthy: bool,
                     attempts: int = 6) -> None:
    """`entries` service records in total; healthy: one attempt still serving, else `attempts` attempts that each
    serve and then die of the same worker CUDA OOM."""
    v = Vllm(sink, rng, ck, Deploy())
    t = epoch_us(2025, 11, 3, 4, 0, 0)
    pid = 2210
    runs = 1 if healthy else attempts
    for i in range(runs):
        v.new_attempt(pid, inv_id(f"j{i}{healthy}"))
        started(sink, t)
        t = v.start(t)
        goal = entries * (i + 1) // runs - (0 if healthy else 160)
        begin = sink.size
        t = v.serve(t, goal, None if healthy else decoy_marks(begin, goal)[:3])
        if healthy:
            return
        t = v.crash_runtime(t, "oom")
        t = failed(sink, rng, t, i + 1)
        pid += rng.randint(3000, 9000)
