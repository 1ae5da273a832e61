"""Prefixes come off each line and are kept as fields (table-driven: input -> expected fields)."""

from __future__ import annotations

import pytest

from crashdoc.parse.lines import parse_line
from crashdoc.parse.records import parse_json_record

CASES = [
    # journald short + vLLM worker prefix + logger header: the traceback indentation survives
    ('Nov 30 09:12:01 gpu7 vllm[41237]: (Worker_TP3 pid=41300) ERROR 11-30 09:12:05 [multiproc_executor.py:671]   File "/x.py", line 3, in f',
     dict(text='  File "/x.py", line 3, in f', level="ERROR", process="Worker_TP3", pid=41300, rank=3, host="gpu7", ident="vllm", loc="multiproc_executor.py:671")),
    # localized month names: anchored on " host ident[pid]: ", not on English months
    ("Thg 2 24 17:32:24 x-team sub.sh[4352]: ModuleNotFoundError: No module named 'x'",
     dict(text="ModuleNotFoundError: No module named 'x'", host="x-team", ident="sub.sh", pid=4352)),
    # journalctl -o short-iso
    ("2026-08-04T04:33:46+00:00 node1 python3[77]: RuntimeError: boom", dict(text="RuntimeError: boom", host="node1", ident="python3", pid=77)),
    # docker logs --timestamps keeps the traceback's own indentation
    ('2024-02-08T08:40:56.161651438Z   File "/a.py", line 598, in f', dict(text='  File "/a.py", line 598, in f')),
    # TGI launcher with rank suffix
    ("2024-03-06T17:53:31.052444Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown with signal 4 rank=0",
     dict(text="Shard process was signaled to shutdown with signal 4", level="ERROR", rank=0, process="shard0")),
    # SGLang rank tags
    ("[2025-03-17 17:15:55 DP1 TP3] Scheduler hit an exception: Traceback (most recent call last):",
     dict(text="Scheduler hit an exception: Traceback (most recent call last):", process="DP1 TP3", rank=3)),
    # ANSI colours around every field (vLLM on a TTY)
    ("\x1b[0;36m(EngineCore_DP0 pid=738)\x1b[0;0m \x1b[31mERROR\x1b[0m \x1b[90m01-26 09:25:37\x1b[0m \x1b[90m[core.py:935]\x1b[0m ValueError: Free memory",
     dict(text="ValueError: Free memory", level="ERROR", process="EngineCore_DP0", pid=738)),
    # docker compose prefix + Ray actor with ip
    ("backend-1  | (RayWorkerWrapper pid=643, ip=10.0.0.2) ERROR 06-14 07:04:12 worker_base.py:148] boom",
     dict(text="boom", level="ERROR", process="RayWorkerWrapper", pid=643)),
    # nested actors: the innermost prefix names the process
    ("(AsyncVLLMInferenceEngine pid=891624) (EngineCore_0 pid=892803)   File \"/r.py\", line 230, in h",
     dict(text='  File "/r.py", line 230, in h', process="EngineCore_0", pid=892803)),
    # torch [rankN]: prefix
    ("[rank0]: RuntimeError: CUDA error: no kernel image is available", dict(text="RuntimeError: CUDA error: no kernel image is available", rank=0)),
    # V0 logger header without brackets
    ("ERROR 03-26 05:25:01 engine.py:389] Traceback (most recent call last):", dict(level="ERROR", loc="engine.py:389", text="Traceback (most recent call last):")),
    # uvicorn-style "ERROR:" padded to 10 columns keeps the traceback indentation
    ('ERROR:      File "/a.py", line 1, in f', dict(level="ERROR", text='  File "/a.py", line 1, in f')),
    # kernel record with dmesg time
    ("Jan 09 00:19:56 h kernel: [1728595.660950] traps: python3[213941] trap invalid opcode ip:7f4a",
     dict(ident="kernel", text="traps: python3[213941] trap invalid opcode ip:7f4a")),
    # a plain line is left alone
    ("Error: could not create directory", dict(text="Error: could not create directory", level=None)),
]


@pytest.mark.parametrize("raw,fields", CASES, ids=[c[0][:40] for c in CASES])
def test_prefixes_are_stripped_and_kept(raw: str, fields: dict[str, object]) -> None:
    line = parse_line(7, raw.encode())
    assert line.raw == raw and line.lineno == 7
    for k, v in fields.items():
        assert getattr(line, k) == v, k


def test_control_characters_never_survive_into_text() -> None:
    line = parse_line(1, b"RuntimeError: \x1b]0;title\x07bad\x00\x08 \xe2\x80\xae evil")
    assert "\x1b" not in line.text and "\x00" not in line.text and "\u202e" not in line.text
    assert "\\x00" in line.text and "bad" in line.text


def test_progress_bar_carriage_returns_keep_the_last_state() -> None:
    line = parse_line(1, b"Loading shards:  10%\rLoading shards:  50%\rLoading shards: 100%")
    assert line.text == "Loading shards: 100%"


def test_journal_json_record_with_byte_array_message_and_invocation() -> None:
    rec = {
        "__REALTIME_TIMESTAMP": "1764493921000000", "_HOSTNAME": "gpu7", "SYSLOG_IDENTIFIER": "vllm",
        "_PID": "41237", "_SYSTEMD_UNIT": "vllm.service", "_SYSTEMD_INVOCATION_ID": "abc",
        "MESSAGE": list(b"(Worker_TP1 pid=9) RuntimeError: bad \xff byte"),
    }
    line = parse_json_record(3, rec)
    assert line is not None
    assert line.text.startswith("RuntimeError: bad") and line.process == "Worker_TP1" and line.rank == 1
    assert line.invocation == "abc" and line.unit == "vllm.service" and line.host == "gpu7"
    assert line.ts and line.ts.startswith("2025-11-30T09:12:01")


def test_journal_json_null_message_says_it_was_omitted() -> None:
    line = parse_json_record(1, {"__REALTIME_TIMESTAMP": "1", "MESSAGE": None})
    assert line is not None and "journalctl --all" in line.text


@pytest.mark.parametrize("group", ["own", "dev-corpus"])
def test_prefix_memory_gives_the_same_lines_as_a_full_parse(group: str) -> None:
    """LineParser reuses recent prefixes; on every real-shaped log it must agree with parse_line exactly."""
    from pathlib import Path

    from crashdoc.parse.lines import LineParser
    from tests.support.shared import SHARED, shared_reason

    root = Path(__file__).resolve().parents[2]
    dev = SHARED / "corpus" / "dev" / "cases"
    logs = [*sorted((root / "tests" / "assets" / "logs").glob("*.log")), root / "examples" / "founding-case.log",
            *sorted((root / "tests" / "corpus_extra" / "cases").glob("*.log"))] if group == "own" else sorted(dev.glob("*.log"))
    if not logs:
        pytest.skip(shared_reason(dev))
    checked = reused = 0
    for log in logs:
        parser = LineParser()
        for n, raw in enumerate(log.read_bytes().split(b"\n"), 1):
            fast, full = parser.parse(n, raw), parse_line(n, raw)
            assert fast == full, (log.name, n)
            checked += 1
        reused += len(parser.recent)
    assert checked > (5000 if group == "own" else 500) and reused > 0


def test_prefix_memory_takes_the_header_blank_and_ignores_a_bracket_in_the_text() -> None:
    """A remembered prefix that ends at `]` without its blank must not take a later line whose header has one
    (the full parse takes the blank), and a `]` in the text after a known prefix changes nothing."""
    from crashdoc.parse.lines import LineParser

    head = "Nov 30 09:14:24 gpu-node-07 vllm[43600]: (Worker_TP0 pid=43794) ERROR 11-30 09:14:24 [core.py:772]"
    lines = [head + "[x] no blank", head + " RuntimeError: a [b] c", head + "   File \"/a/b.py\", line 1, in f",
             head.replace("TP0 pid=43794", "TP1 pid=43795") + " Traceback (most recent call last):",
             head + " plain ] text ] here"]
    parser = LineParser()
    for n, raw in enumerate(lines * 2, 1):
        assert parser.parse(n, raw) == parse_line(n, raw), raw
    assert len(parser.recent) == 3


def test_a_docker_record_is_read_as_the_line_the_container_printed() -> None:
    """docker json-file's `log` is what the container printed: its own time and logger header are stripped as on a
    plain line (the record's `time` stays the line's), so a Python logger's ERROR is an error here too."""
    rec = {"log": "2025-08-13 04:39:32,837 - __main__ - ERROR - Engine background task failed: qx\n",
           "stream": "stdout", "time": "2025-08-13T04:39:32.837Z"}
    line = parse_json_record(7, rec)
    assert line is not None
    assert (line.level, line.text, line.ts) == ("ERROR", "Engine background task failed: qx", "2025-08-13T04:39:32.837Z")
    plain = parse_line(7, rec["log"])
    assert (plain.level, plain.text) == (line.level, line.text)
