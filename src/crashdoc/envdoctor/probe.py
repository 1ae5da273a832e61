"""crashdoc's environment probe: facts about one Python environment and its host, as JSON on stdout.

It is sent to the interpreter the service runs (`python -I -`, the source on stdin), locally or over ssh,
and is never installed there. It needs only the standard library of Python 3.6 or newer, imports nothing
from the environment it inspects, writes nothing, and answers the request that crashdoc puts in front of it
as `CRASHDOC_REQUEST` (a JSON string). Each section is computed on its own: a section that fails is reported
under "errors" and the others still answer.
"""

import base64
import csv
import email.parser
import hashlib
import json
import os
import re
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor

PROBE_VERSION = 1
MAX_LISTED = 200          # paths reported per package and kind (the count is always exact)
CHUNK = 1 << 20
_PYC = re.compile(r"\.(pyc|pyo)$")
_CORE = re.compile(r"^(core|core\.\d+|core\..+\.\d+|.+\.core)(\.(zst|lz4|xz|gz))?$")
_DUMP_SUFFIXES = (".pt", ".pth", ".pt2")


def canonical(name):
    """PEP 503 normalised project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


# ---------------------------------------------------------------- python and search path


def _venv_cfg(prefix):
    cfg = {}
    try:
        with open(os.path.join(prefix, "pyvenv.cfg")) as f:
            for line in f:
                key, sep, value = line.partition("=")
                if sep:
                    cfg[key.strip().lower()] = value.strip()
    except OSError:
        pass
    return cfg


def _user_site(in_venv, cfg):
    """The user site-packages the service sees (the probe runs -I, which hides it), or None."""
    try:
        import site
        path = site.getusersitepackages()
    except Exception:
        return None
    if not path or not os.path.isdir(path):
        return None
    if in_venv and cfg.get("include-system-site-packages", "false").lower() != "true":
        return None
    return path


def python_facts():
    """The interpreter, its prefix, the search path the service imports from, and the marker environment."""
    in_venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
    cfg = _venv_cfg(sys.prefix) if in_venv else {}
    user_site = _user_site(in_venv, cfg)
    paths, seen = [], set()
    for entry in ([user_site] if user_site else []) + list(sys.path):
        if not entry or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        if real not in seen:
            seen.add(real)
            paths.append(entry)
    import platform
    impl = sys.implementation
    iver = "%d.%d.%d" % impl.version[:3]
    if impl.version[3] != "final":
        iver += impl.version[3][0] + str(impl.version[4])
    return {
        "executable": sys.executable,
        "version": "%d.%d.%d" % sys.version_info[:3],
        "implementation": platform.python_implementation(),
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "venv": in_venv,
        "venv_cfg": cfg,
        "user_site": user_site,
        "paths": paths,
        "markers": {
            "implementation_name": impl.name,
            "implementation_version": iver,
            "os_name": os.name,
            "platform_machine": platform.machine(),
            "platform_release": platform.release(),
            "platform_system": platform.system(),
            "platform_version": platform.version(),
            "python_full_version": platform.python_version(),
            "platform_python_implementation": platform.python_implementation(),
            "python_version": ".".join(platform.python_version_tuple()[:2]),
            "sys_platform": sys.platform,
        },
    }


# ---------------------------------------------------------------- distributions


def _read(path, limit=1 << 20):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def _egg_requires(text):
    """Requirements from an egg-info requires.txt: plain lines, and `[:marker]` sections (extras skipped)."""
    out, marker = [], ""
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            extra, _, cond = section.partition(":")
            marker = None if extra else cond
            continue
        if marker is None:
            continue
        out.append(line + ("; " + marker if marker else ""))
    return out


def read_dist(location, entry):
    """One installed distribution from its .dist-info or .egg-info, or None when it has no name."""
    path = os.path.join(location, entry)
    egg = entry.endswith(".egg-info")
    if egg and os.path.isfile(path):
        meta_text, base = _read(path), None
    else:
        base = path
        meta_text = _read(os.path.join(path, "PKG-INFO" if egg else "METADATA"))
    if meta_text is None:
        return None
    meta = email.parser.HeaderParser().parsestr(meta_text)
    name, version = meta.get("Name"), meta.get("Version")
    if not name or not version:
        return None
    requires = [str(r) for r in meta.get_all("Requires-Dist") or []]
    if egg and base:
        requires = _egg_requires(_read(os.path.join(base, "requires.txt")))
    record = os.path.join(path, "RECORD") if base and not egg else None
    stamp_file = record if record and os.path.exists(record) else path
    try:
        installed = os.stat(stamp_file).st_mtime
    except OSError:
        installed = None
    direct = {}
    if base:
        try:
            direct = json.loads(_read(os.path.join(base, "direct_url.json")) or "{}")
        except ValueError:
            direct = {}
    top = (_read(os.path.join(base, "top_level.txt")) or "") if base else ""
    return {
        "name": name.strip(),
        "version": version.strip(),
        "location": location,
        "path": path,
        "kind": "egg-info" if egg else "dist-info",
        "requires": requires,
        "requires_python": meta.get("Requires-Python"),
        "installer": ((_read(os.path.join(base, "INSTALLER")) or "").strip() or None) if base else None,
        "installed": installed,
        "has_record": bool(record and os.path.exists(record)),
        "editable": bool((direct.get("dir_info") or {}).get("editable")),
        "url": direct.get("url"),
        "top_level": [t.strip() for t in top.splitlines() if t.strip()],
    }


def find_dists(paths):
    """Every distribution on the search path; the first of a name wins, later ones are marked shadowed."""
    out, first = [], {}
    for location in paths:
        try:
            entries = sorted(os.listdir(location))
        except OSError:
            continue
        for entry in entries:
            if not (entry.endswith(".dist-info") or entry.endswith(".egg-info")):
                continue
            try:
                dist = read_dist(location, entry)
            except Exception as exc:  # one broken dist-info must not hide the others
                dist = {"name": entry, "version": "?", "location": location, "path": os.path.join(location, entry),
                        "error": "%s: %s" % (type(exc).__name__, exc)}
            if dist is None:
                continue
            key = canonical(dist["name"])
            dist["shadowed_by"] = first.get(key)
            if key not in first:
                first[key] = dist["path"]
            out.append(dist)
    return out


def torch_build(dists):
    """torch/version.py of the active torch (its CUDA / ROCm build), read as text, never imported."""
    for dist in dists:
        if canonical(dist["name"]) == "torch" and not dist.get("shadowed_by"):
            return _read(os.path.join(dist["location"], "torch", "version.py"), 8192)
    return None


# ---------------------------------------------------------------- integrity (RECORD)


def _record_rows(dist_path):
    with open(os.path.join(dist_path, "RECORD"), newline="", encoding="utf-8", errors="replace") as f:
        return [row for row in csv.reader(f) if row]


def _digest_one(rel, path, algo):
    try:
        h = hashlib.new(algo)
        with open(path, "rb") as f:
            while True:
                block = f.read(CHUNK)
                if not block:
                    break
                h.update(block)
    except (OSError, ValueError) as exc:
        return rel, None, str(exc)
    return rel, base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode("ascii"), None


def _digest_batch(batch):
    return [_digest_one(rel, path, algo) for rel, path, algo in batch]


def _batches(jobs, workers):
    """Split (size, job) pairs into about 4 batches per worker of similar byte counts, largest files first.

    One task per file would spend more time in the pool's locks than in hashing for the thousands of small
    files of a package like torch; one task per batch keeps the workers busy with hashlib, which releases
    the GIL while it hashes.
    """
    jobs = sorted(jobs, key=lambda j: -j[0])
    count = max(1, min(len(jobs), workers * 4))
    batches, loads = [[] for _ in range(count)], [0] * count
    for size, job in jobs:
        i = loads.index(min(loads))
        batches[i].append(job)
        loads[i] += size + 4096
    return [b for b in batches if b]


def _file_entry(rel, path, st, **extra):
    entry = {"path": rel, "abspath": path}
    if st is not None:
        entry.update(size=st.st_size, mtime=st.st_mtime)
    entry.update(extra)
    return entry


def _top_dirs(location, rels):
    firsts = set()
    for rel in rels:
        parts = rel.replace("\\", "/").split("/", 1)
        if len(parts) == 2 and parts[0] not in ("..", "", "__pycache__"):
            firsts.add(parts[0])
    return sorted(t for t in firsts if not t.endswith((".dist-info", ".egg-info", ".data"))
                  and os.path.isdir(os.path.join(location, t)))


def _walk_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        in_cache = os.path.basename(dirpath) == "__pycache__"
        for name in sorted(filenames):
            if in_cache and _PYC.search(name):
                continue
            yield os.path.normpath(os.path.join(dirpath, name))


class _Listed:
    """Paths listed by every RECORD of one location, read only when a file looks unlisted."""

    def __init__(self):
        self.cache = {}

    def of(self, location, dists):
        if location not in self.cache:
            listed = set()
            for dist in dists:
                if dist["location"] == location and dist.get("has_record"):
                    try:
                        listed.update(os.path.normpath(os.path.join(location, r[0])) for r in _record_rows(dist["path"]))
                    except OSError:
                        pass
            self.cache[location] = listed
        return self.cache[location]


def verify_dist(dist, pool, workers, all_listed, dists):
    """Check one distribution's files against its RECORD: modified, missing and unlisted files."""
    location = dist["location"]
    started = time.time()
    rows = _record_rows(dist["path"])
    listed, jobs, modified, missing = set(), [], [], []
    expected = {}
    for row in rows:
        rel = row[0]
        path = os.path.normpath(os.path.join(location, rel))
        listed.add(path)
        digest = row[1] if len(row) > 1 else ""
        if not digest or "=" not in digest:
            continue
        algo, want = digest.split("=", 1)
        try:
            st = os.stat(path)
        except OSError:
            missing.append(_file_entry(rel, path, None))
            continue
        size = row[2] if len(row) > 2 else ""
        if size.isdigit() and int(size) != st.st_size:
            modified.append(_file_entry(rel, path, st, expected_size=int(size), reason="size"))
            continue
        expected[rel] = (want, st, path)
        jobs.append((st.st_size, (rel, path, algo)))
    hashed_bytes = sum(j[0] for j in jobs)
    unreadable = []
    results = [r for batch in pool.map(_digest_batch, _batches(jobs, workers)) for r in batch]
    for rel, actual, error in results:
        want, st, path = expected[rel]
        if error is not None:
            unreadable.append(_file_entry(rel, path, st, error=error))
        elif actual != want:
            modified.append(_file_entry(rel, path, st, reason="hash"))
    unlisted = []
    for top in _top_dirs(location, [r[0] for r in rows]):
        for path in _walk_files(os.path.join(location, top)):
            if path not in listed and path not in all_listed.of(location, dists):
                st = None
                try:
                    st = os.lstat(path)
                except OSError:
                    pass
                unlisted.append(_file_entry(os.path.relpath(path, location), path, st))
    modified.sort(key=lambda e: e["path"])
    return {
        "name": dist["name"],
        "version": dist["version"],
        "files": len(rows),
        "hashed_files": len(jobs),
        "hashed_bytes": hashed_bytes,
        "seconds": round(time.time() - started, 3),
        "modified": modified[:MAX_LISTED],
        "modified_count": len(modified),
        "missing": missing[:MAX_LISTED],
        "missing_count": len(missing),
        "unlisted": unlisted[:MAX_LISTED],
        "unlisted_count": len(unlisted),
        "unreadable": unreadable[:MAX_LISTED],
    }


def integrity(request, dists):
    """RECORD verification of the requested packages (names, or "*" for every one), hashed in parallel."""
    wanted = set(canonical(n) for n in request.get("verify") or [])
    every = "*" in wanted
    started = time.time()
    out, skipped = [], []
    workers = max(2, min(16, (os.cpu_count() or 2) + 1))   # one more than the cores: cold reads wait on the disk
    listed = _Listed()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for dist in dists:
            if dist.get("shadowed_by") or "error" in dist:
                continue
            if not every and canonical(dist["name"]) not in wanted:
                continue
            if dist.get("editable"):
                skipped.append({"name": dist["name"], "reason": "editable install from %s" % dist.get("url")})
            elif not dist.get("has_record"):
                skipped.append({"name": dist["name"], "reason": "no RECORD file (%s install)" % dist["kind"]})
            else:
                try:
                    out.append(verify_dist(dist, pool, workers, listed, dists))
                except OSError as exc:
                    skipped.append({"name": dist["name"], "reason": "RECORD unreadable: %s" % exc})
    return {"packages": out, "skipped": skipped, "seconds": round(time.time() - started, 3), "workers": workers}


# ---------------------------------------------------------------- debris


def _scan_debris(root, depth, found, budget):
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        if budget[0] <= 0:
            return
        budget[0] -= 1
        try:
            if entry.is_symlink():
                continue
            if entry.is_dir():
                if depth > 0:
                    _scan_debris(entry.path, depth - 1, found, budget)
                continue
            name = entry.name
            kind = "core" if _CORE.match(name) else "tensor dump" if name.endswith(_DUMP_SUFFIXES) else None
            if kind:
                st = entry.stat()
                found.append({"path": entry.path, "kind": kind, "size": st.st_size, "mtime": st.st_mtime})
        except OSError:
            continue


def debris(request):
    """Core files and tensor dumps in /tmp, the working directory and systemd-coredump's store."""
    roots = ["/tmp", "/var/tmp", "/var/lib/systemd/coredump"]
    if request.get("workdir"):
        roots.insert(0, request["workdir"])
    found, seen = [], set()
    for root in roots:
        real = os.path.realpath(root)
        if real in seen or not os.path.isdir(root):
            continue
        seen.add(real)
        _scan_debris(root, 1, found, [20000])
    found.sort(key=lambda e: -e["mtime"])
    return {"roots": [r for r in roots if os.path.isdir(r)], "files": found[:MAX_LISTED], "count": len(found),
            "bytes": sum(e["size"] for e in found), "core_pattern": (_read("/proc/sys/kernel/core_pattern") or "").strip()}


# ---------------------------------------------------------------- host


def _fs(path):
    probe = path
    while probe and not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    try:
        st, vfs = os.stat(probe), os.statvfs(probe)
    except OSError:
        return None
    return {"path": path, "exists": probe == path, "device": st.st_dev,
            "total": vfs.f_blocks * vfs.f_frsize, "free": vfs.f_bavail * vfs.f_frsize}


def _meminfo():
    out = {}
    for line in (_read("/proc/meminfo") or "").splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if parts and parts[0].isdigit():
            out[key] = int(parts[0]) * 1024
    return {k: out.get(k) for k in ("MemTotal", "MemAvailable", "SwapTotal", "SwapFree")}


def _cache_paths(request):
    home = os.path.expanduser("~")
    env = os.environ
    hf = env.get("HF_HOME") or os.path.join(env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "huggingface")
    paths = [("python", sys.prefix), ("tmp", "/tmp"), ("huggingface cache", env.get("HF_HUB_CACHE") or hf),
             ("vllm cache", os.path.join(home, ".cache", "vllm")),
             ("flashinfer cache", os.path.join(home, ".cache", "flashinfer")),
             ("triton cache", env.get("TRITON_CACHE_DIR") or os.path.join(home, ".triton")),
             ("torch cache", os.path.join(home, ".cache", "torch"))]
    if request.get("workdir"):
        paths.append(("working directory", request["workdir"]))
    for extra in request.get("paths") or []:
        paths.append(("requested", extra))
    return paths


def _listeners(port):
    """Sockets listening on `port` (TCP, v4 and v6), with the processes that hold them when visible."""
    inodes = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in (_read(table) or "").splitlines()[1:]:
            cols = line.split()
            if len(cols) < 10 or cols[3] != "0A":
                continue
            addr, _, hexport = cols[1].rpartition(":")
            if int(hexport, 16) == port:
                inodes[cols[9]] = {"address": addr, "family": "ipv6" if table.endswith("6") else "ipv4", "pids": []}
    if inodes:
        for pid in (p for p in os.listdir("/proc") if p.isdigit()):
            try:
                fds = os.listdir("/proc/%s/fd" % pid)
            except OSError:
                continue
            for fd in fds:
                try:
                    link = os.readlink("/proc/%s/fd/%s" % (pid, fd))
                except OSError:
                    continue
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    cmd = (_read("/proc/%s/cmdline" % pid, 4096) or "").replace("\0", " ").strip()
                    inodes[link[8:-1]]["pids"].append({"pid": int(pid), "cmdline": cmd})
    return list(inodes.values())


def host(request):
    """Host facts: clock, shm, disks where caches and models live, memory, NVIDIA driver, the serving port."""
    nv = _read("/proc/driver/nvidia/version", 4096)
    try:
        devices = sorted(d for d in os.listdir("/dev") if d.startswith("nvidia"))
    except OSError:
        devices = []
    disks = []
    for label, path in _cache_paths(request):
        fs = _fs(path)
        if fs:
            fs["label"] = label
            disks.append(fs)
    out = {
        "hostname": socket.gethostname(),
        "uid": os.getuid() if hasattr(os, "getuid") else None,
        "cpu_count": os.cpu_count(),
        "shm": _fs("/dev/shm") if os.path.isdir("/dev/shm") else None,
        "disks": disks,
        "memory": _meminfo(),
        "nvidia_driver": nv,
        "nvidia_devices": devices,
        "load": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    if request.get("port"):
        out["port"] = {"port": int(request["port"]), "listeners": _listeners(int(request["port"]))}
    return out


# ---------------------------------------------------------------- main


def main(request):
    """Answer the request: a JSON object with "python", the asked sections and "errors"."""
    sections = request.get("sections") or []
    out = {"probe": PROBE_VERSION, "now": time.time(), "utc_offset": time.localtime().tm_gmtoff, "errors": {}}
    out["python"] = python_facts()
    dists = None
    if "dists" in sections or "integrity" in sections:
        try:
            dists = find_dists(out["python"]["paths"])
            out["dists"] = dists
            out["torch_build"] = torch_build(dists)
        except Exception as exc:
            out["errors"]["dists"] = "%s: %s" % (type(exc).__name__, exc)
    jobs = [("integrity", lambda: integrity(request, dists or [])), ("debris", lambda: debris(request)),
            ("host", lambda: host(request))]
    for name, job in jobs:
        if name in sections:
            try:
                out[name] = job()
            except Exception as exc:
                out["errors"][name] = "%s: %s" % (type(exc).__name__, exc)
    sys.stdout.write(json.dumps(out))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(json.loads(globals().get("CRASHDOC_REQUEST") or "{}")))
