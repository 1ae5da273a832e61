"""Companion groups on real venvs: flashinfer skew (local labels too), torch family, CUDA wheels, engine pins."""

from __future__ import annotations

from crashdoc.envdoctor import check_environment
from crashdoc.transport import LocalRunner
from tests.envdoctor.builders import Pkg
from tests.envdoctor.conftest import torch_pkgs


def _run(python, checks=("companions", "requirements")):
    return check_environment(LocalRunner(), str(python), checks=list(checks))


def _by_rule(report, rule):
    return [f for f in report.findings if f.rule == rule]


def test_cubin_behind_flashinfer_gives_the_exact_fix(make_env):
    python = make_env(Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.3"))
    report = _run(python)
    [skew] = _by_rule(report, "env.companions")
    assert skew.category == "dependency_version_mismatch"
    assert skew.source == "environment" and skew.line == "" and skew.lineno == 0
    assert skew.fix.command == "pip install flashinfer-cubin==0.6.4"
    assert "flashinfer-cubin 0.6.3 is installed next to flashinfer-python 0.6.4" in skew.message
    venv = str(python.parent.parent)
    assert report.subjects[skew.fingerprint].summary == (
        f"flashinfer-python 0.6.4, flashinfer-cubin 0.6.3 installed in {venv}")
    assert not report.skipped


def test_jit_cache_local_label_is_ignored_when_the_release_matches(make_env):
    python = make_env(Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.4"),
                      Pkg("flashinfer-jit-cache", "0.6.4+cu130"))
    assert not _by_rule(_run(python), "env.companions")


def test_jit_cache_behind_needs_its_own_index(make_env):
    python = make_env(Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-jit-cache", "0.6.3+cu130"))
    [skew] = _by_rule(_run(python), "env.companions")
    assert skew.fix.command == "pip install flashinfer-jit-cache==0.6.4 --index-url https://flashinfer.ai/whl/cu130"


def test_engine_pin_sets_the_target_version(make_env):
    python = make_env(Pkg("vllm", "0.16.0", requires=["flashinfer-python==0.6.3"]),
                      Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.3"))
    report = _run(python)
    [skew] = _by_rule(report, "env.companions")
    assert "vllm 0.16.0 requires flashinfer-python==0.6.3" in skew.message
    assert skew.fix.command == "pip install flashinfer-python==0.6.3"
    [pin] = _by_rule(report, "env.requirements")
    assert pin.message.startswith("vllm 0.16.0 was built against flashinfer-python==0.6.3, but flashinfer-python 0.6.4")


def test_torch_family_versions_and_cuda_builds(make_env):
    python = make_env(
        *torch_pkgs("2.8.0+cu128", "12.8", requires=['triton==3.4.0; platform_system == "Linux"']),
        Pkg("torchvision", "0.22.0+cu128", requires=["torch==2.7.0"]),
        Pkg("torchaudio", "2.8.0+cu126", requires=["torch==2.8.0"]),
        Pkg("triton", "3.4.0"),
    )
    report = _run(python)
    [torch] = _by_rule(report, "env.companions")
    assert "torchvision 0.22.0+cu128 is built for torch 2.7.0" in torch.message
    assert "torchaudio 2.8.0+cu126 is a cu126 build, torch 2.8.0+cu128 a cu128 build" in torch.message
    assert "triton" not in torch.message
    assert torch.fix.command == (
        "pip install 'torchvision==0.23.*' 'torchaudio==2.8.*' --index-url https://download.pytorch.org/whl/cu128")
    # the companions check reports the torchvision -> torch pin; requirements does not repeat it
    assert not _by_rule(report, "env.requirements")


def test_torch_pins_triton_exactly(make_env):
    python = make_env(*torch_pkgs("2.9.0+cu128", "12.8", requires=['triton==3.5.0; platform_system == "Linux"']),
                      Pkg("triton", "3.4.0"))
    [torch] = _by_rule(_run(python), "env.companions")
    assert torch.message == "torch 2.9.0+cu128 requires triton==3.5.0"
    assert torch.fix.command == "pip install triton==3.5.0"


def test_cuda12_wheels_left_under_a_cuda13_torch(make_env):
    python = make_env(
        *torch_pkgs("2.9.0+cu130", "13.0", requires=["nvidia-cublas==13.0.0.19"]),
        Pkg("nvidia-cublas", "13.0.0.19", module="nvidia_cublas13"),
        Pkg("nvidia-cublas-cu12", "12.8.4.1", module="nvidia_cublas12"),
        Pkg("nvidia-nccl-cu12", "2.27.3", module="nvidia_nccl12"),
        Pkg("somelib", "1.0", requires=["nvidia-nccl-cu12"]),
        Pkg("nvidia-ml-py", "12.575.51", module="pynvml"),
    )
    findings = [f for f in _run(python).findings if f.fingerprint == "env:companions:torch-cuda-wheels"]
    [wheels] = findings
    assert wheels.message.startswith("torch 2.9.0+cu130 is built for CUDA 13.0, but CUDA 12 wheels are installed too")
    assert "nvidia-cublas-cu12 12.8.4.1" in wheels.message and "nvidia-ml-py" not in wheels.message
    assert wheels.fix.command == "pip uninstall -y nvidia-cublas-cu12"
    assert "nvidia-nccl-cu12 (required by somelib)" in wheels.fix.text


def test_matching_groups_report_nothing(make_env):
    python = make_env(*torch_pkgs("2.8.0+cu128", "12.8", requires=['triton==3.4.0; platform_system == "Linux"']),
                      Pkg("torchvision", "0.23.0+cu128", requires=["torch==2.8.0"]), Pkg("triton", "3.4.0"),
                      Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.4"))
    report = _run(python)
    assert report.findings == ()
    assert "flashinfer: flashinfer-python 0.6.4, flashinfer-cubin 0.6.4" in report.section.lines
