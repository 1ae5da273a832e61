"""Reconstruction of damaged text, on the scanner's hot lines before they are parsed.

Logs reach crashdoc pasted, wrapped and re-encoded. Each repair names the damage it undoes:
- a traceback flattened onto one line (a paste that lost its newlines, `Traceback (most recent call last): File
  "...", line N, in f code File ...`): split at every `File "...", line N, in f`, the exception off the last code;
- escaped newlines: a whole traceback inside one JSON string or one logged repr (`...\\n  File \\"...\\", line
  N ...\\nRuntimeError: ...`): one line per piece, each with the line's prefix; a JSON record's multi-line
  message: one record per line;
- lines hard-wrapped at a fixed width by a terminal or viewer: several lines of exactly the same length (at
  least 80) followed by a fragment with no prefix of its own are joined when the join parses and the cut falls
  where a terminal's does (inside a word or token, or at a blank: equal lengths alone are no evidence, a log of
  fixed-width records has them everywhere);
- quote markers (Markdown's `> `, a rendered quote's bar) on two or more consecutive lines, Markdown list bullets
  (`* `) in front of log lines that carry a prefix, and numbered lines (`12 | text`, `12: text`, `12 text`)
  numbered consecutively: the marker, bullet or number is removed. A split line keeps its line number on every
  piece; a joined line keeps the first one's.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any, Generic, Protocol, TypeVar

from crashdoc.parse.errors import bare_exception
from crashdoc.parse.exceptions import is_exception_name
from crashdoc.parse.formats import block_format, line_format
from crashdoc.parse.lines import GAP
from crashdoc.parse.markers import is_record
from crashdoc.parse.prefixes import strip
from crashdoc.parse.text import clean
from crashdoc.regex import Regex

WRAP_MIN, WRAP_SEEN, WRAP_WINDOW = 80, 3, 64
"""Shortest line length taken for a hard wrap; distinct lines of one length (among the last WRAP_WINDOW) that
make it a wrap width."""

_FRAME = Regex(r'File "[^"]*", line \d+, in [^\s"]+')
_FRAME_LINE = Regex(r'\s*(?:> )?File "[^"]*", line \d+')
_TB = "Traceback (most recent call last):"
_EXC_START = Regex(r"(?<![\w.])((?:[A-Za-z_]\w*\.)*[A-Z]\w*): ")
_BARS = tuple(c.encode() for c in "\u258e\u258c")  # the bar a rendered quote leaves in a copy (`▎ `, `▌ `)
_QUOTE = Regex("[>" + b"".join(_BARS).decode() + "] ?")
_NUMBER = Regex(r" {0,3}(\d{1,6})(?: ?[|:] |\t| )")  # (a gutter of consecutive numbers: `12 | `, `12: `, `12 `)
_NUMBER_B = Regex(_NUMBER.pattern.encode())
_NUMBER_START = b" 0123456789"
"""What a numbered line can start with (`_NUMBER`): other lines skip the regex."""
_ESCAPES = {'\\"': '"', "\\'": "'", "\\t": "\t", "\\\\": "\\"}
_ESCAPE = Regex(r'\\["\'t\\]')


class Piece(Protocol):
    """A line as the parser will read it (the scanner's HotLine): its number, bytes, scanner mask."""

    @property
    def lineno(self) -> int: ...
    @property
    def data(self) -> bytes: ...
    @property
    def mask(self) -> int: ...


P = TypeVar("P", bound=Piece)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate a JSON `\ud800` escape decoded to (found by fuzzing)
        return text.encode("utf-8", "backslashreplace")


_DATA_LEVELS = frozenset({"INFO", "DEBUG", "TRACE"})
"""Levels at which a line's text is information the program logged (a request, a config dump): repair never
rebuilds a traceback out of it."""


def _prefix_and_text(raw: str) -> tuple[str, str, dict[str, Any]]:
    """The line's prefix (what the prefix stripper removes) and its text."""
    f: dict[str, Any] = {}
    text = strip(clean(raw), f)
    if text and raw.endswith(text):
        return raw[: len(raw) - len(text)], text, f
    return "", raw, f


def _unescape(piece: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES[m.group()], piece)


def split_flattened(text: str) -> list[str] | None:
    """A traceback printed on one line -> its lines (header, frames, code, exception); None if it is not one."""
    frames = list(_FRAME.finditer(text))
    if not frames or (len(frames) < 2 and _TB not in text[: frames[0].start()]):
        return None
    out = []
    head = text[: frames[0].start()].rstrip()
    if head.strip(" >|"):
        out.append(head)
    for i, m in enumerate(frames):
        out.append("  " + m.group())
        end = frames[i + 1].start() if i + 1 < len(frames) else len(text)
        code = text[m.end(): end].strip()
        if i + 1 == len(frames):  # the last code line runs into the exception: `raise X("a") X: a`
            exc = next((e for e in _EXC_START.finditer(code) if is_exception_name(e.group(1)) and e.start()), None)
            if exc is not None:
                out += ["    " + code[: exc.start()].strip(), code[exc.start():]]
                continue
        if code:
            out.append("    " + code)
    return out


def split_escaped(raw: str) -> list[str] | None:
    """A line that holds several lines behind escaped newlines (a JSON string, a logged repr) -> those lines,
    each with the line's prefix; a JSON record's multi-line message -> one record per line; None otherwise."""
    if "\\n" not in raw or not ("\\n\\n" in raw or "\\n " in raw or "Traceback" in raw or 'File \\"' in raw):
        return None  # (a Windows path has `\\n` too, but not followed by a blank or an indented line)
    if raw.startswith("{") and raw.rstrip().endswith("}"):
        try:
            rec = json.loads(raw)
        except ValueError:
            rec = None
        if isinstance(rec, dict):
            return _split_record(rec)
    prefix, text, f = _prefix_and_text(raw)
    if f.get("level") in _DATA_LEVELS:
        return None  # logged as information: a request's prompt or a repr of data, not a traceback to rebuild
    if len(text) >= 2 and text[0] in "\"'" and text.rstrip().endswith(text[0]):
        text = text[1:].rstrip()[:-1]  # a quoted message (`] "...\n"`)
    return [prefix + _unescape(p) for p in text.split("\\n")]


def _split_record(rec: dict[str, Any]) -> list[str] | None:
    level = rec.get("level") or rec.get("levelname") or ""
    if str(rec.get("PRIORITY", "")) in ("5", "6", "7") or (isinstance(level, str) and level.upper() in _DATA_LEVELS):
        return None  # a record logged as information (notice, info, debug) holds data, not a traceback
    holder, key = (rec["fields"], "message") if isinstance(rec.get("fields"), dict) else (rec, None)
    key = key or next((k for k in ("message", "msg", "log", "MESSAGE") if isinstance(rec.get(k), str)), None)
    if key is None or not isinstance(holder.get(key), str) or "\n" not in holder[key]:
        return None
    parts = holder[key].rstrip("\n").split("\n")
    if len(parts) < 2:
        return None
    out = []
    for part in parts:
        holder[key] = part
        out.append(json.dumps(rec, ensure_ascii=False))
    return out


class _Held(Generic[P]):
    """A piece held back, the length of its last physical line (a joined line's last piece) and its number."""
    __slots__ = ("piece", "last_len", "last_lineno")

    def __init__(self, piece: P, last_len: int, last_lineno: int) -> None:
        self.piece, self.last_len, self.last_lineno = piece, last_len, last_lineno


class Repairer(Generic[P]):
    """Feed hot lines in input order; repaired lines come out LOOKAHEAD lines later (the wrap width is known
    from the lines around a line, before and after it)."""

    LOOKAHEAD = 32

    def __init__(self) -> None:
        self.buf: deque[_Held[P]] = deque()
        self.widths: dict[int, int] = {}
        self.seen: dict[int, int] = {}  # the hash of the last line of each length
        self.window: deque[int] = deque()
        self.quoted = False
        self.bullet = False
        self.number: int | None = None

    def feed(self, line: P) -> Iterator[P]:
        """One line; yields the lines it completes."""
        yield from self.push(line)

    def push(self, line: P) -> list[P]:
        """One line; the lines it completes (no generator: this runs once per hot line)."""
        data = line.data
        n = len(data) if data.isascii() else len(_text(data))  # columns, as a terminal counts them
        widths, window, seen = self.widths, self.window, self.seen
        h = hash(data)
        key = -1 if seen.get(n) == h else n  # a line repeated verbatim is no evidence of a wrap width
        seen[n] = h
        window.append(key)
        widths[key] = widths.get(key, 0) + 1
        if len(window) > WRAP_WINDOW:
            widths[window.popleft()] -= 1
        buf = self.buf
        buf.append(_Held(line, n, line.lineno))
        return self._emit() if len(buf) > self.LOOKAHEAD else []

    def flush(self) -> Iterator[P]:
        """The end of the input: the lines still held."""
        while self.buf:
            yield from self._emit()

    def _emit(self) -> list[P]:
        first = self.buf.popleft()
        while self.buf and self._wrapped(first, self.buf[0]):
            nxt = self.buf.popleft()
            first.piece = replace(first.piece, data=first.piece.data + nxt.piece.data,  # type: ignore[type-var]
                                  mask=first.piece.mask | nxt.piece.mask)
            first.last_len, first.last_lineno = nxt.last_len, nxt.last_lineno
        return self._out(first.piece, self.buf[0].piece.data if self.buf else None)

    def _wrapped(self, held: _Held[P], nxt: _Held[P]) -> bool:
        """Whether `nxt` is the rest of `held`, cut by a terminal or viewer `held.last_len` columns wide."""
        width, data = held.last_len, nxt.piece.data
        if width < WRAP_MIN or nxt.last_len > width or self.widths.get(width, 0) < WRAP_SEEN:
            return False  # a length seen too rarely to be a width
        if nxt.piece.lineno != held.last_lineno + 1 or data[:8] == held.piece.data[:8] or not data.strip():
            return False  # not the next line; it starts as the line before does (the same prefix)
        if data[:1] == b"{" and held.piece.data.rstrip()[-1:] == b"}" or is_record(data) and is_record(held.piece.data):
            return False  # two records (journal records of one shape often have one length)
        if not _cut_inside(held.piece.data[-1:], data[:2]):
            return False  # equal lengths alone are no wrap: the cut must fall where a terminal's would
        raw = _text(data)
        if GAP in raw or "\u2500" <= raw.lstrip()[:1] <= "\u257f":
            return False  # an excerpt's marker of missing text; a box drawn at the width (rich's tracebacks)
        if "Traceback" in raw or bare_exception(raw.strip())[0]:
            return False  # a line of its own (checked before the prefix parse below, which costs more)
        prefix, text, fields = _prefix_and_text(raw)
        if prefix or fields or _FRAME_LINE.match(text) or "Traceback" in text or bare_exception(text.strip())[0]:
            return False  # a line of its own
        if line_format(text) is not None or block_format(text) is not None:
            return False
        if b'File "' in held.piece.data:
            before = _prefix_and_text(_text(held.piece.data))[1]
            if _FRAME_LINE.match(before):  # a frame's line is cut inside its path or its function name
                return raw[:1] not in " \t" and bool(_FRAME_LINE.match(before + raw))
        return True

    def _out(self, held: P, nxt: bytes | None) -> list[P]:
        data = held.data
        first = data[:1]
        marked = first == b">" or data[:2] in (b"* ", b"- ") or data[:3] in _BARS or (
            first in _NUMBER_START and _NUMBER_B.match(data) is not None)
        raw = self._unmark(_text(data), _text(nxt) if nxt is not None else None) if marked else None
        if not marked:
            self.quoted, self.bullet, self.number = False, False, None
        escaped = b"\\n" in data
        flat = data.count(b'File "') > 1 or b'Traceback (most recent call last): File "' in data
        if raw is None and not escaped and not flat:
            return [held]  # the common case: nothing to repair
        raw = raw if raw is not None else _text(data)
        pieces = split_escaped(raw) if escaped else None
        if pieces is None and flat:
            prefix, text, f = _prefix_and_text(raw)
            split = split_flattened(text) if f.get("level") not in _DATA_LEVELS else None
            pieces = [prefix + p for p in split] if split else None
        return [replace(held, data=_bytes(p)) for p in pieces or [raw]]  # type: ignore[type-var]

    def _unmark(self, raw: str, next_raw: str | None) -> str:
        """Quote markers and line numbers off a line, when its neighbours carry them too."""
        q = _QUOTE.match(raw)
        quoted = q is not None and (self.quoted or (next_raw is not None and next_raw[:1] == raw[:1]))
        self.quoted = q is not None
        if quoted and q is not None:
            raw = raw[q.end():]
        bullet = raw[:2] in ("* ", "- ")
        listed = bullet and (self.bullet or (next_raw is not None and next_raw[:2] == raw[:2]))
        self.bullet = bullet
        if listed and _prefix_and_text(raw[2:])[2]:  # a Markdown list of log lines: `* E0530 12:00:00 ...`
            raw = raw[2:]
        n = _NUMBER.match(raw)
        if n is None or (raw[n.end(1):n.end()] == " " and not quoted):  # `12 text` numbers lines only in a quote
            self.number = None
            return raw
        num = int(n.group(1))
        nxt = _NUMBER.match(next_raw) if next_raw is not None else None
        numbered = self.number == num - 1 or (nxt is not None and int(nxt.group(1)) == num + 1)
        self.number = num
        return raw[n.end():] if numbered else raw


_OPENERS = frozenset(b"([{<")


def _cut_inside(last: bytes, head: bytes) -> bool:
    """Whether a line ending in `last`, the next starting with `head` (2 bytes), look like one a terminal cut: inside
    a word or token (`memo`/`ry`), or at a blank. Not a cut: the next line indented (a code line) or opening a
    bracket right after a non-blank (`(Worker_TP3 pid=7)`, `[rank0]:`: a log prefix)."""
    if not last or not head:
        return False
    if last in (b" ", b"\t"):
        return True
    first = head[0]
    if first in b" \t":
        return head[1:2] not in (b" ", b"\t")
    return first not in _OPENERS


def repair(lines: Iterable[P]) -> Iterator[P]:
    """The repaired stream of `lines`."""
    r: Repairer[P] = Repairer()
    push = r.push
    for line in lines:
        out = push(line)
        if out:
            yield from out
    yield from r.flush()
