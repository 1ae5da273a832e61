"""A fix that pins (or requires `>=`) the anchor of a same-version companion group pins the group together
(data/groups.yaml, read by kb/companions.py; the same file the environment checks validate)."""

from __future__ import annotations

import io

import pytest

from crashdoc.analyze.values import with_companions
from crashdoc.envdoctor.table import load_table
from crashdoc.investigate import diagnose_stream
from crashdoc.kb import KnowledgeBase
from crashdoc.kb.companions import alias, same_version_companions


def test_the_groups_file_has_one_reader_for_both_stages() -> None:
    # flashinfer-jit-cache comes from its own index (groups.yaml `indexes`): a plain pip install cannot pin it
    assert same_version_companions() == {"flashinfer-python": ("flashinfer-cubin",)}
    assert alias("flashinfer") == "flashinfer-python" and alias("Flashinfer_Cubin") == "flashinfer-cubin"
    group = load_table().groups_of("same-version")[0]
    assert (group.anchor, group.members) == ("flashinfer-python", ("flashinfer-cubin", "flashinfer-jit-cache"))


@pytest.mark.parametrize(("command", "expected"), [
    # a minimum becomes a pin: `>=` could fetch an anchor release the members do not match
    ("pip install --upgrade 'flashinfer_python>=0.6.4'", "pip install flashinfer-python==0.6.4 flashinfer-cubin==0.6.4"),
    ("pip install flashinfer-python==0.6.8.post1", "pip install flashinfer-python==0.6.8.post1 flashinfer-cubin==0.6.8.post1"),
    ("/opt/venv/bin/python -m pip install flashinfer==0.7.0",
     "/opt/venv/bin/python -m pip install flashinfer-python==0.7.0 flashinfer-cubin==0.7.0"),
    # a member aligned to the anchor, a group already complete, other groups, other commands: as given
    ("pip install flashinfer-cubin==0.6.4", "pip install flashinfer-cubin==0.6.4"),
    ("pip install flashinfer-python==0.6.4 flashinfer-cubin==0.6.4", "pip install flashinfer-python==0.6.4 flashinfer-cubin==0.6.4"),
    ("pip install torch==2.4.0", "pip install torch==2.4.0"),
    ("pip uninstall -y flashinfer-python", "pip uninstall -y flashinfer-python"),
    ("pip install flashinfer-python==0.6.4 && pip check", "pip install flashinfer-python==0.6.4 && pip check"),
    (None, None),
])
def test_companion_pins(command: str | None, expected: str | None) -> None:
    assert with_companions(command) == expected


def test_an_engine_minimum_on_flashinfer_installs_the_pair() -> None:
    log = (b"[2025-09-01 10:00:00] Exception: flashinfer_python is installed with version 0.6.3, which is less than "
           b"the minimum required version 0.6.4. Please uninstall the old version and reinstall the latest version.\n")
    diag = diagnose_stream(io.BufferedReader(io.BytesIO(log)), "test", kb=KnowledgeBase.load())  # type: ignore[arg-type]
    assert diag.root_cause is not None
    assert diag.root_cause.fix.command == "pip install flashinfer-python==0.6.4 flashinfer-cubin==0.6.4"
