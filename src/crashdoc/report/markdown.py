"""Markdown report, for pasting into an issue; log text goes into fenced blocks, never interpreted."""

from __future__ import annotations

import re
from typing import TextIO

from crashdoc.model import Diagnosis
from crashdoc.report.interface import Renderer
from crashdoc.report.safe import redacted_note, safe

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def _inline(text: str | None) -> str:
    """Log-derived text for a code span: no backticks, no table pipes."""
    return safe(text, 500).replace("`", "ˋ").replace("|", "\\|")


def _prose(text: str | None) -> str:
    """Text outside code spans: every Markdown and HTML special character escaped."""
    return _MD_SPECIAL.sub(r"\\\1", safe(text, 1200)).replace("<", "&lt;")


def _fence(lines: list[str]) -> str:
    body = "\n".join(lines)
    ticks = "```"
    while ticks in body:
        ticks += "`"
    return f"{ticks}text\n{body}\n{ticks}"


class MarkdownRenderer(Renderer):
    """GitHub-flavoured Markdown."""

    def render(self, diag: Diagnosis, out: TextIO) -> None:
        """Write the report."""
        w = out.write
        w(f"# crashdoc report: `{_inline(diag.source)}`\n\n")
        if self.redactions:
            w(f"*{redacted_note(self.redactions)}.*\n\n")
        for sec in diag.sections:
            w(f"## {_prose(sec.title)}\n\n")
            for ln in sec.lines:
                w(f"- {_prose(ln)}\n")
            w("\n")
        rc = diag.root_cause
        if rc is None:
            w("**No error found in this input.**\n\n")
        else:
            msg = f"{rc.exception}: {rc.message}" if rc.exception else rc.message
            w(f"## Root cause: `{rc.category}`\n\n")
            w(f"`{_inline((msg or rc.line).splitlines()[0])}`\n\n")
            if rc.confirmation:
                w(f"*{_prose(rc.confirmation)}*\n\n")
            wh = rc.where
            rows = [("line", str(rc.lineno)), ("attempt", str(wh.attempt or "")), ("process", wh.process or ""),
                    ("rank", ",".join(map(str, rc.ranks)) or (str(wh.rank) if wh.rank is not None else "")),
                    ("phase", wh.phase or ""), ("frame", wh.frame or ""), ("rule", rc.rule or ""),
                    ("confidence", f"{rc.confidence}: {rc.confidence_reason}")]
            w("| | |\n|---|---|\n")
            for k, v in rows:
                if v:
                    w(f"| {k} | `{_inline(v)}` |\n")
            w("\n")
            if rc.explanation:
                w(f"**Why:** {_prose(rc.explanation)}\n\n")
            w(f"**Fix:** {_prose(rc.fix.text)}\n\n")
            if rc.fix.command:
                w(_fence([safe(rc.fix.command, 500)]).replace("```text", "```sh", 1) + "\n\n")
            w("**Evidence**\n\n")
            w(_fence([f"{e.lineno:>7} | {safe(e.text, 300)}" for e in rc.evidence]) + "\n\n")
        if diag.attempts:
            w(f"## Attempts\n\n{_prose(diag.summary)}\n\n")
            for a in diag.attempts:
                root = f": `{_inline(a.root_message)}`" if a.root_message else ""
                w(f"- #{a.index} `{_inline(a.started or '')}` {_prose(a.outcome)}{root}\n")
            w("\n")
        others = [f for f in diag.findings if f is not rc]
        if others:
            w("## Other findings\n\n")
            for f in others[:10]:
                m = f"{f.exception}: {f.message}" if f.exception else f.message
                w(f"- line {f.lineno} `{f.role if f.role == 'consequence' else f.category}`: `{_inline((m or f.line).splitlines()[0] if (m or f.line) else '')}`\n")
            w("\n")
        for s in diag.skipped:
            w(f"> Not checked: {_prose(s.what)}: {_prose(s.reason)}\n")
