"""THE interpreter of systemd's own records about a unit: MESSAGE_IDs (systemd's catalog) and their text forms
(`Main process exited, code=exited, status=1/FAILURE`, `Failed with result 'exit-code'`, `Scheduled restart
job, restart counter is at 3`) -> a Boundary.

Used for attempt boundaries in a log (analyze/attempts.py), for a unit's attempts in its journal
(sources/journald.py) and by the live watch of a unit (watch/unitwatch.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from crashdoc.regex import Regex
from crashdoc.sources.fields import as_text, number

# MESSAGE_IDs of systemd's own records about a unit (systemd's catalog)
MSG_STARTING = "7d4958e842da4a758f6c1cdc7b36dcc5"
MSG_STARTED = "39f53479d3a045ac8e11786248231fbf"
MSG_JOB_FAILED = "be02cf6855d2428ba40df7e9d022f03d"
MSG_STOPPING = "de5b426a63be47a7b6ac3eaac82e2f6f"
MSG_STOPPED = "9d1aaa27d60140bd96365438aad20286"
MSG_PROCESS_EXIT = "98e322203f7a4ed290d09fe03c09fe15"
MSG_UNIT_FAILURE = "d9b373ed55a64feb8242e02dbe79a49c"
MSG_UNIT_SUCCESS = "7ad2d189f7e94e70a38c781354912448"
MSG_RESTART_SCHEDULED = "5eb03494b6584870a536b337290809b3"

BoundaryKind = Literal["starting", "started", "exited", "failed", "success", "restart", "gave_up", "stopping",
                       "stopped", "oom"]

_EXITED = Regex(r"Main process exited, code=(?P<code>\w+), status=(?P<status>[\w/]+)")
_CONTROL_EXITED = Regex(r"Control process exited, code=(?P<code>\w+), status=(?P<status>[\w/]+)")
_RESULT = Regex(r"Failed with result '(?P<result>[\w-]+)'")
_RESTART = Regex(r"Scheduled restart job|holdoff time over, scheduling restart|restart counter is at")
_COUNTER = Regex(r"restart counter is at (?P<n>\d+)")


@dataclass(frozen=True)
class Boundary:
    """What one of systemd's records says about the unit's current attempt."""

    kind: BoundaryKind
    exit_code: str | None = None
    """`exited`, `killed`, `dumped` (for `exited`)."""
    exit_status: str | None = None
    """`1`, `1/FAILURE`, `9/KILL`, `ABRT` as systemd wrote it (for `exited`)."""
    main: bool = True
    """For `exited`: the main process (ExecStart), not a control process (ExecStartPre, ExecStop ...)."""
    result: str | None = None
    """For `failed`: `exit-code`, `signal`, `core-dump`, `oom-kill`, `timeout` ..."""
    restart_counter: int | None = None
    """For `restart`: the counter systemd scheduled."""
    job: str | None = None
    """The JOB_TYPE field when the record has one (`start`, `stop`, `restart`)."""

    @property
    def status_number(self) -> int | None:
        """The leading number of exit_status (`1/FAILURE` -> 1), None for a signal name."""
        head = (self.exit_status or "").split("/", 1)[0]
        return number(head, 255)


def _text(value: Any) -> str:
    return as_text(value) or ""


def interpret(message: str, fields: Mapping[str, Any] | None = None) -> Boundary | None:
    """The boundary one of systemd's records marks, from its MESSAGE_ID and fields when the record has them
    (a journal export), else from its text (a `journalctl` text dump, a pasted log); None for other records."""
    f = fields or {}
    mid = _text(f.get("MESSAGE_ID"))
    job = _text(f.get("JOB_TYPE")) or None
    body = message.split(": ", 1)[1] if ".service: " in message[:200] else message
    if mid == MSG_STARTING or (not mid and body.startswith("Starting ")):
        return Boundary("starting", job=job)
    if mid == MSG_STARTED or (not mid and body.startswith("Started ")):
        return Boundary("started", job=job)
    if job == "start" and mid != MSG_JOB_FAILED:
        return Boundary("starting", job=job)
    m = _EXITED.search(message) or _CONTROL_EXITED.search(message)
    if mid == MSG_PROCESS_EXIT or m:
        code = _text(f.get("EXIT_CODE")) or (m.group("code") if m else None)
        status = _text(f.get("EXIT_STATUS")) or (m.group("status") if m else None)
        command = _text(f.get("COMMAND")) or None
        main = ("Main process" in message) if m else command in (None, "ExecStart")
        return Boundary("exited", exit_code=code, exit_status=status, main=main, job=job)
    m = _RESULT.search(message)
    if mid == MSG_UNIT_FAILURE or m:
        return Boundary("failed", result=_text(f.get("UNIT_RESULT")) or (m.group("result") if m else None), job=job)
    if mid == MSG_UNIT_SUCCESS or "Deactivated successfully" in message:
        return Boundary("success", job=job)
    if mid == MSG_RESTART_SCHEDULED or _RESTART.search(message):
        c = _COUNTER.search(message)
        n = _text(f.get("N_RESTARTS")) or (c.group("n") if c else "")
        return Boundary("restart", restart_counter=number(n, 1 << 32), job=job)
    if "Start request repeated too quickly" in message:
        return Boundary("gave_up", job=job)
    if job == "stop" or mid == MSG_STOPPING or body.startswith("Stopping "):
        return Boundary("stopping", job=job)
    if mid == MSG_STOPPED or body.startswith("Stopped "):
        return Boundary("stopped", job=job)
    if "killed by the OOM killer" in message:
        return Boundary("oom", job=job)
    return None
