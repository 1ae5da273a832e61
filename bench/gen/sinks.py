"""Output shapes: where an engine's lines go and how each tool wraps them.

An engine scenario writes through a sink: `out(t, text)` for one line the service printed (no newline),
`bar(updates, prefix)` for a tqdm progress bar, `systemd(t, msg, **fields)` for systemd's own records about
the unit (dropped by the container and plain shapes, which never see them). Times are microseconds since the
epoch; the sink keeps journald's clock monotonic (journald stamps on reception).

tqdm writes `\\r` between updates and one `\\n` at the end: container and plain shapes keep that (one line with
`\\r` inside, as docker, containerd and a redirected stdout store it); journald shapes store one record per
update, as the project's founding case does.

`size` is the bytes written so far (plus the buffered text), which scenarios compare with their budget.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path
from typing import BinaryIO

from .clock import SEC, Clocks

FLUSH_LINES = 4096


class Sink:
    """Base: buffering and byte counting; subclasses render one line."""

    journald = False
    """True for shapes that hold systemd's records and split progress bars into lines."""

    def __init__(self, f: BinaryIO, ck: Clocks, *, host: str = "gpu-node-07", ident: str = "vllm") -> None:
        self.f = f
        self.ck = ck
        self.host = host
        self.ident = ident
        self.buf: list[str] = []
        self.pend = 0
        self.written = 0
        self.lines = 0
        self.last = 0
        self.pid = 1
        self.inv = ""

    # -- scenario side -------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Bytes so far (buffered text counted by characters)."""
        return self.written + self.pend

    def attempt(self, pid: int, inv: str) -> None:
        """A new start of the service: its main pid and systemd invocation id."""
        self.pid = pid
        self.inv = inv

    def out(self, t: int, text: str, err: bool = False) -> None:
        """One line the service printed."""
        raise NotImplementedError

    def bar(self, updates: list[tuple[int, str]], prefix: str = "", err: bool = True) -> None:
        """A tqdm bar: (time, rendered bar) per refresh."""
        if self.journald:
            for t, text in updates:
                self.out(t, prefix + text, err)
        elif updates:
            self.out(updates[-1][0], prefix + "\r".join(u for _, u in updates), err)

    def systemd(self, t: int, msg: str, **fields: str) -> None:
        """A record systemd (PID 1) wrote about the unit; only journald shapes have them."""

    def other(self, t: int, ident: str, msg: str, **fields: str) -> None:
        """A record of another unit or the kernel (only in whole journal files)."""

    # -- writing -----------------------------------------------------------------------------------------
    def _put(self, s: str) -> None:
        self.buf.append(s)
        self.pend += len(s)
        if len(self.buf) >= FLUSH_LINES:
            self.flush()

    def flush(self) -> None:
        if self.buf:
            data = "".join(self.buf).encode("utf-8", "surrogateescape")
            self.f.write(data)
            self.written += len(data)
            self.lines += len(self.buf)
            self.buf.clear()
            self.pend = 0

    def close(self) -> None:
        self.flush()
        self.f.close()

    def _mono(self, t: int) -> int:
        if t < self.last:
            return self.last
        self.last = t
        return t


class JournaldText(Sink):
    """`journalctl -u UNIT` text: `short`, `short-iso` or `short-precise`."""

    journald = True

    def __init__(self, f: BinaryIO, ck: Clocks, fmt: str = "short", **kw: str) -> None:
        super().__init__(f, ck, **kw)
        self.stamp = {"short": ck.short, "short-iso": ck.iso, "short-precise": ck.precise}[fmt]

    def out(self, t: int, text: str, err: bool = False) -> None:
        t = self._mono(t)
        self._put(f"{self.stamp(t)} {self.host} {self.ident}[{self.pid}]: {text}\n")

    def systemd(self, t: int, msg: str, **fields: str) -> None:
        t = self._mono(t)
        self._put(f"{self.stamp(t)} {self.host} systemd[1]: {msg}\n")


class Plain(Sink):
    """The engine's stdout+stderr redirected to a file (`vllm serve ... > vllm.log 2>&1`)."""

    def out(self, t: int, text: str, err: bool = False) -> None:
        self._put(text + "\n")


class Kubectl(Sink):
    """`kubectl logs --prefix POD`: `[pod/NAME/CONTAINER] text`."""

    def __init__(self, f: BinaryIO, ck: Clocks, pod: str = "vllm-0", container: str = "server", **kw: str) -> None:
        super().__init__(f, ck, **kw)
        self.prefix = f"[pod/{pod}/{container}] "

    def out(self, t: int, text: str, err: bool = False) -> None:
        self._put(self.prefix + text + "\n")


class Cri(Sink):
    """A containerd/CRI-O container log file (/var/log/pods/.../0.log): `<RFC3339Nano> stdout F text`."""

    def out(self, t: int, text: str, err: bool = False) -> None:
        self._put(f"{self.ck.nano(t)} {'stderr' if err else 'stdout'} F {text}\n")


_GO_ESC = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


class DockerJson(Sink):
    """docker's json-file driver (/var/lib/docker/containers/ID/ID-json.log), as its Go encoder writes it."""

    def out(self, t: int, text: str, err: bool = False) -> None:
        s = json.dumps(text + "\n", ensure_ascii=False)
        if "<" in s or ">" in s or "&" in s or "\u2028" in s or "\u2029" in s:
            s = s.translate(_GO_ESC)
        self._put(f'{{"log":{s},"stream":"{"stderr" if err else "stdout"}","time":"{self.ck.nano(t)}"}}\n')


# ----------------------------------------------------------------------------------------------------------
# journal export format -> systemd-journal-remote -> a real journal file
# ----------------------------------------------------------------------------------------------------------

JOURNAL_REMOTE_PATHS = ("/lib/systemd/systemd-journal-remote", "/usr/lib/systemd/systemd-journal-remote")


def journal_remote() -> str | None:
    """Path of Debian's systemd-journal-remote, or None."""
    for p in JOURNAL_REMOTE_PATHS:
        if Path(p).exists():
            return p
    return None


def _field(key: bytes, value: str) -> bytes:
    data = value.encode("utf-8", "surrogateescape")
    if b"\n" in data:
        return key + b"\n" + len(data).to_bytes(8, "little") + data + b"\n"
    return key + b"=" + data + b"\n"


# NOTE: the JSON overhead of one unit record besides MESSAGE (other fields, cursor, quoting), measured on
# `journalctl -o json` output of these records; used only to stop generation near the asked-for size.
JSON_OVERHEAD = 1030


class Export(Sink):
    """Records in the journal export format, piped into `systemd-journal-remote -o FILE.journal -`.

    Fields as journald stores them for a service's stdout (`_TRANSPORT=stdout`, `_SYSTEMD_UNIT`,
    `_SYSTEMD_INVOCATION_ID`, `_CMDLINE` ...) and for systemd's records about the unit (`UNIT=`,
    `INVOCATION_ID=`, `MESSAGE_ID=`). `size` estimates the bytes `journalctl -o json` will print, or counts
    the service's records when `measure="records"`.
    """

    journald = True

    def __init__(self, path: Path, ck: Clocks, *, unit: str, cmdline: str, exe: str = "/usr/bin/python3.12",
                 boot_id: str, machine_id: str, boot_us: int, measure: str = "json",
                 noise: random.Random | None = None, **kw: str) -> None:
        exe_bin = journal_remote()
        if exe_bin is None:
            raise RuntimeError("systemd-journal-remote is not installed (apt-get install systemd-journal-remote)")
        path.unlink(missing_ok=True)
        self.proc = subprocess.Popen([exe_bin, f"--output={path}", "--split-mode=none", "-"],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert self.proc.stdin is not None
        super().__init__(self.proc.stdin, ck, **kw)  # type: ignore[arg-type]
        self.path = path
        self.unit = unit
        self.cmdline = cmdline
        self.exe = exe
        self.boot_us = boot_us
        self.measure = measure
        self.est = 0
        self.records = 0
        self.unit_records = 0
        self.common = (_field(b"_BOOT_ID", boot_id) + _field(b"_MACHINE_ID", machine_id)
                       + _field(b"_HOSTNAME", self.host))
        self.head = b""
        self.noise = noise
        self.next_noise = 0
        self.attempt(self.pid, "0" * 32)

    @property
    def size(self) -> int:
        return self.unit_records if self.measure == "records" else self.est

    def attempt(self, pid: int, inv: str) -> None:
        super().attempt(pid, inv)
        import hashlib

        stream = hashlib.md5(f"stream{inv}".encode()).hexdigest()
        self.head = (
            b"PRIORITY=6\nSYSLOG_FACILITY=3\n" + _field(b"SYSLOG_IDENTIFIER", self.ident)
            + b"_TRANSPORT=stdout\n" + _field(b"_PID", str(pid)) + b"_UID=0\n_GID=0\n"
            + _field(b"_COMM", self.ident) + _field(b"_EXE", self.exe) + _field(b"_CMDLINE", self.cmdline)
            + b"_CAP_EFFECTIVE=1ffffffffff\n"
            + _field(b"_SYSTEMD_CGROUP", f"/system.slice/{self.unit}") + _field(b"_SYSTEMD_UNIT", self.unit)
            + b"_SYSTEMD_SLICE=system.slice\n" + _field(b"_SYSTEMD_INVOCATION_ID", inv)
            + _field(b"_STREAM_ID", stream) + self.common
        )

    def _times(self, t: int) -> bytes:
        return f"__REALTIME_TIMESTAMP={t}\n__MONOTONIC_TIMESTAMP={max(t - self.boot_us, 1)}\n".encode()

    def _rec(self, data: bytes, est: int) -> None:
        self.buf.append(data)  # type: ignore[arg-type]
        self.pend += len(data)
        self.est += est
        self.records += 1
        if len(self.buf) >= FLUSH_LINES:
            self.flush()

    def flush(self) -> None:
        if self.buf:
            data = b"".join(self.buf)  # type: ignore[arg-type]
            self.f.write(data)
            self.written += len(data)
            self.lines += len(self.buf)
            self.buf.clear()
            self.pend = 0

    def out(self, t: int, text: str, err: bool = False) -> None:
        t = self._mono(t)
        if self.noise is not None and t >= self.next_noise:
            self._noise(t)
        self.unit_records += 1
        msg = _field(b"MESSAGE", text)
        self._rec(self._times(t) + self.head + msg + b"\n", len(msg) + JSON_OVERHEAD)

    def systemd(self, t: int, msg: str, **fields: str) -> None:
        t = self._mono(t)
        rec = (self._times(t) + self.common
               + _field(b"PRIORITY", fields.pop("PRIORITY", "6"))
               + b"SYSLOG_FACILITY=3\nSYSLOG_IDENTIFIER=systemd\n_TRANSPORT=journal\n_PID=1\n_UID=0\n_GID=0\n"
               b"_COMM=systemd\n_EXE=/usr/lib/systemd/systemd\n_CMDLINE=/sbin/init\n_SYSTEMD_UNIT=init.scope\n"
               b"_SYSTEMD_CGROUP=/init.scope\n_SYSTEMD_SLICE=-.slice\nCODE_FILE=src/core/unit.c\nTID=1\n"
               + _field(b"UNIT", self.unit) + _field(b"MESSAGE", msg))
        if self.inv and fields.pop("with_inv", "1") == "1":
            rec += _field(b"INVOCATION_ID", self.inv)
        for k, v in fields.items():
            rec += _field(k.encode(), v)
        self._rec(rec + b"\n", len(msg) + 1100)

    def other(self, t: int, ident: str, msg: str, **fields: str) -> None:
        t = self._mono(t)
        rec = self._times(t) + self.common + _field(b"SYSLOG_IDENTIFIER", ident) + _field(b"MESSAGE", msg)
        for k, v in fields.items():
            rec += _field(k.encode(), v)
        self._rec(rec + b"\n", 0)

    def _noise(self, t: int) -> None:
        """Other units and the kernel, about one record every few seconds (a whole host journal, not -u)."""
        rng = self.noise
        assert rng is not None
        self.next_noise = t + int(rng.uniform(1, 6) * SEC)
        r = rng.random()
        if r < 0.35:
            self.other(t, "CRON", f"(root) CMD (/usr/local/bin/gpu-metrics --push --job {rng.randint(1000, 9999)})",
                       _TRANSPORT="syslog", _PID=str(rng.randint(3000, 90000)), _SYSTEMD_UNIT="cron.service",
                       _COMM="cron", PRIORITY="6", SYSLOG_FACILITY="9")
        elif r < 0.55:
            self.other(t, "nvidia-persistenced", f"device 0000:{rng.choice(('18', '2a', '3a', '5d', '9a', 'ab', 'ba', 'db'))}"
                       ":00.0 - persistence mode enabled.", _TRANSPORT="syslog", _PID="1432",
                       _SYSTEMD_UNIT="nvidia-persistenced.service", _COMM="nvidia-persiste", PRIORITY="6")
        elif r < 0.75:
            self.other(t, "sshd", f"Accepted publickey for deploy from 10.20.1.{rng.randint(2, 250)} port "
                       f"{rng.randint(30000, 65000)} ssh2: ED25519 SHA256:Qm4mQ1b7XcIY0o3W0k0pK4cFh9t1nUq0yqv2m3l8a1c",
                       _TRANSPORT="syslog", _PID=str(rng.randint(3000, 90000)), _SYSTEMD_UNIT="ssh.service",
                       _COMM="sshd", PRIORITY="6", SYSLOG_FACILITY="4")
        elif r < 0.9:
            self.other(t, "node_exporter", f'ts={time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t // SEC))}.'
                       f'{t % SEC // 1000:03d}Z caller=collector.go:169 level=info msg="collector succeeded" '
                       f'name=textfile duration_seconds=0.00{rng.randint(100, 999)}', _TRANSPORT="stdout",
                       _PID="988", _SYSTEMD_UNIT="node_exporter.service", _COMM="node_exporter", PRIORITY="6")
        else:
            self.other(t, "kernel", f"NVRM: GPU at PCI:0000:{rng.choice(('18', '2a', '3a', '5d'))}:00: "
                       f"GPU-{rng.getrandbits(32):08x}-3e1d-4b2a-9f0e-1c2d3e4f5a6b", _TRANSPORT="kernel",
                       PRIORITY="6", SYSLOG_FACILITY="0")

    def close(self) -> None:
        self.flush()
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        err = self.proc.stderr.read().decode("utf-8", "replace") if self.proc.stderr else ""
        if self.proc.wait(timeout=1800) != 0 or not self.path.exists():
            raise RuntimeError(f"systemd-journal-remote failed ({self.proc.returncode}): {err.strip()[-500:]}")


def make_text_sink(shape: str, path: Path, ck: Clocks, **kw: str) -> Sink:
    """A sink for one of the text shapes."""
    f = open(path, "wb")  # noqa: SIM115 - closed by Sink.close
    if shape.startswith("journald-"):
        return JournaldText(f, ck, shape[len("journald-"):], **kw)
    if shape == "plain":
        return Plain(f, ck, **kw)
    if shape == "kubectl":
        return Kubectl(f, ck, **kw)
    if shape == "cri":
        return Cri(f, ck, **kw)
    if shape == "docker-json":
        return DockerJson(f, ck, **kw)
    raise ValueError(f"unknown text shape {shape}")


__all__ = ["SEC", "Sink", "JournaldText", "Plain", "Kubectl", "Cri", "DockerJson", "Export", "make_text_sink",
           "journal_remote"]
