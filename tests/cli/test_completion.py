"""`crashdoc completion bash|zsh|fish`, run in the real shells: subcommands, options, choices and files complete;
and every command's --help example parses with the real parser."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from crashdoc.cli import EXAMPLES, build_parser
from tests.support.cli import run_cli

#: (words on the line, the word being completed) -> what must be offered
CASES = [
    (["diagnose", "--format"], "", {"terminal", "json", "markdown"}),
    ([], "di", {"diagnose"}),
    ([], "comp", {"completion"}),
    (["diagnose"], "--redact-h", {"--redact-hosts"}),
    (["rules"], "", {"list", "validate", "test", "coverage"}),
    (["completion"], "", {"bash", "zsh", "fish"}),
    (["eval"], "--min-", {"--min-hit", "--min-category"}),
]


def _script(tmp_path: Path, shell: str) -> Path:
    r = run_cli("completion", shell)
    assert r.status == 0, r.stderr
    path = tmp_path / f"crashdoc.{shell}"
    path.write_text(r.stdout, "utf-8")
    return path


def _need(shell: str) -> str:
    path = shutil.which(shell)
    if path is None:
        pytest.skip(f"{shell} is not installed (make system-deps installs it)")
    return path


def _bash_like(shell: str, script: Path, words: list[str], cur: str) -> set[str]:
    line = " ".join(shlex.quote(w) for w in ["crashdoc", *words, cur])
    program = (f"source {shlex.quote(str(script))}; COMP_WORDS=({line}); COMP_CWORD={len(words) + 1}; _crashdoc; "
               'printf "%s\\n" "${COMPREPLY[@]}"')
    argv = [shell, "-f", "-c", program] if shell == "zsh" else [shell, "--norc", "-c", program]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True).stdout
    offered = {w for w in out.split("\n") if w}
    return {w for w in offered if w.startswith(cur)}  # zsh's compgen leaves the prefix filter to compadd


@pytest.mark.parametrize(("words", "cur", "expected"), CASES)
@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_bash_and_zsh_complete(tmp_path: Path, shell: str, words: list[str], cur: str, expected: set[str]) -> None:
    _need(shell)
    assert _bash_like(shell, _script(tmp_path, shell), words, cur) == expected


def test_bash_completes_file_names_for_a_log(tmp_path: Path) -> None:
    _need("bash")
    (tmp_path / "vllm-crash.log").write_text("x\n")
    script = _script(tmp_path, "bash")
    program = (f"cd {shlex.quote(str(tmp_path))}; source {shlex.quote(str(script))}; "
               'COMP_WORDS=(crashdoc diagnose vllm-); COMP_CWORD=2; _crashdoc; printf "%s\\n" "${COMPREPLY[@]}"')
    out = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["vllm-crash.log"]


@pytest.mark.parametrize(("words", "cur", "expected"), CASES)
def test_fish_completes(tmp_path: Path, words: list[str], cur: str, expected: set[str]) -> None:
    fish = _need("fish")
    line = " ".join(["crashdoc", *words, cur])
    program = f"source {shlex.quote(str(_script(tmp_path, 'fish')))}; complete -C{shlex.quote(line)}"
    out = subprocess.run([fish, "--no-config", "-c", program], capture_output=True, text=True, timeout=60, check=True)
    assert {ln.split("\t")[0] for ln in out.stdout.splitlines() if ln} == expected


def test_every_command_has_one_example_that_parses() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) <= set(EXAMPLES), f"commands without an example: {set(sub.choices) - set(EXAMPLES)}"
    for name, example in EXAMPLES.items():
        argv = shlex.split(example.split("#")[0].replace('"$(crashdoc completion bash)"', "crashdoc completion bash"))
        argv = argv[argv.index("crashdoc") + 1:]
        if ">" in argv:
            argv = argv[:argv.index(">")]
        assert argv[0] == name
        parser.parse_args(argv)  # exits 2 on an example the parser refuses
        assert example in sub.choices[name].format_help()


def test_eval_help_says_exit_4() -> None:
    text = run_cli_help("eval")
    assert "exit 4 below" in text and "exit 1" not in text


def run_cli_help(command: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return str(sub.choices[command].format_help())
