"""Structured records -> LogLine: a journal export (`journalctl -o json`), docker json-file, JSON logging, TGI's
`--json-output`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crashdoc.parse.lines import LogLine, build_line
from crashdoc.parse.prefixes import inner, strip
from crashdoc.parse.text import clean
from crashdoc.sources import fields as typed


def _message(value: Any) -> str:
    """A message field as text: a string, journald's byte array for non-UTF-8 text, else nothing."""
    return typed.as_text(value) or ""


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
        text = inner(clean(part), f)
        out.append(build_line(lineno, part, text, f))
    return out


def parse_json_record(lineno: int, rec: Mapping[str, Any]) -> LogLine | None:
    """A journald (`journalctl -o json`), docker json-file or JSON-logging record -> LogLine; None if none."""
    f: dict[str, Any] = {}
    if "MESSAGE" in rec or "__REALTIME_TIMESTAMP" in rec:
        msg = _message(rec.get("MESSAGE"))
        if rec.get("MESSAGE") is None:
            msg = "[crashdoc: journal field MESSAGE omitted (over 4 KiB); fetch with journalctl --all]"
        ts = typed.iso_usec(typed.usec(rec))
        if ts is not None:
            f["ts"] = ts
        f["host"] = typed.text(rec, "_HOSTNAME")
        ident = typed.first_text(rec, "SYSLOG_IDENTIFIER", "_COMM")
        if typed.text(rec, "_TRANSPORT") == "kernel":
            ident = "kernel"
        f["ident"] = ident
        pid = typed.pid(rec, "_PID", "SYSLOG_PID")
        if pid is not None:
            f["ident_pid"] = pid
        f["unit"] = typed.first_text(rec, "_SYSTEMD_UNIT", "UNIT", "USER_UNIT")
        f["invocation"] = typed.first_text(rec, "_SYSTEMD_INVOCATION_ID", "INVOCATION_ID")
    elif "log" in rec:  # docker json-file: what the container printed, its own time and logger header included
        msg = _message(rec.get("log")).rstrip("\r\n")
        f["ts"] = typed.text(rec, "time")
        return build_line(lineno, msg, strip(clean(msg), f), f)
    elif "message" in rec or "msg" in rec:
        msg = _message(rec.get("message", rec.get("msg")))
        lvl = typed.first_text(rec, "level", "levelname")
        if lvl:
            f["level"] = lvl.upper()
    elif isinstance(rec.get("fields"), Mapping):  # TGI --json-output
        msg = _message(rec["fields"].get("message"))
        lvl = typed.text(rec, "level")
        if lvl:
            f["level"] = lvl.upper()
    else:
        return None
    msg = msg.rstrip("\r\n")
    text = inner(clean(msg), f)
    return build_line(lineno, msg, text, f)
