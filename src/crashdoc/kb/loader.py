"""Find and read rule files: the packaged ``crashdoc/rules`` tree and user rule directories.

Layout of a rule directory: ``<dir>/<category>/<rule-id>.yaml`` (``.yml`` also accepted).
Files placed directly in the root of a *user* directory are accepted too; for them the
folder is not compared with the category.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Union

from crashdoc.datafile import package_file
from crashdoc.kb.errors import RuleError
from crashdoc.kb.model import Rule

if TYPE_CHECKING:  # NOTE: importlib.resources costs a start ~10 ms; only a zipped package needs it
    from importlib.abc import Traversable  # (importlib.resources.abc from Python 3.11)

    Location = Union[Path, Traversable]  # noqa: UP007 - a runtime alias on Python 3.10

ENV_VAR = "CRASHDOC_RULES"


@dataclass(frozen=True)
class LoadResult:
    """Rules that loaded and the problems of those that did not."""

    rules: tuple[Rule, ...]
    problems: tuple[str, ...]


def package_rules_dir() -> Location:
    """The ``rules`` directory shipped inside the crashdoc package."""
    return package_file("rules")


def user_rule_dirs(extra_dirs: tuple[str | Path, ...] | list[str | Path] = ()) -> list[Path]:
    """*extra_dirs* (``--rules DIR``) followed by the directories listed in ``$CRASHDOC_RULES``."""
    env = [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p.strip()]
    return [Path(p).expanduser() for p in [*extra_dirs, *env]]


def _iter_files(root: Location, depth: int = 0) -> Iterator[tuple[Location, bool]]:
    """Yield (rule file, is directly in root) for every YAML file below *root*, sorted."""
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_dir() and depth < 4:
            yield from _iter_files(entry, depth + 1)
        elif entry.is_file() and entry.name.endswith((".yaml", ".yml")):
            yield entry, depth == 0


def _load_file(entry: Location, at_root: bool, is_user: bool) -> tuple[Rule | None, list[str]]:
    """Parse and validate one file."""
    where = str(entry)
    stem = entry.name.rsplit(".", 1)[0]
    import yaml  # NOTE: imported when rules are parsed: a start from the compiled cache (kb/cache.py) needs none

    from crashdoc.kb.schema import build_rule, check_rule

    # NOTE: libyaml's loader when PyYAML was built with it: about 5x faster, and rules load at every start.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(entry.read_text(encoding="utf-8"), Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, [f"{where}: YAML syntax error{at} ({problem}); fix the YAML (quote regexes with ')"]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{where}: cannot read the file ({exc}); check its permissions and encoding (UTF-8)"]
    folder = None if (at_root and is_user) else Path(where).parent.name
    problems = check_rule(data, where, stem, folder)
    return (None, problems) if problems else (build_rule(data, where), [])


def load_dirs(dirs: Sequence[tuple[Location, bool]]) -> LoadResult:
    """Load every rule of *dirs* (each paired with "is a user dir"); report duplicate ids."""
    rules: list[Rule] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for root, is_user in dirs:
        if not root.is_dir():
            problems.append(f"{root}: rule directory does not exist or is not a directory; "
                            f"create it or remove it from --rules / {ENV_VAR}")
            continue
        for entry, at_root in _iter_files(root):
            rule, found = _load_file(entry, at_root, is_user)
            problems += found
            if rule is None:
                continue
            if rule.id in seen:
                problems.append(f"{rule.path}: duplicate rule id '{rule.id}' (also in {seen[rule.id]}); "
                                "rename one of them (id and file name)")
                continue
            seen[rule.id] = rule.path
            rules.append(rule)
    return LoadResult(tuple(rules), tuple(problems))


def raise_on_problems(problems: tuple[str, ...] | list[str]) -> None:
    """Raise RuleError with the first problem (and how many more there are)."""
    if problems:
        more = f" (+{len(problems) - 1} more problems; run `crashdoc rules validate`)" if len(problems) > 1 else ""
        raise RuleError(problems[0] + more)
