"""Sanity check for tests/corpus_new/cases: every JSON loads, has the corpus fields, and every
root_cause.key / also_key / decoy occurs verbatim in one line of its .log (decoys without a key).
Usage: python tests/corpus_new/check_cases.py [--cases DIR] [--used FILE_WITH_URLS]
(--cases: another wave's cases/ folder, same format and checks.)"""
import json
import pathlib
import sys

CASES = pathlib.Path(__file__).parent / "cases"
FIELDS = {"id", "source", "engine", "engine_version", "phase", "root_cause", "decoys", "category",
          "fix", "fix_command", "truth_from", "difficulty", "complete_log"}
CATEGORIES = {
    "dependency_version_mismatch", "missing_dependency", "abi_mismatch", "cuda_driver_mismatch", "gpu_oom",
    "kv_cache_insufficient", "gpu_unavailable", "nccl_distributed", "model_config", "model_files",
    "cli_config_error", "port_in_use", "host_resources", "modified_install", "kernel_compile_error",
    "engine_bug", "filesystem_permissions", "cpu_isa", "other",
}


def main() -> int:
    used = set()
    if "--used" in sys.argv:
        text = pathlib.Path(sys.argv[sys.argv.index("--used") + 1]).read_text()
        used = {u.strip() for u in text.splitlines() if u.strip()}
    cases = pathlib.Path(sys.argv[sys.argv.index("--cases") + 1]) if "--cases" in sys.argv else CASES
    problems, sources = [], {}
    files = sorted(cases.glob("*.json"))
    for f in files:
        d = json.loads(f.read_text())
        lines = (cases / f"{f.stem}.log").read_text().splitlines()
        p = f.stem
        if set(d) != FIELDS:
            problems.append(f"{p}: fields {sorted(set(d) ^ FIELDS)}")
        if d["id"] != p:
            problems.append(f"{p}: id {d['id']}")
        if d["category"] not in CATEGORIES:
            problems.append(f"{p}: category {d['category']}")
        if d["phase"] not in {"startup", "runtime", "install"}:
            problems.append(f"{p}: phase")
        if d["difficulty"] not in {"plain", "cascade", "interleaved", "no-traceback", "chained"}:
            problems.append(f"{p}: difficulty")
        if d["truth_from"] not in {"maintainer", "reporter-confirmed", "self-evident"}:
            problems.append(f"{p}: truth_from")
        keys = [d["root_cause"]["key"], *d["root_cause"].get("also_keys", [])]
        for k in keys:
            if not any(k in ln for ln in lines):
                problems.append(f"{p}: key not in log: {k!r}")
        for dec in d["decoys"]:
            if not any(dec in ln and not any(k in ln for k in keys) for ln in lines):
                problems.append(f"{p}: decoy not on a key-free line: {dec!r}")
        if d["source"] in used:
            problems.append(f"{p}: source already used elsewhere")
        if d["source"] in sources:
            problems.append(f"{p}: same source as {sources[d['source']]}")
        sources[d["source"]] = p
    for msg in problems:
        print(msg)
    print(f"{len(files)} cases, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
