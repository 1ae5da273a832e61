"""Splitting one log into the service's start attempts and saying how each ended.

Boundaries: systemd's own records (Started / Scheduled restart / Main process exited / Failed with result /
Start request repeated too quickly / Deactivated successfully), a change of journal invocation id, and an
engine's start banner after the previous attempt already failed or ended.
"""

from __future__ import annotations

import re

from crashdoc.parse.lines import LogLine
from crashdoc.parse.regions import BANNERS
from crashdoc.parse.systemd import interpret
from crashdoc.regex import Regex

_BANNER = Regex("|".join(re.escape(b.decode()) for b in BANNERS) + r"|^Args \{")
"""An engine's start banner (parse/regions.py BANNERS; TGI's launcher also as `Args {` at a line's start)."""


class AttemptState:
    """An attempt being read (mutable; frozen into model.Attempt at the end). A plain class: a start defines no
    dataclass for it."""

    __slots__ = ("index", "first_lineno", "last_lineno", "started", "ended", "outcome", "exit_status", "invocation",
                 "closed", "content", "error_seen", "gave_up")

    def __init__(self, index: int, first_lineno: int, last_lineno: int, started: str | None = None) -> None:
        self.index = index
        self.first_lineno = first_lineno
        self.last_lineno = last_lineno
        self.started = started
        self.ended: str | None = None
        self.outcome: str | None = None
        self.exit_status: str | None = None
        self.invocation: str | None = None
        self.closed = False
        self.content = False
        self.error_seen = False
        self.gave_up = False


def _is_manager(line: LogLine) -> bool:
    return line.ident == "systemd" or (line.ident is None and ".service: " in line.text[:120])


class AttemptTracker:
    """Feed lines in order; `feed` returns the 1-based attempt index of each line."""

    BANNERS_SEEN = 4096
    """Distinct line texts whose banner test is remembered (a crash loop prints the same lines every attempt)."""
    BANNER_TEXT = 512
    """Longest text remembered (the memory stays under ~2 MB whatever the lines)."""

    def __init__(self) -> None:
        self.attempts: list[AttemptState] = []
        self._banner: dict[str, bool] = {}

    @property
    def current(self) -> AttemptState:
        """The attempt being read."""
        return self.attempts[-1]

    def _new(self, line: LogLine) -> AttemptState:
        att = AttemptState(len(self.attempts) + 1, line.lineno, line.lineno, started=line.ts)
        self.attempts.append(att)
        return att

    def feed(self, line: LogLine) -> int:
        """Assign `line` to an attempt, opening a new one at a boundary."""
        attempts = self.attempts
        if not attempts:
            self._new(line)
        att = attempts[-1]
        text = line.text
        if line.invocation and line.ident != "kernel":
            if att.invocation and att.invocation != line.invocation:
                att = self._new(line)
            att.invocation = line.invocation
        if _is_manager(line):
            self._manager(att, line, text)
        else:
            if att.closed or ((att.error_seen or att.outcome) and self._is_banner(text)):
                att = self._new(line)
            att.content = True
        att = attempts[-1]
        att.last_lineno = line.lineno
        if line.ts:
            att.ended = line.ts
            att.started = att.started or line.ts
        return att.index

    def _is_banner(self, text: str) -> bool:
        if len(text) > self.BANNER_TEXT:
            return _BANNER.search(text) is not None
        seen = self._banner.get(text)
        if seen is None:
            if len(self._banner) >= self.BANNERS_SEEN:
                self._banner.clear()
            seen = self._banner[text] = _BANNER.search(text) is not None
        return seen

    def _manager(self, att: AttemptState, line: LogLine, text: str) -> None:
        same_invocation = line.invocation is not None and line.invocation == att.invocation
        b = interpret(text)
        if b is None:
            return
        if b.kind in ("starting", "started") and (att.content or att.closed) and not same_invocation:
            self._new(line)
        elif b.kind == "exited" and b.main:
            att.exit_status = f"{b.exit_code} {b.exit_status}"
            att.outcome = _outcome(b.exit_code or "", b.exit_status or "")
        elif b.kind == "failed":
            att.outcome = att.outcome or f"failed ({b.result})"
        elif b.kind == "restart":
            att.outcome = att.outcome or "failed"
            att.closed = True
        elif b.kind == "gave_up":
            att.gave_up = True
            att.closed = True
        elif b.kind == "success":
            att.outcome = att.outcome or "exited 0"
            att.closed = True

    def mark_error(self) -> None:
        """The current attempt printed an error (a later start banner then means a restart)."""
        if self.attempts:
            self.current.error_seen = True


def _outcome(code: str, status: str) -> str:
    if code == "exited":
        return "exited 0" if status.startswith("0") else f"failed (exit {status.split('/')[0]})"
    if code == "killed":
        return f"killed ({status})"
    if code == "dumped":
        return f"crashed ({status}, core dumped)"
    return f"{code} ({status})"
