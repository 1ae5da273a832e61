"""Is a Markdown report paste-ready? Rendered through markdown-it-py as GitHub would (CommonMark, tables,
strikethrough, bare-URL linkify): no link, image or foreign HTML token, and no mention, reference or markup in
the rendered prose."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from crashdoc.report.markdown import INVISIBLE

#: the only HTML in a report: crashdoc's own collapsed blocks
OWN_HTML = re.compile(r"^(?:<details>|</details>|<summary>[A-Za-z0-9 :,.-]+</summary>)$")


def _tokens(md: str) -> list[Token]:
    out: list[Token] = []
    for t in MarkdownIt("gfm-like").parse(md):
        out.append(t)
        out.extend(t.children or ())
    return out


def assert_paste_ready(md: str) -> list[Token]:
    """No link, image or foreign HTML token; no mention, reference or markup in rendered prose text."""
    assert not INVISIBLE.search(md), "a zero-width or bidi character reached the report"
    tokens = _tokens(md)
    for t in tokens:
        assert t.type not in ("link_open", "image", "autolink_open"), f"{t.type}: {t}"
        if t.type in ("html_block", "html_inline"):
            for line in t.content.strip().splitlines():
                assert OWN_HTML.match(line.strip()), f"HTML from the log: {line!r}"
        if t.type == "text":
            assert not re.search(r"@\w|#\d|<|\]\(", t.content), f"prose that GitHub acts on: {t.content!r}"
    return tokens
