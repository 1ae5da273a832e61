"""GPU facts from recorded nvidia-smi outputs of GPU hosts, run through the real LocalRunner (a stand-in
nvidia-smi first on PATH), set against a real torch/version.py in a venv."""

from __future__ import annotations

from pathlib import Path

import pytest

from crashdoc.envdoctor import check_environment
from crashdoc.envdoctor.nvidia_smi import parse_gpus, parse_processes
from crashdoc.transport import LocalRunner
from tests.envdoctor.conftest import ASSETS, torch_pkgs


def _gpu(python):
    report = check_environment(LocalRunner(), str(python), checks=["gpu"])
    return report, {f.fingerprint.split(":")[-1]: f for f in report.findings}


@pytest.fixture
def torch_cu128(make_env):
    return make_env(*torch_pkgs("2.8.0+cu128", "12.8"), name="cu128")


def test_h100_host_old_driver_for_cu128_and_memory_held(nvidia_smi, torch_cu128):
    nvidia_smi("h100x8-driver550")
    report, found = _gpu(torch_cu128)
    assert "GPUs: 8 x NVIDIA H100 80GB HBM3, driver 550.54.15 (CUDA up to 12.4)" in report.section.lines
    minor = found["driver-minor"]
    assert minor.category == "cuda_driver_mismatch" and minor.role == "unknown"
    assert minor.fix.command == "pip install torch==2.8.0 --index-url https://download.pytorch.org/whl/cu124"
    held = found["held"]
    assert held.message == "GPU memory is held by 1 process: GPU 0: 72474 MiB by pid 48213 (/opt/venv/bin/python3)"
    assert report.facts["checks"]["gpu"]["gpus"][0]["compute_cap"] == "9.0"
    assert not report.skipped


def test_driver_470_is_too_old_and_compute_cap_is_retried(nvidia_smi, torch_cu128):
    nvidia_smi("a10g-driver470")
    report, found = _gpu(torch_cu128)
    old = found["driver-too-old"]
    assert old.message == ("NVIDIA driver 470.182.03 is too old for torch 2.8.0+cu128: CUDA 12.x needs driver "
                           "525.60.13 or newer (this driver supports CUDA up to 11.4)")
    assert old.score >= 90 and old.fix.command is None
    assert report.facts["checks"]["gpu"]["gpus"][0]["name"] == "NVIDIA A10G"


def test_nvml_driver_library_mismatch(nvidia_smi, torch_cu128):
    nvidia_smi("nvml-mismatch")
    _, found = _gpu(torch_cu128)
    [mismatch] = found.values()
    assert mismatch.category == "cuda_driver_mismatch" and "reboot" in mismatch.fix.text
    assert mismatch.message == ("nvidia-smi: Failed to initialize NVML: Driver/library version mismatch "
                                "NVML library version: 550.127")


def test_driver_not_loaded(nvidia_smi, torch_cu128):
    nvidia_smi("no-kernel-module")
    _, found = _gpu(torch_cu128)
    assert found["driver"].category == "gpu_unavailable" and found["driver"].score >= 90


def test_cuda13_torch_on_volta(nvidia_smi, make_env):
    nvidia_smi("v100-driver580")
    _, found = _gpu(make_env(*torch_pkgs("2.9.0+cu130", "13.0")))
    assert set(found) == {"arch"}
    assert found["arch"].message.startswith("Tesla V100-SXM2-32GB (compute 7.0) is older than CUDA 13.0 supports")


def test_cpu_torch_on_a_gpu_host(nvidia_smi, make_env):
    nvidia_smi("l4-driver570-idle")
    _, found = _gpu(make_env(*torch_pkgs("2.13.0+cpu", None)))
    assert set(found) == {"cpu-torch"}
    assert found["cpu-torch"].fix.command == "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu128"


def test_cuda_torch_without_any_driver(no_nvidia_smi, torch_cu128):
    if Path("/proc/driver/nvidia/version").exists():
        pytest.skip("this host has an NVIDIA driver")
    report, found = _gpu(torch_cu128)
    assert found["no-driver"].category == "gpu_unavailable"
    assert found["no-driver"].message.startswith("torch 2.8.0+cu128 is a CUDA 12.8 build, but this host shows no NVIDIA")
    assert [s.what for s in report.skipped] == ["gpu"]


def test_gpu_check_runs_when_the_probe_cannot(nvidia_smi, tmp_path):
    nvidia_smi("l4-driver570-idle")
    report = check_environment(LocalRunner(), str(tmp_path / "nope" / "python"), checks=["gpu", "companions"])
    assert any(ln.startswith("GPUs: 1 x NVIDIA L4") for ln in report.section.lines)
    whats = [s.what for s in report.skipped]
    assert whats == [f"python {tmp_path / 'nope' / 'python'}", "companions"]
    assert "command not found" in report.skipped[0].reason


def test_parsers_on_the_recordings():
    gpus = parse_gpus((ASSETS / "nvidia-smi" / "h100x8-driver550" / "query-gpu.txt").read_text())
    assert len(gpus) == 8 and gpus[7].bus_id == "00000000:DB:00.0" and gpus[0].memory_used == 72483
    [proc] = parse_processes((ASSETS / "nvidia-smi" / "h100x8-driver550" / "query-compute-apps.txt").read_text())
    assert (proc.pid, proc.used) == (48213, 72474)
    assert parse_processes("gpu_uuid, pid, process_name, used_gpu_memory [MiB]\nGPU-1, 7, python, [N/A]\n")[0].used is None
