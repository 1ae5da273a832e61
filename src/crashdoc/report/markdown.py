"""Markdown report, for pasting into a GitHub issue, a chat or an email: readable as raw text and as rendered.

Log text is never interpreted. Rather than escaping punctuation (unreadable raw), every word that Markdown or
GitHub could act on (`*`, `_`, `` ` ``, `[`, `<`, `&`, `#`, `@`, `|`, `~`, `$`, `\\`, URLs, file and domain names,
list and rule markers) goes into a code span, whose backtick fence is longer than any backtick run inside it;
whole log lines go into fenced blocks whose fence is longer than any backtick run in them. Inside code GitHub
makes no links, mentions (`@name`) or issue references (`#12`); attempts are written `attempt 3`, never `#3`.
Zero-width and bidi characters are removed, other control characters (`\\r` too) shown as `\\x0d` escapes, so no
text can hide another. The layout follows vLLM's bug-report template: the environment, then the bug.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from crashdoc import __version__
from crashdoc.model import Diagnosis, Finding
from crashdoc.parse.text import INVISIBLE, strip_ansi, visible
from crashdoc.regex import Regex
from crashdoc.report.interface import Renderer
from crashdoc.report.safe import redacted_note

#: longest log line shown whole; longer ones say how much was left out (a 10 MB line is not a report)
MAX_LINE = 100_000
_SPECIAL = Regex(r"[\\`*_\[\]<>#@|~&$]")
_URLISH = Regex(r"://|^www\.|\w\.[A-Za-z]|^:\w+:$|^gh-\d+$", re.IGNORECASE)
_RULE = Regex(r"^[-=+*_]+$")
_LIST = Regex(r"^\d{1,9}[.)]$")
_ABBREV = frozenset({"e.g", "i.e", "etc", "vs"})
_EDGE = Regex(r"^([(\"']*)(.*?)([)\"'.,;:!?]*)$", re.DOTALL)
_SPAN = Regex(r"(?<![^\s(\"'])(`[^`]+`)(?=[\s)\"'.,;:!?]|$)")
ENGINES = ("vllm", "sglang", "text-generation-server", "tensorrt-llm", "tensorrt_llm", "llama-cpp-python",
           "lmdeploy", "mlc-llm", "exllamav2")


def clean(text: str | None, limit: int = MAX_LINE) -> str:
    """Untrusted text as one line: ANSI and invisible characters removed, a tab a space, other controls (a CR
    inside the line, LF) as escapes; a CR at the end of the line (CRLF input) hides nothing and goes."""
    if not text:
        return ""
    s = visible(INVISIBLE.sub("", strip_ansi(text.rstrip("\r"))).replace("\t", " ")).replace("\n", "\\n")
    return s if len(s) <= limit else s[:limit] + f" [{len(s) - limit} more characters not shown]"


def code(text: str | None, table: bool = False) -> str:
    """`text` as one code span (literal on every renderer); `table` escapes `|` for a table cell."""
    s = clean(text)
    if not s:
        return ""
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s[0] in "` " or s[-1] in "` " else ""
    if table:
        s = s.replace("|", "\\|")
    return f"{ticks}{pad}{s}{pad}{ticks}"


def _active(word: str, first: bool) -> bool:
    """Could Markdown or GitHub act on this word (markup, a link, a mention, a reference, a block marker)?"""
    if _SPECIAL.search(word) or (first and (_RULE.match(word) or _LIST.match(word))):
        return True
    return bool(_URLISH.search(word)) and word.lower().rstrip(".") not in _ABBREV


def _wrap(words: list[str], table: bool) -> str:
    """Words as one code span, sentence punctuation around them left outside."""
    joined = " ".join(words)
    if _LIST.match(joined) or _RULE.match(joined):
        return code(joined, table)
    lead, core, tail = _EDGE.match(joined).groups()  # type: ignore[union-attr]
    while tail.startswith(")") and core.count("(") > core.count(")"):
        core, tail = core + ")", tail[1:]
    return lead + code(core, table) + tail if core else code(lead + tail, table)


def _words(s: str, table: bool, first: bool) -> str:
    out: list[str] = []
    pending: list[str] = []
    for i, word in enumerate(s.split(" ")):
        if word and _active(word, first and i == 0):
            pending.append(word)
            continue
        if pending:
            out.append(_wrap(pending, table))
            pending = []
        out.append(word)
    if pending:
        out.append(_wrap(pending, table))
    return " ".join(out)


def prose(text: str | None, table: bool = False, limit: int = MAX_LINE) -> str:
    """Plain words stay as they are; words Markdown could act on go into code spans (neighbours share one);
    a `code span` already in the text (a rule's wording) is kept as it is."""
    parts = _SPAN.split(clean(text, limit).strip())
    return "".join((p.replace("|", "\\|") if table else p) if i % 2 else _words(p, table, i == 0)
                   for i, p in enumerate(parts))


def fence(lines: Iterable[str], info: str = "text") -> str:
    """A fenced block whose backtick fence is longer than any backtick run in `lines`."""
    body = "\n".join(clean(ln) for ln in lines)
    ticks = "`" * max(3, max((len(r) for r in re.findall(r"`+", body)), default=0) + 1)
    return f"{ticks}{info}\n{body}\n{ticks}"


def _details(summary: str, block: str) -> str:
    """A collapsed block; `summary` is crashdoc's own words, never log text."""
    return f"<details>\n<summary>{summary}</summary>\n\n{block}\n\n</details>\n\n"


def _pkg(packages: Mapping[str, Any], *names: str) -> str | None:
    norm = {re.sub(r"[-_.]+", "-", str(k)).lower(): (str(k), str(v)) for k, v in packages.items()}
    found = [f"{norm[n][0]} {norm[n][1]}" for n in dict.fromkeys(re.sub(r"[-_.]+", "-", x) for x in names) if n in norm]
    return ", ".join(found) or None


def environment_rows(diag: Diagnosis) -> list[tuple[str, str]]:
    """(what, Markdown cell) for engine, torch, CUDA, driver, GPU, Python: from the environment doctor's section
    when it ran, `not checked` otherwise."""
    sec = next((s for s in diag.sections if s.key == "environment"), None)
    if sec is None:
        return [(k, "not checked") for k in ("engine", "torch", "CUDA (torch build)", "NVIDIA driver", "GPU", "Python")]
    data = sec.data
    packages = data.get("packages") or {}
    gpu = (data.get("checks") or {}).get("gpu")
    gpus = list((gpu or {}).get("gpus") or [])

    def cell(value: str | None, missing: str) -> str:
        return code(value, table=True) if value else missing

    if not isinstance(gpu, Mapping) or "gpus" not in gpu and not gpu.get("error"):
        why = next((sk.reason for sk in diag.skipped if sk.what == "gpu"), "")
        gpu_cell = driver_cell = "not checked" + (f" ({prose(why, True)})" if why else "")
    elif gpu.get("error"):
        gpu_cell = driver_cell = "nvidia-smi failed: " + code(str(gpu["error"]), table=True)
    elif not gpus:
        gpu_cell = driver_cell = "none listed by nvidia-smi"
    else:
        names: dict[str, int] = {}
        for g in gpus:
            names[str(g.get("name"))] = names.get(str(g.get("name")), 0) + 1
        gpu_cell = code(", ".join(f"{n} x {name}" for name, n in names.items()), table=True)
        driver_cell = cell(str(gpus[0].get("driver") or ""), "unknown")
    torch = _pkg(packages, "torch")
    cuda = (gpu or {}).get("torch_cuda") if isinstance(gpu, Mapping) else None
    interp = data.get("interpreter") or {}
    py = code(str(interp["version"]), True) if interp.get("version") else "not inspected"
    if interp.get("executable"):
        py += f" at {code(str(interp['executable']), True)}"
    return [
        ("engine", cell(_pkg(packages, *ENGINES), "not installed" if packages else "not checked")),
        ("torch", cell(torch, "not installed" if packages else "not checked")),
        ("CUDA (torch build)", cell(str(cuda) if cuda else None, "not checked" if not packages or torch and gpu is None
                                    else "none (torch is not installed)" if torch is None else "none (not a CUDA build)")),
        ("NVIDIA driver", driver_cell),
        ("GPU", gpu_cell),
        ("Python", py),
    ]


def _where_rows(rc: Finding, n_attempts: int) -> list[tuple[str, str]]:
    w = rc.where
    ranks = ",".join(map(str, rc.ranks)) or (str(w.rank) if w.rank is not None else "")
    attempt = f"attempt {w.attempt}" + (f" of {n_attempts}" if n_attempts > 1 else "") if w.attempt else ""
    rows = [("host", code(w.host, True)), ("unit", code(w.unit, True)), ("process", code(w.process, True)),
            ("pid", code(str(w.pid), True) if w.pid else ""), ("rank", code(ranks, True)), ("attempt", attempt),
            ("phase", prose(w.phase, True)), ("frame", code(w.frame, True)), ("input line", str(rc.lineno) if rc.lineno else ""),
            ("rule", code(rc.rule, True)), ("confidence", f"{code(rc.confidence, True)}: {prose(rc.confidence_reason, True)}")]
    return [(k, v) for k, v in rows if v]


def _table(rows: list[tuple[str, str]]) -> str:
    return "| | |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows) + "\n"


class MarkdownRenderer(Renderer):
    """GitHub-flavoured Markdown that reads the same raw and rendered."""

    def render(self, diag: Diagnosis, out: TextIO) -> None:
        """Write the report."""
        w = out.write
        w(f"# crashdoc report: {code(diag.source)}\n\n")
        w(f"crashdoc {__version__}" + (f" · {redacted_note(self.redactions)}" if self.redactions else "") + "\n\n")
        w("## Your current environment\n\n" + _table(environment_rows(diag)))
        if not any(s.key == "environment" for s in diag.sections):
            w("Not checked: run `crashdoc diagnose ... --python PATH` (or `--env` for a systemd unit) to fill it in.\n\n")
        w("## Describe the bug\n\n")
        rc = diag.root_cause
        if rc is None:
            w("**No root cause in this input**: only wrapper or consequence errors (below).\n\n" if diag.findings
              else "**No error found in this input.**\n\n")
        else:
            w(f"**Root cause** ({code(rc.category)}): {prose(rc.headline, limit=600)}\n\n")
            if rc.line:
                w(f"The key line, as in the input:\n\n{fence([rc.line])}\n\n")
            if rc.confirmation:
                w(f"Environment: {prose(rc.confirmation)}\n\n")
            w(_table(_where_rows(rc, len(diag.attempts))))
            if rc.explanation:
                w(f"**Why:** {prose(rc.explanation)}\n\n")
            w(f"**Fix:** {prose(rc.fix.text)}\n\n")
            if rc.fix.command:
                w(fence([rc.fix.command], "sh") + "\n\n")
            if rc.evidence:
                lines = [f"{e.lineno:>7} | {e.text}" for e in rc.evidence]
                w(_details(f"Evidence: {len(lines)} input line{'s' if len(lines) != 1 else ''}", fence(lines)))
        self._rest(diag, w)

    def _rest(self, diag: Diagnosis, w: Any) -> None:
        if diag.attempts or diag.summary:
            w(f"## {'Attempts' if diag.attempts else 'Summary'}\n\n" + (f"{prose(diag.summary)}\n\n" if diag.summary else ""))
            for a in diag.attempts:
                when = f" ({code(a.started)})" if a.started else ""
                root = f": {code(clean(a.root_message, 300))}" if a.root_message else ""
                w(f"- attempt {a.index}{when} {prose(a.outcome)}{root}\n")
            w("\n")
        others = [f for f in diag.findings if f is not diag.root_cause]
        if others:
            w("## Other findings\n\n")
            for f in others[:10]:
                tag = "consequence" if f.role == "consequence" else f.category
                at = f"input line {f.lineno}" if f.lineno else "environment"
                w(f"- {at} ({code(tag)}): {code(clean(f.headline, 300))}\n")
            if len(others) > 10:
                w(f"- and {len(others) - 10} more (`--format json` lists them all)\n")
            w("\n")
        for sec in diag.sections:
            if sec.lines:
                name = {"environment": "Environment doctor", "unit": "Unit"}.get(sec.key, "Facts")
                w(_details(f"{name}: {len(sec.lines)} line{'s' if len(sec.lines) != 1 else ''}",
                           f"{prose(sec.title)}\n\n" + "\n".join(f"- {prose(ln)}" for ln in sec.lines)))
        if diag.skipped:
            w("## Not checked or not shown\n\n" + "".join(f"- {prose(s.what)}: {prose(s.reason)}\n" for s in diag.skipped) + "\n")
