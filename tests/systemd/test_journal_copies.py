"""Copied journal files are verified before they are trusted, and journalctl's warnings reach `skipped`.

Real journal files from systemd-journal-remote, damaged the way copies get damaged: bytes overwritten in the
middle (a copy taken while journald wrote, a bad transfer) and a file cut short. journalctl reads both without
an error; only `journalctl --verify` (or its warning on stderr) tells, so the report must say it.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from crashdoc.investigate.unit import diagnose_unit
from crashdoc.sources.journal_access import JournalFile, bounded, damage
from crashdoc.transport import LocalRunner
from tests.support.cli import run_cli
from tests.support.journal_files import JournalBuilder

pytestmark = pytest.mark.host

UNIT = "vllm-kimi-k25"
ROOT_ERROR = b"flashinfer-cubin version (0.6.3) does not match"


@pytest.fixture(scope="module")
def journal(journal_remote: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    b = JournalBuilder()
    b.crash_loop(b.boot_usec + 3600 * 1_000_000, 2)
    return b.write(tmp_path_factory.mktemp("copies") / "system.journal")


def _diagnose(*journal_args: str):  # type: ignore[no-untyped-def]
    return diagnose_unit(LocalRunner(), UNIT, journal_args=journal_args, announce=lambda _: None)


def _overwrite(src: Path, dst: Path, offset: int, size: int = 64) -> Path:
    data = bytearray(src.read_bytes())
    data[offset:offset + size] = b"\xff" * size
    dst.write_bytes(bytes(data))
    return dst


def test_an_intact_copy_has_no_damage_note(journal: Path) -> None:
    diag = _diagnose("--file", str(journal))
    assert diag.root_cause is not None
    assert not [s for s in diag.skipped if s.what in ("journal copy", "journalctl")]


def test_overwritten_root_error_is_reported_as_damaged(journal: Path, tmp_path: Path) -> None:
    """The bytes of the root error's message are overwritten: journalctl still prints the record (with the
    damage in it) and exits 0; the report names the damaged file instead of trusting it silently."""
    data = journal.read_bytes()
    at = data.index(ROOT_ERROR)
    assert 4096 < at < len(data) - 4096  # inside the file, not its header
    bad = _overwrite(journal, tmp_path / "copy.journal", at)
    diag = _diagnose("--file", str(bad))
    notes = [s.reason for s in diag.skipped if s.what == "journal copy"]
    assert len(notes) == 1, diag.skipped
    assert notes[0].startswith(f"{bad}: damaged (Bad message) at offset 0x")
    assert "may be wrong or missing" in notes[0]
    unit = next(s for s in diag.sections if s.key == "unit")
    assert any("damaged (Bad message)" in line for line in unit.lines)
    r = run_cli("diagnose", UNIT, "--file", str(bad), "--format", "json")
    assert r.status in (0, 3), r.stderr
    assert any(s["what"] == "journal copy" and "damaged" in s["reason"] for s in r.json["skipped"])


def test_bytes_overwritten_in_the_middle_of_the_file(journal: Path, tmp_path: Path) -> None:
    header = journal.read_bytes()[:256]
    (tail,) = struct.unpack_from("<Q", header, 136)  # tail_object_offset: the end of the written objects
    bad = _overwrite(journal, tmp_path / "middle.journal", tail // 2, 256)
    diag = _diagnose("--file", str(bad))
    assert [s.what for s in diag.skipped].count("journal copy") == 1, diag.skipped


def test_a_truncated_file_in_a_directory_is_a_journalctl_warning(journal: Path, tmp_path: Path) -> None:
    shutil.copy(journal, tmp_path / "system.journal")
    (tmp_path / "user-1000.journal").write_bytes(journal.read_bytes()[:300_000])  # cut by a full disk
    diag = _diagnose("--directory", str(tmp_path))
    assert diag.root_cause is not None
    warned = [s.reason for s in diag.skipped if s.what == "journalctl"]
    assert warned == [f"Journal file {tmp_path}/user-1000.journal is truncated, ignoring file."]


def test_only_the_files_holding_what_is_read_are_verified(journal_remote: str, tmp_path: Path) -> None:
    """A host's journal directory holds weeks of files; the older ones hold nothing the diagnosis reads, and
    verifying them (every object of every file) would cost more than the diagnosis. Damage in such a file is not
    reported; the same damage in the file holding the attempts is."""
    b = JournalBuilder()
    t = b.boot_usec + 3600 * 1_000_000
    for i in range(3000):  # other services only: nothing about the unit
        b.other(t + i * 1_000_000, f"cron job {i} finished in {i % 97} ms")
    cut = t + 3001 * 1_000_000
    b.crash_loop(cut + 3600 * 1_000_000, 2)
    old, new = b.write_rotated(tmp_path, [cut])
    assert not _diagnose("--directory", str(tmp_path)).skipped
    (tail,) = struct.unpack_from("<Q", old.read_bytes()[:256], 136)
    _overwrite(old, old, tail // 2, 256)
    diag = _diagnose("--directory", str(tmp_path))
    assert diag.root_cause is not None
    assert not [s for s in diag.skipped if s.what == "journal copy"], diag.skipped
    (tail,) = struct.unpack_from("<Q", new.read_bytes()[:256], 136)
    _overwrite(new, new, tail // 2, 256)
    notes = [s.reason for s in _diagnose("--directory", str(tmp_path)).skipped if s.what == "journal copy"]
    assert len(notes) == 1 and notes[0].startswith(f"{new}: damaged"), notes


def test_verify_output_is_read_per_file() -> None:
    out = ("398260: Invalid hash (684eacc96f24b58 vs. 146686513d80d1b1)\n"
           "File corruption detected at d/bad.journal:398260 (of 8388608 bytes, 44%).\n"
           "FAIL: d/bad.journal (Bad message)\nPASS: d/system.journal\n")
    (note,) = damage(out)
    assert note.startswith("d/bad.journal: damaged (Bad message) at offset 0x398260 of 8388608 bytes (44%)")
    assert damage("PASS: d/system.journal\n") == []


def test_a_check_the_memory_bound_stopped_is_not_damage(journal: Path) -> None:
    """journalctl --verify runs under an address-space bound (its RSS stays under it); when the bound is too small
    for a file, journalctl says `File corruption detected` and `FAIL (Cannot allocate memory)`: the file is
    unchecked, not damaged."""
    out = ("File corruption detected at d/big.journal:12a1ad8 (of 25165824 bytes, 77%).\n"
           "FAIL: d/big.journal (Cannot allocate memory)\n")
    (note,) = damage(out)
    assert note.startswith("d/big.journal: could not be verified within 192 MiB") and "damaged" not in note
    res = LocalRunner().run(bounded(["journalctl", f"--file={journal}", "--verify"], kib=64 << 10), timeout=60)
    assert b"PASS: " in res.stdout + res.stderr  # a small file within 64 MiB: the bound changes nothing
    tight = LocalRunner().run(bounded(["journalctl", f"--file={journal}", "--verify"], kib=4 << 10), timeout=60)
    assert b"PASS: " not in tight.stdout + tight.stderr and not damage((tight.stdout + tight.stderr).decode())


def test_a_file_whose_header_cannot_place_it_is_verified() -> None:
    """Only a cleanly closed file's header times are trusted to leave it out: a copy of a file journald had open
    (ONLINE) may hold records newer than its header says."""
    since = 2_000
    assert not JournalFile("a", "ARCHIVED", 100, 1_000).read_from(since)
    assert JournalFile("a", "ARCHIVED", 100, 2_000).read_from(since)
    assert JournalFile("a", "ONLINE", 100, 1_000).read_from(since)
    assert JournalFile("a", "OFFLINE", 1_500, 1_000).read_from(since)  # head after tail: a damaged header
    assert JournalFile("a", "ARCHIVED", None, None).read_from(since)
    assert JournalFile("a", "ARCHIVED", 100, 1_000).read_from(None)
