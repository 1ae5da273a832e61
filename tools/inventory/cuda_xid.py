#!/usr/bin/env python3
"""Validate tools/inventory/cuda_errors.yaml and write src/crashdoc/data/inventory/cuda.jsonl.

The rows use the inventory format (project "cuda"): `file` names the source of the string
(cudaGetErrorString, cublasGetStatusString, ncclGetErrorString, Xid), `line` holds the numeric code
(or null), `kind` is cuda_error | cublas_status | nccl_result | xid | wrapper, `exception` the enum name.
Extra keys: `driver_name` (CUresult name), `note`.

    python3 tools/inventory/cuda_xid.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from extract import CATEGORIES, DEFAULT_OUT, ROLES  # noqa: E402

SRC = HERE / "cuda_errors.yaml"


def rows(data: dict) -> list[dict]:
    out = []

    def add(file, line, kind, exc, template, cat, role, src="override", **extra):
        if cat is not None and cat not in CATEGORIES:
            raise SystemExit(f"bad category {cat!r} for {template!r}")
        if role is not None and role not in ROLES:
            raise SystemExit(f"bad role {role!r} for {template!r}")
        r = {"project": "cuda", "version": "reference", "file": file, "line": line, "kind": kind,
             "exception": exc, "template": template, "category": cat, "role": role if cat else None,
             "label_source": "override" if cat else None}
        r.update({k: v for k, v in extra.items()})
        out.append(r)

    for code, name, drv, msg, cat, role, note in data["cuda_runtime"]:
        add("cudaGetErrorString", code, "cuda_error", name, msg, cat, role, driver_name=drv, note=note)
    for tmpl, note in data["wrappers"]:
        add("wrapper", None, "wrapper", None, tmpl, None, None, note=note)
    for name, msg, cat, note in data["cublas"]:
        add("cublasGetStatusString", None, "cublas_status", name, msg, cat, "cause", note=note)
    for name, msg, cat, role, note in data["nccl"]:
        add("ncclGetErrorString", None, "nccl_result", name, msg, cat, role, note=note)
    for code, short, meaning, cat, role, action in data["xid"]:
        add("Xid", code, "xid", f"Xid {code}", f"NVRM: Xid ({{}}): {code}, {{}}", cat, role,
            name=short, note=meaning, action=action)
    return out


def main() -> int:
    data = yaml.safe_load(SRC.read_text())
    out = rows(data)
    DEFAULT_OUT.mkdir(parents=True, exist_ok=True)
    target = DEFAULT_OUT / "cuda.jsonl"
    with open(target, "w", encoding="utf-8") as f:
        for r in out:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    kinds = {}
    for r in out:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print(f"{target}: {len(out)} rows {kinds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
