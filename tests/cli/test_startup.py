"""Start-up (issue 12): `crashdoc diagnose` of a one-line file, from a warm cache, loads only what a file's
diagnosis needs. The guard is on behaviour, not time: which modules a real process imported, and that the data
it read back from the cache gives the same report as a start that parses everything (bench/bench_startup.py
measures the CPU seconds)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crashdoc.cli import COMMANDS, _command, build_parser

LINE = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0\n"

_PROBE = """
import contextlib, io, json, sys
from crashdoc.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(sys.argv[1:])
print(json.dumps({"status": status, "report": json.loads(out.getvalue()), "modules": sorted(sys.modules)}))
"""

NOT_FOR_A_FILE = (
    "yaml", "packaging", "rich", "jsonschema",  # parsers and renderers a cached start or a JSON report never needs
    "crashdoc.kb.schema", "crashdoc.kb.redos",  # rule validation: the rules come from the cache
    "crashdoc.sources.container", "crashdoc.transport", "subprocess",  # hosts, units and containers
    "crashdoc.envdoctor", "crashdoc.fleet", "crashdoc.history", "crashdoc.evaluate", "crashdoc.investigate.unit",
    "concurrent.futures", "logging",  # the scan's thread pool: an input of one block is scanned on the reading thread
    "crashdoc.model_service",  # a service's unit facts, state and history: a file has none
    "crashdoc.parse.literals",  # the rule-literal analysis: its plan comes from the cache
    "crashdoc.kb.inventory",  # the engines' message inventory: only for an error no rule knows
    "shutil", "gzip",  # argparse's terminal width (crashdoc.argparser finds it without), a .gz input (zlib reads it)
)


def _diagnose(log: Path, cache: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in ("CRASHDOC_RULES", "PYTHONDONTWRITEBYTECODE")}
    env["CRASHDOC_CACHE"] = cache
    p = subprocess.run([sys.executable, "-c", _PROBE, "diagnose", str(log), "--format", "json"], env=env,
                       capture_output=True, text=True, timeout=600, check=False)
    assert p.returncode == 0, p.stderr
    result: dict[str, object] = json.loads(p.stdout.splitlines()[-1])
    return result


def test_a_warm_start_imports_only_what_a_file_needs(tmp_path: Path) -> None:
    log = tmp_path / "one.log"
    log.write_text(LINE)
    cache = str(tmp_path / "cache")
    cold = _diagnose(log, cache)
    warm = _diagnose(log, cache)
    off = _diagnose(log, "off")
    modules = warm["modules"]
    assert isinstance(modules, list)
    loaded = [m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_FOR_A_FILE)]
    assert loaded == [], f"a warm start of a file's diagnosis imported {loaded}"
    assert "yaml" in cold["modules"]  # type: ignore[operator]  # the cold start did parse: the probe sees imports
    for run in (cold, warm, off):
        assert run["status"] == 0
        report = run["report"]
        assert isinstance(report, dict)
        assert report["root_cause"]["rule"] == "cuda-out-of-memory"
    assert warm["report"] == off["report"] == cold["report"]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def test_a_command_alone_parses_as_in_the_whole_parser() -> None:
    """`main` builds only the subcommand it runs (cli._command): its options and defaults are the whole parser's,
    and a name that is not a command gets the whole parser (argparse names the choices)."""
    whole = _subparsers(build_parser())
    for name in COMMANDS:
        alone = _subparsers(build_parser(name))
        assert list(alone) == [name]
        mine, theirs = alone[name], whole[name]
        assert [(a.option_strings, a.dest, a.default, a.nargs, a.choices) for a in mine._actions] == \
               [(a.option_strings, a.dest, a.default, a.nargs, a.choices) for a in theirs._actions]
    assert _command(["--traceback", "diagnose", "x.log"]) == "diagnose"
    assert _command(["--help", "diagnose"]) is None and _command(["watch", "x"]) is None and _command([]) is None
    assert {"watch", "run", "fix"} <= set(whole)


def test_the_model_names_its_service_parts_when_asked() -> None:
    """crashdoc.model defines what every diagnosis holds; a service's parts (crashdoc.model_service) are named by
    it when first asked for: the same classes, and a name that is neither is an AttributeError."""
    import crashdoc.model as model
    import crashdoc.model_service as service

    for name in ("Section", "UnitFacts", "LastFailure", "State", "PastIncident", "History"):
        assert getattr(model, name) is getattr(service, name)
    from crashdoc.model import History, State  # the import statement goes through the same lookup

    assert History is service.History and State is service.State
    try:
        model.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("an unknown name of crashdoc.model did not raise AttributeError")


def test_help_is_wrapped_as_argparse_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parser finds the terminal width as argparse's own formatter does (COLUMNS first), without shutil: the
    help reads the same as with argparse's formatters, at any width."""
    parsers = [build_parser("diagnose"), _subparsers(build_parser("diagnose"))["diagnose"]]
    for cols in ("50", "120", "not a number"):
        monkeypatch.setenv("COLUMNS", cols)
        for parser in parsers:
            ours = parser.format_help()
            mine = parser.formatter_class
            theirs = argparse.RawDescriptionHelpFormatter if issubclass(mine, argparse.RawDescriptionHelpFormatter) \
                else argparse.HelpFormatter
            parser.formatter_class = theirs
            try:
                assert ours == parser.format_help()
            finally:
                parser.formatter_class = mine
