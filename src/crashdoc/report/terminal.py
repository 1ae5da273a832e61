"""Terminal report with rich: root cause first (message, category, where, why, fix, evidence), then the
attempts, other findings, extra sections and what could not be checked. Log text never reaches the terminal
raw: ANSI and control characters are neutralised and nothing is parsed as rich markup."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from rich.console import Console
from rich.text import Text

from crashdoc.model import Diagnosis, Finding
from crashdoc.parse.lines import parse_line
from crashdoc.report.interface import Renderer
from crashdoc.report.safe import redacted_note, safe


def _where(f: Finding, n_attempts: int) -> list[str]:
    w = f.where
    parts = []
    if w.host or w.unit:
        parts.append(" ".join(x for x in (f"host {w.host}" if w.host else "", f"unit {w.unit}" if w.unit else "") if x))
    if w.attempt and n_attempts > 1:
        parts.append(f"attempt {w.attempt} of {n_attempts}")
    if w.process:
        parts.append(f"process {w.process}" + (f" (pid {w.pid})" if w.pid else ""))
    if f.ranks:
        parts.append("rank " + ",".join(str(r) for r in f.ranks) if len(f.ranks) < 9 else f"{len(f.ranks)} ranks")
    if f.count > 1:
        parts.append(f"printed by {f.count} processes")
    if w.phase:
        parts.append(f"while {w.phase}")
    out = [" · ".join(parts)] if parts else []
    if w.frame:
        out.append(f"frame {w.frame}")
    return out


class _Console(Console):
    """rich's Console, except that a closed pipe (`crashdoc ... | head`) ends the output quietly instead of
    exiting with status 1, so the exit status still says what was found."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass


class TerminalRenderer(Renderer):
    """Human report; colour only when writing to a terminal."""

    def __init__(self, width: int | None = None, color: bool | None = None) -> None:
        self.width = width
        self.color = color

    def render(self, diag: Diagnosis, out: TextIO) -> None:
        """Write the report."""
        isatty = out.isatty() if hasattr(out, "isatty") else False
        color = self.color if self.color is not None else isatty
        con = _Console(file=out, width=self.width or (None if isatty else 100), markup=False, highlight=False,
                       emoji=False, no_color=not color, force_terminal=color, soft_wrap=False)
        label = lambda s: Text(f"{s:<9}", style="bold")  # noqa: E731
        con.print(Text(f"crashdoc: {safe(diag.source, 200)}", style="dim"))
        if self.redactions:
            con.print(Text(f"{redacted_note(self.redactions)} (placeholders <redacted:KIND:N>)", style="dim"))
        if diag.state is not None:  # the present first: a fixed service is not read as still broken
            style = {"running": "bold green", "starting": "bold yellow"}.get(diag.state.now, "bold red")
            con.print(Text("Now      ", style="bold"), Text(safe(diag.state.detail, 600), style=style))
        for sec in diag.sections:
            con.print(Text(safe(sec.title, 200), style="bold cyan"))
            for ln in sec.lines:
                con.print(Text("  " + safe(ln, 300)))
        rc = diag.root_cause
        if rc is None:
            if diag.findings:
                con.print(Text("No root cause in this input: only wrapper/consequence errors (below). The error that "
                               "started the failure was printed before the captured part: read the whole attempt "
                               "(for a unit: crashdoc diagnose UNIT).", style="bold yellow"))
            else:
                con.print(Text("No error found in this input.", style="bold green"))
        else:
            head = Text("Root cause ", style="bold red")
            head.append(f"[{rc.category}]", style="magenta")
            if rc.rule:
                head.append(f" rule {rc.rule}", style="dim")
            if rc.confirmation:
                head.append(f"  {safe(rc.confirmation, 200)}", style="green")
            con.print(head)
            con.print(Text("  " + safe(rc.headline, 600), style="bold"))
            for i, w in enumerate(_where(rc, len(diag.attempts))):
                con.print(label("Where" if i == 0 else ""), Text(safe(w, 300)))
            con.print(label("Confidence"), Text(f"{rc.confidence}: {safe(rc.confidence_reason, 300)}"))
            if rc.explanation:
                con.print(label("Why"), Text(safe(rc.explanation, 1200)))
            con.print(label("Fix"), Text(safe(rc.fix.text, 1200)))
            if rc.fix.command:
                con.print(label(""), Text("$ " + safe(rc.fix.command, 300), style="bold green"))
            if diag.history is not None and diag.history.summary:
                con.print(label("History"), Text(safe(diag.history.summary, 600), style="cyan"))
            con.print(Text("Evidence", style="bold"))
            for e in rc.evidence:
                parsed = parse_line(e.lineno, e.text)
                t = Text(f"  {e.lineno:>7} │ ", style="dim")
                if parsed.process:
                    t.append(f"{safe(parsed.process, 40)}: ", style="cyan")
                t.append(safe(parsed.text, 200), style="red" if e.lineno == rc.lineno else "")
                con.print(t)
        if diag.summary or len(diag.attempts) > 1:
            con.print(Text("Attempts" + (f": {diag.summary}" if diag.summary else ""), style="bold"))
            for a in _fold_attempts(diag):
                con.print(Text("  " + safe(a, 300)))
        others = [f for f in diag.findings if f is not rc][:8]
        if others:
            con.print(Text("Other findings", style="bold"))
            for f in others:
                tag = "consequence" if f.role == "consequence" else f.category
                con.print(Text(f"  line {f.lineno} [{tag}] " + safe(f.headline, 160)))
        for s in diag.skipped:
            con.print(Text(f"Not checked: {safe(s.what, 80)}: {safe(s.reason, 300)}", style="yellow"))


def _fold_attempts(diag: Diagnosis) -> list[str]:
    """Attempt lines, identical consecutive verdicts folded into one line."""
    lines: list[str] = []
    i = 0
    atts = diag.attempts
    while i < len(atts):
        j = i
        while j + 1 < len(atts) and atts[j + 1].fingerprint == atts[i].fingerprint and atts[j + 1].outcome == atts[i].outcome:
            j += 1
        a = atts[i]
        span = f"#{a.index}" if i == j else f"#{a.index}-#{atts[j].index}"
        when = f" {a.started}" if a.started else f" lines {a.first_lineno}-{atts[j].last_lineno}"
        root = f"  {a.root_message}" if a.root_message else ""
        lines.append(f"{span}{when}: {a.outcome}{root}")
        i = j + 1
    return lines
