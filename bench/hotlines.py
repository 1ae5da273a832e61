#!/usr/bin/env python3
"""Count the lines crashdoc's scanner marks as hot, with crashdoc's own scanner (imported read-only).

Run it with the Python of the crashdoc being measured (bench/matrix.py does):

    /path/to/venv/bin/python bench/hotlines.py text FILE          # block scanner, as `crashdoc diagnose FILE`
    /path/to/venv/bin/python bench/hotlines.py json FILE          # journal JSON, docker json-file: raw-scanned like
                                                                  # text, or record by record by an older crashdoc
    /path/to/venv/bin/python bench/hotlines.py journal DIR UNIT   # `journalctl --directory DIR -u UNIT -o json`, as json

Prints one JSON object: lines, hot (lines where at least one marker class or rule regex matched), selected
(hot lines plus their context windows: what gets decoded and parsed; text mode only, JSON input parses every
record), hits per marker class, and the patterns behind the hot lines (found again with Python `re` on a
sample of them) with the first and the last line each matched, so a high share can be traced to the lines that cause it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

SAMPLE = 20000
"""Hot lines whose patterns are identified one by one (Python re is slow on hundreds of patterns)."""


def _scanner(json_lines: bool = False):
    from crashdoc.kb import KnowledgeBase

    kb = KnowledgeBase.load()
    try:
        from crashdoc.analyze.feed import make_scanner
    except ImportError:  # an older crashdoc (a baseline checkout): the scanner was built in investigate
        from crashdoc.investigate import make_scanner  # type: ignore[attr-defined,no-redef]

    if json_lines:  # raw-scan-first: JSON lines go through the block scanner like text
        return make_scanner(kb, json_lines=True)
    return make_scanner(kb)


def _raw_json_scan() -> bool:
    """This crashdoc scans JSON lines raw (only hot records are decoded)."""
    import inspect

    try:
        from crashdoc.analyze.feed import make_scanner
    except ImportError:
        return False
    return "json_lines" in inspect.signature(make_scanner).parameters


class Attribution:
    def __init__(self, classes) -> None:
        self.rx = []
        for c in classes:
            for p in c.patterns:
                try:
                    self.rx.append((c.name, p, re.compile(p.encode())))
                except re.error:
                    pass
        self.counts: Counter[tuple[str, str]] = Counter()
        self.example: dict[tuple[str, str], str] = {}
        self.last: dict[tuple[str, str], str] = {}
        self.seen = 0

    def add(self, data: bytes) -> None:
        if self.seen >= SAMPLE:
            return
        self.seen += 1
        for name, p, rx in self.rx:
            if rx.search(data):
                k = (name, p)
                self.counts[k] += 1
                text = data[:300].decode("utf-8", "replace")
                self.example.setdefault(k, text)
                self.last[k] = text

    def top(self, n: int = 12) -> list[dict]:
        return [{"class": c, "pattern": p, "lines": k, "example": self.example[(c, p)], "last": self.last[(c, p)]}
                for (c, p), k in self.counts.most_common(n)]


def text_mode(path: str, json_lines: bool = False) -> dict:
    sc = _scanner(json_lines)
    names = [c.name for c in sc.classes]
    per = Counter()
    att = Attribution(sc.classes)
    hot = selected = 0
    with open(path, "rb") as f:
        for h in sc.lines(f):
            selected += 1
            if h.mask:
                hot += 1
                for i, n in enumerate(names):
                    if h.mask >> i & 1:
                        per[n] += 1
                att.add(h.data)
    return {"mode": "text", "lines": sc.stats.lines, "hot": hot, "selected": selected, "per_class": dict(per),
            "sampled": att.seen, "patterns": att.top(), "engine": sc.stats.engine}


def json_mode(stream) -> dict:
    from crashdoc.parse.lines import parse_line

    try:
        from crashdoc.parse.records import parse_json_lines
    except ImportError:  # an older crashdoc
        from crashdoc.parse.lines import parse_json_lines  # type: ignore[attr-defined,no-redef]

    sc = _scanner()
    names = [c.name for c in sc.classes]
    per = Counter()
    att = Attribution(sc.classes)
    records = lines = hot = 0
    for raw in stream:
        records += 1
        data = raw.rstrip(b"\r\n")
        parsed = []
        if data.startswith(b"{"):
            try:
                rec = json.loads(data.decode("utf-8", "replace"))
            except ValueError:
                rec = None
            if isinstance(rec, dict):
                parsed = parse_json_lines(records, rec)
        if not parsed:
            parsed = [parse_line(records, data)]
        for line in parsed:
            lines += 1
            text = line.text.encode("utf-8", "replace")
            m = sc.mask(text)
            if m:
                hot += 1
                for i, n in enumerate(names):
                    if m >> i & 1:
                        per[n] += 1
                att.add(text)
    return {"mode": "json", "records": records, "lines": lines, "hot": hot, "selected": lines,
            "per_class": dict(per), "sampled": att.seen, "patterns": att.top(), "engine": sc.stats.engine}


def main(argv: list[str]) -> int:
    mode, path = argv[0], argv[1]
    if mode == "text":
        res = text_mode(path)
    elif mode == "json" and _raw_json_scan():
        res = text_mode(path, json_lines=True)
    elif mode == "json":
        with open(path, "rb") as f:
            res = json_mode(f)
    elif mode == "journal":
        where = ["--directory", path] if Path(path).is_dir() else ["--file", path]
        p = subprocess.Popen(["journalctl", "--no-pager", *where, "-u", argv[2], "-o", "json"],
                             stdout=subprocess.PIPE)
        assert p.stdout is not None
        res = json_mode(p.stdout)
        p.wait()
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
