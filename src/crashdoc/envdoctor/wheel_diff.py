"""Sent to the service's own interpreter (`python -I -` on stdin, locally or over ssh): fetch the wheel of each
modified distribution from the index that interpreter's pip is configured for (`pip download --no-deps
NAME==VERSION -d TMP`: pip.conf, PIP_INDEX_URL, PIP_FIND_LINKS of that host), and diff each modified file
against the wheel's copy. Standard library only, any Python 3; prints one JSON line; the download folder is
removed before it exits. Nothing else on the host is touched (pip runs with --no-cache-dir).

The request is the JSON text CRASHDOC_REQUEST put in front of this file:
{"packages": [{"name", "version", "dist_info", "files": [{"path", "abspath", "state"}]}], "max_lines",
 "max_bytes", "timeout"}.
"""

import base64
import difflib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

_OFFLINE = ("Network is unreachable", "Temporary failure in name resolution", "Name or service not known",
            "Failed to establish a new connection", "Connection refused", "timed out", "No route to host",
            "Could not fetch URL", "connection error", "ProxyError")


def _has_pip(python):
    try:
        done = subprocess.run([python, "-I", "-c", "import pip"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _pip(python):
    """The pip to download with: the interpreter's own, else the host's python3 pip run for that interpreter."""
    if _has_pip(sys.executable):
        return [sys.executable, "-m", "pip"], "the service's interpreter"
    other = shutil.which("python3")
    if other and os.path.realpath(other) != os.path.realpath(sys.executable) and _has_pip(other):
        return [other, "-m", "pip", "--python", sys.executable], "%s's pip (none in the service's interpreter)" % other
    return None, "pip is not installed in %s nor in python3 on this host" % sys.executable


def _record_hashes(dist_info):
    out = {}
    try:
        with open(os.path.join(dist_info, "RECORD"), encoding="utf-8", errors="replace") as f:
            for row in f:
                parts = row.rstrip("\n").rsplit(",", 2)
                if len(parts) == 3 and parts[1]:
                    out[parts[0]] = parts[1]
    except OSError:
        pass
    return out


def _digest(data, algo):
    raw = hashlib.new(algo, data).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _text(data):
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _diff_one(zf, names, entry, record, req, wheel):
    rel, path = entry["path"], entry["abspath"]
    out = {"path": rel, "abspath": path, "state": entry.get("state", "modified"), "diff": [], "omitted": 0,
           "added": 0, "removed": 0, "matches_record": None}
    if rel not in names:
        out["state"] = "not in the wheel"
        return out
    original = zf.read(rel)
    expected = record.get(rel)
    if expected and "=" in expected:
        algo, _, value = expected.partition("=")
        try:
            out["matches_record"] = _digest(original, algo) == value
        except ValueError:
            pass
    try:
        installed = b""
        if out["state"] != "missing":
            if os.path.getsize(path) > req["max_bytes"]:
                out["state"] = "too large to diff"
                return out
            with open(path, "rb") as f:
                installed = f.read()
    except OSError as exc:
        out["state"] = "unreadable: %s" % (exc.strerror or exc)
        return out
    if max(len(original), len(installed)) > req["max_bytes"]:
        out["state"] = "too large to diff"
        return out
    a, b = _text(original), _text(installed)
    if a is None or b is None:
        out["state"] = "binary (%d bytes in the wheel, %d installed)" % (len(original), len(installed))
        return out
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), "%s/%s" % (wheel, rel),
                                      path if out["state"] != "missing" else "(deleted)", lineterm="", n=2))
    for ln in lines[2:]:
        if ln.startswith("+"):
            out["added"] += 1
        elif ln.startswith("-"):
            out["removed"] += 1
    limit = req["max_lines"]
    out["diff"] = [ln[:300] for ln in lines[:limit]]
    out["omitted"] = max(0, len(lines) - limit)
    return out


def _fetch(pkg, req, pip, tmp):
    spec = "%s==%s" % (pkg["name"], pkg["version"])
    argv = pip + ["download", "--no-deps", "--no-cache-dir", "--disable-pip-version-check", "--no-input",
                  "--timeout", "20", "--retries", "1", "--only-binary", ":all:", "-d", tmp, spec]
    started = time.time()
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,  # noqa: UP022 - Python 3.6
                              timeout=req["timeout"])
    except subprocess.TimeoutExpired:
        return None, {"error": "pip download %s did not finish within %d s" % (spec, req["timeout"]), "offline": True}
    except OSError as exc:
        return None, {"error": "pip download could not run: %s" % (exc.strerror or exc), "offline": False}
    seconds = round(time.time() - started, 2)
    wheels = [n for n in os.listdir(tmp) if n.endswith(".whl")]
    if done.returncode != 0 or not wheels:
        err = done.stderr.decode("utf-8", "replace")
        lines = [ln.strip() for ln in err.splitlines() if ln.strip() and not ln.startswith("WARNING: Retrying")]
        offline = any(word.lower() in err.lower() for word in _OFFLINE)
        return None, {"error": (lines[-1] if lines else "exit status %d" % done.returncode)[:400], "offline": offline,
                      "seconds": seconds}
    wheel = os.path.join(tmp, sorted(wheels)[0])
    return wheel, {"seconds": seconds, "wheel": os.path.basename(wheel), "bytes": os.path.getsize(wheel)}


def main(req):
    pip, how = _pip(sys.executable)
    out = {"pip": how, "packages": []}
    for pkg in req["packages"]:
        result = {"name": pkg["name"], "version": pkg["version"], "files": []}
        out["packages"].append(result)
        if pip is None:
            result.update({"error": how, "offline": False})
            continue
        tmp = tempfile.mkdtemp(prefix="crashdoc-wheel-")
        try:
            wheel, facts = _fetch(pkg, req, pip, tmp)
            result.update(facts)
            if wheel is None:
                continue
            record = _record_hashes(pkg["dist_info"])
            with zipfile.ZipFile(wheel) as zf:
                names = set(zf.namelist())
                for entry in pkg["files"]:
                    result["files"].append(_diff_one(zf, names, entry, record, req, result["wheel"]))
        except (OSError, zipfile.BadZipFile, ValueError) as exc:
            result.update({"error": "cannot read the fetched wheel: %s" % exc, "offline": False})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return out


if __name__ == "__main__":
    REQUEST = json.loads(globals().get("CRASHDOC_REQUEST", "{}"))
    print(json.dumps(main(REQUEST)))
