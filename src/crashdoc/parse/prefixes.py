"""THE prefix stripper: one input line's wrappers removed from its text and kept as fields.

Outer wrappers (docker compose, container/ISO timestamps, CRI, kubectl --prefix, a launcher's task label, journald
`host ident[pid]:`, the `journalctl -x` catalog markers, dmesg stamps), then the engine's own prefixes (vLLM/Ray
`(Name pid=N)`, torch `[rankN]:`, SGLang `[date TPn]`), then logger headers: the error-format table's header rows
(parse/formats.py: glog, c10, TensorRT, TurboMind, logfmt, Rust tracing / TGI, NCCL ...), vLLM `LEVEL MM-DD HH:MM:SS
[file.py:N]`, Python logging, Ray's `LEVEL file.py:N --`, loguru, a JSON log record. The content keeps its
indentation, so traceback frames stay recognisable.
"""

from __future__ import annotations

import json
import re
from typing import Any

from crashdoc.parse.formats import header
from crashdoc.parse.text import _ANSI_HINT, _CONTROL
from crashdoc.regex import Regex

UNSAFE = Regex(f"{_CONTROL.pattern}|{_ANSI_HINT.pattern}|\\^\\[|\\r")
_COMPOSE = Regex(r"(?P<svc>[A-Za-z0-9][\w.-]*)\s+\| ")
_ISO = Regex(r"(?P<ts>\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d| UTC)?)[ \t]")
_SYSLOG = Regex(r"(?P<ts>(?:\S+ {1,2}){1,3}?\d{1,2}:\d\d:\d\d(?:\.\d{1,9})?(?:[+-]\d\d:?\d\d|Z)?) (?P<rest>.*)", re.S)
_ISO_BRACKET = Regex(r"\[(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?)\] ")
"""A collector's or log viewer's RFC 3339 timestamp in brackets (`[2025-02-27T16:30:43.486Z] `); SGLang's own
`[2025-03-10 14:17:52] ` has no `T` and stays its prefix."""
_STREAM_TAG = Regex(r"\[(?P<tag>info|warning|warn|error|debug|critical|fatal)\](?: (?! ))?")
"""A hosting platform's lower-case level tag before each line it relays (RunPod's serverless workers:
`[info]INFO 10-09 ... [chat_utils.py:473] ...`, `[error]Please install ...`): the line's level when the line has
none of its own, and only a warning or worse (a platform that tags by stream calls a traceback `[info]`); one
blank after it goes with it, an indentation stays."""
_TAG_LEVELS = {"warning": "WARNING", "warn": "WARNING", "error": "ERROR", "critical": "CRITICAL", "fatal": "CRITICAL"}
_TASK_LABEL = Regex(r"(?:(?: (?P<padded>\d{1,2})|(?P<task>\d{1,5})): |\[\d+,(?P<mpi>\d+)\]<std(?:out|err|diag)>: ?|\[default(?P<local>\d+)\]:)")
"""A parallel launcher's label before each line of one task: Slurm's `srun --label` (`0: `), Open MPI's
`--tag-output` (`[1,0]<stderr>:`), torchrun's `--tee` (`[default0]:`). The task is the line's outer stream, so
the tracebacks of tasks printing at once are read apart. (srun pads the label to its widest: ` 0: `; a Rust
backtrace frame is right-aligned in four columns: `   0: `, `  10: `, ` 100: `.)"""
_COLUMN = Regex(r"\s*\| (?=\[?\d{4}-\d\d-\d\d[T ]\d\d:)")
_SEVERITY_TS = Regex(r"(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY) (?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z) ")
"""A cloud log viewer's export (`ERROR 2026-06-15T14:10:59.392125190Z <text>`): the collector's severity and time
before each line. The severity is the stream's (stderr is ERROR, whatever it prints), not the line's: dropped."""
_BUILDKIT = Regex(r"(?:#(?P<step>\d{1,4}) )?\d{1,5}\.\d{3} (?=\S| )|#(?P<failed>\d{1,4}) (?=ERROR: )")
"""Docker BuildKit's plain progress (`#11 0.886 <text>`: the step and its seconds; `#11 ERROR: ...` when the step
failed), and its error summary's lines (`2.272 <text>`, after ` > [build 5/7] RUN ...`)."""
_KUBECTL_PREFIX = Regex(r"\[(?P<pod>pod/[\w.-]+/[\w.-]+)\] ")
_CRI = Regex(r"(?:stdout|stderr) [FP] ")
_JOURNAL_ID = Regex(r"(?P<host>[^\s:\[\]]+) (?P<ident>[^\s\[\]:]{1,64})(?:\[(?P<pid>\d+)\])?: ?")
_FASTCHAT = Regex(r"\| (?P<level>[A-Z]+) \| (?P<src>\w+) \| ")
_DMESG = Regex(r"(?:kernel: )?\[\s*\d+\.\d+\] ")
_CATALOG = Regex(r"(?:░░|--) ")
_REPEATED = Regex(r"\s*\[repeated \d+x across cluster\]$")
_RAY_LOG = Regex(r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<loc>[\w.]+:\d+) -- ")
_PROC = Regex(
    r"\((?P<name>[A-Za-z_][\w:.\-]*?)(?: rank=(?P<rank>\d+))? pid=(?P<pid>\d+)(?:, ip=(?P<ip>[0-9A-Fa-f.:]+))?\) ?"
)
_STAGE = Regex(r"\[Stage-\d+\] ")
_TORCH_RANK = Regex(r" ?\[rank(?P<rank>\d+)\]: ?")
_VLLM_HEAD = r"(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) (?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d"  # vLLM's header: level, time
_VLLM = Regex(_VLLM_HEAD + r"(?:[.,]\d+)? (?:\[(?P<loc>[^\]\s]+)\]|(?P<loc2>[^\]\s]+:\d+)\]) ?")
_BARE_LOC = Regex(r"\[(?P<loc>[\w./-]+\.py:\d+)\] ")
_SGLANG = Regex(r"\[(?:\d{4}-)?(?:\d\d-\d\d )?\d\d:\d\d:\d\d(?P<tags>(?: [A-Z]{2}\d+)*)\] ")
_PYLOG = Regex(r"- (?P<logger>[\w.]+) - (?P<level>[A-Z]+) - ")
_LOGURU = Regex(r"\| (?P<level>[A-Z]+)\s*\| (?P<loc>\S+) - ")
_LEVEL_COLON = Regex(r"(?P<level>ERROR|WARNING|INFO|DEBUG|CRITICAL):(?=\s)")
_SLOG_LEVEL = Regex(r"\blevel=(?P<level>[A-Z]+)\b")
_TS_LEVEL = Regex(r"(?:[A-Za-z_][\w.]{0,80} (?:\d{1,7} )?)?(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)(?: {1,12}|: | - )")
"""After a timestamp, Python logging's `%(asctime)s [%(name)s] [%(process)d] %(levelname)-8s %(message)s` forms."""
RANK_IN_NAME = Regex(r"(?:_TP|_PP|TP|Worker-|rank)(?P<rank>\d+)")
_CUT_LEVEL = Regex(r'"(?:level|levelname)": ?"(\w+)"')  # the first level field of a JSON record cut short
_LEVEL_WORDS = frozenset({"INFO", "ERROR", "WARN", "WARNING", "DEBUG", "TRACE", "CRITICAL", "FATAL"})
_LEVEL_SPACE = ("DEBUG ", "INFO ", "WARNING ", "WARN ", "ERROR ", "CRITICAL ")  # how `_VLLM`'s, `_RAY_LOG`'s lines start
_LEVEL_COLON_LEADS = ("ERROR:", "WARNING:", "INFO:", "DEBUG:", "CRITICAL:")


def _match(rx: Regex[str], s: str, possible: bool) -> re.Match[str] | None:
    """`rx.match(s)` where `possible` is a cheap test that every match passes (the text it must start with or
    hold): a line that fails it is settled without the regex (which a start then never compiles)."""
    return rx.match(s) if possible else None


def _outer(s: str, f: dict[str, Any]) -> str:
    """Strip container and journal wrappers; fills ts/host/ident/pid."""
    for _ in range(3):
        m = _match(_COMPOSE, s, "| " in s)
        if m and not _match(_ISO, s, s[:1].isdigit()):
            f.setdefault("compose", m.group("svc"))
            s = s[m.end():]
            continue
        m = _match(_ISO, s, s[:1].isdigit())
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
            elif s.startswith("| ") and not _LOGURU.match(s):  # a log viewer's export: "<ts> | <line>"
                s = s[2:]
            continue
        m = _match(_ISO_BRACKET, s, s.startswith("[") and s[1:2].isdigit())
        if m:
            f.setdefault("ts", m.group("ts"))
            s = s[m.end():]
            continue
        m = _match(_STREAM_TAG, s, s.startswith("[") and s[1:2].islower())
        if m:
            if m.group("tag") in _TAG_LEVELS:
                f.setdefault("tag_level", _TAG_LEVELS[m.group("tag")])  # (read after every header: `strip`)
            s = s[m.end():]
            continue
        m = _match(_TASK_LABEL, s, (s[:1].isdigit() or s[:1] == " " and s[1:2].isdigit()) and ": " in s[:8]
                   or s.startswith("[") and (">:" in s[:32] or s.startswith("[default")))
        if m:
            f.setdefault("compose", f"task{m.group('task') or m.group('padded') or m.group('mpi') or m.group('local')}")
            s = s[m.end():]
            continue
        m = _match(_SEVERITY_TS, s, s[:1] in "DINWECA" and "Z " in s[:50])
        if m:
            f.setdefault("ts", m.group("ts"))
            s = s[m.end():]
            continue
        m = _match(_BUILDKIT, s, "buildkit" not in f and (s[:1] == "#" or s[:1].isdigit() and "." in s[:12]))
        if m:
            f["buildkit"] = True  # (once a line: `0.123 0.456` after it is the line's own text)
            if m.group("step") or m.group("failed"):
                f.setdefault("compose", f"step{m.group('step') or m.group('failed')}")
            s = s[m.end():]
            continue
        m = _match(_COLUMN, s, "| " in s)
        if m:  # the same export's continuation rows: "  | <ts> | <line>"; a CI log view's gutter: "  | [<ts>] <line>"
            s = s[m.end():]
            continue
        m = _match(_KUBECTL_PREFIX, s, s.startswith("[pod/"))
        if m:  # kubectl logs --prefix: "[pod/NAME/CONTAINER] "
            f.setdefault("compose", m.group("pod"))
            s = s[m.end():]
            continue
        m = _match(_SYSLOG, s, ":" in s)
        if m:
            j = _JOURNAL_ID.match(m.group("rest"))
            if j and (j.group("pid") or j.group("ident") == "kernel"):
                f.setdefault("ts", m.group("ts"))
                _take_journal(j, f)
                s = m.group("rest")[j.end():]
                continue
        break
    m = _match(_CATALOG, s, s.startswith(("░░ ", "-- ")))
    if m:  # journalctl -x explanation lines
        s = s[m.end():]
    m = _match(_DMESG, s, s.startswith(("[", "kernel: [")))
    if m:
        s = s[m.end():]
    return s


def strip(s: str, f: dict[str, Any]) -> str:
    """The whole ladder on one cleaned line: outer wrappers, then engine prefixes and logger headers."""
    text = inner(_outer(s, f), f)
    tag = f.pop("tag_level", None)
    if tag is not None:
        f.setdefault("level", tag)
    m = _REPEATED.search(text) if "[repeated " in text else None
    if m:  # Ray's log deduplication suffix
        text = text[: m.start()]
    return text


def _json_record(s: str, f: dict[str, Any]) -> str | None:
    """A JSON log record written as a text line (`{"levelname": "ERROR", "message": ...}`): its message; of a
    record a paste cut short (no closing brace), the whole line (every field a rule may read) at its first level."""
    try:
        rec = json.loads(s) if s.endswith("}") else {"level": (m := _CUT_LEVEL.search(s)) and m[1], "message": s}
    except ValueError:
        return None
    if not isinstance(rec, dict):
        return None
    fields = rec.get("fields")
    for value in (rec.get("message"), rec.get("msg"), rec.get("log"),
                  fields.get("message") if isinstance(fields, dict) else None):
        if isinstance(value, str):
            lvl = rec.get("level") or rec.get("levelname")
            if isinstance(lvl, str) and lvl.upper() in _LEVEL_WORDS:
                f.setdefault("level", "WARNING" if lvl.upper() == "WARN" else lvl.upper())
            return value.rstrip("\n")
    return None


RELOGGED_CHILD = f"(?:{_PROC.pattern})?{_VLLM_HEAD}"
"""How a line of an engine's own logger starts (vLLM's header, after its process prefix; group `level`): when a wrapper's logger
header (`- name - LEVEL - `, loguru's `| LEVEL | loc - `) is followed by one, the line is the child's, relogged
whole, and the child's level is its level (parse/markers.py reads the same shape on raw lines)."""
_RELOGGED = Regex(RELOGGED_CHILD)


def _relogged(rest: str, f: dict[str, Any]) -> str:
    """The message after a wrapper's logger header, when the wrapper relogs its child's lines (a launcher's Python
    logger writes every line its vLLM server prints at INFO: `... - __main__ - INFO - ERROR 08-13 04:39:39
    engine.py:400] CUDA error: ...`): the child's own prefixes are stripped too, with its level. (The child's text
    starts with `(` or a level word, never the wrapper's `- ` or `| `: this nests once.)"""
    if not _match(_RELOGGED, rest, rest[:1] in "(DIWEC"):
        return rest
    g: dict[str, Any] = {}
    out = inner(rest, g)
    if "level" not in g:
        return rest
    f.update(g)
    return out


def _take_journal(j: re.Match[str], f: dict[str, Any]) -> None:
    f.setdefault("host", j.group("host"))
    f.setdefault("ident", j.group("ident"))
    if j.group("pid"):
        f.setdefault("ident_pid", int(j.group("pid")))


def inner(s: str, f: dict[str, Any]) -> str:
    """Strip engine process prefixes and logger headers; fills process/pid/rank/level/loc."""
    lost = False
    for _ in range(3):  # nested actors: (AsyncVLLMServer pid=1) (EngineCore_0 pid=2) ...
        m = _match(_PROC, s, s.startswith("("))
        if not m and not f.get("process") and " pid=" in s[:80] and (m := _PROC.match("(" + s)):
            s = "(" + s  # a paste that cut the line's first `(`
        if not m and s.startswith(" ") and s.lstrip(" ").startswith("("):
            # Ray colours the prefix; a copy that lost the escape characters keeps blanks in their place
            # (` [36m(RayWorkerVllm pid=5085) [0m [E ...`, the codes removed by `clean`)
            m = _PROC.match(s.lstrip(" "))
            if m:
                s, lost = s.lstrip(" "), True
        if not m:
            break
        f["process"], f["pid"] = m.group("name"), int(m.group("pid"))
        f["engine"] = True
        if m.group("rank"):
            f["rank"] = int(m.group("rank"))
        s = s[m.end():]
        if lost and s.startswith(" ") and s.lstrip(" ").startswith("["):
            s = s.lstrip(" ")  # (the same lost code after it; an indented line of the worker keeps its indentation)
    m = _match(_STAGE, s, s.startswith("[Stage-"))
    if m:
        s = s[m.end():]
    m = _match(_TORCH_RANK, s, s.startswith(("[rank", " [rank")))
    if m:
        f.setdefault("rank", int(m.group("rank")))
        f.setdefault("process", f"rank{m.group('rank')}")
        s = s[m.end():]
    m = _match(_VLLM, s, s.startswith(_LEVEL_SPACE))
    if m:
        f["level"] = "WARNING" if m.group("level") == "WARN" else m.group("level")
        f["loc"] = m.group("loc") or m.group("loc2")
        f["final"] = True  # nothing after a vLLM logger header is a prefix
        return s[m.end():]
    m = _match(_BARE_LOC, s, s.startswith("["))
    if m:  # an excerpt cut inside the logger header: "[core.py:515] message"
        f["loc"] = m.group("loc")
        return s[m.end():]
    m = _match(_SGLANG, s, s.startswith("["))
    if m:
        tags = m.group("tags").strip()
        f["engine"] = True
        f.setdefault("process", tags or "main")
        tp = re.search(r"TP(\d+)", tags)
        if tp:
            f.setdefault("rank", int(tp.group(1)))
        return s[m.end():]
    rest = header(s, f)
    if rest is not None:  # an error-format header (data/error_formats.yaml): glog, c10, TensorRT, tracing ...
        if rest is not s:
            again = header(rest, f)  # `[TensorRT-LLM][ERROR] [TRT] [E] ...`
            rest = again if again is not None else rest
        return rest
    for rx, lead in ((_PYLOG, "- "), (_LOGURU, "| ")):
        m = _match(rx, s, s.startswith(lead))
        if m:
            f["level"] = m.group("level")
            return _relogged(s[m.end():], f)
    m = _match(_LEVEL_COLON, s, s.startswith(_LEVEL_COLON_LEADS))
    if m:  # uvicorn / logging.basicConfig: "ERROR:    " padded to 10 columns, then the message as printed
        f["level"] = m.group("level")
        pad = max(0, 9 - len(m.group("level")))
        rest = s[m.end():]
        return rest[min(pad, len(rest) - len(rest.lstrip(" "))):]
    m = _match(_RAY_LOG, s, s.startswith(_LEVEL_SPACE))
    if m:  # Ray's Python logger: "LEVEL file.py:N -- "
        f["level"], f["loc"] = m.group("level"), m.group("loc")
        return s[m.end():]
    if m := _match(_TS_LEVEL, s, "ts" in f and any(w in s[:100] for w in _LEVEL_SPACE)):
        f["level"] = "WARNING" if m.group("level") == "WARN" else m.group("level")
        return s[m.end():]
    if " level=" in s[:60]:
        m = _SLOG_LEVEL.search(s)
        if m:  # logfmt whose msg is not where the table's row expects it: the level still counts
            f.setdefault("level", "WARNING" if m.group("level") == "WARN" else m.group("level"))
    if s.startswith("{"):
        msg = _json_record(s, f)
        if msg is not None:
            return msg
    return s


