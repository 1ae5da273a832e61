"""The corpus measures follow ../shared/corpus/FORMAT.md: also_keys, lists of fixes, key tokens, decoys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crashdoc.evaluate import evaluate_dir
from crashdoc.evaluate.scoring import decoy_first, fix_matches, key_tokens, root_cause_hit


@pytest.mark.parametrize(("expected", "got", "ok"), [
    # pinned versions: the same package==version pairs, names normalised, anything else free
    ("pip install flashinfer-cubin==0.6.4", "pip install --no-deps flashinfer_cubin==0.6.4", True),
    ("pip install flashinfer-cubin==0.6.4", "pip install flashinfer-cubin==0.6.3", False),
    # key tokens in any order; sudo, -y/-p and comments do not count; pip3/uv pip are pip, apt is apt-get
    ("sudo mkdir -p /usr/share/ollama", "mkdir /usr/share/ollama  # the home dir", True),
    ("apt-get install -y libnuma1", "sudo apt install libnuma1", True),
    ("pip3 install -U vllm", "uv pip install vllm -U", True),
    ("pip install git+https://github.com/vllm-project/vllm.git", "pip install -U vllm", False),
    ("vllm serve M --max-model-len=4096", "vllm serve M --max-model-len 4096", True),
    ("NCCL_P2P_DISABLE=1 vllm serve M", "vllm serve M", False),
    # a list of equally good commands: any one matches
    (["pip uninstall -y flashinfer-cubin", "pip install flashinfer-cubin==0.6.4"], "pip install flashinfer-cubin==0.6.4", True),
    (["pip uninstall -y flashinfer-cubin", "pip install flashinfer-cubin==0.6.4"], "pip install flashinfer-python==0.6.3", False),
    ("pip install x==1", None, False),
])
def test_fix_matching(expected: str | list[str], got: str | None, ok: bool) -> None:
    assert fix_matches(expected, got) is ok


def test_no_expected_fix_is_not_scored() -> None:
    assert fix_matches(None, "pip install x") is None
    assert fix_matches([], "pip install x") is None


def test_key_tokens_keep_env_names_and_flag_values() -> None:
    assert key_tokens("export CUDA_VISIBLE_DEVICES=0,1 && sudo systemctl restart vllm") == {
        "CUDA_VISIBLE_DEVICES=0,1", "systemctl", "restart", "vllm"}
    assert key_tokens("docker run --shm-size=16g img") == {"docker", "run", "--shm-size", "16g", "img"}


def test_also_keys_and_decoys_with_a_key_on_the_line() -> None:
    keys = ["cubin version (0.6.3) does not match", "rank 3: cubin mismatch"]
    assert root_cause_hit("ERROR rank 3: cubin mismatch", keys)
    assert not root_cause_hit("", keys)
    # the decoy and a key share the line: not a decoy first
    assert not decoy_first("init failed: cubin version (0.6.3) does not match", keys, ["init failed"])
    assert decoy_first("init failed. See root cause above", keys, ["init failed"])


def _case(folder: Path, cid: str, log: str, meta: dict) -> None:
    (folder / f"{cid}.log").write_text(log)
    (folder / f"{cid}.json").write_text(json.dumps({"id": cid, **meta}))


def test_eval_scores_the_new_fields(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    err = "RuntimeError: flashinfer-cubin version (0.6.3) does not match flashinfer version (0.6.4)\n"
    _case(cases, "list-fix", "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n" + err, {
        "root_cause": {"key": "no such text", "also_keys": ["does not match flashinfer version (0.6.4)"]},
        "decoys": ["RuntimeError"], "category": "dependency_version_mismatch",
        "fix_command": ["pip uninstall -y flashinfer-cubin", "pip install flashinfer-cubin==0.6.4"]})
    report = evaluate_dir(tmp_path)
    (case,) = report.cases
    assert case.hit and not case.decoy_first and case.fix_ok is True
    assert report.totals()["decoy_first"] == 0
