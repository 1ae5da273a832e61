#!/usr/bin/env python3
"""Build the message inventory: the error messages an engine's own source can emit.

Reads a project's source straight out of a git directory (a fetched snapshot: no work
tree, read with ``git ls-tree`` / ``git cat-file``) or out of a wheel / source tree, finds
the places that raise, log or abort with a message, turns each message into a template
with ``{}`` placeholders, labels it with the bulk rules of ``projects.yaml`` and writes
``<out>/<project>.jsonl``.

    python3 tools/inventory/extract.py                       # every project in projects.yaml
    python3 tools/inventory/extract.py --project vllm tgi    # some of them
    python3 tools/inventory/extract.py --relabel             # only re-apply labels to existing jsonl

Only stdlib + PyYAML. Regex based for C/C++/CUDA, Rust and Go; ``ast`` for Python.
"""
from __future__ import annotations

import argparse
import ast
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
DEFAULT_CONFIG = HERE / "projects.yaml"
DEFAULT_OUT = REPO_ROOT / "src" / "crashdoc" / "data" / "inventory"
DEFAULT_MIRROR = Path("/work/.mirror")

CATEGORIES = {
    "dependency_version_mismatch", "missing_dependency", "abi_mismatch", "cuda_driver_mismatch",
    "gpu_oom", "kv_cache_insufficient", "gpu_unavailable", "nccl_distributed", "model_config",
    "model_files", "cli_config_error", "port_in_use", "host_resources", "modified_install",
    "kernel_compile_error", "engine_bug", "filesystem_permissions", "cpu_isa", "other",
}
ROLES = {"cause", "consequence"}

DEFAULT_SKIP = [
    "*/tests/*", "tests/*", "*/test/*", "test/*", "*/docs/*", "docs/*", "*/examples/*",
    "examples/*", "*/benchmarks/*", "benchmarks/*", "*/benchmark/*", "benchmark/*",
    "*/test_*.py", "test_*.py", "*_test.py", "*_test.go", "*_test.cc", "*_test.cpp",
    "*/testing/*", "*/integration-tests/*", "integration-tests/*", "*/conftest.py",
]

LANG_BY_EXT = {
    ".py": "python", ".rs": "rust", ".go": "go",
    ".c": "c", ".cc": "c", ".cpp": "c", ".cxx": "c", ".cu": "c", ".cuh": "c",
    ".h": "c", ".hh": "c", ".hpp": "c", ".inl": "c", ".m": "c", ".mm": "c",
}

# A template must keep at least this much literal text to be worth keeping.
MIN_WORD = re.compile(r"[A-Za-z]{3,}")
PLACEHOLDER = "{}"


@dataclass
class Message:
    file: str
    line: int
    kind: str
    exception: str | None
    template: str
    category: str | None = None
    role: str | None = None
    label_source: str | None = None


# --------------------------------------------------------------------------- sources

class GitSource:
    """Files of one commit of a git directory, read without a work tree."""

    def __init__(self, git_dir: Path, ref: str = "HEAD"):
        self.git_dir = Path(git_dir)
        self.ref = ref

    def _git(self, *args: str, input: bytes | None = None) -> bytes:
        return subprocess.run(["git", f"--git-dir={self.git_dir}", *args], input=input,
                              check=True, capture_output=True).stdout

    def list(self) -> list[str]:
        out = self._git("ls-tree", "-r", "--name-only", "-z", self.ref)
        return [p for p in out.decode("utf-8", "replace").split("\0") if p]

    def read_many(self, paths: list[str]) -> Iterator[tuple[str, str]]:
        """Stream blobs through one ``git cat-file --batch`` process."""
        if not paths:
            return
        proc = subprocess.Popen(["git", f"--git-dir={self.git_dir}", "cat-file", "--batch"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdin and proc.stdout
        try:
            for p in paths:
                proc.stdin.write(f"{self.ref}:{p}\n".encode())
                proc.stdin.flush()
                header = proc.stdout.readline().decode()
                if header.endswith("missing\n"):
                    continue
                size = int(header.split()[2])
                data = proc.stdout.read(size)
                proc.stdout.read(1)
                yield p, data.decode("utf-8", "replace")
        finally:
            proc.stdin.close()
            proc.wait()

    def read(self, path: str) -> str | None:
        try:
            return self._git("show", f"{self.ref}:{path}").decode("utf-8", "replace")
        except subprocess.CalledProcessError:
            return None

    def describe(self) -> str | None:
        try:
            return self._git("describe", "--tags", self.ref).decode().strip() or None
        except subprocess.CalledProcessError:
            return None

    def commit_info(self) -> tuple[str, str]:
        out = self._git("log", "-1", "--format=%H %cs", self.ref).decode().split()
        return out[0], out[1]


class ZipSource:
    """Files of a wheel (a zip), for projects whose git history is too large to fetch."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.zf = zipfile.ZipFile(self.path)

    def list(self) -> list[str]:
        return [n for n in self.zf.namelist() if not n.endswith("/")]

    def read_many(self, paths: list[str]) -> Iterator[tuple[str, str]]:
        for p in paths:
            yield p, self.zf.read(p).decode("utf-8", "replace")

    def read(self, path: str) -> str | None:
        try:
            return self.zf.read(path).decode("utf-8", "replace")
        except KeyError:
            return None

    def describe(self) -> str | None:
        m = re.match(r"[^-]+-([^-]+)-", self.path.name)
        return m.group(1) if m else None

    def commit_info(self) -> tuple[str, str]:
        return self.path.name, ""


class DirSource:
    """Files under a directory (an unpacked sdist or a plain checkout)."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def list(self) -> list[str]:
        return [str(p.relative_to(self.path)) for p in self.path.rglob("*") if p.is_file()]

    def read_many(self, paths: list[str]) -> Iterator[tuple[str, str]]:
        for p in paths:
            yield p, (self.path / p).read_text("utf-8", "replace")

    def read(self, path: str) -> str | None:
        f = self.path / path
        return f.read_text("utf-8", "replace") if f.is_file() else None

    def describe(self) -> str | None:
        return None

    def commit_info(self) -> tuple[str, str]:
        return str(self.path), ""


def open_source(spec: dict, mirror: Path, wheels: Path):
    if "git" in spec:
        g = Path(spec["git"])
        if not g.is_absolute():
            g = mirror / g
        if (g / "repo").is_dir():
            g = g / "repo"
        return GitSource(g, spec.get("ref", "HEAD"))
    if "wheel" in spec:
        pattern = spec["wheel"]
        if not os.path.isabs(pattern):
            pattern = str(wheels / pattern)
        hits = sorted(glob.glob(pattern))
        if not hits:
            raise FileNotFoundError(f"no wheel matches {pattern}")
        return ZipSource(Path(hits[-1]))
    if "dir" in spec:
        return DirSource(Path(spec["dir"]))
    raise ValueError(f"source needs git, wheel or dir: {spec}")


def project_version(src, spec) -> str:
    """version: a literal, {describe: true}, or {file: path, regex: '...(group 1)...'}."""
    if isinstance(spec, str):
        return spec
    spec = spec or {"describe": True}
    out = None
    if spec.get("file"):
        text = src.read(spec["file"])
        if text is not None:
            m = re.search(spec.get("regex", r"(\S+)"), text, re.M)
            if m:
                out = ".".join(g.strip() for g in m.groups() if g)
    if out is None and spec.get("describe", True):
        out = src.describe()
    sha, date = src.commit_info()
    if out is None:
        out = f"main@{sha[:9]}" + (f" ({date})" if date else "")
    elif spec.get("with_commit") and date:
        out = f"{out} (main@{sha[:9]} {date})"
    return out


# --------------------------------------------------------------------------- helpers

PRINTF_SPEC = re.compile(r"%(?:\d+\$)?[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?"
                         r"(?:hh|h|ll|l|L|q|j|z|Z|t|I64|I32)?[diouxXeEfFgGaAcspnSrvwqTtb]")
PY_PERCENT = re.compile(r"%(?:\([^)]*\))?[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[diouxXeEfFgGcrsa]")
BRACE_FIELD = re.compile(r"\{[^{}]*\}")


def printf_to_template(s: str, go: bool = False) -> str:
    s = s.replace("%%", "\x00")
    s = PRINTF_SPEC.sub(PLACEHOLDER, s)
    return s.replace("\x00", "%")


def brace_to_template(s: str) -> str:
    """Python str.format / Rust format! / fmt::format: every {...} field becomes {}."""
    s = s.replace("{{", "\x01").replace("}}", "\x02")
    s = BRACE_FIELD.sub(PLACEHOLDER, s)
    return s.replace("\x01", "{").replace("\x02", "}")


def squash(t: str) -> str:
    t = t.replace("\r", "")
    t = re.sub(r"[ \t]*\n[ \t]*", " ", t) if "\n" in t.strip("\n") else t.strip("\n")
    t = re.sub(r"[ \t]{2,}", " ", t)
    return t.strip()


def keep(template: str) -> bool:
    literal = template.replace(PLACEHOLDER, " ")
    return bool(MIN_WORD.search(literal))


# --------------------------------------------------------------------------- Python

PY_LOG_LEVELS = {"error", "exception", "critical", "fatal", "error_once"}
PY_WARN_LEVELS = {"warning", "warn", "warning_once"}
PY_LOGGERISH = re.compile(r"(?i)log")


class PyRender:
    """Render a Python expression as a message template."""

    @classmethod
    def render(cls, node: ast.AST | None) -> str:
        if node is None:
            return PLACEHOLDER
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else PLACEHOLDER
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    parts.append(v.value)
                else:
                    parts.append(PLACEHOLDER)
            return "".join(parts)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Add):
                return cls.render(node.left) + cls.render(node.right)
            if isinstance(node.op, ast.Mod) and cls.is_str(node.left):
                s = cls.render(node.left).replace("%%", "\x00")
                return PY_PERCENT.sub(PLACEHOLDER, s).replace("\x00", "%")
            return PLACEHOLDER
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "format" and cls.is_str(f.value):
                return brace_to_template(cls.render(f.value))
            if isinstance(f, ast.Attribute) and f.attr == "join" and node.args:
                return PLACEHOLDER
            if isinstance(f, ast.Attribute) and f.attr in {"strip", "rstrip", "lstrip", "upper", "lower",
                                                            "replace"} and cls.is_str(f.value):
                return cls.render(f.value)
            name = call_name(f)
            if name in {"dedent", "cleandoc", "str", "_", "gettext"} and node.args:
                return cls.render(node.args[0])
            return PLACEHOLDER
        if isinstance(node, ast.IfExp):
            a, b = cls.render(node.body), cls.render(node.orelse)
            return a if len(a) >= len(b) else b
        return PLACEHOLDER

    @staticmethod
    def is_str(node: ast.AST) -> bool:
        return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(
            node, ast.JoinedStr) or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
                                     and (PyRender.is_str(node.left) or PyRender.is_str(node.right)))


def call_name(f: ast.AST) -> str | None:
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def dotted(f: ast.AST) -> str:
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return dotted(f.value) + "." + f.attr
    if isinstance(f, ast.Call):
        return dotted(f.func) + "()"
    return "?"


def py_message_arg(call: ast.Call) -> ast.AST | None:
    if call.args:
        a = call.args[0]
        if isinstance(a, ast.Starred):
            return None
        return a
    for kw in call.keywords:
        if kw.arg in {"msg", "message", "detail", "reason", "error", "text"}:
            return kw.value
    return None


def extract_python(path: str, text: str, cfg: dict) -> list[Message]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    levels = set(PY_LOG_LEVELS)
    if cfg.get("log_warning"):
        levels |= PY_WARN_LEVELS
    out: list[Message] = []
    # `msg = f"..."; raise ValueError(msg)`: remember string assignments per function
    assigns: dict[int, dict[str, list[tuple[int, str]]]] = {}
    owner: dict[int, int] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            table: dict[str, list[tuple[int, str]]] = {}
            for sub in ast.walk(fn):
                if sub is not fn and isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                owner.setdefault(id(sub), id(fn)) if isinstance(fn, ast.Module) else owner.__setitem__(id(sub), id(fn))
                if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name) \
                        and PyRender.is_str(sub.value):
                    table.setdefault(sub.targets[0].id, []).append((sub.lineno, PyRender.render(sub.value)))
                elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name) and \
                        isinstance(sub.op, ast.Add) and sub.target.id in table:
                    ln, prev = table[sub.target.id][-1]
                    table[sub.target.id].append((sub.lineno, prev + PyRender.render(sub.value)))
            assigns[id(fn)] = table

    def resolve(arg: ast.AST, at: ast.AST) -> str:
        if isinstance(arg, ast.Name):
            table = assigns.get(owner.get(id(at), -1), {})
            best = None
            for ln, t in table.get(arg.id, []):
                if ln <= at.lineno:
                    best = t
            if best is not None:
                return best
        return PyRender.render(arg)

    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc
            if isinstance(exc, ast.Call):
                name = call_name(exc.func)
                arg = py_message_arg(exc)
                if arg is None:
                    continue
                t = resolve(arg, node)
                out.append(Message(path, node.lineno, "raise", name, t))
        elif isinstance(node, ast.Assert) and node.msg is not None and cfg.get("python_assert", True):
            out.append(Message(path, node.lineno, "assert", "AssertionError", PyRender.render(node.msg)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr in levels and PY_LOGGERISH.search(dotted(node.func.value)):
                arg = py_message_arg(node)
                if arg is None:
                    continue
                t = resolve(arg, node)
                if (isinstance(arg, (ast.Constant, ast.JoinedStr, ast.Name)) or PyRender.is_str(arg)) and len(node.args) > 1:
                    t = PY_PERCENT.sub(PLACEHOLDER, t.replace("%%", "\x00")).replace("\x00", "%")
                kind = "log" if attr not in PY_WARN_LEVELS else "log_warning"
                out.append(Message(path, node.lineno, kind, None, t))
    return out


# --------------------------------------------------------------------------- C-like lexing

def blank_comments(text: str, lang: str) -> str:
    """Replace comments with spaces (keeping newlines and offsets); strings stay."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c == '"':
            if lang == "rust" and i > 0 and text[i - 1] == "r" or (
                    lang == "c" and i > 0 and text[i - 1] == "R" and i + 1 < n and text[i + 1] == "("):
                j = skip_raw_string(text, i, lang)
            else:
                j = skip_string(text, i, '"')
            i = j
        elif c == "`" and lang == "go":
            j = text.find("`", i + 1)
            i = n if j < 0 else j + 1
        elif c == "'" and lang in ("c", "go"):
            j = skip_string(text, i, "'")
            i = j if j - i <= 12 else i + 1
        else:
            i += 1
    return "".join(out)


def skip_string(text: str, i: int, q: str) -> int:
    j = i + 1
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == q:
            return j + 1
        if c == "\n" and q == "'":
            return j
        j += 1
    return n


def skip_raw_string(text: str, i: int, lang: str) -> int:
    if lang == "rust":
        # r"..." or r#"..."# (the caller is at the quote; hashes sit before it)
        k = i - 1
        hashes = 0
        while k >= 0 and text[k] == "#":
            hashes += 1
            k -= 1
        end = '"' + "#" * hashes
        j = text.find(end, i + 1)
        return len(text) if j < 0 else j + len(end)
    # C++ R"delim( ... )delim"
    m = re.match(r'"([^(\s]{0,16})\(', text[i:])
    if not m:
        return i + 1
    end = ")" + m.group(1) + '"'
    j = text.find(end, i + m.end())
    return len(text) if j < 0 else j + len(end)


def match_paren(text: str, i: int, lang: str) -> int:
    """text[i] is an opening bracket; return the index just past its match (or -1)."""
    depth = 0
    n = len(text)
    j = i
    opens, closes = "([{", ")]}"
    while j < n:
        c = text[j]
        if c == '"':
            if lang == "rust" and j > 0 and (text[j - 1] == "r" or text[j - 1] == "#"):
                j = skip_raw_string(text, j, lang)
            else:
                j = skip_string(text, j, '"')
            continue
        if c == "`" and lang == "go":
            k = text.find("`", j + 1)
            j = n if k < 0 else k + 1
            continue
        if c == "'" and lang in ("c", "go"):
            k = skip_string(text, j, "'")
            if k - j <= 12:
                j = k
                continue
        if c in opens:
            depth += 1
        elif c in closes:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
        if j - i > 20000:
            return -1
    return -1


def split_args(s: str, lang: str) -> list[str]:
    """Split a call's inner text on top-level commas."""
    args, depth, start, j, n = [], 0, 0, 0, len(s)
    while j < n:
        c = s[j]
        if c == '"':
            j = skip_raw_string(s, j, lang) if (lang == "rust" and j > 0 and s[j - 1] in "r#") else skip_string(s, j, '"')
            continue
        if c == "`" and lang == "go":
            k = s.find("`", j + 1)
            j = n if k < 0 else k + 1
            continue
        if c == "'" and lang in ("c", "go"):
            k = skip_string(s, j, "'")
            if k - j <= 12:
                j = k
                continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "<" and lang == "rust":
            pass
        elif c == "," and depth == 0:
            args.append(s[start:j])
            start = j + 1
        j += 1
    tail = s[start:]
    if tail.strip():
        args.append(tail)
    return [a.strip() for a in args]


C_ESCAPES = {"n": "\n", "t": "\t", "r": "", "\\": "\\", '"': '"', "'": "'", "0": "", "a": "", "e": "",
             "x1b": ""}


def unescape(s: str) -> str:
    def rep(m):
        e = m.group(1)
        if e.startswith("x") or e.startswith("u") or e.startswith("0") or e.startswith("033"):
            return ""
        return C_ESCAPES.get(e, e)
    return re.sub(r"\\(x[0-9a-fA-F]{1,2}|u\{?[0-9a-fA-F]{1,6}\}?|0[0-7]{0,2}|033|.)", rep, s)


STR_TOKEN = re.compile(r'(?:u8|[uUL])?(?:"(?:[^"\\\n]|\\.)*")', re.S)
RUST_RAW = re.compile(r'r(#*)"(.*?)"\1', re.S)
GO_RAW = re.compile(r"`([^`]*)`", re.S)


def literal_pieces(expr: str, lang: str, printf: bool) -> tuple[str, bool]:
    """Concatenate a C/Go/Rust expression's string literals, non-literal parts become {}.

    Returns (template, had_literal)."""
    pieces: list[str] = []
    pos = 0
    had = False
    pat = STR_TOKEN
    tokens = []
    for m in pat.finditer(expr):
        tokens.append((m.start(), m.end(), unescape(m.group(0)[m.group(0).index('"') + 1:-1])))
    if lang == "rust":
        tokens += [(m.start(), m.end(), m.group(2)) for m in RUST_RAW.finditer(expr)]
    if lang == "go":
        tokens += [(m.start(), m.end(), m.group(1)) for m in GO_RAW.finditer(expr)]
    if lang == "c":
        for m in re.finditer(r'R"([^(\s]{0,16})\((.*?)\)\1"', expr, re.S):
            tokens.append((m.start(), m.end(), m.group(2)))
    tokens.sort()
    last_end = 0
    filtered = []
    for t in tokens:
        if t[0] >= last_end:
            filtered.append(t)
            last_end = t[1]
    for start, end, val in filtered:
        between = expr[pos:start]
        if between.strip() and re.search(r"[A-Za-z0-9_)\]]", between):
            gap = between.strip().strip("+<,").strip()
            if printf and re.fullmatch(r"PRI[diouxX]\w*|SCN\w+", gap):
                pieces.append("d")
            elif gap:
                pieces.append(PLACEHOLDER)
        pieces.append(val)
        had = True
        pos = end
    tail = expr[pos:]
    if tail.strip() and re.search(r"[A-Za-z0-9_(]", tail) and had:
        pieces.append(PLACEHOLDER)
    return "".join(pieces), had


def render_c_expr(expr: str, lang: str = "c") -> str:
    """One argument of a C/C++ error call: a literal, a concatenation, or a formatting call."""
    e = expr.strip()
    m = re.match(r"(?:std::)?(?:string_format|format|fmt::format|tfm::format|strprintf|absl::StrFormat|"
                 r"c10::str|std::string|string|TLLM_STR|fmtstr|absl::StrCat|llvm::formatv)\s*\(", e)
    if m and e.endswith(")"):
        inner = e[m.end():-1]
        args = split_args(inner, lang)
        name = m.group(0)
        if "c10::str" in name or "StrCat" in name or name.startswith("std::string") or name.startswith("string"):
            return "".join(render_c_expr(a, lang) if STR_TOKEN.search(a) else PLACEHOLDER for a in args)
        if args:
            fmt_t, had = literal_pieces(args[0], lang, printf=True)
            if had:
                if "fmt::format" in name or "formatv" in name:
                    return brace_to_template(fmt_t)
                return printf_to_template(fmt_t)
        return PLACEHOLDER
    t, had = literal_pieces(e, lang, printf=False)
    return t if had else PLACEHOLDER


def concat_args(args: list[str], lang: str = "c") -> str:
    """TORCH_CHECK style: every argument streamed one after the other."""
    return "".join(render_c_expr(a, lang) for a in args)


def printf_args(args: list[str], lang: str = "c") -> str:
    if not args:
        return ""
    t, had = literal_pieces(args[0], lang, printf=True)
    if not had:
        return render_c_expr(args[0], lang)
    return printf_to_template(t)


def stream_expr(s: str) -> str:
    """``LOG(ERROR) << a << "b" << c``: split on top-level << and render."""
    parts, depth, start, j, n = [], 0, 0, 0, len(s)
    while j < n:
        c = s[j]
        if c == '"':
            j = skip_string(s, j, '"')
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "<" and j + 1 < n and s[j + 1] == "<" and depth == 0:
            parts.append(s[start:j])
            start = j + 2
            j += 2
            continue
        j += 1
    parts.append(s[start:])
    out = []
    for p in parts:
        p = p.strip()
        if not p:
            continue
        if re.fullmatch(r"(?:std::)?endl|std::flush", p):
            continue
        out.append(render_c_expr(p))
    return "".join(out)


def line_of(text: str, pos: int, starts: list[int]) -> int:
    import bisect
    return bisect.bisect_right(starts, pos)


def line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


# call name -> (kind, how the message is formed)
#   how: "cond_concat" skip first arg then concatenate; "concat"; "printf"; "cond_printf";
#        "type_concat" first arg is the error type; "assert" the condition itself; "skip2_concat"
C_CALLS = {
    "TORCH_CHECK": ("check", "cond_concat"),
    "TORCH_CHECK_VALUE": ("check", "cond_concat"),
    "TORCH_CHECK_INDEX": ("check", "cond_concat"),
    "TORCH_CHECK_TYPE": ("check", "cond_concat"),
    "TORCH_CHECK_NOT_IMPLEMENTED": ("check", "cond_concat"),
    "TORCH_CHECK_LINALG": ("check", "cond_concat"),
    "TORCH_CHECK_WITH": ("check", "skip2_concat"),
    "TORCH_CHECK_MSG": ("check", "cond_concat"),
    "TORCH_INTERNAL_ASSERT": ("check", "cond_concat"),
    "AT_ERROR": ("throw", "concat"),
    "C10_THROW_ERROR": ("throw", "type_concat"),
    "TLLM_CHECK_WITH_INFO": ("check", "cond_printf"),
    "TLLM_CHECK_DEBUG_WITH_INFO": ("check", "cond_printf"),
    "TLLM_THROW": ("throw", "printf"),
    "TLLM_LOG_ERROR": ("log", "printf"),
    "GGML_ASSERT": ("assert", "assert"),
    "GGML_ABORT": ("abort", "printf"),
    "GGML_LOG_ERROR": ("log", "printf"),
    "LLAMA_LOG_ERROR": ("log", "printf"),
    "LOG_ERR": ("log", "printf"),
    "LOG_ERROR_PRINTF": ("log", "printf"),
    "SRV_ERR": ("log", "printf"),
    "SLT_ERR": ("log", "printf"),
    "QUE_ERR": ("log", "printf"),
    "WARN": ("warn", "printf"),
    "fprintf": ("fprintf", "stderr_printf"),
}
C_WARN_CALLS = {"TORCH_WARN": ("log_warning", "concat"), "GGML_LOG_WARN": ("log_warning", "printf"), "LLAMA_LOG_WARN": ("log_warning", "printf"),
                "LOG_WRN": ("log_warning", "printf"), "SRV_WRN": ("log_warning", "printf"),
                "TLLM_LOG_WARNING": ("log_warning", "printf")}
C_STREAM_CALLS: dict[str, str] = {}
THROW_RE = re.compile(r"\bthrow\s+((?:std::|c10::|::)?[A-Za-z_][\w:]*)\s*[({]")
LOG_STREAM_RE = re.compile(r"\b(?:LOG|LOG_IF|LOG_FIRST_N|VLOG|LOG_EVERY_N)\s*\(\s*(ERROR|FATAL|DFATAL)\b[^)]*\)\s*<<"
                           r"|\b(LOG_ERROR|LOG_FATAL|TORCH_LOG_ERROR)\s*<<")
STATUS_CTOR_RE = re.compile(r"\b(TRITONSERVER_ErrorNew|Status)\s*\(\s*(?:TRITONSERVER_ERROR_(\w+)|Status::Code::(\w+))\s*,")


def extract_c(path: str, text: str, cfg: dict) -> list[Message]:
    clean = blank_comments(text, "c")
    starts = line_starts(clean)
    out: list[Message] = []
    calls = dict(C_CALLS)
    if cfg.get("log_warning"):
        calls.update(C_WARN_CALLS)
    for extra, spec in (cfg.get("c_calls") or {}).items():
        calls[extra] = tuple(spec)
    names = sorted(calls, key=len, reverse=True)
    call_re = re.compile(r"(?<![\w.>])(" + "|".join(map(re.escape, names)) + r")\s*\(")
    for m in call_re.finditer(clean):
        name = m.group(1)
        # skip the macro definitions themselves
        ls = clean.rfind("\n", 0, m.start()) + 1
        if re.match(r"\s*#\s*define\b", clean[ls:m.start()]):
            continue
        end = match_paren(clean, m.end() - 1, "c")
        if end < 0:
            continue
        inner = clean[m.end():end - 1]
        args = split_args(inner, "c")
        kind, how = calls[name]
        exc = None
        t = None
        if how == "cond_concat":
            if len(args) < 2:
                continue
            t = concat_args(args[1:])
        elif how == "skip2_concat":
            if len(args) < 3:
                continue
            exc = args[0]
            t = concat_args(args[2:])
        elif how == "type_concat":
            if len(args) < 2:
                continue
            exc = args[0]
            t = concat_args(args[1:])
        elif how == "concat":
            t = concat_args(args)
        elif how == "printf":
            t = printf_args(args)
        elif how == "cond_printf":
            if len(args) < 2:
                continue
            t = printf_args(args[1:])
        elif how == "stderr_printf":
            if len(args) < 2 or args[0].strip() != "stderr":
                continue
            t = printf_args(args[1:])
        elif how == "assert":
            if not args:
                continue
            cond = re.sub(r"\s+", " ", args[0])
            t = f"GGML_ASSERT({cond}) failed"
        if name == "TORCH_CHECK" and exc is None:
            exc = "RuntimeError"
        elif name.startswith("TORCH_CHECK_") and exc is None:
            exc = {"TORCH_CHECK_VALUE": "ValueError", "TORCH_CHECK_INDEX": "IndexError",
                   "TORCH_CHECK_TYPE": "TypeError", "TORCH_CHECK_NOT_IMPLEMENTED": "NotImplementedError"
                   }.get(name, "RuntimeError")
        elif name.startswith("TLLM_"):
            exc = exc or ("TllmException" if kind != "log" else None)
        if t is None:
            continue
        out.append(Message(path, line_of(clean, m.start(), starts), kind, exc, t))
    for m in THROW_RE.finditer(clean):
        exc = m.group(1)
        if exc in {"std::exception"}:
            pass
        end = match_paren(clean, m.end() - 1, "c")
        if end < 0:
            continue
        args = split_args(clean[m.end():end - 1], "c")
        if not args:
            continue
        t = render_c_expr(args[0]) if len(args) == 1 or not exc.endswith(("Error", "error", "exception", "Exception")) \
            else concat_args(args)
        if exc.startswith(("TllmException", "tensorrt_llm")) and len(args) >= 3:
            t = concat_args(args[2:])
        out.append(Message(path, line_of(clean, m.start(), starts), "throw", exc.split("::")[-1], t))
    for m in LOG_STREAM_RE.finditer(clean):
        end = clean.find(";", m.end())
        # a ';' inside a string literal would cut early: walk to the real end
        j = m.end()
        depth = 0
        while j < len(clean):
            c = clean[j]
            if c == '"':
                j = skip_string(clean, j, '"')
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif c == ";" and depth <= 0:
                break
            j += 1
        end = j
        level = m.group(1) or m.group(2)
        t = stream_expr(clean[m.end():end])
        out.append(Message(path, line_of(clean, m.start(), starts), "log_fatal" if "FATAL" in level else "log",
                           None, t))
    # MACRO(cond[, ErrorType]) << "message" << x;   (TVM_FFI_ICHECK, TM_CHECK, glog CHECK, ...)
    stream_calls = dict(C_STREAM_CALLS)
    stream_calls.update(cfg.get("c_stream_calls") or {})
    if stream_calls:
        sre = re.compile(r"(?<![\w.>])(" + "|".join(map(re.escape, sorted(stream_calls, key=len, reverse=True)))
                         + r")\s*\(")
        for m in sre.finditer(clean):
            ls = clean.rfind("\n", 0, m.start()) + 1
            if re.match(r"\s*#\s*define\b", clean[ls:m.start()]):
                continue
            end = match_paren(clean, m.end() - 1, "c")
            if end < 0:
                continue
            after = re.match(r"\s*<<", clean[end:end + 200])
            if not after:
                continue
            j, depth = end + after.end(), 0
            while j < len(clean):
                c = clean[j]
                if c == '"':
                    j = skip_string(clean, j, '"')
                    continue
                if c in "([{":
                    depth += 1
                elif c in ")]}":
                    depth -= 1
                elif c == ";" and depth <= 0:
                    break
                j += 1
            t = stream_expr(clean[end + after.end():j])
            args = split_args(clean[m.end():end - 1], "c")
            kind = stream_calls[m.group(1)]
            exc = None
            if len(args) == 1 and re.fullmatch(r"[A-Z]\w*(?:Error|Exception)", args[0]):
                exc = args[0]
            elif len(args) >= 2 and re.fullmatch(r"[A-Z]\w*(?:Error|Exception)", args[-1]):
                exc = args[-1]
            out.append(Message(path, line_of(clean, m.start(), starts), kind, exc, t))
    if cfg.get("status_ctors"):
        for m in STATUS_CTOR_RE.finditer(clean):
            paren = clean.find("(", m.start())
            end = match_paren(clean, paren, "c")
            if end < 0:
                continue
            args = split_args(clean[paren + 1:end - 1], "c")
            if len(args) < 2:
                continue
            code = m.group(2) or m.group(3)
            t = concat_args(args[1:])
            out.append(Message(path, line_of(clean, m.start(), starts), "status", code, t))
    return out


# --------------------------------------------------------------------------- Rust

RUST_MACROS = {
    "panic": "panic", "error": "log", "bail": "bail", "anyhow": "anyhow", "unreachable": "panic",
    "unimplemented": "panic", "todo": "panic", "eyre": "anyhow", "ensure": "ensure",
    "format_err": "anyhow", "tracing::error": "log", "log::error": "log",
}
RUST_WARN = {"warn": "log_warning", "tracing::warn": "log_warning", "log::warn": "log_warning"}


def rust_fmt(args: list[str]) -> str | None:
    if not args:
        return None
    first = args[0]
    t, had = literal_pieces(first, "rust", printf=False)
    if not had:
        return None
    return brace_to_template(t)


def strip_tracing_fields(args: list[str]) -> list[str]:
    """tracing::error!(target: "x", field = %v, "message {}", ...) -> the message args."""
    for i, a in enumerate(args):
        if STR_TOKEN.match(a.lstrip()) or RUST_RAW.match(a.lstrip()):
            return args[i:]
    return []


def extract_rust(path: str, text: str, cfg: dict) -> list[Message]:
    clean = blank_comments(text, "rust")
    starts = line_starts(clean)
    out: list[Message] = []
    macros = dict(RUST_MACROS)
    if cfg.get("log_warning"):
        macros.update(RUST_WARN)
    names = sorted(macros, key=len, reverse=True)
    mac_re = re.compile(r"(?<![\w:])(" + "|".join(map(re.escape, names)) + r")!\s*[(\[{]")
    for m in mac_re.finditer(clean):
        end = match_paren(clean, m.end() - 1, "rust")
        if end < 0:
            continue
        args = split_args(clean[m.end():end - 1], "rust")
        kind = macros[m.group(1)]
        if kind == "ensure":
            args = args[1:]
            kind = "bail"
        if kind.startswith("log"):
            args = strip_tracing_fields(args)
        t = rust_fmt(args)
        if t is None:
            continue
        out.append(Message(path, line_of(clean, m.start(), starts), kind, None, t))
    # .expect("...") panics with the message
    for m in re.finditer(r"\.expect\s*\(", clean):
        end = match_paren(clean, m.end() - 1, "rust")
        if end < 0:
            continue
        args = split_args(clean[m.end():end - 1], "rust")
        t = rust_fmt(args)
        if t is None:
            inner = clean[m.end():end - 1]
            fm = re.search(r"format!\s*\(", inner)
            if fm:
                e2 = match_paren(inner, fm.end() - 1, "rust")
                t = rust_fmt(split_args(inner[fm.end():e2 - 1], "rust")) if e2 > 0 else None
        if t is None:
            continue
        out.append(Message(path, line_of(clean, m.start(), starts), "expect", None, t))
    # Err(Something("...")) / Err(format!("...")) / Err("...".into())
    for m in re.finditer(r"(?<![\w])Err\s*\(", clean):
        end = match_paren(clean, m.end() - 1, "rust")
        if end < 0:
            continue
        inner = clean[m.end():end - 1]
        if re.match(r"\s*(?:anyhow|eyre|format_err)!", inner):
            continue  # counted as anyhow!
        em = re.match(r"\s*([A-Z]\w*(?:::\w+)*)", inner)
        exc = em.group(1) if em else None
        fm = re.search(r"format!\s*\(", inner)
        if fm:
            e2 = match_paren(inner, fm.end() - 1, "rust")
            t = rust_fmt(split_args(inner[fm.end():e2 - 1], "rust")) if e2 > 0 else None
        else:
            sm = STR_TOKEN.search(inner)
            t = unescape(sm.group(0)[1:-1]) if sm else None
            if t is not None:
                t = brace_to_template(t) if "{" in t else t
        if t is None:
            continue
        out.append(Message(path, line_of(clean, m.start(), starts), "err", exc, t))
    # thiserror: #[error("...")] Variant
    for m in re.finditer(r"#\[\s*error\s*\(", clean):
        end = match_paren(clean, m.end() - 1, "rust")
        if end < 0:
            continue
        args = split_args(clean[m.end():end - 1], "rust")
        t = rust_fmt(args)
        if t is None:
            continue
        vm = re.match(r"\s*\]\s*(?:#\[[^\]]*\]\s*)*(\w+)", clean[end:end + 300])
        variant = vm.group(1) if vm else None
        out.append(Message(path, line_of(clean, m.start(), starts), "thiserror", variant, t))
    return out


# --------------------------------------------------------------------------- Go

GO_CALLS = {
    "fmt.Errorf": ("errorf", "printf"), "errors.New": ("error", "concat"),
    "slog.Error": ("log", "concat1"), "log.Fatal": ("log_fatal", "concat"),
    "log.Fatalf": ("log_fatal", "printf"), "log.Fatalln": ("log_fatal", "concat"),
    "log.Panicf": ("panic", "printf"), "log.Panic": ("panic", "concat"),
    "panic": ("panic", "concat1"), "slog.ErrorContext": ("log", "ctx_concat1"),
}
GO_WARN = {"slog.Warn": ("log_warning", "concat1"), "slog.WarnContext": ("log_warning", "ctx_concat1")}


def go_render(arg: str) -> str:
    a = arg.strip()
    m = re.match(r"(?:fmt\.Sprintf|fmt\.Errorf)\s*\(", a)
    if m and a.endswith(")"):
        inner = split_args(a[m.end():-1], "go")
        return printf_args(inner, "go") if inner else PLACEHOLDER
    m = re.match(r"errors\.New\s*\(", a)
    if m and a.endswith(")"):
        return go_render(a[m.end():-1])
    t, had = literal_pieces(a, "go", printf=False)
    return t if had else PLACEHOLDER


def extract_go(path: str, text: str, cfg: dict) -> list[Message]:
    clean = blank_comments(text, "go")
    starts = line_starts(clean)
    calls = dict(GO_CALLS)
    if cfg.get("log_warning"):
        calls.update(GO_WARN)
    names = sorted(calls, key=len, reverse=True)
    call_re = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")\s*\(")
    out: list[Message] = []
    for m in call_re.finditer(clean):
        end = match_paren(clean, m.end() - 1, "go")
        if end < 0:
            continue
        args = split_args(clean[m.end():end - 1], "go")
        if not args:
            continue
        kind, how = calls[m.group(1)]
        if how == "printf":
            t = printf_args(args, "go")
        elif how == "concat1":
            t = go_render(args[0])
        elif how == "ctx_concat1":
            if len(args) < 2:
                continue
            t = go_render(args[1])
        else:
            t = "".join(go_render(a) for a in args)
        out.append(Message(path, line_of(clean, m.start(), starts), kind, None, t))
    return out


EXTRACTORS = {"python": extract_python, "c": extract_c, "rust": extract_rust, "go": extract_go}


# --------------------------------------------------------------------------- labels

class Labeler:
    """override > unlabelled (project, by path) > family (project, common, then the project's family_after) > null.

    Every label comes from the message's own words (a family regex), or from a hand override: a reader of the
    log could give it. `kinds`, `exception` and `path` only narrow a family to the call sites where its wording
    means that class (a divisibility check of a kernel's arguments is not a flag error); a file's path alone
    never labels a message. `unlabelled` path rules (category null) take parts of a project out (request
    validation of the HTTP front-ends: no failure of the service)."""

    def __init__(self, pcfg: dict, common: dict):
        labels = pcfg.get("labels") or {}
        self.unlabelled = [self._compile(r, key="path") for r in (labels.get("unlabelled") or [])]
        for r in labels.get("unlabelled") or []:
            if r.get("category") is not None:
                raise ValueError(f"an `unlabelled` path rule gives no category: {r}")
        self.family = [self._compile(r) for r in (labels.get("family") or [])]
        self.family += [self._compile(r) for r in (common.get("family") or [])]
        self.family += [self._compile(r) for r in (labels.get("family_after") or [])]
        self.overrides = [self._compile_override(o) for o in (pcfg.get("overrides") or [])]

    @staticmethod
    def _check(r):
        cat, role = r.get("category"), r.get("role")
        if cat is not None and cat not in CATEGORIES:
            raise ValueError(f"unknown category {cat!r} in {r}")
        if role is not None and role not in ROLES:
            raise ValueError(f"unknown role {role!r} in {r}")

    def _compile(self, r, key="regex"):
        self._check(r)
        rx = re.compile(r[key], re.I if r.get("ignore_case", key == "regex") else 0)
        kinds = set(r["kinds"]) if r.get("kinds") else None
        exc = re.compile(r["exception"]) if r.get("exception") else None
        path = re.compile(r["path"]) if key == "regex" and r.get("path") else None
        return rx, r.get("category"), r.get("role", "cause"), kinds, exc, path

    def _compile_override(self, o):
        self._check(o)
        where = o.get("where")  # "file:line" or "file"
        rx = re.compile(o["regex"], re.I) if o.get("regex") else None
        return where, rx, o.get("category"), o.get("role", "cause")

    def label(self, msg: Message):
        for where, rx, cat, role in self.overrides:
            if where:
                f, _, ln = where.partition(":")
                if msg.file != f and not msg.file.endswith("/" + f):
                    continue
                if ln and int(ln) != msg.line:
                    continue
            if rx and not rx.search(msg.template):
                continue
            return cat, (role if cat else None), "override"
        if self._module(self.unlabelled, msg):
            return None, None, None
        hit = self._family(self.family, msg)
        if hit:
            return hit
        return None, None, None

    @staticmethod
    def _family(rules, msg):
        for rx, cat, role, kinds, exc, path in rules:
            if kinds and msg.kind not in kinds:
                continue
            if exc and not (msg.exception and exc.search(msg.exception)):
                continue
            if path and not path.search(msg.file):
                continue
            if rx.search(msg.template):
                return cat, (role if cat else None), "family"
        return None

    @staticmethod
    def _module(rules, msg):
        for rx, cat, role, kinds, exc, _ in rules:
            if kinds and msg.kind not in kinds:
                continue
            if exc and not (msg.exception and exc.search(msg.exception)):
                continue
            if rx.search(msg.file):
                return cat, (role if cat else None), "module"
        return None


# --------------------------------------------------------------------------- driver

def selected(path: str, pcfg: dict) -> bool:
    inc = pcfg.get("include") or [""]
    if not any(path.startswith(p) or fnmatch.fnmatch(path, p) for p in inc):
        return False
    exc = list(pcfg.get("exclude") or [])
    if pcfg.get("keep_default_skips") is not False:
        exc += DEFAULT_SKIP
    rel = path
    for p in inc:
        if p and not any(ch in p for ch in "*?[") and path.startswith(p):
            rel = path[len(p):]
            break
    return not any(fnmatch.fnmatch(path, pat) or fnmatch.fnmatch(rel, pat) or path.startswith(pat) for pat in exc)


def lang_of(path: str, pcfg: dict) -> str | None:
    ext = os.path.splitext(path)[1].lower()
    lang = LANG_BY_EXT.get(ext)
    langs = pcfg.get("languages")
    if langs and lang not in langs:
        return None
    return lang


def extract_project(name: str, pcfg: dict, common: dict, mirror: Path, wheels: Path,
                    verbose: bool = False) -> tuple[str, list[dict]]:
    src = open_source(pcfg["source"], mirror, wheels)
    version = project_version(src, pcfg.get("version"))
    files = [p for p in src.list() if selected(p, pcfg) and lang_of(p, pcfg)]
    strip_prefix = pcfg.get("strip_prefix", "")
    labeler = Labeler(pcfg, common)
    rows = []
    seen = set()
    nfiles = 0
    for path, text in src.read_many(files):
        nfiles += 1
        if len(text) > 3_000_000:
            continue
        lang = lang_of(path, pcfg)
        try:
            msgs = EXTRACTORS[lang](path, text, pcfg)
        except RecursionError:
            msgs = []
        for msg in msgs:
            msg.template = squash(msg.template)
            if not keep(msg.template) or len(msg.template) > 1200:
                continue
            if strip_prefix and msg.file.startswith(strip_prefix):
                msg.file = msg.file[len(strip_prefix):]
            key = (msg.file, msg.line, msg.template)
            if key in seen:
                continue
            seen.add(key)
            msg.category, msg.role, msg.label_source = labeler.label(msg)
            rows.append(msg)
    rows.sort(key=lambda m: (m.file, m.line, m.template))
    if verbose:
        print(f"{name}: {nfiles} files, {len(rows)} messages, version {version}", file=sys.stderr)
    out = []
    for m in rows:
        out.append({
            "project": name, "version": version, "file": m.file, "line": m.line, "kind": m.kind,
            "exception": m.exception, "template": m.template, "category": m.category, "role": m.role,
            "label_source": m.label_source,
        })
    return version, out


def relabel(name: str, pcfg: dict, common: dict, rows: list[dict]) -> list[dict]:
    labeler = Labeler(pcfg, common)
    for r in rows:
        m = Message(r["file"], r["line"], r["kind"], r["exception"], r["template"])
        r["category"], r["role"], r["label_source"] = labeler.label(m)
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def summary(out_dir: Path) -> list[dict]:
    stats = []
    for p in sorted(out_dir.glob("*.jsonl")):
        rows = [json.loads(x) for x in p.read_text().splitlines() if x.strip()]
        if not rows:
            continue
        s = {"project": rows[0]["project"], "version": rows[0]["version"], "messages": len(rows),
             "labelled": sum(1 for r in rows if r["category"]),
             "cause": sum(1 for r in rows if r["role"] == "cause"),
             "consequence": sum(1 for r in rows if r["role"] == "consequence")}
        stats.append(s)
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    ap.add_argument("--project", nargs="*", help="only these projects (names in projects.yaml)")
    ap.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR, help="where fetched git dirs live")
    ap.add_argument("--wheels", type=Path, default=Path("/tmp/inv/wheels"),
                    help="where downloaded wheels live (pip download NAME --no-deps -d DIR)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--relabel", action="store_true", help="re-apply labels to the existing jsonl files only")
    ap.add_argument("--stats", action="store_true", help="print counts of the existing jsonl files")
    args = ap.parse_args(argv)

    cfg = yaml.safe_load(args.config.read_text())
    common = cfg.get("common", {})
    projects = cfg["projects"]
    names = args.project or list(projects)
    if args.stats:
        for s in summary(args.out):
            print(json.dumps(s))
        return 0
    rc = 0
    for name in names:
        pcfg = projects[name]
        target = args.out / f"{name}.jsonl"
        if args.relabel:
            if not target.exists():
                continue
            rows = [json.loads(x) for x in target.read_text().splitlines() if x.strip()]
            write_jsonl(target, relabel(name, pcfg, common, rows))
            continue
        try:
            version, rows = extract_project(name, pcfg, common, args.mirror, args.wheels, verbose=True)
        except (FileNotFoundError, subprocess.CalledProcessError) as e:
            print(f"{name}: skipped: {e}", file=sys.stderr)
            rc = 1
            continue
        write_jsonl(target, rows)
    for s in summary(args.out):
        print(json.dumps(s))
    return rc


if __name__ == "__main__":
    sys.exit(main())
