"""The core loop: evidence stream -> parsed lines -> tracebacks, attempts, candidates -> ranked Diagnosis."""

from __future__ import annotations

import dataclasses
import json
from typing import BinaryIO, Iterator

from crashdoc.analyze.attempts import AttemptTracker
from crashdoc.analyze.candidates import SCORE_ERROR_LINE, Candidate, from_line, from_stack
from crashdoc.analyze.phases import phase_of_frames, phase_of_line
from crashdoc.analyze.rank import MAX_FINDINGS, Group, attempt_verdicts, best_attempt, fold, summary, to_finding
from crashdoc.ingest.scan import MAX_LINE, Scanner
from crashdoc.errors import InputError
from crashdoc.model import Diagnosis, Skipped
from crashdoc.parse.lines import LineParser, LogLine, parse_line
from crashdoc.parse.records import parse_json_lines
from crashdoc.parse.traceback import Trace, TracebackBuilder, text_before_header


def _load_kb(kb: object | None) -> object:
    if kb is not None:
        return kb
    from crashdoc.kb import KnowledgeBase

    return KnowledgeBase.load()


def make_scanner(kb: object) -> Scanner:
    """A scanner whose hot lines include every rule's regex.

    NOTE: phase lines (progress bars, "Loading weights") are not hot: they are a large share of a healthy
    log, and a traceback's frames name its phase anyway; phase lines that are hot for another reason count.
    """
    return Scanner(extra_patterns=tuple(kb.scan_patterns()))  # type: ignore[attr-defined]


class _Memo:
    """kb.classify with a bounded memory of answers: a crash loop prints the same errors thousands of times."""

    LIMIT = 20000

    def __init__(self, kb: object) -> None:
        self.kb = kb
        self.seen: dict[tuple[str | None, str, str], object] = {}

    def classify(self, exception: str | None, message: str, line: str) -> object:
        key = (exception, message, line)
        if key in self.seen:
            return self.seen[key]
        found = self.kb.classify(exception, message, line)  # type: ignore[attr-defined]
        if len(self.seen) >= self.LIMIT:
            self.seen.clear()
        self.seen[key] = found
        return found


class _Pass:
    """State of one pass over the evidence."""

    def __init__(self, kb: object, scanner: Scanner) -> None:
        self.kb = _Memo(kb)
        self.scanner = scanner
        self.rule_bit = scanner.class_bit("rule")
        self.tracker = AttemptTracker()
        self.builder = TracebackBuilder()
        self.pending: dict[int, list[Candidate]] = {}
        """Candidates of attempts still open (a traceback may finish after the next attempt's first line)."""
        self.ranked: dict[int, list[Group]] = {}
        """Closed attempts: the best one keeps its ranked groups, the others their top group only."""
        self.best: tuple[int, int] | None = None
        self.attempt_now = 1
        self.kept: set[str] = set()
        self.attempt_of: dict[int, int] = {}
        self.phase: dict[str, str] = {}
        self.lines = 0
        self.bytes = 0
        self.json_records = 0
        self.omitted = 0
        self.awaiting: list[tuple[Candidate, list[str]]] = []
        """Candidates whose fix lacks a value the next lines may hold (a Python version, a package name)."""

    def feed(self, line: LogLine, mask: int) -> None:
        if self.awaiting:
            self._context(line)
        att = self.tracker.feed(line)
        if att != self.attempt_now:
            self.attempt_now = att
            for trace in self.builder.close():  # a traceback never spans a restart
                self._trace(trace)
        for trace in self.builder.feed(line):
            self._trace(trace)
        if line.lineno in self.builder.consumed:
            self.builder.consumed.clear()  # only the current line is ever asked about
            self.attempt_of[line.lineno] = att
            if "Traceback (most recent call last)" in line.text:
                self.tracker.mark_error()
            head = text_before_header(line)
            if head is None:
                return
            line = head
        if len(self.attempt_of) > 20000:  # keep only the lines of tracebacks still open
            oldest = self.builder.oldest_open()
            self.attempt_of = {k: v for k, v in self.attempt_of.items() if oldest is not None and k >= oldest}
        if line.level in ("INFO", None):
            ph = phase_of_line(line.text)
            if ph is not None:
                self.phase[line.stream] = ph.title
        cand = from_line(self.kb, line, att, bool(mask & self.rule_bit))  # type: ignore[arg-type]
        if cand is not None:
            cand.phase = self.phase.get(line.stream)
            self._add(cand)
            if _fix_incomplete(cand):
                self.awaiting.append((cand, []))
            if cand.role != "consequence" and cand.score >= SCORE_ERROR_LINE and line.level not in ("INFO", "WARNING"):
                self.tracker.mark_error()  # a warning at import time is printed by every process: not a restart

    def _trace(self, trace: Trace) -> None:
        for i, stack in enumerate(trace.stacks):
            anchor = stack.lines[0] if stack.lines else (stack.header or (stack.frames[-1].line if stack.frames else None))
            if anchor is None:
                continue
            att = self.attempt_of.get(anchor.lineno, self.tracker.current.index if self.tracker.attempts else 1)
            cand = from_stack(self.kb, trace, stack, i, att)  # type: ignore[arg-type]
            ph = phase_of_frames(stack.frames)
            cand.phase = ph.title if ph else self.phase.get(trace.stream)
            self._add(cand)

    def _add(self, cand: Candidate) -> None:
        self.pending.setdefault(cand.attempt, []).append(cand)
        current = self.tracker.current.index if self.tracker.attempts else 1
        for idx in [i for i in self.pending if i < current - 1]:
            self._close(idx)

    def _close(self, idx: int) -> None:
        """Fold and rank one attempt; keep all its groups only while it is the strongest attempt so far."""
        groups = fold(self.pending.pop(idx)).get(idx, [])
        if idx in self.ranked:  # late candidates of an attempt already closed: rank them with what it kept
            groups = sorted([*self.ranked.pop(idx), *groups], key=lambda g: g.key)
            if self.best is not None and self.best[1] == idx:
                self.best = None
        if not groups:
            return
        top = groups[0].first
        key = (top.score, idx) if top.role != "consequence" else None
        if key is not None and (self.best is None or key > self.best):
            if self.best is not None:
                self.ranked[self.best[1]] = self._light(self.ranked[self.best[1]][:1])
            self.best = key
            self.ranked[idx] = groups[:MAX_FINDINGS]
        else:
            self.ranked[idx] = self._light(groups[:1] if key is not None or self.ranked else groups[:5])

    def _light(self, groups: list[Group]) -> list[Group]:
        """Groups of an attempt that is not reported in full: the first time an error is seen it keeps its
        traceback (for "other findings"); repeats keep only what the attempt's verdict needs."""
        out = []
        for g in groups:
            if g.fingerprint in self.kept:
                g.first = dataclasses.replace(g.first, stack=None, trace=None)
            else:
                self.kept.add(g.fingerprint)
            out.append(g)
        return out

    def _context(self, line: LogLine) -> None:
        still = []
        for cand, ctx in self.awaiting:
            ctx.append(line.text)
            if len(ctx) < CONTEXT_LINES:
                still.append((cand, ctx))
            else:
                _complete_fix(cand, ctx)
        self.awaiting = still

    def finish(self) -> None:
        for trace in self.builder.close():
            self._trace(trace)
        for cand, ctx in self.awaiting:
            _complete_fix(cand, ctx)
        self.awaiting = []
        for idx in sorted(self.pending):
            self._close(idx)


CONTEXT_LINES = 12
"""Lines after an error searched for values its fix command needs."""


def _fix_incomplete(cand: Candidate) -> bool:
    """True when the rule's own command could not be filled from the error line (its fallback was used)."""
    m = cand.match
    if m is None or not getattr(m.rule, "fix_command", None) or not getattr(m.rule, "fallback_command", None):
        return False
    from crashdoc.kb.model import format_command

    return format_command(m.rule.fix_command, m.captures) is None


def _complete_fix(cand: Candidate, ctx: list[str]) -> None:
    """Match the same rule on the error plus the lines after it; keep its fix when that fills the command."""
    m = cand.match
    again = m.rule.match(cand.exception, "\n".join([cand.message, *ctx]), cand.line.text.strip())
    if again is not None and again.fix_command and not _fix_incomplete(dataclasses.replace(cand, match=again)):
        cand.match = dataclasses.replace(m, captures=again.captures, fix_command=again.fix_command,
                                         fix_text=again.fix_text)


def _records(stream: BinaryIO, p: _Pass) -> Iterator[tuple[LogLine, int]]:
    """Journal JSON (or docker json-file) input: one record per line; non-JSON lines parsed as text."""
    lineno = 0
    for data in stream:
        lineno += 1
        p.bytes += len(data)
        data = data.rstrip(b"\r\n")[:MAX_LINE]
        lines: list[LogLine] = []
        if data.startswith(b"{"):
            try:  # a raw non-UTF-8 byte inside a record must not lose the record
                rec = json.loads(data.decode("utf-8", "replace"))
            except ValueError:
                rec = None
            if isinstance(rec, dict):
                lines = parse_json_lines(lineno, rec)
                p.json_records += 1
                if rec.get("MESSAGE", "") is None:
                    p.omitted += 1
        if not lines:
            lines = [parse_line(lineno, data)]
        for line in lines:
            yield line, p.scanner.mask(line.text.encode("utf-8", "replace"))
    p.lines = lineno


def _text(stream: BinaryIO, p: _Pass) -> Iterator[tuple[LogLine, int]]:
    parser = LineParser()
    for hot in p.scanner.lines(stream):
        yield parser.parse(hot.lineno, hot.data), hot.mask
    p.lines, p.bytes = p.scanner.stats.lines, p.scanner.stats.bytes


def _is_json(stream: BinaryIO) -> bool:
    """True when most of the first lines are JSON objects (a leading `Hint: ...` line from journalctl or a
    shell prompt does not make a journal export text)."""
    head = stream.peek(1 << 16)[: 1 << 16] if hasattr(stream, "peek") else b""
    lines = [ln for ln in head.split(b"\n")[:8] if ln.strip()]
    objects = 0
    for ln in lines:
        ln = ln.strip()
        if not ln.startswith(b"{"):
            continue
        try:
            objects += isinstance(json.loads(ln.decode("utf-8", "replace")), dict)
        except ValueError:
            objects += ln is lines[-1].strip() and len(ln) >= 1000  # a long record cut by the peek
    return objects > 0 and objects * 2 >= len(lines)


def diagnose_stream(stream: BinaryIO, source: str, kb: object | None = None) -> Diagnosis:
    """Read a whole log (text, journal JSON, docker json-file) and diagnose it."""
    kb = _load_kb(kb)
    p = _Pass(kb, make_scanner(kb))
    source_iter = _records(stream, p) if _is_json(stream) else _text(stream, p)
    for line, mask in source_iter:
        p.feed(line, mask)
    p.finish()
    diag = _diagnosis(p, source)
    problem = getattr(stream, "problem", None)
    if problem and p.lines == 0:
        raise InputError(f"{source}: {problem.split(';')[0]}; nothing could be read")
    if problem:
        diag = dataclasses.replace(diag, skipped=(*diag.skipped, Skipped("input", problem)))
    return diag


def _diagnosis(p: _Pass, source: str) -> Diagnosis:
    ranked = dict(sorted(p.ranked.items()))
    chosen = best_attempt(ranked)
    states = p.tracker.attempts
    attempts = attempt_verdicts(states, ranked)
    skipped: list[Skipped] = []
    findings = []
    root = None
    if chosen is not None:
        groups = ranked[chosen]
        findings = [to_finding(g) for g in groups[:12]]
        root = findings[0]
        seen = {g.fingerprint for g in groups}
        for a, gs in sorted(ranked.items()):
            if a != chosen and gs[0].fingerprint not in seen and gs[0].first.role != "consequence":
                findings.append(to_finding(gs[0]))
                seen.add(gs[0].fingerprint)
    else:
        for gs in ranked.values():
            findings.extend(to_finding(g) for g in gs[:5])
        if findings:
            skipped.append(Skipped("root cause", "only wrapper/consequence errors are in this input; the error "
                                   "that started the failure was printed earlier than what was captured"))
    if p.omitted:
        skipped.append(Skipped("journal fields", f"{p.omitted} MESSAGE fields were omitted by journalctl "
                               "(over 4 KiB); fetch with `journalctl --all -o json`"))
    if p.scanner.stats.skipped_patterns:
        skipped.append(Skipped("fast scan", f"{len(p.scanner.stats.skipped_patterns)} rule patterns could not "
                               "be compiled for the block scanner; those rules still apply to error lines"))
    return Diagnosis(
        source=source, root_cause=root, findings=tuple(findings), attempts=attempts,
        summary=summary(attempts, root), skipped=tuple(skipped), lines_read=p.lines, bytes_read=p.bytes,
    )
