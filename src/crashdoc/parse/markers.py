"""The cheap markers that make a line worth parsing, how much context each pulls in, and the strict checks a
hit passes before its line counts as hot.

Each marker class has a context window: a traceback header pulls in the lines after it (the frames and the
exception, interleaved with other ranks), an error word a few lines (multi-line messages), a systemd or phase
line only itself. Knowledge-base rule regexes are added as a class of their own by the scanner.

Anchoring: a hyperscan pattern finds a word; whether the line is a failure is decided on the line, in Python,
before anything is decoded or parsed (and only for the few lines with a hit):

- `drop_levels`: a hit on a line whose level field (`line_level`) says the program logged information (INFO,
  DEBUG ...) is not a failure: a request log quoting a user's prompt ("my room", "access denied", a pasted
  traceback) or NCCL's `NCCL INFO` chatter. Error words and signal names also drop on WARNING lines: a warning
  is never an error line by itself (parse/errors.py), only a rule hit makes it a candidate.
- `strict`: a boundary hit counts only on a line the attempt tracker or the phase table reads: a systemd
  record, an engine's start banner, a phase line; never NCCL's own INFO lines (`Connected all rings`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from crashdoc.parse.errors import QUIET_LEVELS
from crashdoc.parse.formats import scan_patterns
from crashdoc.parse.prefixes import RELOGGED_CHILD
from crashdoc.regex import Regex

QUIET = QUIET_LEVELS
"""Level fields of lines that are not error lines by themselves (parse/errors.py)."""
LOGGED = QUIET - {"WARNING"}
"""Level fields of lines the program logged as information."""
DEBUG_LEVELS = frozenset({"DEBUG", "TRACE"})
"""Level fields of probes: never a candidate, even when a rule knows the text (analyze/candidates.py)."""


@dataclass(frozen=True)
class MarkerClass:
    """A set of patterns sharing one context window."""

    name: str
    patterns: tuple[str, ...]
    before: int
    """Lines of context before a hit."""
    after: int
    """Lines of context after a hit."""
    drop_levels: frozenset[str] = frozenset()
    """A hit after a level field in this set does not make the line hot."""
    strict: bool = False
    """A hit counts only when the line passes `strict_boundary` (a systemd record, a banner, a phase line)."""
    drop_quoted: frozenset[str] = frozenset()
    """A hit inside a quoted value (after `: '`, `="` ...) of a line with a level field in this set does not
    make the line hot: a request log's prompt, a config dump; the head of the line still counts."""
    relayed: bool = False
    """A hit that opens the message right after a level field in `drop_levels` still counts: a launcher relaying
    its child's stderr line by line writes the child's crash at its own INFO level (`- INFO - Traceback ...`)."""
    prefilter: bool = False
    """Scanned in hyperscan's prefilter mode (cheaper; it may also find near misses): for a rule's regex, which
    the scanner confirms on the line with Python."""


TRACEBACK = MarkerClass(
    "traceback",
    (
        r"Traceback \(most recent call last\)",
        r"Exception Group Traceback",
        r"Stack \(most recent call",
        r"terminate called after throwing",
        r"goroutine \d+ \[",
        r"Fatal Python error",
    ),
    before=2,
    after=60,
    drop_levels=LOGGED,
    relayed=True,
)
"""Frames (`File "...", line N`) are hot themselves and extend the window, so a traceback stays covered for as
long as its frames keep coming, interleaved with other ranks' lines, without a fixed long window."""

EXCEPTION = MarkerClass(
    "exception",
    (
        r"[A-Za-z](?:Error|Exception|Exit|Interrupt|Warning)\b",
        r"\bwhat\(\): ",
        r'File "[^"]+", line \d+',
    ),
    before=2,
    after=30,
    drop_levels=LOGGED,
    relayed=True,
)

WORDS = MarkerClass(
    "words",
    (r"\b(?:ERROR|FATAL|CRITICAL)\b", r"(?:[Ee]rror|[Ff]atal|panic)(?::| \d| ?\[|\])"),
    before=2,
    after=30,
    drop_levels=QUIET,
)
"""Error words outside an exception shape (`error: ...`, `FATAL [`, `panic:`)."""

SIGNAL = MarkerClass(
    "signal",
    (
        r'\bKilled(?:\s|\\[nr]|"|\x1e|$)',  # also at the end of a JSON record's text or an entry line's field
        r"\b(?:was|were|been|got|being) killed\b|\bkilled (?:by|with|due to)\b|\b[Oo]om[-_ ]?[Kk]ill",
        r"Segmentation fault",
        r"core dumped",
        r"\b[Ss]ignal(?: \(?\d| SIG|: | [A-Z]{3,})|\bby signal\b|[Ss]ignal (?:received|caught|handler)|[Rr]eceived signal",
        r"SIG[A-Z]{2,4}\b",
        r'\bAborted(?: \(core|[ \t\r]*$|\\[nr]|"|\x1e)',
        r"Out of memory",
        r"out of memory",
        r"\b[Oo]om[-_]",
        r"\bOOM",
        r"invalid opcode",
        r"Illegal instruction",
        r"[Pp]ermission denied|[Aa]ccess denied|denied:|\bdenied \(|[Dd]enied by",
        r"Failed to |\b[Ff]ailed(?::|!| with (?:exit|code|status|error)| \(|\.\s*\n|\.?\\n)|\bFAIL(?:ED|URE)?\b",
        r"exit(?:ed)? (?:with )?(?:code|status)",
        r"NCCL WARN",
        r"\bXid\b",
    ),
    before=1,
    after=3,
    drop_levels=QUIET,
)

BOUNDARY = MarkerClass(
    "boundary",
    (
        # at a message's start (after a prefix's `: `, `] `, a quote, a column of spaces, an entry line's MESSAGE=),
        # not inside prose
        r'(?:^|[:\]")|]|\s\s|\x1eMESSAGE=)\s*(?:Started|Starting|Stopped|Stopping) ',
        r"Scheduled restart",
        r"holdoff time over",
        r"Main process exited",
        r"Control process exited",
        r"Failed with result",
        r"Deactivated successfully",
        r"repeated too quickly",
        r"restart counter is at",
        r"Consumed \d",
        r"API server version",
        r"non-default args",
        r"server_args=ServerArgs",
        r"Args \{",
        r"Initializing a V1 LLM engine",
        r"Initializing an LLM engine",
        r"Application startup complete",
        r"Uvicorn running on",
        r"The server is fired up",
        r"Connected",
    ),
    before=0, after=0, strict=True,
)

FORMAT = MarkerClass("format", scan_patterns(), before=2, after=30, drop_levels=QUIET)
"""The error-format table's lines (data/error_formats.yaml): glog/TensorRT/TurboMind error headers, panics,
terminate, CUDA status strings, ggml asserts ... with the follow-on lines that complete them."""

CLASSES: tuple[MarkerClass, ...] = (TRACEBACK, EXCEPTION, WORDS, SIGNAL, BOUNDARY, FORMAT)

_MESSAGE_KEY = Regex(rb'"(?:MESSAGE|log|msg|message)" ?: ?"|\x1eMESSAGE=')
"""Where the message starts in a record's line: a JSON key, or an entry line's field (sources/journal_export.py)."""


def is_record(line: bytes) -> bool:
    """Whether a raw line is one record of structured fields (a JSON object, or a journal entry line: fields
    joined by the record separator, the cursor first), whose message is one field among others."""
    return line[:1] == b"{" or line.startswith(b"__CURSOR=")


_LEVEL = Regex(
    rb"(?:^|[\s\[(|])(INFO|DEBUG|TRACE|NOTICE|VERBOSE|WARNING|WARN|ERROR|CRITICAL|FATAL)(?=[\s:\]|,]|$)"
    rb"|(?i:\blevel\\?\"?[=:] ?\\?\"?(info|debug|trace|warn|warning|error|fatal|critical))\b"
    rb"|^[\s\"]*([IWEF])\d{4} \d\d:\d\d:\d\d"
)
_GLOG = {b"I": "INFO", b"W": "WARNING", b"E": "ERROR", b"F": "FATAL"}
LEVEL_WINDOW = 240
"""Bytes of a line (from its message, for a JSON record) searched for its level field."""


def line_level(line: bytes) -> tuple[str | None, int]:
    """(The level field of a raw line, the offset just after it), or (None, 0) when the line has none.

    The first level word of the line's head counts: `(APIServer pid=1) INFO 11-24 ... [logger.py:43]`,
    `2025-...Z  WARN router: ...`, `INFO:     127.0.0.1 ...`, `level=info`, `NCCL INFO`, glog's `I1124 06:00:08`;
    for a JSON record (journal export, docker json-file) the head of its message field.
    """
    if not is_record(line):
        return _head_level(line[:LEVEL_WINDOW].translate(_DIGITS_AS_ZERO))
    m = _MESSAGE_KEY.search(line)
    if m is None:
        return None, 0
    return _level_at(_LEVEL.search(line, m.end(), m.end() + LEVEL_WINDOW))


_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")


@lru_cache(maxsize=4096)
def _head_level(head: bytes) -> tuple[str | None, int]:
    """line_level of a text line's head with every digit read as 0: the same answer as for the head itself, since
    the level patterns read a digit only as `\\d`. The lines of an error-dense log differ mostly in their digits
    (timestamps, pids), so a crash loop's heads repeat, and each distinct one is searched once."""
    return level_of_head(head)


def level_of_head(head: bytes) -> tuple[str | None, int]:
    """The first level field of a text line's head; a wrapper's logger header that relogs its child's line
    (`- __main__ - INFO - ERROR 08-13 ...`: parse/prefixes.py RELOGGED_CHILD) gives the child's level."""
    m = _LEVEL.search(head)
    if m is not None:
        child = _RELOG.match(head, m.end())
        if child is not None:
            word = child.group("level").decode()
            return ("WARNING" if word == "WARN" else word), child.end("level")
    return _level_at(m)


_RELOG = Regex((r"(?: - |\s*\| \S+ - )" + RELOGGED_CHILD).encode())
"""After a wrapper's level field: its separator (Python logging's ` - `, loguru's `| loc - `), then a child's
logger header."""


def _level_at(m: re.Match[bytes] | None) -> tuple[str | None, int]:
    if m is None:
        return None, 0
    word = m.group(1) or m.group(2)
    if word is None:
        return _GLOG[m.group(3)], m.end()
    level = word.decode().upper()
    return ("WARNING" if level == "WARN" else level), m.end()


HEAD = 512
"""Bytes of a line's head (of its message, for a JSON record) where a banner or phase line states itself."""
_SYSTEMD = Regex(rb'systemd\[\d+\]: |\.service: |"SYSLOG_IDENTIFIER" ?: ?"systemd"|"MESSAGE_ID" ?: ?"'
                 rb'|\x1eSYSLOG_IDENTIFIER=systemd(?:\x1e|$)|\x1eMESSAGE_ID=')


@cache
def _strict_boundary() -> re.Pattern[bytes]:
    # NOTE: built on first use: the phase table is read only when a boundary word is seen
    from crashdoc.parse.phases import load_phases

    phases = [rx.pattern for ph in load_phases() for rx in ph.lines if rx.pattern != "Connected"]
    banners = (r"non-default args:|vLLM API server version|Starting vLLM API server|server_args=ServerArgs\(|"
               r"\bArgs \{|Initializing an? (?:V1 )?LLM engine")
    # a router's `Connected` (TGI is up), never NCCL's `Connected all rings` / `Connected to proxy`
    connected = r"^(?!.*\bNCCL\b).*\bConnected\b(?! (?:to|all|with|via)\b| \d)"
    return re.compile("|".join(f"(?:{p})" for p in (banners, *phases, connected)).encode())


@cache
def _strict_literals() -> re.Pattern[bytes] | None:
    """Strings one of which every strict boundary line's head holds (parse/literals.py), as one regex: a quick no
    before the full one, whose lookahead and classes make every position of the head cost more."""
    from crashdoc.parse.literals import necessary_literals

    lits = necessary_literals(_strict_boundary().pattern.decode())
    if lits is None or lits.caseless:
        return None
    return re.compile(b"|".join(re.escape(s.encode()) for s in sorted(lits.strings, key=len, reverse=True)))


def _boundary_head(head: bytes) -> bool:
    lits = _strict_literals()
    if lits is not None and lits.search(head) is None:
        return False
    return _strict_boundary().search(head) is not None


def strict_boundary(line: bytes) -> bool:
    """True for a boundary hit's line that the attempt tracker or the phase table reads: a systemd record, or a
    banner or phase line (looked for in the line's head only: a prompt quoting one is not one)."""
    if is_record(line):
        if _SYSTEMD.search(line) is not None:
            return True
        m = _MESSAGE_KEY.search(line)
        lo = m.end() if m is not None else 0
        return _boundary_head(line[lo:lo + HEAD])
    head = line[:HEAD]
    return _SYSTEMD.search(head) is not None or _boundary_head(head)


_QUOTED = Regex(rb"""(?::|(?<!\bmsg)=) ?\\?['"]""")  # (a logfmt line's `msg="` opens its message: no quoted value)
_OPENS = Regex(rb'[ \t:|\]-]{0,8}(?:Traceback \(most recent call last\)|Exception Group Traceback|File "[^"\n]{1,400}", line \d)')


def opens_message(line: bytes, end: int, pos: int) -> bool:
    """Whether the hit ending at `pos` is a traceback header or frame opening the message after a level field
    ending at `end` (a few separators between them)."""
    m = _OPENS.match(line, end)
    return m is not None and m.end() >= pos


def passes(cls: MarkerClass, line: bytes, pos: int, level: tuple[str | None, int]) -> bool:
    """Whether a hit of `cls` ending at `pos` in `line` makes the line hot; `level` is `line_level(line)`."""
    if cls.strict and not strict_boundary(line):
        return False
    lv, end = level
    if lv is None or end > pos:
        return True
    if lv in cls.drop_levels:
        return cls.relayed and opens_message(line, end, pos)
    return not (lv in cls.drop_quoted and _QUOTED.search(line, end, pos) is not None)
