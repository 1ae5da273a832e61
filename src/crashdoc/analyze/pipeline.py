"""The analysis of one pass over the evidence: parsed lines -> attempts, tracebacks, candidates -> ranked groups
per attempt -> Diagnosis. Fed (analyze/feed.py) by investigate with lines of text (a file, standard input, a
capture) or with structured records (a journal export, docker json-file), one at a time: memory stays bounded by
what is kept per attempt, whatever the input's size."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from crashdoc.analyze.attempt_copies import AttemptCopies
from crashdoc.analyze.attempts import AttemptTracker
from crashdoc.analyze.candidates import SCORE_ERROR_LINE, Candidate, from_line, from_stack
from crashdoc.analyze.context import in_context
from crashdoc.analyze.findings import attempt_verdicts, cut_crash, logged_hint, lone_consequence, summary, to_finding
from crashdoc.analyze.fixes import CONTEXT_LINES, complete_fix, fix_incomplete
from crashdoc.analyze.fold import Folder
from crashdoc.analyze.rank import GROUP_LIMIT, MAX_FINDINGS, Group, Pending, attempt_key, best_attempt
from crashdoc.analyze.values import LogValues, complete
from crashdoc.model import Diagnosis, Skipped
from crashdoc.parse.lines import GAP, LogLine
from crashdoc.parse.phases import phase_of_frames, phase_of_line
from crashdoc.parse.scan import Scanner
from crashdoc.parse.traceback import Stack, Trace, TracebackBuilder, text_before_header

CLASSIFY_WINDOW = 4096
"""Characters of an error's text handed to the rules from its start, and as many from its end: the rules'
regexes then cost the same on a 64 KiB line as on a 8 KiB one (an error states itself at its start; a
wrapper's last words may name the cause)."""


def window(text: str) -> str:
    """`text`, or its first and last CLASSIFY_WINDOW characters when it is longer than both."""
    if len(text) <= 2 * CLASSIFY_WINDOW:
        return text
    return f"{text[:CLASSIFY_WINDOW]}\n{text[-CLASSIFY_WINDOW:]}"


class _Memo:
    """kb.classify on a bounded window of the text (CLASSIFY_WINDOW), with a bounded memory of answers: a crash
    loop prints the same errors thousands of times."""

    LIMIT = 20000

    def __init__(self, kb: object) -> None:
        self.kb = kb
        self.seen: dict[tuple[str | None, str, str, tuple[str, ...]], object] = {}

    def classify(self, exception: str | None, message: str, line: str, frames: Sequence[str] = ()) -> object:
        message, line = window(message), window(line)
        key = (exception, message, line, tuple(frames))
        if key in self.seen:
            return self.seen[key]
        found = self.kb.classify(exception, message, line, frames)  # type: ignore[attr-defined]
        if len(self.seen) >= self.LIMIT:
            self.seen.clear()
        self.seen[key] = found
        return found


class Analysis:
    """State of one pass over the evidence."""

    def __init__(self, kb: object, scanner: Scanner, fold: bool = True) -> None:
        self.kb = _Memo(kb)
        self.scanner = scanner
        self.rule_bit = scanner.class_bit("rule")
        self.tracker = AttemptTracker()
        self.builder = TracebackBuilder()
        self.pending: dict[int, Pending] = {}
        """Candidates of attempts still open (a traceback may finish after the next attempt's first line)."""
        self.now = 0
        self.dropped = 0
        """Distinct errors beyond an attempt's GROUP_LIMIT: counted, not kept."""
        self.ranked: dict[int, list[Group]] = {}
        """Closed attempts: the best one keeps its ranked groups, the others their top group only."""
        self.best: tuple[int, int, int] | None = None
        self.attempt_now = 1
        self.kept: set[str] = set()
        self.attempt_of: dict[int, int] = {}
        self.phase: dict[str, str] = {}
        self.frames_phase: dict[tuple[tuple[str, str], ...], str | None] = {}
        self.lines = 0
        self.bytes = 0
        self.json_records = 0
        self.omitted = 0
        self.values = LogValues()
        self.last_seen: dict[str, int] = {}
        """The last line number read of each stream."""
        self.awaiting: list[tuple[Candidate, list[str]]] = []
        """Candidates whose fix lacks a value the next lines may hold (a Python version, a package name)."""
        self.folder = Folder(self.builder, self._trace, self.attempt_of) if fold else None
        """Repeated tracebacks rebuilt from the first one (analyze/fold.py)."""
        self.copies = AttemptCopies(scanner.regions) if scanner.regions is not None else None
        """Attempts that repeat an earlier one, read only in their skeleton (analyze/attempt_copies.py)."""

    def feed(self, line: LogLine, mask: int) -> None:
        self.now = line.lineno
        if line.text != GAP:  # (an excerpt's gap marker is no line the stream printed)
            self.last_seen[line.stream] = line.lineno
        self.values.feed(line.raw)
        if self.awaiting:
            self._context(line)
        copies = self.copies
        if copies is not None and line.lineno in copies.regions.starts:
            before = len(self.tracker.attempts)
            att = self.tracker.feed(line)
            copies.start(line.lineno, before, self.tracker)
        else:
            att = self.tracker.feed(line)
        folder = self.folder
        if att != self.attempt_now:
            self.attempt_now = att
            self._close_all()  # a traceback never spans a restart
        if folder is not None and folder.take(line, att):  # a line of a repeated traceback: it only counts
            if self.builder.incidents.open is not None:  # (a taken line only ever closes an open incident)
                for trace in self.builder.incidents.feed(line, True):
                    self._trace(trace)
            if "Traceback (most recent call last)" in line.text:
                self.tracker.mark_error()
            return
        for trace in self.builder.feed(line):
            if folder is not None:
                folder.closed(trace, line)
            self._trace(trace)
        if folder is not None:
            folder.observe(line)
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
        cand = from_line(self.kb, line, att, bool(mask & self.rule_bit), self.phase.get(line.stream))
        if cand is not None:
            if fix_incomplete(cand):
                self.awaiting.append((cand, []))  # added once the next lines completed its fix
            else:
                self._add(cand)
            if cand.role != "consequence" and cand.score >= SCORE_ERROR_LINE and line.level not in ("INFO", "WARNING"):
                self.tracker.mark_error()  # a warning at import time is printed by every process: not a restart

    def _close_all(self) -> None:
        if self.folder is not None:
            self.folder.flush()
        for trace in self.builder.close():
            if self.folder is not None:
                self.folder.closed(trace, None)
            self._trace(trace)

    def _trace(self, trace: Trace, attempt: int | None = None) -> None:
        for i, stack in enumerate(trace.stacks):
            anchor = stack.lines[0] if stack.lines else (stack.header or (stack.frames[-1].line if stack.frames else None))
            if anchor is None:
                continue
            att = attempt or self.attempt_of.get(anchor.lineno, self.tracker.current.index if self.tracker.attempts else 1)
            title = self._frames_phase(stack)
            self._add(from_stack(self.kb, trace, stack, i, att, title or self.phase.get(trace.stream)))

    def _frames_phase(self, stack: Stack) -> str | None:
        """The phase a stack's frames name, once per distinct frame list: the copies of a traceback (every
        rank, every attempt of a crash loop) share it."""
        key = tuple((f.path, f.func) for f in stack.frames)
        if key not in self.frames_phase:
            if len(self.frames_phase) >= _Memo.LIMIT:
                self.frames_phase.clear()
            ph = phase_of_frames(stack.frames)
            self.frames_phase[key] = ph.title if ph else None
        return self.frames_phase[key]

    def _add(self, cand: Candidate) -> None:
        self.pending.setdefault(cand.attempt, Pending()).add(cand, self._horizon)
        current = self.tracker.current.index if self.tracker.attempts else 1
        for idx in [i for i in self.pending if i < current - 1]:
            self._close(idx)

    def _close(self, idx: int) -> None:
        """Fold and rank one attempt; keep all its groups only while it is the strongest attempt so far."""
        pending = self.pending.pop(idx)
        groups = pending.ranked()
        self.dropped += pending.folder.dropped
        if idx in self.ranked:  # late candidates of an attempt already closed: rank them with what it kept
            groups = sorted([*self.ranked.pop(idx), *groups], key=lambda g: g.key)
            if self.best is not None and self.best[-1] == idx:
                self.best = None
        if not groups:
            return
        top = groups[0].first
        copy = self.copies is not None and idx in self.copies.of  # (never reported: its lines were not read)
        key = None if copy else attempt_key(top, idx, self._failed(idx))
        if key is not None and (self.best is None or key > self.best):
            if self.best is not None:
                self.ranked[self.best[-1]] = self._light(self.ranked[self.best[-1]][:1])
            self.best = key
            self.ranked[idx] = groups[:MAX_FINDINGS]
        else:
            self.ranked[idx] = self._light(groups[:1] if key is not None or self.ranked else groups[:5])

    def _horizon(self) -> int:
        """A line number no candidate still to come is before: the current line, the first of an open traceback
        or incident (an incident's anchor is one line before its first), a candidate awaiting its context."""
        opened = self.builder.oldest_open()
        waiting = min((c.order for c, _ in self.awaiting), default=self.now)
        return min(self.now, waiting, self.now if opened is None else opened) - 2

    def _failed(self, idx: int) -> bool:
        """The service manager (or the exit record) says attempt idx failed."""
        states = self.tracker.attempts
        outcome = states[idx - 1].outcome if 0 < idx <= len(states) else None
        return bool(outcome) and not str(outcome).startswith(("exited 0", "stopped"))

    def _light(self, groups: list[Group]) -> list[Group]:
        """Groups of an attempt that is not reported in full: the first time an error is seen it keeps its
        traceback (for "other findings"); repeats keep only what the attempt's verdict needs."""
        out = []
        for g in groups:
            if g.fingerprint in self.kept:
                g = dataclasses.replace(g, first=dataclasses.replace(g.first, stack=None, trace=None))
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
                self._add(complete_fix(cand, ctx))
        self.awaiting = still

    def finish(self) -> None:
        self._close_all()
        for cand, ctx in self.awaiting:
            self._add(complete_fix(cand, ctx))
        self.awaiting = []
        for idx in sorted(self.pending):
            self._close(idx)


def diagnosis(p: Analysis, source: str) -> Diagnosis:
    """The ranked result of a finished pass."""
    if p.copies is not None:
        p.copies.verdicts(p.ranked, p._light)
    ranked = {a: [complete(in_context(g, p.values.args), p.values) for g in gs] for a, gs in sorted(p.ranked.items())}  # fixes: log values
    copies = p.copies.of if p.copies is not None else {}
    chosen = best_attempt({a: gs for a, gs in ranked.items() if a not in copies}, p._failed)
    states = p.tracker.attempts
    attempts = attempt_verdicts(states, ranked)
    skipped: list[Skipped] = []
    findings = []
    root = None
    hint = None
    if chosen is not None:
        groups = ranked[chosen]
        hint = groups[0].first if logged_hint(groups[0].first) else None
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
        root = lone_consequence(ranked)
        if root is not None:
            findings = [root, *(f for f in findings if f.fingerprint != root.fingerprint)]
        elif findings:
            skipped.append(Skipped("root cause", "only wrapper/consequence errors are in this input; the error "
                                   "that started the failure was printed earlier than what was captured"))
    failure_seen = any(p._failed(a.index) for a in states) or any(
        g.first.role == "consequence" or g.first.score >= SCORE_ERROR_LINE or cut_crash(g.first, p.last_seen)
        for gs in ranked.values() for g in gs)
    if root is not None and hint is not None and not failure_seen:
        # a rule knows a line the program logged as information or a warning, and nothing failed: that is a
        # finding for the reader, not the root cause of a crash that did not happen
        skipped.append(Skipped("root cause", f"no failure in this input; line {root.lineno} was logged at "
                               f"{hint.line.level} and is listed as a finding"))
        root = None
    if p.omitted:
        skipped.append(Skipped("journal fields", f"{p.omitted} MESSAGE fields were omitted by journalctl "
                               "(over 4 KiB); fetch with `journalctl --all -o json`"))
    if p.dropped:
        skipped.append(Skipped("distinct errors", f"{p.dropped} distinct errors beyond the {GROUP_LIMIT} "
                               "strongest of their attempt were counted, not kept"))
    if p.scanner.stats.skipped_patterns:
        skipped.append(Skipped("fast scan", f"{len(p.scanner.stats.skipped_patterns)} rule patterns could not "
                               "be compiled for the block scanner; those rules still apply to error lines"))
    return Diagnosis(
        source=source, root_cause=root, findings=tuple(findings), attempts=attempts,
        summary=summary(attempts, root), skipped=tuple(skipped), lines_read=p.lines, bytes_read=p.bytes,
    )
