"""The tree's shape: stages import only earlier stages, no import cycles, no oversized modules."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "crashdoc"

#: the pipeline's stages in order; a module may import its own stage and earlier ones, never a later one
STAGES = [
    {"__init__", "errors", "status", "model", "model_service", "datafile", "cachedir", "regex"},
    {"transport"},
    {"sources"},
    {"parse"},
    {"kb"},
    {"analyze"},
    {"envdoctor"},
    {"history"},  # imports only the model: before actions, so `crashdoc fix` can record its commands and verdicts
    {"investigate", "actions"},
    {"fleet"},
    {"report"},
    {"evaluate", "watch"},
    {"fixloop"},
    {"cli", "__main__", "completion", "argparser"},  # completion reads the parser cli builds
]
RANK = {name: i for i, names in enumerate(STAGES) for name in names}
MAX_LINES = 310
#: modules allowed past MAX_LINES, each with its reason
LONG = {
    "envdoctor/probe.py": "a self-contained stdlib script sent over ssh: it cannot import its siblings",
    "cli.py": "the argument parser and wiring of every command (the style guide allows ~600)",
}


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, top_level_only: bool) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("crashdoc"):
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("crashdoc"))
        elif top_level_only and isinstance(node, ast.If):  # `if TYPE_CHECKING:` blocks only type-check
            continue
    return out


def test_every_stage_is_known() -> None:
    unknown = {_stage(_name(p)) for p in _modules()} - set(RANK)
    assert not unknown, f"place these in STAGES: {unknown}"


def test_no_stage_imports_a_later_one() -> None:
    bad = []
    for path in _modules():
        mine = _stage(_name(path))
        for target in _imports(path, top_level_only=False):
            theirs = _stage(target)
            if RANK[theirs] > RANK[mine]:
                bad.append(f"{path.relative_to(SRC)} imports {target}")
    assert not bad, "\n".join(bad)


def test_no_import_cycles() -> None:
    graph = {_name(p): {t for t in _imports(p, top_level_only=True)} for p in _modules()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph or nxt == node:  # a package importing its own submodules
                continue
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt):], nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, cycles


def test_modules_stay_small() -> None:
    big = {str(p.relative_to(SRC)): n for p in _modules()
           if (n := len(p.read_text("utf-8").splitlines())) > MAX_LINES and str(p.relative_to(SRC)) not in LONG}
    assert not big, big
