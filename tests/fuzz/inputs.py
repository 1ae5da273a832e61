"""Hostile inputs for the fuzz harness, as hypothesis strategies.

Each generator is a plain function of a `random.Random` (the growth benchmark calls it with a seed too) and
is wrapped as a strategy over a hypothesis-drawn seed (hypothesis drives and replays it):
mutated real logs (the dev corpus, tests/assets/logs, tests/corpus_extra), JSON lines with wrong types in the
journal-export and docker json-file shapes, a traceback grammar, and raw bytes.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
SEED_DIRS = (ROOT.parent / "shared" / "corpus" / "dev" / "cases", ROOT / "tests" / "assets" / "logs",
             ROOT / "tests" / "corpus_extra" / "cases")
#: a window of a seed log: long enough for tracebacks and attempts, short enough for thousands of runs
WINDOW_LINES = 160

ESCAPES = [
    b"\x1b[31m", b"\x1b[0m", b"\x1b[2K", b"\x1b[1A", b"\x1b[?25l", b"\x1b]0;pwned\x07", b"\x1b]8;;http://evil/\x1b\\",
    b"\x1b]52;c;aGk=\x07", b"\x1bP1$r\x1b\\", b"\x1b", b"\x9b31m", b"\x1b[", b"#033[0m", b"[0;36m", b"^[[1m",
]
CONTROLS = [b"\r", b"\r\n", b"\n\r", b"\0", b"\x08", b"\x07", b"\x0b", b"\x0c", b"\x7f", b"\t", b"\x85", b"\xc2\x85",
            b"\xc2\x9b", b"\xe2\x80\xae", b"\xe2\x81\xa6", b"\xe2\x80\xa8", b"\xef\xbb\xbf", b"\xe2\x80\x8b"]
INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80\x80"]
WORDS = ["RuntimeError", "CUDA", "error:", "out of memory", "Traceback", "NCCL", "WARNING", "ERROR", "INFO", "::",
         "rank", "(Worker_TP3 pid=71)", "[", "]", "{", "}", "${x}", "%s", "{0}", "\\", "`", "|", "<b>", "@here", "#12",
         "hf_" + "a" * 34, "sk-" + "b" * 40, "password=hunter2", "²", "١٢٣", "e\u0301", "\u202e", "🔥"]


@functools.lru_cache(maxsize=1)
def seed_logs() -> tuple[tuple[bytes, ...], ...]:
    """The lines of every seed log found (the dev corpus is absent in a plain clone: the others still are)."""
    out = []
    for folder in SEED_DIRS:
        if folder.is_dir():
            out += [tuple(p.read_bytes().split(b"\n")) for p in sorted(folder.glob("*.log"))]
    return tuple(out)


def _window(rnd: random.Random, lines: tuple[bytes, ...]) -> list[bytes]:
    start = rnd.randrange(max(1, len(lines) - WINDOW_LINES))
    return list(lines[start:start + rnd.randint(1, WINDOW_LINES)])


def _recode(rnd: random.Random, line: bytes) -> bytes:
    """The line in another encoding (latin-1, UTF-16, cp1252): mixed encodings in one file."""
    text = line.decode("utf-8", "replace")
    enc = rnd.choice(["latin-1", "utf-16-le", "utf-16", "cp1252", "utf-32"])
    return text.encode(enc, "replace")


def _mutate_line(rnd: random.Random, line: bytes) -> bytes:
    op = rnd.randrange(12)
    at = rnd.randint(0, len(line))
    if op == 0:
        return line[:at] + rnd.choice(ESCAPES) + line[at:]
    if op == 1:
        return line[:at] + rnd.choice(CONTROLS) + line[at:]
    if op == 2:
        return line[:at] + rnd.choice(INVALID_UTF8) + line[at:]
    if op == 3:
        return _recode(rnd, line)
    if op == 4 and line:
        b = bytearray(line)
        b[rnd.randrange(len(b))] = rnd.randrange(256)
        return bytes(b)
    if op == 5:
        return line[:at]
    if op == 6:
        return line * rnd.randint(2, 40)  # a long line (progress redraws, a repeated prefix)
    if op == 7:
        return line[:at] + " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 6))).encode() + line[at:]
    if op == 8:
        return b"\r".join([line] * rnd.randint(2, 30))  # tqdm-style redraws
    if op == 9:
        return line.replace(b" ", b"\t")
    if op == 10:
        return b"\x1b[1m" + line + b"\x1b[0m\r\n"
    return line


def mutated_log(rnd: random.Random) -> bytes:
    """A window of a real log with line-level mutations, swapped and repeated lines."""
    seeds = seed_logs()
    lines = _window(rnd, rnd.choice(seeds)) if seeds else [b"RuntimeError: x"]
    for _ in range(rnd.randint(0, 12)):
        i = rnd.randrange(len(lines))
        kind = rnd.randrange(5)
        if kind == 0 and len(lines) > 1:
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 1:
            lines.insert(i, lines[rnd.randrange(len(lines))])
        elif kind == 2 and len(lines) > 1:
            del lines[i]
        else:
            lines[i] = _mutate_line(rnd, lines[i])
    sep = rnd.choice([b"\n", b"\n", b"\r\n", b"\r", b"\0"])
    return sep.join(lines) + rnd.choice([b"", b"\n", sep])


def _odd_value(rnd: random.Random, good: str) -> Any:
    return rnd.choice([
        good, "", None, True, False, 0, -1, 12345, 1.5, 1e308, 10**30, "9" * 25, "²", "١٢٣", "１２", "-5", " 7",
        [], [good], [104, 105], [300, -2], list(good.encode("utf-8", "replace"))[:50], {}, {"a": [good]},
        (good * rnd.randint(2, 200))[:8000], good + "\x1b[31m\r\0", "\ud800" if rnd.random() < 0.1 else good,
    ])


JOURNAL_KEYS = ["MESSAGE", "__REALTIME_TIMESTAMP", "__CURSOR", "_HOSTNAME", "SYSLOG_IDENTIFIER", "_COMM", "_PID",
                "SYSLOG_PID", "_TRANSPORT", "_SYSTEMD_UNIT", "UNIT", "_SYSTEMD_INVOCATION_ID", "INVOCATION_ID",
                "MESSAGE_ID", "JOB_TYPE", "EXIT_CODE", "EXIT_STATUS", "UNIT_RESULT", "N_RESTARTS", "PRIORITY"]
SYSTEMD_IDS = ["39f53479d3a045ac8e11786248231fbf", "98e322203f7a4ed290d09fe03c09fe15",
               "d9b373ed55a64feb8242e02dbe79a49c", "5eb03494b6584870a536b337290809b3", "7d4958e842da4a758f6c1cdc7b36dcc5"]


def _message(rnd: random.Random) -> str:
    seeds = seed_logs()
    if seeds and rnd.random() < 0.7:
        line = rnd.choice(rnd.choice(seeds))
        return _mutate_line(rnd, line).decode("utf-8", "replace") if rnd.random() < 0.3 else line.decode("utf-8", "replace")
    return rnd.choice(["RuntimeError: CUDA error: out of memory", "vllm.service: Main process exited, code=exited, "
                       "status=1/FAILURE", "Traceback (most recent call last):", "Scheduled restart job, restart "
                       "counter is at 3.", "Started vllm.service.", traceback_text(rnd)])


def journal_lines(rnd: random.Random) -> bytes:
    """`journalctl -o json` lines, some fields of the wrong type, some records cut or not JSON at all."""
    out = []
    t = 1_764_000_000_000_000 + rnd.randrange(10**12)
    inv = "%032x" % rnd.getrandbits(128)
    for i in range(rnd.randint(1, 30)):
        t += rnd.randrange(10**6)
        rec: dict[str, Any] = {"__REALTIME_TIMESTAMP": str(t), "__CURSOR": f"s={i}", "MESSAGE": _message(rnd),
                               "_PID": "70", "SYSLOG_IDENTIFIER": "python3", "_SYSTEMD_UNIT": "vllm.service",
                               "_SYSTEMD_INVOCATION_ID": inv}
        if rnd.random() < 0.2:
            rec.update(UNIT="vllm.service", MESSAGE_ID=rnd.choice(SYSTEMD_IDS), INVOCATION_ID=inv, EXIT_CODE="exited",
                       EXIT_STATUS="1", N_RESTARTS=str(rnd.randint(0, 9)), SYSLOG_IDENTIFIER="systemd")
        for _ in range(rnd.randint(0, 4)):
            key = rnd.choice(JOURNAL_KEYS)
            rec[key] = _odd_value(rnd, str(rec.get(key, "x")))
        out.append(_dump(rnd, rec))
    return b"\n".join(out) + b"\n"


def docker_lines(rnd: random.Random) -> bytes:
    """docker json-file records (`{"log": ..., "stream": ..., "time": ...}`), some odd, some cut."""
    out = []
    for i in range(rnd.randint(1, 30)):
        rec: dict[str, Any] = {"log": _message(rnd) + "\n", "stream": rnd.choice(["stdout", "stderr"]),
                               "time": f"2025-11-30T09:12:{i % 60:02d}.{rnd.randrange(10**9):09d}Z"}
        for _ in range(rnd.randint(0, 2)):
            key = rnd.choice(["log", "stream", "time", "attrs"])
            rec[key] = _odd_value(rnd, str(rec.get(key, "x")))
        out.append(_dump(rnd, rec))
    return b"\n".join(out) + b"\n"


def _dump(rnd: random.Random, rec: dict[str, Any]) -> bytes:
    try:
        data = json.dumps(rec, ensure_ascii=rnd.random() < 0.5).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError):
        data = b"{}"
    r = rnd.random()
    if r < 0.05:
        return data[: rnd.randrange(len(data) + 1)]  # a record cut by a full disk
    if r < 0.08:
        return b"Hint: You are currently not seeing messages from other users and the system."
    return data


EXCEPTIONS = ["RuntimeError", "ValueError", "torch.OutOfMemoryError", "ImportError", "ModuleNotFoundError",
              "AssertionError", "KeyError", "OSError", "NCCLError", "vllm.EngineDeadError", "Exception", "E", "a.b.C"]
PREFIXES = ["", "(Worker_TP{r} pid={p}) ", "(EngineCore_DP0 pid={p}) ERROR 11-30 09:12:05 [core.py:9] ",
            "Nov 30 09:12:05 gpu7 python3[{p}]: ", "[rank{r}]: ", "2025-11-30T09:12:05.1Z stderr F ",
            "vllm-1  | ", "\x1b[36m(APIServer pid={p})\x1b[0m "]
CHAINS = ["\nThe above exception was the direct cause of the following exception:\n",
          "\nDuring handling of the above exception, another exception occurred:\n"]


def traceback_text(rnd: random.Random) -> str:
    """A Python traceback chain from a small grammar: frames, code lines, carets, chained causes, exception
    groups, notes, C++ aborts; sometimes cut short or with odd pieces."""
    parts = []
    for link in range(rnd.randint(1, 4)):
        if link:
            parts.append(rnd.choice(CHAINS))
        parts.append("Traceback (most recent call last):")
        for _ in range(rnd.randint(0, 12)):
            path = rnd.choice(["/opt/venv/lib/python3.12/site-packages/vllm/engine.py", "<frozen importlib>", "x.py",
                               "/usr/lib/python3/dist-packages/torch/" + "a/" * rnd.randint(0, 30) + "b.py"])
            parts.append(f'  File "{path}", line {rnd.choice([1, 42, 10**9, -1])}, in {rnd.choice(["<module>", "f", "__init__"])}')
            if rnd.random() < 0.8:
                parts.append("    " + rnd.choice(["raise RuntimeError(msg)", "x = y[0]", "import flashinfer", ""]))
            if rnd.random() < 0.2:
                parts.append("    " + "^" * rnd.randint(1, 40))
            if rnd.random() < 0.05:
                parts.append("  [Previous line repeated 996 more times]")
        exc = rnd.choice(EXCEPTIONS)
        msg = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, 8)))
        parts.append(f"{exc}: {msg}" if msg or rnd.random() < 0.5 else exc)
        if rnd.random() < 0.1:
            parts.append("  + Exception Group Traceback (most recent call last):\n  | ValueError: inner")
    if rnd.random() < 0.1:
        parts.append("terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error")
    lines = "\n".join(parts).split("\n")
    if rnd.random() < 0.2:
        lines = lines[: rnd.randrange(len(lines) + 1)]
    prefix = rnd.choice(PREFIXES)
    rank, pid = rnd.randint(0, 7), rnd.choice([1, 71, 4194304, 99999999999])
    return "\n".join(prefix.format(r=rank, p=pid) + ln for ln in lines)


def tracebacks(rnd: random.Random) -> bytes:
    """Several interleaved tracebacks (ranks printing at once), with noise between them."""
    blocks = [traceback_text(rnd) for _ in range(rnd.randint(1, 6))]
    lines = []
    for b in blocks:
        lines += b.split("\n")
    if rnd.random() < 0.5:
        rnd.shuffle(lines)
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def raw_bytes(rnd: random.Random) -> bytes:
    """Random bytes, some of them control bytes and escapes."""
    pieces = [rnd.choice(ESCAPES + CONTROLS + INVALID_UTF8 + [w.encode() for w in WORDS]) for _ in range(rnd.randint(0, 80))]
    pieces += [bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 64)))]
    rnd.shuffle(pieces)
    return b"".join(pieces)


GENERATORS = {"mutated": mutated_log, "journal": journal_lines, "docker": docker_lines, "traceback": tracebacks,
              "bytes": raw_bytes}


def strategy(name: str) -> st.SearchStrategy[bytes]:
    """The generator `name` as a hypothesis strategy over a seed. (Drawing every choice from hypothesis,
    `st.randoms()`, shrinks better but costs 10-300 ms per input; 100,000 inputs need the seed. The failing
    bytes themselves are kept as the regression file, so a poor shrink loses nothing.)"""
    gen = GENERATORS[name]
    return st.integers(min_value=0, max_value=2**64 - 1).map(lambda seed: gen(random.Random(seed)))


#: every input shape; random bytes drawn by hypothesis itself as well (it shrinks those best)
ANY_INPUT = st.one_of(st.binary(max_size=2048), *(strategy(n) for n in GENERATORS))
