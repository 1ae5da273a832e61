"""`crashdoc diagnose docker:NAME` / `podman:NAME`: the container's state, its log through the one pipeline, and
what the state adds to the log's verdict.

The container engine knows what the log cannot show: an OOM kill (`OOMKilled`, exit 137) leaves no traceback.
After the log's analysis, the state's cause is weighed against the log's root cause: an OOM kill becomes the root
cause (host_resources, the limit named) unless the log holds a stronger cause (a cause rule that matched an
error, with a higher priority than the OOM killer's); then it is listed among the findings. A SIGKILL (137) under
a memory limit without OOMKilled (podman before 5.0 never records it) is a low-confidence candidate that only
fills an empty verdict. A /dev/shm of the default 64 MB next to a shared-memory error turns the fix into
`--shm-size` / `--ipc=host`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import crashdoc.investigate as investigate
from crashdoc.actions.container import ContainerFreeze, freeze_argvs, freeze_container
from crashdoc.analyze.findings import summary
from crashdoc.analyze.state_container import StartTee, container_present
from crashdoc.investigate.unit import print_to_stderr
from crashdoc.kb.knowledge import KnowledgeBase
from crashdoc.model import Attempt, Diagnosis, Evidence, Finding, Fix, Section, Skipped, Where
from crashdoc.regex import Regex
from crashdoc.sources.container import ContainerFacts, ContainerLogs, check_tool, read_container, time_key
from crashdoc.transport import Runner

OOM_RULE, SIGKILL_RULE = "oom-killer", "process-killed-sigkill"
#: rules whose error a small /dev/shm explains
SHM_RULES = frozenset({"nccl-shared-memory-failed", "shared-memory-exhausted", "bus-error-sigbus",
                       "nccl-unhandled-system-error"})
_SHM_WORDS = Regex(r"/dev/shm|shared memory|\bshm|posix_fallocate|Bus error", re.IGNORECASE)
SHM_SUGGESTED = "16g"


def human_bytes(n: int) -> str:
    """`16 GiB`, `64 MiB`, `62.5 MiB` (binary units, as docker's -m and --shm-size count them)."""
    value, unit = float(n), "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            break
        value /= 1024
    return f"{f'{value:.1f}'.rstrip('0').rstrip('.')} {unit}"


def oom_words(f: ContainerFacts) -> str | None:
    """`OOMKilled by the container's 16 GiB limit`, or None when it was not OOM-killed."""
    if not f.oom_killed:
        return None
    if f.memory_limit:
        return f"OOMKilled by the container's {human_bytes(f.memory_limit)} limit"
    return "OOMKilled (no memory limit on the container: the host ran out of memory)"


def container_summary(f: ContainerFacts) -> str:
    """One line: `restarting, 14 restarts, last exit 137, OOMKilled by the container's 16 GiB limit`."""
    n = f.restart_count
    parts = ["restarting" if f.restarting else f.status]
    if n or f.restart_policy != "no":
        parts.append(f"{n} restart{'s' if n != 1 else ''}")
    if f.exit_code is not None and (not f.running or f.restarting) and f.status not in ("created", "configured"):
        parts.append(f"last exit {f.exit_code}")
    parts.extend(w for w in (oom_words(f), f.error and f"engine error: {f.error}") if w)
    if not f.running and f.restart_policy == "on-failure" and f.restart_max and n >= f.restart_max and f.exit_code:
        parts.append(f"restart policy on-failure:{f.restart_max} gave up")
    if f.health:
        streak = f" ({f.health_failing_streak} failing checks)" if f.health_failing_streak else ""
        parts.append(f"health {f.health}{streak}")
    return ", ".join(parts)


def diagnose_container(
    runner: Runner,
    tool: str,
    name: str,
    *,
    kb: KnowledgeBase | None = None,
    freeze: bool = False,
    since: str | None = None,
    announce: Callable[[str], None] = print_to_stderr,
    health: tuple[bool, str] | None = None,
) -> Diagnosis:
    """Diagnose a docker or podman container on the runner's host (local, or --host over ssh).

    Reads the container's state (`inspect`), optionally stops its restart loop (`freeze`: `update --restart=no`
    then `stop`, each announced first), reads its log (`logs --timestamps`, both streams merged by time; `since`
    passes `--since`), runs the log through the one pipeline and adds what the state knows. Nothing on the host
    changes unless `freeze` is set.
    """
    check_tool(tool)
    kb = kb if kb is not None else KnowledgeBase.load()
    facts = read_container(runner, tool, name)
    before, done, skipped = facts, None, []
    if freeze:
        done = freeze_container(runner, tool, name, announce, "its restart loop stops changing the evidence")
        if done.detail != "done":
            skipped.append(Skipped("freeze", done.detail))
        if done.ok:
            facts = done.after or read_container(runner, tool, name)
    logs = ContainerLogs(runner, tool, name, since=since)
    diag = investigate.run(tee := StartTee(logs, facts.started_at if facts.running else None), kb=kb)
    attempts, current, notes = restart_history(diag.attempts, before, facts if done and done.ok else None)
    diag = replace(diag, attempts=attempts)
    cause = state_cause(before, kb, current, runner.host)
    if cause is not None:
        diag = adopt(diag, cause, current)
    fixed = tuple(shm_fix(f, before) for f in diag.findings)
    root = diag.root_cause  # kept the same object as its entry in findings (reports tell them apart by identity)
    if root is not None:
        root = next((new for old, new in zip(diag.findings, fixed) if old is root), shm_fix(root, before))
    diag = replace(diag, root_cause=root, findings=fixed)
    now = container_present(facts, diag.attempts, current, tee.scan, health)  # the present against the last failure
    section = container_section(runner, facts, before, done, freeze, logs, diag.attempts, notes, cause, now.now)
    return replace(diag, sections=(section, *diag.sections), skipped=(*diag.skipped, *skipped), state=now)


def restart_history(
    attempts: Sequence[Attempt], before: ContainerFacts, frozen: ContainerFacts | None
) -> tuple[tuple[Attempt, ...], int | None, list[str]]:
    """The attempts with what the engine knows: the one holding the lines logged since StartedAt is the newest
    run (its exit from the state; "stopped by crashdoc --freeze" when the freeze ended it: `frozen` is the state
    after it); earlier ones restarted under an on-failure policy failed. Returns the attempts, the newest run's
    index (None when it has printed nothing) and notes for the section."""
    notes: list[str] = []
    f = frozen or before
    stopped_us = frozen is not None and (before.running and not before.restarting
                                         or frozen.started_at != before.started_at)
    start = time_key(f"{f.started_at} ".encode()) if f.started_at else None
    current = None
    starts = f.restart_count + 1
    for a in attempts:
        if start is not None and a.ended and time_key(f"{a.ended} ".encode()) >= start:
            current = a.index
            if a.started and time_key(f"{a.started} ".encode()) < start and len(attempts) >= starts:
                notes.append(f"the newest start ({f.started_at}) is not separated in the log from attempt {a.index}"
                             " before it (no start banner, or the previous attempt printed no error)")
            break
    if start is None and attempts:
        current = attempts[-1].index
    if attempts and current is None and f.running and not f.restarting:
        notes.append(f"the newest run (started {f.started_at}) has printed nothing yet")
    out = []
    for a in attempts:
        if a.index == current and stopped_us:
            a = replace(a, outcome="stopped by crashdoc --freeze", exit_status=_exit(f))
        elif a.index == current:
            a = replace(a, outcome=_outcome(f), exit_status=_exit(f))
        elif (current is None or a.index < current) and f.restart_policy == "on-failure" and (
                a.outcome == "no error seen"):
            a = replace(a, outcome="failed (restarted by the on-failure policy)")
        out.append(a)
    return tuple(out), current, notes


def _exit(f: ContainerFacts) -> str | None:
    if (f.running and not f.restarting) or f.exit_code is None:
        return None
    return f"exit {f.exit_code}" + (" (OOMKilled)" if f.oom_killed else "")


def _outcome(f: ContainerFacts) -> str:
    if f.running and not f.restarting:
        return "running"
    code = f.exit_code or 0
    if f.oom_killed:
        return "killed (OOM)"
    if code > 128:
        return f"killed (signal {code - 128})"
    return "exited 0" if code == 0 else f"failed (exit {code})"


def state_cause(f: ContainerFacts, kb: KnowledgeBase, attempt: int | None, host: str | None) -> Finding | None:
    """The cause the container's state shows by itself: an OOM kill, or a SIGKILL under a memory limit."""
    limit = human_bytes(f.memory_limit) if f.memory_limit else None
    evidence = [f"State.ExitCode: {f.exit_code}", f"State.OOMKilled: {str(f.oom_killed).lower()}",
                f"HostConfig.Memory: {f.memory_limit or 0}" + (f" ({limit})" if limit else " (no limit)")]
    if f.oom_killed:
        rule_id, score, confidence = OOM_RULE, 58, "high"
        message = f"{oom_words(f)} (exit {f.exit_code})"
        reason = f"{f.tool} inspect says State.OOMKilled=true"
        raise_it = f"raise the container's memory limit (now {limit}: -m/--memory" if limit else (
            "set a memory limit below the host's RAM and free memory on the host (-m/--memory")
        text = (f"The kernel's OOM killer ended the service: {raise_it}, and --memory-swap with it), or lower its "
                "host-memory use (fewer workers, --swap-space 0, a smaller --cpu-offload-gb); `journalctl -k` on "
                "the host shows the kill record.")
    elif f.exit_code == 137 and (not f.running or f.restarting) and limit:
        rule_id, score, confidence = SIGKILL_RULE, 25, "low"
        message = f"killed with SIGKILL (exit 137) under the container's {limit} memory limit"
        reason = (f"exit 137 with a {limit} limit, but {f.tool} did not record OOMKilled (podman before 5.0 never"
                  " does): most likely the OOM killer, else a kill from outside")
        text = (f"Check the host's kernel log for a memory-cgroup OOM kill at {f.finished_at or 'that time'} "
                f"(journalctl -k | grep -i 'out of memory'); if it is there, raise the {limit} limit (-m/--memory).")
    else:
        return None
    rule = kb.get(rule_id)
    return Finding(
        line=f"{f.tool} inspect {f.name}: " + ", ".join(evidence), lineno=0, exception=None, message=message,
        category="host_resources", fix=Fix(text, "journalctl -k --no-pager | grep -iE 'out of memory|oom'"),
        where=Where(attempt=attempt, host=host), rule=rule_id, score=max(score, rule.priority if rule else 0),
        explanation=rule.explanation if rule else "", evidence=tuple(Evidence(0, e) for e in evidence),
        fingerprint=f"container:{rule_id}", source="container", confidence=confidence, confidence_reason=reason,
    )


def adopt(diag: Diagnosis, cause: Finding, current: int | None) -> Diagnosis:
    """The state's cause becomes the root cause unless the log holds a stronger one (see the module doc)."""
    rc = diag.root_cause
    if rc is not None and _log_wins(rc, cause):
        return replace(diag, findings=(rc, cause, *diag.findings[1:]))
    findings = (cause, *(f for f in diag.findings if f.fingerprint != cause.fingerprint))
    attempts = tuple(
        replace(a, fingerprint=cause.fingerprint, root_message=cause.message)
        if a.index == current and (a.fingerprint is None or (rc is not None and a.fingerprint == rc.fingerprint))
        else a
        for a in diag.attempts
    )
    return replace(diag, root_cause=cause, findings=findings, attempts=attempts, summary=summary(attempts, cause))


def _log_wins(rc: Finding, cause: Finding) -> bool:
    if rc.role == "consequence":
        return False
    if cause.confidence == "low":  # a guess from the state only fills an empty or weak verdict
        return rc.confidence != "low"
    return rc.confidence == "high" and rc.score > cause.score


def shm_fix(f: Finding, facts: ContainerFacts) -> Finding:
    """A shared-memory error in a container whose /dev/shm is the default 64 MB: the fix names --shm-size and
    --ipc=host (and, when the engine kept the create command, gives it back with --shm-size)."""
    if not facts.small_shm or facts.shm_size is None:
        return f
    if f.rule not in SHM_RULES and not (f.category in ("host_resources", "nccl_distributed")
                                        and _SHM_WORDS.search(f"{f.message} {f.line}")):
        return f
    size = human_bytes(facts.shm_size)
    text = (f"This container's /dev/shm is {size}, the engine's default: NCCL, torch and the engines pass buffers "
            f"between processes there. Recreate the container with --shm-size={SHM_SUGGESTED} (or --ipc=host to "
            f"use the host's /dev/shm), and remove stale /dev/shm/nccl-* files. ({f.fix.text})")
    return replace(f, fix=Fix(text, rerun_with_shm(facts)))


def rerun_with_shm(facts: ContainerFacts) -> str | None:
    """The create command the engine kept (podman), with --shm-size; None when unknown or masked."""
    cmd = list(facts.create_command)
    if len(cmd) < 2 or cmd[1] not in ("run", "create") or "***" in cmd:
        return None
    kept, skip = [], False
    for a in cmd[2:]:
        if skip or a.startswith("--shm-size="):
            skip = False
            continue
        if a == "--shm-size":
            skip = True
            continue
        kept.append(a)
    return f"{facts.tool} rm {facts.name} && " + shlex.join([*cmd[:2], f"--shm-size={SHM_SUGGESTED}", *kept])


def container_section(
    runner: Runner, f: ContainerFacts, before: ContainerFacts, done: ContainerFreeze | None, freeze_asked: bool,
    logs: ContainerLogs, attempts: Sequence[Attempt], notes: Sequence[str], cause: Finding | None, now: str = "",
) -> Section:
    """The `container` section: what the container is doing, what it runs with, what crashdoc read and did."""
    where = runner.host or "this machine"
    froze = bool(done and done.ok)
    lines = [f"stopped by crashdoc --freeze (was: {container_summary(before)}); now {container_summary(f)}"
             if froze else container_summary(f)]
    if attempts:
        starts = before.restart_count + 1
        merged = (": a start that printed no error before the next one is counted with it"
                  if len(attempts) < starts and not logs.argv.count("--since") else "")
        lines.append(f"{len(attempts)} attempt{'s' if len(attempts) != 1 else ''} in the log for {starts} "
                     f"start{'s' if starts > 1 else ''} (restart policy {before.restart_policy}"
                     f"{f':{before.restart_max}' if before.restart_max else ''}){merged}")
    lines.append(f"image {f.image or '?'}; runs {shlex.join(f.command) or '?'}")
    shm = "the host's (--ipc=host)" if f.shm_size is None else human_bytes(f.shm_size) + (
        " (the default)" if f.small_shm else "")
    memory = human_bytes(f.memory_limit) if f.memory_limit else "none"
    lines.append(f"GPUs: {f.gpus or 'none requested'}; memory limit: {memory}; /dev/shm: {shm}")
    if f.health_last_output and f.health not in (None, "healthy"):
        lines.append(f"last health check: {f.health_last_output.splitlines()[0][:200]}")
    lines.extend(notes)
    if cause is not None:
        lines.append(f"from the container's state: {cause.message} ({cause.confidence} confidence)")
    if not froze and before.looping and now != "running":  # a running service is never told to freeze
        lines.append("still restarting: run with --freeze to stop it (crashdoc changed nothing on the host)")
    elif freeze_asked and not froze:
        lines.append("--freeze did not stop the container (see skipped); it may still be restarting")
    sizes = logs.stream_bytes
    lines.append(f"read {logs.bytes_read:,} bytes of `{' '.join(logs.argv)}` on {where} ({sizes.get('stdout', 0):,}"
                 f" on stdout, {sizes.get('stderr', 0):,} on stderr, merged by their timestamps)")
    data: dict[str, Any] = f.data()
    data.update(
        summary=container_summary(f), frozen=froze, still_looping=not froze and before.looping,
        freeze_commands=[" ".join(a) for a in freeze_argvs(f.tool, f.name)] if freeze_asked else None,
        state_before_freeze={**before.data(), "summary": container_summary(before)} if froze else None,
        starts=before.restart_count + 1, attempts_in_log=len(attempts), logs_command=" ".join(logs.argv),
        log_bytes=dict(sizes), state_cause=cause.rule if cause is not None else None, notes=list(notes),
    )
    return Section(key="container", title=f"Container {f.name} ({f.tool}) on {where}", lines=tuple(lines), data=data)
