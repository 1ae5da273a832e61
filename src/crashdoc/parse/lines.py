"""One input line -> LogLine: every known prefix (parse/prefixes.py) stripped from the text and kept as a field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crashdoc.parse.prefixes import RANK_IN_NAME, UNSAFE, strip
from crashdoc.parse.text import _ANSI_HINT, clean

GAP = "[... gap in source ...]"
"""The line an excerpt's collector writes where text was left out (the corpus format's marker)."""


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
    fmt: str | None = None
    """The error-format row (data/error_formats.yaml) whose header gave the level, when one did."""


def build_line(lineno: int, raw: str, text: str, f: dict[str, Any]) -> LogLine:
    process = f.get("process")
    rank = f.get("rank")
    if process and rank is None:
        m = RANK_IN_NAME.search(process)
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
        engine_prefixed=bool(f.get("engine")), outer=outer, fmt=f.get("fmt"),
    )


def parse_line(lineno: int, data: bytes | str) -> LogLine:
    """Parse one raw input line."""
    raw = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    raw = raw.rstrip("\r\n")
    f: dict[str, Any] = {}
    text = strip(clean(raw), f)
    return build_line(lineno, raw, text, f)


class LineParser:
    """parse_line with a memory of recent full prefixes.

    Every line of a logged traceback repeats the same prefix (`Mon DD HH:MM:SS host id[pid]: (Worker_TP3 pid=N)
    ERROR MM-DD HH:MM:SS [file.py:N] `); once one line with a vLLM logger header is parsed, the next lines that
    start with exactly that prefix get the same fields without parsing it again. Such a prefix ends at the
    header's `]` (and its blank), so a line is looked up by its head up to each `]` (a dict lookup, whatever the
    number of ranks interleaving). Gives the same LogLines as parse_line (a test checks it on every asset and
    corpus log).
    """

    SLOTS = 64

    def __init__(self) -> None:
        self.recent: dict[str, LogLine] = {}
        """Prefix -> the line it was parsed from (the oldest is forgotten first)."""
        self.longest = 0

    def _known(self, raw: str) -> tuple[str, LogLine] | None:
        recent, limit = self.recent, min(len(raw), self.longest)
        i = raw.find("]", 0, limit)
        while i >= 0:
            # a logger header takes the blank after it: a prefix remembered without one does not fit a line
            # that has one
            end = i + 2 if raw[i + 1 : i + 2] == " " else i + 1
            tpl = recent.get(raw[:end])
            if tpl is not None:
                return raw[:end], tpl
            i = raw.find("]", i + 1, limit)
        return None

    def parse(self, lineno: int, data: bytes | str) -> LogLine:
        """Parse one raw input line."""
        raw = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        raw = raw.rstrip("\r\n")
        # NOTE: isprintable() (one C pass) rules out control characters, ESC and CR; the ANSI remnants stay
        plain = (raw.isprintable() and "^[" not in raw and ("[" not in raw or not _ANSI_HINT.search(raw))
                 or not UNSAFE.search(raw))
        if plain and self.recent:
            known = self._known(raw)
            if known is not None:
                prefix, tpl = known
                return LogLine(lineno, raw, raw[len(prefix):], tpl.level, tpl.process, tpl.pid, tpl.rank,
                               tpl.ts, tpl.host, tpl.ident, tpl.unit, tpl.invocation, tpl.loc, tpl.stream,
                               tpl.engine_prefixed, tpl.outer, tpl.fmt)
        f: dict[str, Any] = {}
        text = strip(raw if plain else clean(raw), f)  # (a plain line is clean: no ANSI, no control, no CR)
        line = build_line(lineno, raw, text, f)
        if plain and f.get("final") and raw.endswith(text) and len(text) < len(raw):
            prefix = raw[: len(raw) - len(text)]
            if prefix.endswith(("]", "] ")) and prefix not in self.recent:
                if len(self.recent) >= self.SLOTS:
                    del self.recent[next(iter(self.recent))]
                self.recent[prefix] = line
                self.longest = max(self.longest, len(prefix))
        return line
