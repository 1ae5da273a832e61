"""Fix commands a reader can trust: a value from the log never makes a fix act on a system directory, pass an
option, or install a package that is not a known distribution; the fix text says why there is no command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crashdoc.kb import KnowledgeBase
from crashdoc.kb.fill import fill_command, format_command, known_packages
from tests.support.cli import run_cli


def _classify(kb: KnowledgeBase, line: str):  # type: ignore[no-untyped-def]
    exc, _, msg = line.partition(": ") if re.match(r"^\w+(?:Error|Exception): ", line) else (None, "", line)
    return kb.classify(exc, msg, line)


@pytest.mark.parametrize("path", ["/etc", "/", "/usr", "/var", "/home", "/root", "/tmp", "/var/lib", "/usr/local",
                                  "/proc/1", "/sys/fs", "/dev/sda", "/etc/", "//etc", "/var/lib/../../etc"])
def test_no_chown_of_a_system_directory(kb: KnowledgeBase, path: str) -> None:
    m = _classify(kb, f"Error: could not create directory mkdir {path}: permission denied")
    assert m is not None
    assert "chown" not in (m.fix_command or "") and "mkdir" not in (m.fix_command or ""), m.fix_command
    if m.rule.id == "ollama-home-dir-not-creatable":  # (`/`, /home and /root are other rules' cases)
        assert m.fix_command is None
        assert m.fix_text and "system directory" in m.fix_text


def test_the_service_home_still_gets_its_command(kb: KnowledgeBase) -> None:
    m = _classify(kb, "Error: could not create directory mkdir /var/lib/ollama: permission denied")
    assert m is not None
    assert m.fix_command == "sudo mkdir -p /var/lib/ollama && sudo chown ollama:ollama /var/lib/ollama"


def test_no_install_of_an_unknown_package(kb: KnowledgeBase) -> None:
    m = _classify(kb, "ImportError: LlamaTokenizer requires the evilpkg library but it was not found in your environment.")
    assert m is not None and m.rule.category == "missing_dependency"
    assert m.fix_command is None  # not even the rule's fallback (`pip install sentencepiece`): the log named another
    assert m.fix_text and "`evilpkg` came from the log and was not verified" in m.fix_text


def test_a_known_package_is_still_installed(kb: KnowledgeBase) -> None:
    m = _classify(kb, "ImportError: AzureBlobConnector requires the 'blobfile' package. Install it with `pip install blobfile`.")
    assert m is not None and m.fix_command == "pip install blobfile"


def test_the_cli_prints_no_unsafe_fix(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("Feb 09 18:55:00 asus ollama[11630]: Error: could not create directory mkdir /etc: permission denied\n"
                   "ImportError: LlamaTokenizer requires the evilpkg library but it was not found in your environment.\n")
    for fmt in ("terminal", "json", "markdown"):
        out = run_cli("diagnose", str(log), "--format", fmt).stdout
        assert "chown ollama:ollama /etc" not in out and "pip install evilpkg" not in out, out


@pytest.mark.parametrize(("template", "captures"), [
    ("ls -ld {path}", {"path": "--help"}),  # an option, not a value
    ("findmnt -T {path}", {"path": "-R"}),
    ("pip install {package}", {"package": "-e"}),
    ("pip install {package}", {"package": "evilpkg"}),
    ("pip install {spec}", {"spec": "evilpkg[audio]"}),

    ("pip install -U '{package}>={version}'", {"package": "torchh", "version": "2.4"}),
    ("pip install 'transformers{requirement}'", {"requirement": "-evil"}),
    ("apt-get install -y {apt_package}", {"apt_package": "libnuma1x"}),
    ("pip uninstall -y x && pip install {package} --no-deps", {"package": "requets"}),
])
def test_refused(template: str, captures: dict[str, str]) -> None:
    command, why = fill_command(template, captures)
    assert command is None and why and "came from the log" in why
    assert format_command(template, captures) is None


@pytest.mark.parametrize(("template", "captures", "expected"), [
    ("pip install -U '{package}>={version}'", {"package": "Flash_Attn", "version": "2.7"},
     "pip install -U 'Flash_Attn>=2.7'"),
    ("pip install {package}=={flashinfer} --index-url https://flashinfer.ai/whl/{variant}",
     {"package": "flashinfer-jit-cache", "flashinfer": "0.6.4", "variant": "cu128"},
     "pip install flashinfer-jit-cache==0.6.4 --index-url https://flashinfer.ai/whl/cu128"),
    ("apt-get install -y python{pyver}-dev", {"pyver": "3.12"}, "apt-get install -y python3.12-dev"),
    ("ls -la {path}", {"path": "/models/Qwen3-8B"}, "ls -la /models/Qwen3-8B"),
    ("ss -ltnp 'sport = :{port}'", {"port": "8000"}, "ss -ltnp 'sport = :8000'"),
    # a package with extras: single-quoted (a shell reads brackets as a pattern), unless the template quotes it
    ("pip install {spec}", {"spec": "vllm[audio]"}, "pip install 'vllm[audio]'"),
    ("pip install '{requirement}'", {"requirement": "sglang[srt,http2]"}, "pip install 'sglang[srt,http2]'"),
])
def test_allowed(template: str, captures: dict[str, str], expected: str) -> None:
    assert fill_command(template, captures) == (expected, None)


def test_every_package_a_rule_table_installs_is_known(kb: KnowledgeBase) -> None:
    unknown = [(r.id, v) for r in kb.rules if "install" in f"{r.fix_command} {r.fallback_command}"
               for lk in r.lookups if lk.name in ("package", "pipname", "apt_package") for _, v in lk.table
               if re.sub(r"[-_.]+", "-", v.lower()) not in known_packages()]
    assert not unknown, unknown


@pytest.mark.parametrize(("template", "captures"), [
    ("pip install {spec}", {"spec": "vllm[audio]\n"}),  # a newline
    ('pip install "{spec}"', {"spec": "vllm[audio]"}),  # inside double quotes
    ("pip install {spec} && echo '{spec}'", {"spec": "vllm[audio]"}),  # bare once, quoted once
    ("pip install {spec}", {"spec": "vllm\u0445[audio]"}),  # a non-ASCII letter
    ("pip install {spec}", {"spec": "vllm[audio];id"}),
    ("pip install {spec}", {"spec": "vllm['a']"}),
])
def test_a_package_with_extras_is_pasted_only_where_quoting_is_certain(template: str, captures: dict[str, str]) -> None:
    assert fill_command(template, captures) == (None, None)
