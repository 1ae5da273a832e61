"""Incident memory: every diagnosis of a host's unit or container (and later the fix tried and its verdict)
in a small SQLite file, so a new diagnosis of the same root cause says what happened last time.

    with Memory() as memory:                       # ~/.local/state/crashdoc/history.db (CRASHDOC_STATE_DIR)
        history = memory.record_diagnosis(diag, host=host_name(args.host), unit="vllm.service")
        diag = dataclasses.replace(diag, history=history)
        fix = memory.start_fix(history.incident, "pip install flashinfer-cubin==0.6.4")   # crashdoc fix
        memory.log_command(fix, "systemctl restart vllm.service", 0)
        memory.record_verdict(fix, "fixed", "reached readiness at attempt 9")

It imports only the model (and the standard library's sqlite3), so every later stage may record into it.
"""

from crashdoc.history.memory import (
    EPISODE_GAP,
    VERDICTS,
    FixRecord,
    Incident,
    Memory,
    Verdict,
    host_name,
)
from crashdoc.history.store import SCHEMA_VERSION, HistoryError, default_path, state_dir

__all__ = [
    "EPISODE_GAP",
    "SCHEMA_VERSION",
    "VERDICTS",
    "FixRecord",
    "HistoryError",
    "Incident",
    "Memory",
    "Verdict",
    "default_path",
    "host_name",
    "state_dir",
]
