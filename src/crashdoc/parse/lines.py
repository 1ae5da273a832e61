"""One input line -> LogLine: every known prefix stripped from the text and kept as a field.

Outer wrappers (docker compose, container/ISO timestamps, journald `host ident[pid]:`), then the engine's own
prefixes (vLLM/Ray `(Name pid=N)`, torch `[rankN]:`, SGLang `[date TPn]`, TGI `LEVEL target:`), then logger
headers (vLLM `LEVEL MM-DD HH:MM:SS [file.py:N]`, glog, Python logging, loguru). The content keeps its
indentation, so traceback frames stay recognisable.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import Any, Mapping

from crashdoc.parse.text import _ANSI_HINT, _CONTROL, clean


@dataclass(frozen=True, slots=True)
class LogLine:
    """A parsed line."""

    lineno: int
    raw: str
    """The input line as text (JSON records: the decoded MESSAGE)."""
    text: str
    """Content with prefixes removed, ANSI stripped, control characters made visible."""
    level: str | None = None
    process: str | None = None
    """Process name from the engine prefix (`Worker_TP3`, `EngineCore_DP0`, `TP1`), or the journald identifier."""
    pid: int | None = None
    rank: int | None = None
    ts: str | None = None
    host: str | None = None
    ident: str | None = None
    """journald/syslog identifier (`systemd`, `kernel`, `python3`)."""
    unit: str | None = None
    invocation: str | None = None
    loc: str | None = None
    """Logger location (`core.py:708`): the same for every line of one logged traceback."""
    stream: str = "main"
    """Demultiplexing key: one stream per process/rank."""
    engine_prefixed: bool = False
    """True when the engine itself named the process (vLLM/Ray/SGLang/TGI prefix)."""
    outer: str = "main"
    """Stream of the wrapper around the engine's text (journald `ident[pid]`, compose service, or `main`)."""


_UNSAFE = re.compile(f"{_CONTROL.pattern}|{_ANSI_HINT.pattern}|\\^\\[|\\r")
_COMPOSE = re.compile(r"(?P<svc>[A-Za-z0-9][\w.-]*)\s+\| ")
_ISO = re.compile(r"(?P<ts>\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d| UTC)?)[ \t]")
_SYSLOG = re.compile(
    r"(?P<ts>(?:\S+ {1,2}){1,3}?\d{1,2}:\d\d:\d\d(?:\.\d{1,9})?(?:[+-]\d\d:?\d\d|Z)?) (?P<rest>.*)", re.S
)
_KUBECTL_PREFIX = re.compile(r"\[(?P<pod>pod/[\w.-]+/[\w.-]+)\] ")
_CRI = re.compile(r"(?:stdout|stderr) [FP] ")
_JOURNAL_ID = re.compile(r"(?P<host>[^\s:\[\]]+) (?P<ident>[^\s\[\]:]{1,64})(?:\[(?P<pid>\d+)\])?: ?")
_FASTCHAT = re.compile(r"\| (?P<level>[A-Z]+) \| (?P<src>\w+) \| ")
_DMESG = re.compile(r"\[\s*\d+\.\d+\] ")
_PROC = re.compile(
    r"\((?P<name>[A-Za-z_][\w:.\-]*?)(?: rank=(?P<rank>\d+))? pid=(?P<pid>\d+)(?:, ip=(?P<ip>[0-9A-Fa-f.:]+))?\) ?"
)
_STAGE = re.compile(r"\[Stage-\d+\] ")
_TORCH_RANK = re.compile(r"\[rank(?P<rank>\d+)\]: ?")
_VLLM = re.compile(
    r"(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) (?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)? "
    r"(?:\[(?P<loc>[^\]\s]+)\]|(?P<loc2>[^\]\s]+:\d+)\]) ?"
)
_BARE_LOC = re.compile(r"\[(?P<loc>[\w./-]+\.py:\d+)\] ")
_SGLANG = re.compile(r"\[(?:\d{4}-)?(?:\d\d-\d\d )?\d\d:\d\d:\d\d(?P<tags>(?: [A-Z]{2}\d+)*)\] ")
_TGI = re.compile(
    r" ?(?P<level>TRACE|DEBUG|INFO|WARN|ERROR)\s+(?P<target>[a-z][\w-]*(?:: [a-z][\w-]*)?): "
)
_TGI_RANK = re.compile(r" rank=(?P<rank>\d+)$")
_PYLOG = re.compile(r"- (?P<logger>[\w.]+) - (?P<level>[A-Z]+) - ")
_LOGURU = re.compile(r"\| (?P<level>[A-Z]+)\s*\| (?P<loc>\S+) - ")
_GLOG = re.compile(r"(?P<lv>[IWEF])\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ (?P<loc>[^\]\s]+)\] ")
_LEVEL_COLON = re.compile(r"(?P<level>ERROR|WARNING|INFO|DEBUG|CRITICAL):(?=\s)")
_GLOG_LEVEL = {"I": "INFO", "W": "WARNING", "E": "ERROR", "F": "CRITICAL"}
_SLOG_LEVEL = re.compile(r"\blevel=(?P<level>[A-Z]+)\b")
_RANK_IN_NAME = re.compile(r"(?:_TP|_PP|TP|Worker-|rank)(?P<rank>\d+)")
_LEVEL_WORDS = frozenset({"INFO", "ERROR", "WARN", "WARNING", "DEBUG", "TRACE", "CRITICAL", "FATAL"})


def _outer(s: str, f: dict[str, Any]) -> str:
    """Strip container and journal wrappers; fills ts/host/ident/pid."""
    for _ in range(3):
        m = _COMPOSE.match(s)
        if m and not _ISO.match(s):
            f.setdefault("compose", m.group("svc"))
            s = s[m.end():]
            continue
        m = _ISO.match(s)
        if m:
            f.setdefault("ts", m.group("ts"))
            s = s[m.end():]
            c = _CRI.match(s)
            if c:  # containerd/CRI-O log file: "<ts> stdout|stderr F|P <text>" (P: a piece of a split line)
                s = s[c.end():]
                continue
            j = _JOURNAL_ID.match(s)
            if j and (j.group("pid") or j.group("ident") == "kernel") and j.group("host") not in _LEVEL_WORDS:
                _take_journal(j, f)
                s = s[j.end():]
            m2 = _FASTCHAT.match(s)
            if m2:
                f.setdefault("level", m2.group("level"))
                s = s[m2.end():]
            continue
        m = _KUBECTL_PREFIX.match(s)
        if m:  # kubectl logs --prefix: "[pod/NAME/CONTAINER] "
            f.setdefault("compose", m.group("pod"))
            s = s[m.end():]
            continue
        m = _SYSLOG.match(s)
        if m:
            j = _JOURNAL_ID.match(m.group("rest"))
            if j and (j.group("pid") or j.group("ident") == "kernel"):
                f.setdefault("ts", m.group("ts"))
                _take_journal(j, f)
                s = m.group("rest")[j.end():]
                continue
        break
    m = _DMESG.match(s)
    if m:
        s = s[m.end():]
    return s


def _take_journal(j: re.Match[str], f: dict[str, Any]) -> None:
    f.setdefault("host", j.group("host"))
    f.setdefault("ident", j.group("ident"))
    if j.group("pid"):
        f.setdefault("ident_pid", int(j.group("pid")))


def _inner(s: str, f: dict[str, Any]) -> str:
    """Strip engine process prefixes and logger headers; fills process/pid/rank/level/loc."""
    for _ in range(3):  # nested actors: (AsyncVLLMServer pid=1) (EngineCore_0 pid=2) ...
        m = _PROC.match(s)
        if not m:
            break
        f["process"], f["pid"] = m.group("name"), int(m.group("pid"))
        f["engine"] = True
        if m.group("rank"):
            f["rank"] = int(m.group("rank"))
        s = s[m.end():]
    m = _STAGE.match(s)
    if m:
        s = s[m.end():]
    m = _TORCH_RANK.match(s)
    if m:
        f.setdefault("rank", int(m.group("rank")))
        f.setdefault("process", f"rank{m.group('rank')}")
        s = s[m.end():]
    m = _VLLM.match(s)
    if m:
        f["level"] = "WARNING" if m.group("level") == "WARN" else m.group("level")
        f["loc"] = m.group("loc") or m.group("loc2")
        f["final"] = True  # nothing after a vLLM logger header is a prefix
        return s[m.end():]
    m = _BARE_LOC.match(s)
    if m:  # an excerpt cut inside the logger header: "[core.py:515] message"
        f["loc"] = m.group("loc")
        return s[m.end():]
    m = _SGLANG.match(s)
    if m:
        tags = m.group("tags").strip()
        f["engine"] = True
        f.setdefault("process", tags or "main")
        tp = re.search(r"TP(\d+)", tags)
        if tp:
            f.setdefault("rank", int(tp.group(1)))
        return s[m.end():]
    m = _TGI.match(s)
    if m and ("ts" in f or m.group("target").startswith(("text_generation", "shard", "download", "webserver"))):
        f["level"] = "WARNING" if m.group("level") == "WARN" else m.group("level")
        f["loc"] = m.group("target")
        s = s[m.end():]
        r = _TGI_RANK.search(s)
        if r:
            f["rank"] = int(r.group("rank"))
            f["process"] = f"shard{r.group('rank')}"
            f["engine"] = True
            s = s[: r.start()]
        return s
    for rx in (_PYLOG, _LOGURU):
        m = rx.match(s)
        if m:
            f["level"] = m.group("level")
            return s[m.end():]
    m = _LEVEL_COLON.match(s)
    if m:  # uvicorn / logging.basicConfig: "ERROR:    " padded to 10 columns, then the message as printed
        f["level"] = m.group("level")
        pad = max(0, 9 - len(m.group("level")))
        rest = s[m.end():]
        return rest[min(pad, len(rest) - len(rest.lstrip(" "))):]
    m = _GLOG.match(s)
    if m:
        f.setdefault("level", _GLOG_LEVEL[m.group("lv")])
        f["loc"] = m.group("loc")
        return s[m.end():]
    if s.startswith("time=") or " level=" in s[:60]:
        m = _SLOG_LEVEL.search(s)
        if m:
            f.setdefault("level", m.group("level"))
    return s


def _build(lineno: int, raw: str, text: str, f: dict[str, Any]) -> LogLine:
    process = f.get("process")
    rank = f.get("rank")
    if process and rank is None:
        m = _RANK_IN_NAME.search(process)
        if m:
            rank = int(m.group("rank"))
    pid = f.get("pid")
    if f.get("ident"):
        outer = f"{f['ident']}[{f.get('ident_pid', '')}]"
    elif f.get("compose"):
        outer = f["compose"]
    else:
        outer = "main"
    stream = (f"{process}:{pid}" if pid is not None else str(process)) if f.get("engine") else outer
    if not process and f.get("ident") not in (None, "systemd", "kernel"):
        process = f.get("ident")
    if pid is None:
        pid = f.get("ident_pid")
    return LogLine(
        lineno=lineno, raw=raw, text=text, level=f.get("level"), process=process or f.get("ident"),
        pid=pid, rank=rank, ts=f.get("ts"), host=f.get("host"), ident=f.get("ident"),
        unit=f.get("unit"), invocation=f.get("invocation"), loc=f.get("loc"), stream=stream,
        engine_prefixed=bool(f.get("engine")), outer=outer,
    )


def parse_line(lineno: int, data: bytes | str) -> LogLine:
    """Parse one raw input line."""
    raw = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    raw = raw.rstrip("\r\n")
    f: dict[str, Any] = {}
    text = _inner(_outer(clean(raw), f), f)
    return _build(lineno, raw, text, f)


class LineParser:
    """parse_line with a memory of recent full prefixes.

    Every line of a logged traceback repeats the same prefix (`Mon DD HH:MM:SS host id[pid]: (Worker_TP3 pid=N)
    ERROR MM-DD HH:MM:SS [file.py:N] `); once one line with a vLLM logger header is parsed, the next lines that
    start with exactly that prefix get the same fields without parsing it again. Gives the same LogLines as
    parse_line (a test checks it on every asset and corpus log).
    """

    SLOTS = 16

    def __init__(self) -> None:
        self.recent: list[tuple[str, LogLine]] = []

    def parse(self, lineno: int, data: bytes | str) -> LogLine:
        """Parse one raw input line."""
        raw = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        raw = raw.rstrip("\r\n")
        plain = "\x1b" not in raw and not _UNSAFE.search(raw)
        if plain:
            for i, (prefix, tpl) in enumerate(self.recent):
                if raw.startswith(prefix):
                    if i:
                        self.recent.insert(0, self.recent.pop(i))
                    return LogLine(lineno, raw, raw[len(prefix):], tpl.level, tpl.process, tpl.pid, tpl.rank,
                                   tpl.ts, tpl.host, tpl.ident, tpl.unit, tpl.invocation, tpl.loc, tpl.stream,
                                   tpl.engine_prefixed, tpl.outer)
        f: dict[str, Any] = {}
        text = _inner(_outer(clean(raw), f), f)
        line = _build(lineno, raw, text, f)
        if plain and f.get("final") and raw.endswith(text) and len(text) < len(raw):
            self.recent.insert(0, (raw[: len(raw) - len(text)], line))
            del self.recent[self.SLOTS :]
        return line


def _message(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # journald stores non-UTF-8 messages as byte arrays
        try:
            return bytes(v & 0xFF for v in value if isinstance(v, int)).decode("utf-8", "replace")
        except (TypeError, ValueError):
            return ""
    return ""


def parse_json_lines(lineno: int, rec: Mapping[str, Any]) -> list[LogLine]:
    """Like parse_json_record, but a MESSAGE of several lines (Python's journal handler, JSON loggers) gives
    one LogLine per line, all with the record's line number, so a traceback inside one record is rebuilt."""
    first = parse_json_record(lineno, rec)
    if first is None or "\n" not in first.raw:
        return [first] if first is not None else []
    out = []
    for part in first.raw.split("\n"):
        f: dict[str, Any] = {k: v for k, v in (("ts", first.ts), ("host", first.host), ("ident", first.ident),
                                                ("ident_pid", first.pid if not first.engine_prefixed else None),
                                                ("unit", first.unit), ("invocation", first.invocation)) if v is not None}
        text = _inner(clean(part), f)
        out.append(_build(lineno, part, text, f))
    return out


def parse_json_record(lineno: int, rec: Mapping[str, Any]) -> LogLine | None:
    """A journald (`journalctl -o json`), docker json-file or JSON-logging record -> LogLine; None if none."""
    f: dict[str, Any] = {}
    if "MESSAGE" in rec or "__REALTIME_TIMESTAMP" in rec:
        msg = _message(rec.get("MESSAGE"))
        if rec.get("MESSAGE") is None:
            msg = "[crashdoc: journal field MESSAGE omitted (over 4 KiB); fetch with journalctl --all]"
        us = rec.get("__REALTIME_TIMESTAMP")
        if isinstance(us, str) and us.isdigit():
            f["ts"] = _dt.datetime.fromtimestamp(int(us) / 1e6, tz=_dt.timezone.utc).isoformat(timespec="microseconds")
        f["host"] = rec.get("_HOSTNAME")
        ident = rec.get("SYSLOG_IDENTIFIER") or rec.get("_COMM")
        if rec.get("_TRANSPORT") == "kernel":
            ident = "kernel"
        f["ident"] = ident
        pid = rec.get("_PID") or rec.get("SYSLOG_PID")
        if isinstance(pid, str) and pid.isdigit():
            f["ident_pid"] = int(pid)
        f["unit"] = rec.get("_SYSTEMD_UNIT") or rec.get("UNIT") or rec.get("USER_UNIT")
        f["invocation"] = rec.get("_SYSTEMD_INVOCATION_ID") or rec.get("INVOCATION_ID")
    elif "log" in rec:  # docker json-file
        msg = _message(rec.get("log")).rstrip("\n")
        f["ts"] = rec.get("time")
    elif "message" in rec or "msg" in rec:
        msg = _message(rec.get("message", rec.get("msg")))
        lvl = rec.get("level") or rec.get("levelname")
        if isinstance(lvl, str):
            f["level"] = lvl.upper()
    elif isinstance(rec.get("fields"), Mapping):  # TGI --json-output
        msg = _message(rec["fields"].get("message"))
        lvl = rec.get("level")
        if isinstance(lvl, str):
            f["level"] = lvl.upper()
    else:
        return None
    msg = msg.rstrip("\r\n")
    text = _inner(clean(msg), f)
    return _build(lineno, msg, text, f)
