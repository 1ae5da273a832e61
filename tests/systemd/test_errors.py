"""Errors a user meets, each one clear line with the next step; and the journalctl dialects by systemd version."""

from __future__ import annotations

import json
import re
import socket
import struct
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from crashdoc.errors import InputError, TransportError
from crashdoc.investigate.unit import diagnose_unit
from crashdoc.sources.errors import FreezeRefusedError, NoSystemdError, SystemdTooOldError
from crashdoc.transport import CommandResult, SshRunner, parse_target
from tests.support.net import free_port
from tests.support.runners import FakeRunner
from tests.support.sshd import SshServer
from tests.systemd.helpers import crashdoc
from tests.systemd.test_unit_state import SHOW_LOOP

INV = ["0f3c1b9a6e1d4d7cb9a3b7a2f1c0d9e8", "1a2b3c4d5e6f40718293a4b5c6d7e8f9"]


def _rec(t: int, **fields: str) -> str:
    return json.dumps({"__CURSOR": f"c{t}", "__REALTIME_TIMESTAMP": str(1_764_000_000_000_000 + t * 1000), **fields})


def _systemd_records() -> str:
    out = []
    for i, inv in enumerate(INV):
        base = i * 10_000
        out += [
            _rec(base + 1, UNIT="vllm.service", INVOCATION_ID=inv, MESSAGE="Started vllm.service.", JOB_TYPE="start",
                 MESSAGE_ID="39f53479d3a045ac8e11786248231fbf"),
            _rec(base + 900, UNIT="vllm.service", INVOCATION_ID=inv, EXIT_CODE="exited", EXIT_STATUS="1",
                 MESSAGE="vllm.service: Main process exited, code=exited, status=1/FAILURE",
                 MESSAGE_ID="98e322203f7a4ed290d09fe03c09fe15"),
            _rec(base + 901, UNIT="vllm.service", INVOCATION_ID=inv, UNIT_RESULT="exit-code",
                 MESSAGE="vllm.service: Failed with result 'exit-code'.", MESSAGE_ID="d9b373ed55a64feb8242e02dbe79a49c"),
            _rec(base + 2000, UNIT="vllm.service", INVOCATION_ID=inv, N_RESTARTS=str(i + 1),
                 MESSAGE=f"vllm.service: Scheduled restart job, restart counter is at {i + 1}.",
                 MESSAGE_ID="5eb03494b6584870a536b337290809b3"),
        ]
    return "\n".join(reversed(out)) + "\n"  # the scan reads newest first


def _attempt(inv: str, i: int) -> str:
    lines = [
        "(Worker_TP1 pid=71) ERROR 11-30 09:12:05 [multiproc_executor.py:597] WorkerProc failed to start.",
        "(Worker_TP1 pid=71) ERROR 11-30 09:12:05 [multiproc_executor.py:597] Traceback (most recent call last):",
        '(Worker_TP1 pid=71) ERROR 11-30 09:12:05 [multiproc_executor.py:597]   File "/v/flashinfer/__init__.py", line 3, in check',
        "(Worker_TP1 pid=71) ERROR 11-30 09:12:05 [multiproc_executor.py:597]     raise RuntimeError(",
        "(Worker_TP1 pid=71) ERROR 11-30 09:12:05 [multiproc_executor.py:597] RuntimeError: flashinfer-cubin version (0.6.3) "
        "does not match flashinfer version (0.6.4). Please install the same version of both packages. Set "
        "FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check.",
    ]
    return "\n".join(
        _rec(i * 10_000 + 10 + n, MESSAGE=m, _SYSTEMD_UNIT="vllm.service", _SYSTEMD_INVOCATION_ID=inv, _PID="70",
             SYSLOG_IDENTIFIER="python3", _TRANSPORT="stdout", PRIORITY="6")
        for n, m in enumerate(lines)
    ) + "\n"


class JournalFake(FakeRunner):
    """systemctl and journalctl of a host with a given systemd version, answering from canned records."""

    def __init__(self, version: int, journal_stderr: str = "") -> None:
        super().__init__({("systemctl", "--version"): (0, f"systemd {version} (x)\n", ""),
                          ("systemctl", "show"): (0, SHOW_LOOP.replace("NRestarts=14", "NRestarts=2"), "")})
        self.version = version
        self.journal_stderr = journal_stderr

    def run(self, argv: Sequence[str], *, timeout: float = 60.0, stdin: bytes | None = None) -> CommandResult:
        if argv[0] != "journalctl":
            if argv[:2] == ["head", "-c"] or argv[0] in ("head", "sh", "env"):
                return CommandResult(tuple(argv), 1, b"", b"", 0.0)
            return super().run(argv, timeout=timeout, stdin=stdin)
        self.calls.append(tuple(argv))
        if self.journal_stderr:
            return CommandResult(tuple(argv), 1, b"", self.journal_stderr.encode(), 0.0)
        out = ""
        if "UNIT=vllm.service" in argv and any(a.startswith("--lines=2") for a in argv):
            out = _systemd_records()
        for a in argv:
            for i, inv in enumerate(INV):
                if a in (f"--invocation={inv}", f"_SYSTEMD_INVOCATION_ID={inv}"):
                    out += _attempt(inv, i)
        records = self.answer(_window(out, argv))
        text = b"".join(map(_export, records)) if "export" in argv else "".join(json.dumps(r) + "\n" for r in records).encode()
        return CommandResult(tuple(argv), 0, text, b"", 0.0)

    def answer(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The records journalctl writes (a subclass changes them)."""
        return records


def _export(rec: dict[str, Any]) -> bytes:
    """A record as `journalctl -o export` writes it: a field that is not plain text (newlines, control characters,
    not UTF-8, byte values) framed by its length; a value of another type as its JSON text."""
    out = b""
    for key, value in rec.items():
        if isinstance(value, list) and all(type(v) is int and 0 <= v <= 255 for v in value):
            data = bytes(value)
        else:
            data = (value if isinstance(value, str) else json.dumps(value)).encode("utf-8", "surrogatepass")
        if _plain(data):
            out += key.encode() + b"=" + data + b"\n"
        else:
            out += key.encode() + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"
    return out + b"\n"


def _plain(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return re.search("[\x00-\x08\x0a-\x1f\x7f-\x9f]", text) is None


def _window(out: str, argv: Sequence[str]) -> list[dict[str, Any]]:
    """journalctl's --until, --after-cursor and --lines over canned records (journal order)."""
    records = [json.loads(line) for line in out.splitlines()]
    for a in argv:
        if a.startswith("--until=@"):
            until = round(float(a.split("@", 1)[1]) * 1e6)
            records = [r for r in records if int(r["__REALTIME_TIMESTAMP"]) <= until]
        if a.startswith("--after-cursor="):
            cursors = [r["__CURSOR"] for r in records]
            cursor = a.split("=", 1)[1]
            records = records[cursors.index(cursor) + 1:] if cursor in cursors else []
    for a in argv:
        if a.startswith("--lines=") and any(b.startswith("--after-cursor=") for b in argv):  # the next N
            records = records[:int(a.split("=", 1)[1])]
    return records


def test_systemd_257_fetches_each_attempt_with_invocation() -> None:
    runner = JournalFake(257)
    diag = diagnose_unit(runner, "vllm", announce=lambda _: None)
    fetches = [c for c in runner.calls if any(a.startswith("--invocation=") for a in c)]
    asked = [next(a for a in c if a.startswith("--invocation=")) for c in fetches]
    assert list(dict.fromkeys(asked)) == [f"--invocation={i}" for i in INV]  # each read in slices, in order
    assert not any(f"_SYSTEMD_INVOCATION_ID={INV[0]}" in c for c in runner.calls)
    assert diag.root_cause is not None and "flashinfer-cubin version (0.6.3)" in diag.root_cause.message
    assert [a.invocation_id for a in diag.attempts] == INV


def test_older_systemd_matches_the_invocation_fields() -> None:
    runner = JournalFake(252)
    diag = diagnose_unit(runner, "vllm", announce=lambda _: None)
    fetch = next(c for c in runner.calls if f"_SYSTEMD_INVOCATION_ID={INV[0]}" in c)
    assert f"INVOCATION_ID={INV[1]}" in fetch and "+" in fetch  # systemd's own records: no underscore
    assert not any(a.startswith("--invocation") for c in runner.calls for a in c)
    assert [a.outcome for a in diag.attempts] == ["failed", "failed"]


def test_systemd_without_invocation_ids_is_too_old() -> None:
    with pytest.raises(SystemdTooOldError, match=r"systemd 229 on gpu1 has no invocation ids \(needs 232 or newer\)"):
        diagnose_unit(JournalFake(229), "vllm", announce=lambda _: None)


def test_journalctl_that_lacks_an_option_says_which() -> None:
    runner = JournalFake(240, journal_stderr="journalctl: unrecognized option '--output-fields=MESSAGE'\n")
    with pytest.raises(SystemdTooOldError, match=r"journalctl on gpu1 \(systemd 240\) does not know --output-fields"):
        diagnose_unit(runner, "vllm", announce=lambda _: None)


def test_journal_permission_hint_becomes_one_line() -> None:
    runner = JournalFake(252, journal_stderr="No journal files were opened due to insufficient permissions.\n")
    runner.host = "bob@gpu1"
    with pytest.raises(InputError, match=r"bob on gpu1 may not read the system journal: add it to group systemd-journal"):
        diagnose_unit(runner, "vllm", announce=lambda _: None)


def test_freeze_refuses_a_copied_journal() -> None:
    with pytest.raises(FreezeRefusedError, match="cannot act on a copied journal"):
        diagnose_unit(JournalFake(252), "vllm", freeze=True, journal_args=("--file", "x.journal"))


def test_freeze_announces_the_command_before_running_it() -> None:
    said: list[str] = []
    runner = JournalFake(252)
    runner.answers[("systemctl", "stop")] = (0, "", "")
    diagnose_unit(runner, "vllm", freeze=True, announce=said.append)
    stop = runner.calls.index(("systemctl", "stop", "vllm.service"))
    assert said == ["stopping vllm.service so its restart loop stops changing the evidence: "
                    "ssh gpu1 'systemctl stop vllm.service'"]
    assert all(c[:2] != ("systemctl", "stop") for c in runner.calls[:stop])


def test_without_freeze_nothing_changes() -> None:
    runner = JournalFake(252)
    diag = diagnose_unit(runner, "vllm", announce=lambda _: None)
    assert not [c for c in runner.calls if c[0] == "systemctl" and c[1] not in ("--version", "show")]
    assert not [c for c in runner.calls if c[0] == "journalctl" and any(a.startswith(("--vacuum", "--rotate", "--flush")) for a in c)]
    unit = next(s for s in diag.sections if s.key == "unit")
    assert "still looping: run with --freeze to stop it (crashdoc changed nothing on the host)" in unit.lines


def test_attempts_must_be_positive() -> None:
    with pytest.raises(InputError, match="--attempts must be 1 or more"):
        diagnose_unit(JournalFake(252), "vllm", attempts=0)


# --- ssh, for real --------------------------------------------------------------------------------------


@pytest.mark.host
def test_ssh_refused_is_one_line() -> None:
    port = free_port()  # nobody listens there
    res = crashdoc("diagnose", "vllm", "--host", f"root@127.0.0.1:{port}")
    assert res.status == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Connection refused" in lines[0] and f"127.0.0.1:{port}" in lines[0]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts TCP connections and never says a word (a firewall-held or hung sshd)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    conns: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conns.append(srv.accept()[0])
            except OSError:
                pass

    th = threading.Thread(target=accept, daemon=True)
    th.start()
    yield srv.getsockname()[1]
    stop.set()
    th.join(timeout=2)
    for c in conns:
        c.close()
    srv.close()


@pytest.mark.host
def test_ssh_timeout_is_one_line(silent_port: int) -> None:
    runner = SshRunner(parse_target(f"root@127.0.0.1:{silent_port}"), connect_timeout=2)
    with pytest.raises(TransportError) as err:
        diagnose_unit(runner, "vllm", announce=lambda _: None)
    msg = str(err.value)
    assert "\n" not in msg and "timed out" in msg and f"127.0.0.1:{silent_port}" in msg


@pytest.mark.host
def test_host_without_systemd_over_real_ssh(sshd: SshServer) -> None:
    # this test machine's PID 1 is not systemd (or systemctl is missing): a clear line, not a traceback
    res = crashdoc("diagnose", "vllm", "--host", sshd.target, ssh_options=sshd.options_env)
    if res.status == 0:
        pytest.skip("this machine runs systemd as PID 1 and knows vllm.service")
    assert res.status == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert ("does not run systemd" in lines[0] or "has no systemctl" in lines[0] or "is not known" in lines[0])
    assert sshd.target in lines[0] or "127.0.0.1" in lines[0]


def test_no_systemd_error_type() -> None:
    assert issubclass(NoSystemdError, InputError)
