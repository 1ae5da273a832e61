"""RECORD integrity on real installs: an edited file, a changed size, a deleted file, stray files, namespaces."""

from __future__ import annotations

import os
import time

from crashdoc.envdoctor import check_environment
from crashdoc.transport import LocalRunner
from tests.envdoctor.builders import Pkg, site_packages

VLLM = Pkg("vllm", "0.16.0", files={
    "vllm/__init__.py": '__version__ = "0.16.0"\n',
    "vllm/v1/engine/core.py": "def run_engine_core():\n    return 1\n",
    "vllm/model_executor/linear.py": "WEIGHT = 1\n",
})


def _integrity(python, verify="serving"):
    report = check_environment(LocalRunner(), str(python), checks=["integrity"], verify=verify)
    return report, [f for f in report.findings if f.rule == "env.integrity"]


def test_clean_install_has_nothing_to_report(make_env):
    report, found = _integrity(make_env(VLLM))
    assert found == []
    assert report.section.lines[-1].startswith("integrity: 1 package (")
    assert report.section.lines[-1].endswith(": 0 modified files, 0 unlisted files")
    assert report.facts["checks"]["integrity"]["packages"]["vllm"]["modified_count"] == 0


def test_a_file_edited_after_install_is_reported_with_its_path(make_env):
    python = make_env(VLLM)
    core = site_packages(python) / "vllm" / "v1" / "engine" / "core.py"
    time.sleep(1.1)
    core.write_text("def run_engine_core():\n    return 2\n")          # same size, other content
    report, [modified] = _integrity(python)
    assert modified.category == "modified_install" and modified.role == "cause"
    assert str(core) in modified.message
    assert "after install" in modified.message
    assert modified.fix.command == "pip install --force-reinstall --no-deps vllm==0.16.0"
    assert str(core) in report.subjects[modified.fingerprint].paths


def test_size_change_and_deleted_file(make_env):
    python = make_env(VLLM)
    sp = site_packages(python)
    (sp / "vllm" / "model_executor" / "linear.py").write_text("WEIGHT = 1  # debug\nprint('patched')\n")
    (sp / "vllm" / "__init__.py").unlink()
    _, [modified] = _integrity(python)
    assert modified.message.startswith("2 files of vllm 0.16.0 differ")
    assert "bytes instead of 11" in modified.message
    assert f"{sp / 'vllm' / '__init__.py'} (missing)" in modified.message


def test_stray_files_are_unlisted_but_bytecode_caches_are_not(make_env):
    python = make_env(VLLM)
    sp = site_packages(python)
    (sp / "vllm" / "debug_patch.py").write_text("import pdb\n")
    cache = sp / "vllm" / "v1" / "__pycache__"
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "core.cpython-311.pyc").write_bytes(b"\0" * 16)
    _, [unlisted] = _integrity(python)
    assert unlisted.role == "unknown" and unlisted.category == "modified_install"
    assert unlisted.message == (f"1 file in the package directories of vllm 0.16.0 is not in any RECORD: "
                                f"{sp / 'vllm' / 'debug_patch.py'}")


def test_namespace_directory_shared_by_two_packages(make_env):
    python = make_env(Pkg("torch", "2.9.0", files={"torch/__init__.py": "", "nvidia/cublas/lib/libcublas.so": "x"}),
                      Pkg("nvidia-cudnn-cu12", "9.10.2.21", files={"nvidia/cudnn/lib/libcudnn.so": "y"}))
    _, found = _integrity(python)
    assert found == []


def test_verify_all_covers_other_packages_and_serving_does_not(make_env):
    python = make_env(VLLM, Pkg("requests", "2.32.0"))
    (site_packages(python) / "requests" / "__init__.py").write_text("# patched\n")
    assert _integrity(python)[1] == []
    _, [modified] = _integrity(python, verify="all")
    assert "requests 2.32.0" in modified.message
    _, [named] = _integrity(python, verify="requests")
    assert named.fingerprint == modified.fingerprint


def test_editable_install_is_skipped_with_the_reason(make_env, tmp_path):
    python = make_env(VLLM)
    dist_info = site_packages(python) / "vllm-0.16.0.dist-info"
    (dist_info / "direct_url.json").write_text('{"url": "file:///src/vllm", "dir_info": {"editable": true}}')
    report, found = _integrity(python)
    assert found == []
    assert [s.what for s in report.skipped] == ["integrity of vllm"]
    assert "editable install from file:///src/vllm" in report.skipped[0].reason


def test_hashing_is_parallel_and_timed(make_env):
    big = {f"torch/lib/part{i}.bin": os.urandom(1 << 18).hex() for i in range(8)}
    python = make_env(Pkg("torch", "2.9.0", files={"torch/__init__.py": "", **big}))
    report, found = _integrity(python)
    data = report.facts["checks"]["integrity"]
    assert found == [] and data["workers"] >= 2
    assert data["packages"]["torch"]["hashed_files"] >= 9 and data["bytes"] > 8 * (1 << 19)
