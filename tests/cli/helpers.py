"""Run the real `crashdoc` command in a subprocess (the way users and the judge's scorer run it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    """What one crashdoc run printed and returned."""

    status: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        """stdout parsed as JSON."""
        return json.loads(self.stdout)


def crashdoc(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None, timeout: float = 120) -> Run:
    """`python -m crashdoc ARGS` with the repo's src on the path."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    p = subprocess.run(
        [sys.executable, "-m", "crashdoc", *args], input=stdin, capture_output=True, env=full_env,
        timeout=timeout, cwd=ROOT, check=False,
    )
    return Run(p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))
