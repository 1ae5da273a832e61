"""Rich's boxed tracebacks (TGI's `text-generation-server`, typer and rich.traceback users) read as frames.

```
╭──────────── Traceback (most recent call last) ────────────╮
│ /opt/conda/lib/python3.10/site-packages/text_generation_  │
│ server/cli.py:78 in serve                                 │
│ ❱  78 │   server.serve(                                   │
│ ╭──────── locals ────────╮                                │
│ │ dtype = None           │                                │
│ ╰────────────────────────╯                                │
╰───────────────────────────────────────────────────────────╯
RuntimeError: Not enough memory to handle 4096 prefill tokens.
```
Each `path.py:N in func` (the path or the function name may wrap onto the next line) is a frame, the `❱` line
is its code; locals and the other code lines are skipped. The exception follows the closed box, unboxed.
"""

from __future__ import annotations

from crashdoc.parse.formats import block_format
from crashdoc.parse.lines import LogLine
from crashdoc.parse.stacks import Frame
from crashdoc.regex import Regex

_SIDE = "│"
_BOTTOM = "╰"
_LOCATION = Regex(r"(?P<path>\S+\.py):(?P<line>\d+)(?: in (?P<func>\S+))?$")
_FUNC = Regex(r"(?:in )?(?P<func>[\w<>.]+)$")
_CODE = Regex(r"\d+ ")


def opens(text: str) -> bool:
    """Whether a traceback header line is a rich box's top border (the table's `rich-traceback` row)."""
    fmt = block_format(text)
    return fmt is not None and fmt.id == "rich-traceback"


class RichBox:
    """The state of one box being read (a plain class: a start defines no dataclass for it)."""

    __slots__ = ("closed", "pending", "want_func")

    def __init__(self) -> None:
        self.closed = False
        self.pending = ""
        """A wrapped path waiting for its `file.py:N` part on the next line."""
        self.want_func = False

    def feed(self, text: str, line: LogLine, frames: list[Frame]) -> bool:
        """One line while the box is open; True when it was a line of the box (a frame, code, decoration)."""
        if self.closed:
            return False
        stripped = text.strip()
        if stripped.startswith(_BOTTOM):
            self.closed = True
            return True
        if not stripped.startswith(_SIDE):
            return False
        content = stripped.strip(_SIDE).strip()
        if content.startswith(("╭", "│", "╰")):
            return True  # the locals box inside
        if content.startswith("❱"):
            if frames and frames[-1].code is None and _SIDE in content:
                f = frames[-1]
                code = content.split(_SIDE, 1)[1].replace(_SIDE, " ").strip()  # without rich's indent guides
                frames[-1] = Frame(f.path, f.lineno, f.func, code, f.line, line)
            return True
        fn = _FUNC.fullmatch(content) if self.want_func and frames else None
        if fn is not None:
            f = frames[-1]
            frames[-1] = Frame(f.path, f.lineno, fn.group("func"), f.code, f.line, f.code_line)
            self.want_func = False
            return True
        loc = content[:-3] if content.endswith(" in") else content  # `file.py:78 in` + the name on the next line
        m = _LOCATION.search(self.pending + loc) if " " not in loc.split(":", 1)[0] else None
        if m is not None and (m.start() == 0 or self.pending):
            frames.append(Frame(m.group("path"), int(m.group("line")), m.group("func") or "", None, line))
            self.pending, self.want_func = "", m.group("func") is None
            return True
        if content.startswith("/") and " " not in content:
            self.pending = content  # a path wrapped at the box's width
        elif not _CODE.match(content):
            self.pending = ""
        return True
