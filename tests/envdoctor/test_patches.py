"""What a modified install changed, on real venvs and real wheels: a tiny wheel built in the test is installed,
an installed file is patched with a debugging block, the same wheel is served from a local folder as the
service's index (PIP_FIND_LINKS, or the venv's own pip.conf over ssh), and the report shows the diff. Without
an index the report says so; debris is listed with sizes and the command that would remove it (never run)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from crashdoc.envdoctor import check_environment
from crashdoc.envdoctor.checks.patches import MAX_LINES, script
from crashdoc.transport import LocalRunner, runner_for
from tests.envdoctor.builders import Pkg, build_wheel, make_venv, pip_install, site_packages

CORE = "def run_engine_core(hidden):\n    out = hidden * 2\n    return out\n"
VLLM = Pkg("vllm", "0.16.0", files={"vllm/__init__.py": '__version__ = "0.16.0"\n', "vllm/v1/engine/core.py": CORE,
                                    "vllm/model_executor/linear.py": "WEIGHT = 1\n" * 400})
PATCHED = ("def run_engine_core(hidden):\n    out = hidden * 2\n    import torch\n"
           "    torch.save(out, '/tmp/hidden_states_rank0.pt')  # debugging the NaNs\n    return out\n")


@pytest.fixture
def index(tmp_path: Path) -> Path:
    """A folder holding the wheel, as the service's index serves it."""
    return build_wheel(VLLM, tmp_path / "index").parent


@pytest.fixture
def patched(tmp_path: Path, index: Path) -> Path:
    """A venv (no pip of its own) with the wheel installed and engine/core.py patched; returns its python."""
    python = make_venv(tmp_path / "venv")
    pip_install(python, sorted(index.glob("*.whl")))
    (site_packages(python) / "vllm" / "v1" / "engine" / "core.py").write_text(PATCHED)
    return python


def _offline_index(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))


def test_the_diff_shows_the_debugging_patch(patched: Path, index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _offline_index(monkeypatch, index)
    report = check_environment(LocalRunner(), str(patched), checks=["integrity", "patches"])
    core = site_packages(patched) / "vllm" / "v1" / "engine" / "core.py"
    lines = list(report.section.lines)
    [head] = [ln for ln in lines if ln.startswith("patches: vllm 0.16.0 against vllm-0.16.0-py3-none-any.whl")]
    [summary] = [ln for ln in lines if ln.startswith(f"{core}: ")]
    assert summary == (f"{core}: +2 -0 lines against the wheel (the wheel's copy is what was installed); added "
                       "debugging code: torch.save")
    diff = lines[lines.index(summary) + 1:]
    assert diff[0] == "  --- vllm-0.16.0-py3-none-any.whl/vllm/v1/engine/core.py"
    assert diff[1] == f"  +++ {core}"
    assert "  +    torch.save(out, '/tmp/hidden_states_rank0.pt')  # debugging the NaNs" in diff
    assert "  +    import torch" in diff and "   " + "    out = hidden * 2" in diff
    [pkg] = report.facts["checks"]["patches"]["packages"]
    assert pkg["files"][0]["added"] == 2 and pkg["files"][0]["matches_record"] is True
    assert "python3" in report.facts["checks"]["patches"]["pip"]      # the venv has no pip: the host's pip ran
    assert report.skipped == ()
    [modified] = [f for f in report.findings if f.rule == "env.integrity"]
    assert "--check patches" not in modified.fix.text                  # asked for already
    assert not any(Path("/tmp").glob("crashdoc-wheel-*/vllm-0.16.0-py3-none-any.whl"))


def test_large_and_deleted_files_are_bounded(patched: Path, index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _offline_index(monkeypatch, index)
    sp = site_packages(patched)
    (sp / "vllm" / "model_executor" / "linear.py").write_text("WEIGHT = 2\n" * 400)
    (sp / "vllm" / "__init__.py").unlink()
    report = check_environment(LocalRunner(), str(patched), checks=["patches"])
    [pkg] = report.facts["checks"]["patches"]["packages"]
    by_path = {f["path"]: f for f in pkg["files"]}
    linear = by_path["vllm/model_executor/linear.py"]
    assert len(linear["diff"]) == MAX_LINES and linear["omitted"] == 800 + 3 - MAX_LINES
    assert f"  ... {linear['omitted']} more diff lines not shown" in report.section.lines
    deleted = by_path["vllm/__init__.py"]
    assert deleted["state"] == "missing" and deleted["diff"][1] == "+++ (deleted)" and deleted["removed"] == 1


def test_the_services_own_pip_is_used_when_it_has_one(tmp_path: Path, index: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    venv = tmp_path / "with-pip"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip_wheel = next(Path(sys.prefix).glob("lib/python3*/site-packages")) / "pip"
    # the interpreter's own pip: the one crashdoc's tests run with, linked into the venv's site-packages
    (site_packages(python) / "pip").symlink_to(pip_wheel)
    pip_install(python, sorted(index.glob("*.whl")))
    (site_packages(python) / "vllm" / "v1" / "engine" / "core.py").write_text(PATCHED)
    _offline_index(monkeypatch, index)
    report = check_environment(LocalRunner(), str(python), checks=["patches"])
    assert report.facts["checks"]["patches"]["pip"] == "the service's interpreter"
    assert any("torch.save(out" in ln for ln in report.section.lines)


def test_an_unreachable_index_is_said_not_an_error(patched: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")      # discard port: connection refused
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    report = check_environment(LocalRunner(), str(patched), checks=["integrity", "patches"])
    [line] = [ln for ln in report.section.lines if ln.startswith("patches: vllm==0.16.0: ")]
    assert "the index cannot be reached from this machine (offline?)" in line
    [skip] = [s for s in report.skipped if s.what == "patch of vllm 0.16.0"]
    assert "offline" in skip.reason
    assert [f for f in report.findings if f.rule == "env.integrity"]       # the modified file is still reported


def test_a_package_the_index_lacks_is_said(patched: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-index"
    empty.mkdir()
    _offline_index(monkeypatch, empty)
    report = check_environment(LocalRunner(), str(patched), checks=["patches"])
    [skip] = report.skipped
    assert skip.what == "patch of vllm 0.16.0" and skip.reason.startswith("not fetched: ")
    assert "vllm==0.16.0" in skip.reason or "vllm" in skip.reason


def test_default_run_points_at_the_patch_check(patched: Path) -> None:
    report = check_environment(LocalRunner(), str(patched), checks=["integrity"])
    [modified] = [f for f in report.findings if f.rule == "env.integrity"]
    assert modified.fix.text.endswith(f"crashdoc env --python {patched} --check patches")
    assert "patches" not in report.facts["checks"]


def test_over_ssh_with_the_venvs_own_index_configuration(patched: Path, index: Path, sshd) -> None:
    venv = patched.parent.parent
    (venv / "pip.conf").write_text(f"[global]\nno-index = true\nfind-links = {index}\n")
    report = check_environment(runner_for(sshd.target, sshd.options), str(patched), checks=["integrity", "patches"])
    assert any(ln.startswith("patches: vllm 0.16.0 against vllm-0.16.0-py3-none-any.whl") for ln in report.section.lines)
    assert "  +    torch.save(out, '/tmp/hidden_states_rank0.pt')  # debugging the NaNs" in report.section.lines
    [modified] = [f for f in report.findings if f.rule == "env.integrity"]
    assert "--check patches" not in modified.fix.text


@pytest.mark.parametrize("version", ["3.6", "3.8"])
def test_the_script_runs_on_old_pythons(version: str, patched: Path, index: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's Python may be old: the script itself, with that Python's own pip, against the patched venv."""
    found = sorted(Path(os.path.expanduser("~/.pyenv/versions")).glob(f"{version}.*/bin/python{version}"))
    if not found:
        pytest.skip(f"no Python {version} here")
    _offline_index(monkeypatch, index)
    sp = site_packages(patched)
    req = {"packages": [{"name": "vllm", "version": "0.16.0", "dist_info": str(sp / "vllm-0.16.0.dist-info"),
                         "files": [{"path": "vllm/v1/engine/core.py", "abspath": str(sp / "vllm/v1/engine/core.py"),
                                    "state": "modified"}]}], "max_lines": 50, "max_bytes": 1 << 20, "timeout": 120}
    done = subprocess.run([str(found[0]), "-I", "-"], input=script(req), capture_output=True, check=True)
    [pkg] = json.loads(done.stdout)["packages"]
    assert pkg["wheel"] == "vllm-0.16.0-py3-none-any.whl", pkg
    assert "+    torch.save(out, '/tmp/hidden_states_rank0.pt')  # debugging the NaNs" in pkg["files"][0]["diff"]


def test_debris_is_listed_with_sizes_and_a_removal_command_never_run(patched: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "dumps").mkdir(parents=True)
    dump = work / "dumps" / "hidden_states_rank0.pt"
    with open(dump, "wb") as f:
        f.truncate(3 << 30)                                 # sparse: 3 GiB by size
    odd = work / "it's a dump.pt"
    with open(odd, "wb") as f:
        f.truncate(2 << 20)
    report = check_environment(LocalRunner(), str(patched), checks=["debris"], workdir=str(work),
                               since=datetime.now(timezone.utc) - timedelta(minutes=5))
    lines = list(report.section.lines)
    assert any(ln.startswith(f"  {dump} (tensor dump, 3.0 GiB, ") and ln.endswith(", after the first failure)")
               for ln in lines)
    assert any(ln.startswith(f"  {odd} (tensor dump, 2.0 MiB, ") for ln in lines)
    [remove] = [ln for ln in lines if ln.startswith("to remove them (crashdoc does not): ")]
    assert remove.endswith("rm -f -- " + " ".join(["'" + str(odd).replace("'", "'\"'\"'") + "'", str(dump)])) or \
        remove.endswith("rm -f -- " + " ".join([str(dump), "'" + str(odd).replace("'", "'\"'\"'") + "'"]))
    [dumps] = [f for f in report.findings if f.fingerprint == "env:debris:dumps"]
    assert dumps.fix.command is not None and dumps.fix.command.startswith("rm -f -- ")
    assert report.facts["checks"]["debris"]["remove_command"] == dumps.fix.command
    assert dump.exists() and odd.exists()                    # shown, never run
