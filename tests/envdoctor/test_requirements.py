"""Declared requirements, as pip check sees them: missing, conflicting, markers, extras, scope."""

from __future__ import annotations

from crashdoc.envdoctor import check_environment
from crashdoc.transport import LocalRunner
from tests.envdoctor.builders import Pkg


def _reqs(python):
    report = check_environment(LocalRunner(), str(python), checks=["requirements"])
    return report, [f for f in report.findings if f.rule == "env.requirements"]


def test_missing_and_conflicting_requirements(make_env):
    python = make_env(
        Pkg("transformers", "4.57.1", requires=["tokenizers>=0.22,<=0.23.0", "huggingface-hub>=0.34.0,<1.0",
                                                 "safetensors>=0.4.3"]),
        Pkg("tokenizers", "0.21.0"), Pkg("huggingface-hub", "0.35.0", module="huggingface_hub"),
    )
    report, found = _reqs(python)
    by_cat = {f.category: f for f in found}
    assert by_cat["missing_dependency"].message == "transformers 4.57.1 requires safetensors>=0.4.3, which is not installed"
    assert by_cat["missing_dependency"].fix.command == "pip install 'safetensors>=0.4.3'"
    conflict = by_cat["dependency_version_mismatch"]
    assert conflict.message == "transformers 4.57.1 requires tokenizers<=0.23.0,>=0.22, but tokenizers 0.21.0 is installed"
    assert conflict.fix.command == "pip install 'tokenizers<=0.23.0,>=0.22'"
    assert "2 problems" in report.section.lines[-1]


def test_markers_and_extras_are_evaluated_on_the_target(make_env):
    python = make_env(Pkg("vllm", "0.16.0", requires=[
        'pywin32; sys_platform == "win32"', 'uvloop; python_version < "3"', 'tensorizer>=2.9; extra == "tensorizer"',
    ]))
    assert _reqs(python)[1] == []


def test_only_the_serving_closure_is_checked(make_env):
    python = make_env(Pkg("vllm", "0.16.0", requires=["numpy>=2"]), Pkg("numpy", "2.1.0"),
                      Pkg("jupyterlab", "4.0.0", requires=["notebook>=9"]))
    report, found = _reqs(python)
    assert found == []
    assert report.facts["checks"]["requirements"]["checked"] == ["numpy", "vllm"]


def test_without_serving_packages_everything_is_checked(make_env):
    _, [found] = _reqs(make_env(Pkg("myservice", "1.0", requires=["fastapi"])))
    assert found.message == "myservice 1.0 requires fastapi, which is not installed"


def test_engine_pins_fold_into_one_finding_with_torch_index(make_env):
    from tests.envdoctor.conftest import torch_pkgs
    python = make_env(Pkg("vllm", "0.11.0", requires=["torch==2.8.0", "flashinfer-python==0.4.1"]),
                      *torch_pkgs("2.9.0+cu128", "12.8"), Pkg("flashinfer-python", "0.4.1", module="flashinfer"))
    _, [pin] = _reqs(python)
    assert pin.message == "vllm 0.11.0 was built against torch==2.8.0, but torch 2.9.0+cu128 is installed"
    assert pin.fix.command == "pip install torch==2.8.0 --index-url https://download.pytorch.org/whl/cu128"
    assert pin.score > 80
