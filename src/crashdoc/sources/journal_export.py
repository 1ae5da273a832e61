"""journalctl's export format (`journalctl -o export`) as entry lines: one line per record, for the block scanner.

journalctl writes its export format at about a third of the cost of `-o json` (no escaping), and the attempts of
a long crash loop are hundreds of MB of it. The scanner reads lines, so each entry becomes one line: its text
fields (`KEY=VALUE`, valid UTF-8 without control characters but tab: journald's rule for writing a field as
text) joined by SEP, which no text field can hold. That is two replacements over a block, done in C.

A field that is not such text (a message of several lines, non-UTF-8 bytes, control characters) is framed in the
export format by its length instead (`KEY\\n`, 8 bytes of little-endian length, the bytes, `\\n`); an entry with
one is read field by field and written as the JSON line `journalctl -o json` gives for it (bytes that are not
printable UTF-8 as a list of byte values), so the scanner and the decoder see what they saw of journalctl's JSON.
Such fields are found without a field-by-field walk: their length's top bytes are zero, and a text field holds
no NUL byte.
"""

from __future__ import annotations

import json
import re
from typing import Any

SEP = b"\x1e"
"""Between the fields of an entry line (ASCII record separator: a control character, so never in a text field)."""
HEAD = b"__CURSOR="
"""How every entry line starts: journalctl writes the cursor first."""
_FRAMED = b"\x00"
"""In the length of every length-framed field (its top bytes: a field is < 2**40 bytes), never in a text field; the
first one lies in the first 6 bytes of the length (memchr finds it)."""
_NAME = re.compile(rb"[A-Za-z0-9_]{1,64}\Z")
_NOT_PRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_END = b"\n\n"


def is_entry_line(line: bytes) -> bool:
    """Whether a line is an entry line (as opposed to a JSON line or text)."""
    return line.startswith(HEAD)


def entry_lines(data: bytes, final: bool = False) -> tuple[bytes, int, int]:
    """The whole entries at the start of export-format `data` as entry lines (newline-terminated), how many,
    and the bytes of `data` they took (the rest is an entry still arriving; `final`: the stream has ended, so
    the rest is read as one cut entry)."""
    size = len(data)
    if final and data and not data.endswith(_END):
        data += b"\n" if data.endswith(b"\n") else _END
    out: list[bytes] = []
    pos = n = 0
    while pos < len(data):
        framed = data.find(_FRAMED, pos)
        if framed < 0:  # text fields only up to the last whole entry: the common case
            # NOTE: a framed field whose length is still arriving (its zeros not yet here) may put a blank line in
            # the last 8 bytes: an entry end is looked for before them
            end = data.rfind(_END, pos, len(data) if final else max(len(data) - 8, pos)) + 2
            if end > pos + 1:
                n += _join(data[pos:end] if pos or end < len(data) else data, out)
                pos = end
            break
        # NOTE: the framed field's name line ends at most 6 bytes before the zeros: an entry end found before that
        # is a whole entry's (at worst an earlier one, which is walked too)
        start = data.rfind(_END, pos, max(framed - 6, pos))
        start = pos if start < 0 else start + 2
        if start > pos:
            n += _join(data[pos:start], out)
        got = _walk(data, start)
        if got is None:  # the entry is still arriving
            pos = start
            break
        line, pos = got
        if line:
            out.append(line)
            n += 1
    return b"".join(out), n, min(pos, size)


def _join(entries: bytes, out: list[bytes]) -> int:
    """Whole text-only entries (each ending in a blank line) as entry lines onto `out`; returns how many (each
    blank line, two separators, became one newline)."""
    lines = entries.replace(b"\n", SEP).replace(SEP + SEP, b"\n")
    out.append(lines)
    return len(entries) - len(lines)


def _walk(data: bytes, pos: int) -> tuple[bytes, int] | None:
    """The entry at `pos` read field by field: (its line, the offset after it), None when it is not all there."""
    fields: list[tuple[str, str | list[int]]] = []
    framed = False
    while True:
        nl = data.find(b"\n", pos)
        if nl < 0:
            return None
        if nl == pos:  # the blank line that ends the entry
            pos += 1
            break
        line = data[pos:nl]
        key, eq, value = line.partition(b"=")
        if eq:
            fields.append((key.decode("utf-8", "replace"), value.decode("utf-8", "replace")))
            pos = nl + 1
            continue
        if not _NAME.match(line):  # not a field: nothing journalctl writes; skipped
            pos = nl + 1
            continue
        if nl + 9 > len(data):
            return None
        size = int.from_bytes(data[nl + 1:nl + 9], "little")
        end = nl + 9 + size
        if end + 1 > len(data):
            return None
        fields.append((line.decode("ascii"), _value(data[nl + 9:end])))
        framed = True
        pos = end + 1 if data[end:end + 1] == b"\n" else end
    if not fields:
        return b"", pos
    if not framed:
        return SEP.join(f"{k}={v}".encode() for k, v in fields) + b"\n", pos
    rec: dict[str, Any] = {}
    for k, v in fields:
        _add(rec, k, v)
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass") + b"\n", pos


def _value(raw: bytes) -> str | list[int]:
    """A length-framed value as `journalctl -o json` writes it: text when it is printable UTF-8 (newlines and
    tabs allowed), else its byte values."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return list(raw)
    return list(raw) if _NOT_PRINTABLE.search(text) else text


def _add(rec: dict[str, Any], key: str, value: Any) -> None:
    """A field into a record; a field an entry holds more than once becomes a list of its values (as journalctl's
    JSON gives it)."""
    if key not in rec:
        rec[key] = value
    elif isinstance(rec[key], list) and rec[key] and not isinstance(rec[key][0], int):
        rec[key].append(value)
    else:
        rec[key] = [rec[key], value]


def entry_record(line: bytes) -> dict[str, Any]:
    """An entry line's fields (the decoder's side of `entry_lines`)."""
    rec: dict[str, Any] = {}
    for field in line.decode("utf-8", "replace").split("\x1e"):
        key, eq, value = field.partition("=")
        if eq:
            _add(rec, key, value)
    return rec
