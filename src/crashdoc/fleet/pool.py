"""Diagnose many hosts at once: a bounded thread pool (`--forks`, default 10 as Ansible), a deadline per host,
and every outcome a value: a host that cannot be reached or fails is reported, never fatal to the others.

The work per host is mostly waiting on ssh and the host's journalctl, so threads overlap it; the analysis of
each host's records runs in-process (the GIL serialises that part, which is small next to the waiting).
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

from crashdoc.errors import CrashdocError, InputError, TransportError
from crashdoc.fleet.targets import Target
from crashdoc.model import Diagnosis
from crashdoc.status import ExitStatus
from crashdoc.transport import LocalRunner, Runner, SshRunner, parse_target
from crashdoc.transport.interface import CommandResult

#: as Ansible's `forks`
DEFAULT_FORKS = 10
#: seconds one host may take, all its commands together (a journal of 500k records reads in about a minute)
DEFAULT_TIMEOUT = 300.0
#: ssh's ConnectTimeout for fleet hosts (as Ansible's default `timeout`)
CONNECT_TIMEOUT = 10

Status = Literal["diagnosed", "unreachable", "error"]
#: what one host's diagnosis is: given the host, its runner and an `announce` for lines about to act
Job = Callable[[Target, Runner, Callable[[str], None]], Diagnosis]


@dataclass(frozen=True)
class HostResult:
    """One host's outcome."""

    target: Target
    status: Status
    diagnosis: Diagnosis | None
    error: str | None
    seconds: float

    @property
    def host(self) -> str:
        """The host's name in reports."""
        return self.target.name


@dataclass(frozen=True)
class FleetResult:
    """Every host's outcome, in the order the hosts were given."""

    what: str
    """What was diagnosed on each host (`unit vllm.service`, `container docker:vllm`)."""
    hosts: tuple[HostResult, ...]
    seconds: float
    """Wall time of the whole fleet."""
    forks: int


class DeadlineRunner(Runner):
    """A runner whose commands all end by one deadline: each run's timeout is cut to the time left, and
    streamed commands still running at the deadline are killed (so a slow host's thread ends too)."""

    def __init__(self, inner: Runner, seconds: float) -> None:
        self.inner = inner
        self.host = inner.host
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.expired = False
        self._procs: list[subprocess.Popen[bytes]] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self.expire)
        self._timer.daemon = True
        self._timer.start()

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0 or self.expired:
            self.expired = True
            raise TransportError(f"{self.host or 'this machine'}: no complete answer within {self.seconds:.0f} s")
        return left

    def run(self, argv: Sequence[str], *, timeout: float = 60.0, stdin: bytes | None = None) -> CommandResult:
        """The inner run, its timeout cut to what is left of the host's time."""
        left = self._left()
        try:
            return self.inner.run(argv, timeout=min(timeout, left), stdin=stdin)
        except TransportError:
            if time.monotonic() >= self.deadline:
                self.expired = True
            raise

    def popen(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        """The inner popen; the process is killed at the deadline if it still runs."""
        self._left()
        proc = self.inner.popen(argv)
        with self._lock:  # either expire() sees this process, or this sees that the deadline passed
            self._procs.append(proc)
            expired = self.expired
        if expired:
            proc.kill()
            raise TransportError(f"{self.host or 'this machine'}: no complete answer within {self.seconds:.0f} s")
        return proc

    def describe(self, argv: Sequence[str]) -> str:
        """As the inner runner says it."""
        return self.inner.describe(argv)

    def expire(self) -> None:
        """The deadline: kill what still runs."""
        with self._lock:
            self.expired = True
            procs = list(self._procs)
        for p in procs:
            if p.poll() is None:
                try:
                    p.kill()
                except OSError:
                    pass

    def close(self) -> None:
        """The host is done: stop the deadline timer."""
        self._timer.cancel()


def runner_for_target(t: Target, timeout: float, ssh_options: tuple[str, ...] = ()) -> Runner:
    """The runner that reaches a target: ssh with a connect timeout no longer than the host's time."""
    if t.address is None:
        return LocalRunner()
    return SshRunner(parse_target(t.address), extra_options=ssh_options,
                     connect_timeout=max(1, min(CONNECT_TIMEOUT, int(timeout))))


def diagnose_host(t: Target, job: Job, timeout: float, announce: Callable[[str], None],
                  ssh_options: tuple[str, ...] = (), started: list[DeadlineRunner] | None = None,
                  stop: threading.Event | None = None) -> HostResult:
    """One host: its diagnosis, or why there is none (unreachable: ssh could not reach it; error: the rest).
    `started` collects the host's runner, so an interrupted fleet (`stop` set) can end every host's commands."""
    start = time.monotonic()
    runner = DeadlineRunner(runner_for_target(t, timeout, ssh_options), timeout)
    if started is not None:
        started.append(runner)
    if stop is not None and stop.is_set():
        runner.expire()  # the fleet was interrupted before this host began

    def done(status: Status, diag: Diagnosis | None, error: str | None) -> HostResult:
        return HostResult(t, status, diag, error, round(time.monotonic() - start, 3))

    try:
        diag = job(t, runner, lambda text: announce(f"{t.name}: {text}"))
    except TransportError as exc:
        if runner.expired:
            return done("error", None, f"no complete answer within {timeout:.0f} s (--host-timeout): {exc}")
        return done("unreachable", None, str(exc))
    except CrashdocError as exc:
        return done("error", None, str(exc))
    except Exception as exc:  # a bug on one host must not lose the others' reports
        return done("error", None, f"internal error: {type(exc).__name__}: {exc} (run this host alone with --traceback)")
    finally:
        runner.close()
    if runner.expired:
        return done("error", None, f"no complete answer within {timeout:.0f} s (--host-timeout): the report would be partial")
    return done("diagnosed", diag, None)


def diagnose_fleet(
    targets: Sequence[Target],
    job: Job,
    *,
    what: str,
    forks: int = DEFAULT_FORKS,
    timeout: float = DEFAULT_TIMEOUT,
    announce: Callable[[str], None] = lambda _text: None,
    ssh_options: tuple[str, ...] = (),
) -> FleetResult:
    """Run `job` on every target, at most `forks` at a time; results in the targets' order."""
    if forks < 1:
        raise InputError("--forks must be 1 or more")
    if timeout <= 0:
        raise InputError("--host-timeout must be more than 0 seconds")
    start = time.monotonic()
    warm = getattr(job, "warm", None)
    if callable(warm):
        warm()
    lock = threading.Lock()

    def say(text: str) -> None:
        with lock:
            announce(text)

    started: list[DeadlineRunner] = []
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=min(forks, len(targets)) or 1, thread_name_prefix="crashdoc-host")
    try:
        futures = [pool.submit(diagnose_host, t, job, timeout, say, ssh_options, started, stop) for t in targets]
        results = tuple(f.result() for f in futures)
    except BaseException:  # Ctrl-C: hosts not started never start, the running ones' commands are killed
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        for r in list(started):
            r.expire()
        raise
    pool.shutdown()
    return FleetResult(what, results, round(time.monotonic() - start, 3), forks)


def exit_status(result: FleetResult) -> int:
    """0 when any host has a root cause; 3 when hosts were diagnosed and none shows an error; 2 when no host
    could be diagnosed (all unreachable or failed). Unreachable hosts alongside diagnosed ones do not change it:
    the report and `counts` in the JSON name them."""
    diagnosed = [h for h in result.hosts if h.status == "diagnosed" and h.diagnosis is not None]
    if any(h.diagnosis is not None and h.diagnosis.root_cause is not None for h in diagnosed):
        return ExitStatus.ROOT_CAUSE
    return ExitStatus.NO_ERROR if diagnosed else ExitStatus.UNREADABLE
