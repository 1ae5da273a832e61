"""Structured records -> LogLine: a journal export (`journalctl -o json`), docker json-file, JSON logging, TGI's
`--json-output`."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any

from crashdoc.parse.lines import LogLine, build_line
from crashdoc.parse.prefixes import inner
from crashdoc.parse.text import clean


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
    text = inner(clean(msg), f)
    return build_line(lineno, msg, text, f)
