"""Turn one raw log line into the text a rule is matched against.

Rule examples are raw log excerpts, so the example runner (and anyone else who only has a
raw line) needs the same small normalisation the parser does: drop the wrappers that
journald, docker, the engines' loggers and process decorators put in front of the text, then
split ``dotted.Type: message`` into the exception type and its message.

Prefixes removed by :func:`strip_prefixes` (repeatedly, outermost first):

* ANSI colour codes (real ESC, ``^[`` as printed by GitHub, or a bare ``[31m``);
* a JSON log record (``{"message": ...}``, ``{"log": ...}``, TGI ``{"fields": {"message": ...}}``);
* journald ``Mon DD HH:MM:SS host ident[pid]: `` (any month spelling, also ISO timestamps)
  and the ``░░`` / ``-- `` catalog markers of ``journalctl -x``;
* ISO / RFC3339 timestamps (docker ``-t``, TGI) and ``[2025-03-10T15:07:20Z]``;
* docker compose ``service-1  | ``;
* engine process prefixes ``(EngineCore_DP0 pid=1)``, ``(VllmWorker rank=5 pid=3)``,
  ``(RayWorkerWrapper pid=854, ip=10.0.0.1)`` and ``[rank0]:``;
* logger headers ``LEVEL MM-DD HH:MM:SS [file.py:N] ``, ``LEVEL MM-DD HH:MM:SS file.py:N] ``,
  glog ``W1223 23:34:22.775000 1116 file.py:2425] ``, c10 ``[W520 00:55:14.79 File.cpp:1553] ``,
  SGLang ``[2025-01-01 10:00:00 TP0] ``, TGI ``ERROR target: ``, uvicorn ``ERROR:    ``,
  Python logging ``2024-01-01 10:00:00,123 - name - ERROR - `` / ``... WARNING file.py:12 -- ``,
  loguru ``... | INFO | module:fn:12 - ``, Go slog ``time=... level=... msg="..."``;
* kernel ``[1728595.660950] `` uptime stamps, a trailing ``[repeated 3x across cluster]``.
"""

from __future__ import annotations

import json
import re

_LEVELS = r"(?:TRACE|DEBUG|INFO|NOTICE|WARNING|WARN|ERROR|CRITICAL|FATAL)"
_ISO = r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
_CLOCK = r"\d\d:\d\d:\d\d(?:[.,]\d+)?"

_ANSI = re.compile(r"(?:\x1b|\^\[)\[[0-9;]*[A-Za-z]|(?<![\w\]])\[[0-9]{1,3}(?:;[0-9]{1,3})*m")
_REPEATED = re.compile(r"\s*\[repeated \d+x across cluster\]\s*$")

_PREFIXES = tuple(
    re.compile(p)
    for p in (
        # journald short / localized month names / short-iso, then host and ident[pid]
        r"^(?:\S{1,12}(?:\s+\d{1,2})?\s+\d{1,2}\s+" + _CLOCK + r"|" + _ISO + r")"
        r"\s+(?!" + _LEVELS + r"\s)[^\s\[]\S*\s+[^\s\[\]:]+(?:\[\d+\])?:\s?",
        r"^(?:░░|--)\s+",
        r"^kernel:\s",
        # bare timestamps: ISO (docker -t, TGI), bracketed CI stamps
        r"^" + _ISO + r"\s+",
        r"^\[" + _ISO + r"\]\s+",
        # docker compose "service-1  | "
        r"^\|\s*" + _LEVELS + r"\s*\|\s*(?:stderr\s*\|\s*|[\w.<>]+(?::[\w<>]+)*:\d+\s+-\s)?",
        r"^(?:[\w.-]+\s+)?\|\s",
        # engine process prefixes
        r"^\((?:[\w.:/-]+)(?:\s+(?:rank|pid|ip)=[^\s),]+,?)+\)\s*",
        r"^\[rank\d+\]:\s*",
        r"^\[Stage-\d+\]\s*",
        # vLLM logger header (brackets or not), possibly with a full date (NIM)
        r"^" + _LEVELS + r"\s+(?:\d{4}-)?\d\d-\d\d\s+" + _CLOCK + r"\s+(?:\[[^\]\s]+:\d+\]|[\w./-]+:\d+\])\s?",
        r"^\[[\w./-]+\.py:\d+\]\s",
        # glog (torch c10, triton server) and c10 bracketed warnings
        r"^[IWEF]\d{4}\s+" + _CLOCK + r"\s+\d+\s+[\w./-]+:\d+\]\s?",
        r"^\[[IWEF]\d{0,4}(?:\s+" + _CLOCK + r")?\s+[\w./-]+:\d+\]\s?",
        # SGLang "[2025-01-01 10:00:00 DP0 TP0] " and "[12-16 14:27:08] "
        r"^\[(?:\d{4}-)?(?:\d\d-\d\d\s+)?" + _CLOCK + r"(?:\s+[A-Z_]+\d+)*\]\s?",
        # Python logging variants
        r"^" + _LEVELS + r":\s+",
        r"^(?:[\w.]+\s+)?(?:\d+\s+)?" + _LEVELS + r"\s+[\w.]+:\d+\s+--\s",
        r"^[\w.]+\s+\d+\s+" + _LEVELS + r"\s+",
        r"^-\s+[\w.]+\s+-\s+" + _LEVELS + r"\s+-\s+",
        r"^\d{4}/\d\d/\d\d\s+" + _CLOCK + r"\s+(?:[\w.]+:\d+:\s)?",
        # TGI / tracing "ERROR shard-manager: text_generation_launcher: "
        r"^\s*" + _LEVELS + r"\s+(?:[a-z_][\w:-]*:\s)+",
        # Ray C++ "[2023-08-25 10:45:19,168 E 3554640 3555230] logging.cc:361: "
        r"^\[\d{4}-\d\d-\d\d\s+" + _CLOCK + r"\s+[IWEF]\s+\d+\s+\d+\]\s+(?:[\w.]+:\d+:\s)?",
        # kernel uptime stamp, list markers
        r"^\[\s*\d+\.\d+\]\s",
        r"^[-*•]\s+",
    )
)
_SLOG = re.compile(r'^time=\S+\s+level=\w+\s+source=\S+\s+msg=(?:"((?:[^"\\]|\\.)*)"|(\S+))(.*)$')

#: Type names that do not end in Error/Exception/Warning/Exit/Interrupt but are exceptions.
KNOWN_EXCEPTIONS = frozenset(
    {
        "OfflineModeIsEnabled", "StopIteration", "StopAsyncIteration", "BackendCompilerFailed",
        "ShardCannotStart", "WebserverFailed", "Unsupported", "SkipFrame", "TllmException",
        "KeyboardInterrupt", "SystemExit", "GeneratorExit", "ChildFailedError",
    }
)
_EXC_SUFFIXES = ("Error", "Exception", "Warning", "Exit", "Interrupt")
_EXC_LINE = re.compile(
    r"^(?P<type>(?:[A-Za-z_]\w*\.)*(?P<last>[A-Za-z_]\w*))(?:\([\w.]*\))?(?::(?:\s+(?P<msg>.*))?)?$", re.S
)


def _from_json(text: str) -> str | None:
    """Return the message of a JSON log record, or None when *text* is not one."""
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    fields = record.get("fields")
    for value in (record.get("message"), record.get("msg"), record.get("log"),
                  fields.get("message") if isinstance(fields, dict) else None):
        if isinstance(value, str):
            return value.rstrip("\n")
    return None


def strip_prefixes(line: str) -> str:
    """Remove log wrappers from *line* and return the text the program itself printed."""
    text = _ANSI.sub("", line.rstrip("\r\n"))
    for _ in range(12):
        before = text
        text = text.strip()
        inner = _from_json(text)
        if inner is not None:
            text = inner
        slog = _SLOG.match(text)
        if slog:
            text = ((slog.group(1) or slog.group(2) or "") + slog.group(3)).replace('\\"', '"')
        for pattern in _PREFIXES:
            text = pattern.sub("", text, count=1)
        if text == before:
            break
    return _REPEATED.sub("", text).strip()


def is_exception_name(name: str) -> bool:
    """Whether the last dotted component *name* looks like an exception type."""
    return name.endswith(_EXC_SUFFIXES) or name in KNOWN_EXCEPTIONS


def split_exception(text: str) -> tuple[str | None, str]:
    """Split ``pkg.mod.SomeError: message`` into ``("pkg.mod.SomeError", "message")``.

    Returns ``(None, text)`` when *text* does not start with an exception type.
    ``RayTaskError(RuntimeError): ...`` keeps the outer type.
    """
    m = _EXC_LINE.match(text.strip())
    if not m or not is_exception_name(m.group("last")):
        return None, text
    return m.group("type"), (m.group("msg") or "").strip()


def last_component(exception: str | None) -> str | None:
    """``torch.OutOfMemoryError`` -> ``OutOfMemoryError``; ``RayTaskError(X)`` -> ``RayTaskError``."""
    if not exception:
        return None
    name = exception.strip().split("(", 1)[0]
    return name.rsplit(".", 1)[-1] or None
