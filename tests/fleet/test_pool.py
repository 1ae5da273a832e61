"""The host pool with real processes: at most --forks hosts at once, a deadline per host that ends a host's
commands (streamed ones too), unreachable hosts (a real ssh to a closed port) and failing hosts reported beside
the others, never fatal."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from crashdoc.errors import InputError
from crashdoc.fleet import Target, diagnose_fleet
from crashdoc.investigate import run
from crashdoc.model import Diagnosis
from crashdoc.sources.file import FileSource
from crashdoc.transport import Runner
from tests.support.net import free_port

ROOT = Path(__file__).resolve().parents[2]
FOUNDING = ROOT / "examples" / "founding-case.log"

Announce = Callable[[str], None]


def _diagnose_founding(runner: Runner) -> Diagnosis:
    """Read the log through the host's runner (`cat`, a real process) and diagnose it."""
    res = runner.run(["cat", str(FOUNDING)])
    assert res.ok
    return run(FileSource(str(FOUNDING)))


def test_at_most_forks_hosts_at_once() -> None:
    forks = 2
    both = threading.Barrier(forks, timeout=30)  # passes only when `forks` hosts run at the same time
    lock = threading.Lock()
    active = peak = 0

    def job(t: Target, runner: Runner, announce: Announce) -> Diagnosis:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        try:
            both.wait()
            return _diagnose_founding(runner)
        finally:
            with lock:
                active -= 1

    targets = [Target(f"local-{i}", None) for i in range(6)]
    result = diagnose_fleet(targets, job, what="log", forks=forks)
    assert peak == forks
    assert [h.host for h in result.hosts] == [t.name for t in targets]  # the order given, not the order done
    assert all(h.status == "diagnosed" and h.diagnosis and h.diagnosis.root_cause for h in result.hosts)


def test_a_host_past_its_deadline_is_an_error_and_its_commands_end() -> None:
    def job(t: Target, runner: Runner, announce: Announce) -> Diagnosis:
        if t.name == "slow-stream":
            streamed = runner.stream(["sleep", "600"])  # killed at the deadline: the lines end
            list(streamed.lines)
            streamed.result()
        elif t.name == "slow-run":
            runner.run(["sleep", "600"], timeout=600)  # its timeout is cut to the host's time left
        return _diagnose_founding(runner)

    targets = [Target("slow-stream", None), Target("fast", None), Target("slow-run", None)]
    result = diagnose_fleet(targets, job, what="log", timeout=1.0)
    by = {h.host: h for h in result.hosts}
    assert by["fast"].status == "diagnosed"
    for name in ("slow-stream", "slow-run"):
        assert by[name].status == "error" and by[name].diagnosis is None
        assert "no complete answer within 1 s" in (by[name].error or "")


def test_unreachable_and_failing_hosts_are_reported_beside_the_others() -> None:
    closed = free_port()

    def job(t: Target, runner: Runner, announce: Announce) -> Diagnosis:
        if t.name == "buggy":
            raise KeyError("a bug on one host")
        if t.name == "no-journal":
            raise InputError("journalctl: No journal files were found.")
        if t.address is not None:
            runner.run(["true"])  # a real ssh to a port nobody listens on
        announce("about to read")
        return _diagnose_founding(runner)

    said: list[str] = []
    targets = [Target("ok", None), Target("down", f"root@127.0.0.1:{closed}"), Target("buggy", None),
               Target("no-journal", None)]
    result = diagnose_fleet(targets, job, what="log", announce=said.append)
    by = {h.host: h for h in result.hosts}
    assert by["ok"].status == "diagnosed"
    assert by["down"].status == "unreachable"
    assert f"port {closed}" in (by["down"].error or "") and "refused" in (by["down"].error or "").lower()
    assert by["buggy"].status == "error" and "internal error: KeyError" in (by["buggy"].error or "")
    assert by["no-journal"].status == "error" and "No journal files" in (by["no-journal"].error or "")
    assert said == ["ok: about to read"]  # announcements name their host


@pytest.mark.parametrize(("forks", "timeout"), [(0, 10.0), (2, 0.0)])
def test_bad_limits_are_refused(forks: int, timeout: float) -> None:
    with pytest.raises(InputError):
        diagnose_fleet([Target("a", None)], lambda t, r, a: _diagnose_founding(r), what="log", forks=forks,
                       timeout=timeout)


def test_ctrl_c_ends_the_running_hosts_commands() -> None:
    streaming = threading.Event()
    procs = []

    def job(t: Target, runner: Runner, announce: Announce) -> Diagnosis:
        if t.name == "interrupted":
            assert streaming.wait(30)
            raise KeyboardInterrupt
        proc = runner.popen(["sleep", "600"])  # refused once the fleet is interrupted
        procs.append(proc)
        streaming.set()
        proc.wait()
        return _diagnose_founding(runner)

    with pytest.raises(KeyboardInterrupt):
        diagnose_fleet([Target("interrupted", None), Target("slow", None), Target("later", None)], job, what="log",
                       forks=2)
    assert procs and all(p.wait(timeout=30) == -9 for p in procs)  # killed by the interrupt, none left running
