"""Every record field crashdoc reads x every JSON type: no crash, on every path that reads records.

Journal export (`journalctl -o json` saved to a file), a unit's journal read through journalctl (systemd's
records and the attempts, on a recording runner), docker json-file, JSON logging, TGI's --json-output, and
CRI (containerd / CRI-O) text columns. A field of the wrong type is absent, never an exception (exit 1).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import pytest

from crashdoc.investigate import diagnose_stream
from crashdoc.investigate.unit import diagnose_unit
from crashdoc.kb import KnowledgeBase
from crashdoc.model import Diagnosis
from crashdoc.report import render
from crashdoc.sources import fields
from tests.support.cli import run_cli
from tests.systemd.test_errors import JournalFake

#: every type a JSON value can have, and the strings that look like numbers but are not ASCII digits
VALUES: dict[str, Any] = {
    "string": "x",
    "empty": "",
    "number": 12345,
    "float": 1.5e300,
    "negative": -7,
    "null": None,
    "list": ["a", 1],
    "bytes-out-of-range": [300, -1, 65],
    "object": {"a": {"b": 1}},
    "bool": True,
    "huge-digits": "9" * 40,
    "huge-int": 10**40,
    "huge-string": "A" * 20_000,  # over journald's 4 KiB field limit and any terminal width
    "superscript-digits": "²³",
    "arabic-indic-digits": "١٢٣",
    "fullwidth-digits": "１２３",
    "signed": "-12",
}

#: the journal fields crashdoc reads (parse/records.py, parse/systemd.py, parse/runs.py, sources/journald.py)
JOURNAL_FIELDS = (
    "MESSAGE", "__REALTIME_TIMESTAMP", "__CURSOR", "_HOSTNAME", "SYSLOG_IDENTIFIER", "_COMM", "_TRANSPORT", "_PID",
    "SYSLOG_PID", "_SYSTEMD_UNIT", "UNIT", "USER_UNIT", "_SYSTEMD_INVOCATION_ID", "INVOCATION_ID",
    "OBJECT_SYSTEMD_INVOCATION_ID", "MESSAGE_ID", "JOB_TYPE", "EXIT_CODE", "EXIT_STATUS", "COMMAND", "UNIT_RESULT",
    "N_RESTARTS", "COREDUMP_UNIT", "_CMDLINE", "_EXE", "PRIORITY",
)
DOCKER_FIELDS = ("log", "time", "stream")
JSONLOG_FIELDS = ("message", "msg", "level", "levelname")

ERROR = "RuntimeError: CUDA error: out of memory"
JOURNAL_RECORDS = [
    {"__REALTIME_TIMESTAMP": "1764000000000000", "__CURSOR": "c1", "_SYSTEMD_UNIT": "vllm.service", "_PID": "70",
     "SYSLOG_IDENTIFIER": "python3", "_TRANSPORT": "stdout", "PRIORITY": "3", "MESSAGE": ERROR,
     "_SYSTEMD_INVOCATION_ID": "0f3c1b9a6e1d4d7cb9a3b7a2f1c0d9e8"},
    {"__REALTIME_TIMESTAMP": "1764000000100000", "__CURSOR": "c2", "UNIT": "vllm.service", "_PID": "1",
     "SYSLOG_IDENTIFIER": "systemd", "EXIT_CODE": "exited", "EXIT_STATUS": "1",
     "MESSAGE": "vllm.service: Main process exited, code=exited, status=1/FAILURE",
     "MESSAGE_ID": "98e322203f7a4ed290d09fe03c09fe15", "INVOCATION_ID": "0f3c1b9a6e1d4d7cb9a3b7a2f1c0d9e8"},
    {"__REALTIME_TIMESTAMP": "1764000000200000", "__CURSOR": "c3", "UNIT": "vllm.service", "N_RESTARTS": "1",
     "SYSLOG_IDENTIFIER": "systemd", "MESSAGE": "vllm.service: Scheduled restart job, restart counter is at 1.",
     "MESSAGE_ID": "5eb03494b6584870a536b337290809b3", "JOB_TYPE": "restart"},
]


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def _json_lines(records: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _all_formats(diag: Diagnosis) -> None:
    for fmt in ("terminal", "json", "markdown"):
        out = io.StringIO()
        render(diag, fmt, out, 100)
        assert out.getvalue()


def _diagnose_bytes(data: bytes, kb: KnowledgeBase) -> Diagnosis:
    diag = diagnose_stream(io.BufferedReader(io.BytesIO(data)), "matrix", kb=kb)  # type: ignore[arg-type]
    _all_formats(diag)
    return diag


@pytest.mark.parametrize("field", JOURNAL_FIELDS)
def test_journal_export_field_of_any_type(field: str, kb: KnowledgeBase) -> None:
    for kind, value in VALUES.items():
        records = [{**r, field: value} for r in JOURNAL_RECORDS]
        _diagnose_bytes(_json_lines(records), kb)
        records = [{**r} for r in JOURNAL_RECORDS]
        records[0][field] = value  # one odd record among well-formed ones
        diag = _diagnose_bytes(_json_lines(records), kb)
        if field not in ("MESSAGE", "PRIORITY", "_TRANSPORT", "SYSLOG_IDENTIFIER") and kind != "huge-string":
            assert diag.root_cause is not None, (field, kind)  # the odd field costs that field only


@pytest.mark.parametrize("field", DOCKER_FIELDS)
def test_docker_json_file_field_of_any_type(field: str, kb: KnowledgeBase) -> None:
    for kind, value in VALUES.items():
        rec = {"log": ERROR + "\n", "stream": "stderr", "time": "2025-11-30T09:12:05.123456789Z", field: value}
        diag = _diagnose_bytes(_json_lines([rec, rec]), kb)
        if field != "log":
            assert diag.root_cause is not None and "out of memory" in diag.root_cause.message, kind


@pytest.mark.parametrize("field", JSONLOG_FIELDS)
def test_json_logging_field_of_any_type(field: str, kb: KnowledgeBase) -> None:
    for value in VALUES.values():
        _diagnose_bytes(_json_lines([{"message": ERROR, "level": "ERROR", field: value}]), kb)
        _diagnose_bytes(_json_lines([{"fields": {"message": value}, "level": value, "timestamp": value}]), kb)


@pytest.mark.parametrize("column", ["timestamp", "stream", "tag"])
def test_cri_column_of_any_shape(column: str, kb: KnowledgeBase) -> None:
    """containerd / CRI-O files are text: `<RFC3339 time> <stdout|stderr> <F|P> <text>`."""
    for value in VALUES.values():
        cols = {"timestamp": "2025-11-30T09:12:05.123456789Z", "stream": "stderr", "tag": "F"}
        cols[column] = value if isinstance(value, str) else json.dumps(value)
        line = f"{cols['timestamp']} {cols['stream']} {cols['tag']} {ERROR}\n".encode()
        _diagnose_bytes(line * 2, kb)


class MutatingJournal(JournalFake):
    """journalctl answers (systemd's records and the attempts) with one field replaced in every record."""

    def __init__(self, field: str, value: Any) -> None:
        super().__init__(257)
        self.field, self.value = field, value

    def answer(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**rec, self.field: self.value} for rec in records]


@pytest.mark.parametrize("field", JOURNAL_FIELDS)
def test_unit_journal_field_of_any_type(field: str, kb: KnowledgeBase) -> None:
    for value in VALUES.values():
        diag = diagnose_unit(MutatingJournal(field, value), "vllm", announce=lambda _: None, kb=kb)
        _all_formats(diag)


@pytest.mark.parametrize("kind", ["list", "superscript-digits", "huge-digits"])
def test_the_command_exits_with_a_verdict_not_an_internal_error(kind: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The issue's report, through the command: SYSLOG_IDENTIFIER/_COMM as a list, odd timestamps, docker's time."""
    value = VALUES[kind]
    records = [{**r, "SYSLOG_IDENTIFIER": value, "_COMM": value, "__REALTIME_TIMESTAMP": value, "_PID": value}
               for r in JOURNAL_RECORDS]
    docker = [{"log": ERROR + "\n", "stream": "stderr", "time": value}]
    for name, data in (("journal.json", _json_lines(records)), ("docker.json", _json_lines(docker))):
        path = tmp_path / name
        path.write_bytes(data)
        for fmt in ("terminal", "json", "markdown"):
            r = run_cli("diagnose", str(path), "--format", fmt)
            assert r.status == 0, (name, fmt, r.stderr)
            assert "internal error" not in r.stderr


@pytest.mark.parametrize(("text", "expected"), [
    ("123", 123), ("0", 0), ("", None), ("²", None), ("١٢٣", None), ("１２", None), ("-1", None), (" 1", None),
    ("9" * 40, None), ("4194305", None),
])
def test_digits_are_ascii_and_in_range(text: str, expected: int | None) -> None:
    assert fields.number(text, fields.PID_MAX) == expected


def test_accessor_gives_a_string_or_nothing() -> None:
    rec = {"s": "a", "b": [104, 105], "bad": [300], "n": 1, "l": ["a"], "o": {}, "t": True, "z": None}
    assert [fields.text(rec, k) for k in rec] == ["a", "hi", None, None, None, None, None, None]
    assert fields.text(rec, "missing") is None
    assert fields.usec({"__REALTIME_TIMESTAMP": "9" * 20}) is None
    assert fields.iso_usec(fields.usec({"__REALTIME_TIMESTAMP": "1764000000000000"})) == "2025-11-24T16:00:00.000000+00:00"
    assert fields.pid({"_PID": "0", "SYSLOG_PID": "42"}, "_PID", "SYSLOG_PID") == 42
