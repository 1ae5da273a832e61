"""Scoring on the dev corpus (the issue's floors) and on the realistic wrapper-format assets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crashdoc.investigate import diagnose_stream
from crashdoc.sources.file import open_input
from tests.cli.helpers import ROOT, crashdoc
from tests.support.shared import shared_reason

ASSETS = ROOT / "tests" / "assets" / "logs"


def test_dev_corpus_floors(corpus_dir: Path) -> None:
    r = crashdoc("eval", str(corpus_dir), "--format", "json")
    assert r.status == 0, r.stderr  # 4 would mean below a floor, or a decoy first without the key on its line
    data = r.json
    t = data["totals"]
    print({k: t[k] for k in ("cases", "root_cause_hit", "category_hit", "decoy_first", "fix_hit", "fix_cases")})
    assert t["root_cause_rate"] >= 0.90
    assert t["category_rate"] >= 0.90
    cases = {c["id"]: c for c in data["cases"]}
    metas = {json.loads(p.read_text())["id"]: json.loads(p.read_text()) for p in (corpus_dir / "cases").glob("*.json")}
    for cid, c in cases.items():
        if c["decoy_first"]:
            # only acceptable where the case's own key and a decoy share the one input line
            assert metas[cid]["root_cause"]["key"] in c["got_line"], cid


def test_eval_agrees_with_the_judges_scorer(corpus_dir: Path, tmp_path: Path) -> None:
    scorer = ROOT.parent / "shared" / "tools" / "score.py"
    if not scorer.exists():
        pytest.skip(shared_reason(scorer))
    import subprocess
    import sys

    wrapper = tmp_path / "crashdoc"
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT / 'src'} exec {sys.executable} -m crashdoc \"$@\"\n")
    wrapper.chmod(0o755)
    out = subprocess.run([sys.executable, str(scorer), str(wrapper), str(corpus_dir), "--json"],
                         capture_output=True, text=True, timeout=600, check=False).stdout
    judge = json.loads(out.splitlines()[0])
    ours = crashdoc("eval", str(corpus_dir), "--format", "json").json["totals"]
    assert (judge["root_cause_hit"], judge["category_hit"], judge["decoy_first"]) == (
        ours["root_cause_hit"], ours["category_hit"], ours["decoy_first"])
    assert judge["crashed_or_unparsable"] == 0


def _assets() -> list[Path]:
    return sorted(ASSETS.glob("*.expected.json"))


@pytest.mark.parametrize("expected", _assets(), ids=lambda p: p.name.replace(".expected.json", ""))
def test_wrapper_format_assets(expected: Path) -> None:
    exp = json.loads(expected.read_text())
    stem = expected.name[: -len(".expected.json")]
    log = next(p for p in ASSETS.iterdir() if p.name.startswith(stem + ".") and not p.name.endswith(".expected.json"))
    with open_input(str(log)) as stream:
        diag = diagnose_stream(stream, str(log))
    rc = diag.root_cause
    if exp.get("exit_status") == 3:
        assert rc is None
        return
    assert rc is not None, log.name
    keys = [exp["key"], *(exp.get("alt_keys") or [])]
    assert any(k in rc.line for k in keys), (log.name, rc.line)
    assert not any(d in rc.line for d in exp.get("decoys") or []), (log.name, rc.line)
    if exp.get("category"):
        assert rc.category == exp["category"], (log.name, rc.category)
    if exp.get("process"):
        assert rc.where.process == exp["process"], (log.name, rc.where.process)
    if exp.get("attempts"):
        assert len(diag.attempts) == exp["attempts"], (log.name, [a.outcome for a in diag.attempts])


# Measured on the 130 cases (20 from the first wave, 110 added untuned: 75% root cause, 45% category, 12 decoys
# first when they arrived); the floors ratchet up as mechanisms land (120/130, 87/130, 6 at the start of issue 10's
# second session; 130/130, 123/130, 0 at its end): a change that lowers them fails here.
# tests/corpus_new: 40 cases collected in that session and measured before anything was tuned to them (38/40 root
# cause, 25/40 category, 1 decoy first; 38/40, 23/40, 1 with the session's starting main); now 40/40, 37/40, 0.
# tests/corpus_fresh: 42 cases collected in issue 12's fourth session, measured untuned first (39/42 root cause,
# 30/42 category, 0 decoys first); now 41/42, 34/42, 0. tests/corpus_fifth: 36 cases collected after that, untuned
# first 32/36, 27/36, 0; now 35/36, 33/36, 0. tests/corpus_sixth: 41 cases of a later session, untuned first
# 38/41, 28/41, 0; now 41/41, 36/41, 0. tests/corpus_seventh: 39 cases collected after that, untuned first 33/39,
# 27/39, 0; now 37/39, 34/39, 0. tests/corpus_eighth: 37 cases of a later session, untuned first 33/37, 23/37, 1;
# now 37/37, 33/37, 0. tests/corpus_ninth: 37 cases collected after that, untuned first 25/37, 16/37, 2; now
# 37/37, 32/37, 0 (36/37, 31/37 once a refused request logged as a warning stopped counting as a failure).
# tests/corpus_tenth: 35 cases collected after that, untuned first 30/35, 20/35, 1; now 33/35, 26/35, 1.
# tests/corpus_eleventh: 36 cases collected after that, untuned first 33/36, 27/36, 0; now 34/36, 29/36, 0.
# tests/corpus_twelfth: 22 cases collected after that, untuned first 20/22, 18/22, 0; now 22/22, 21/22, 0.
# tests/corpus_thirteenth: 33 cases of a later session, mixed like the dev set, untuned first 30/33, 22/33, 1;
# now 33/33, 25/33, 0. tests/corpus_fourteenth: 32 cases collected after that (serving crashes, deployments,
# installs), untuned first 22/32, 14/32, 5; now 30/32, 21/32, 1. tests/corpus_fifteenth: 23 cases collected after
# that, untuned first 22/23, 17/23, 1; now 23/23, 22/23, 0. tests/corpus_sixteenth: 29 cases collected after that
# (SGLang; vLLM at runtime and in deployments; installs and builds), untuned first 22/29, 9/29, 0; now 26/29, 15/29, 0.
# tests/corpus_seventeenth: 31 cases collected after that, untuned first 27/31, 18/31, 0; now 31/31, 26/31, 0.
# Six waves of a later session, each measured untuned on the code of its arrival (README.md of each folder):
# tests/corpus_eighteenth (30): 26/30, 20/30, 0 -> 28/30, 23/30, 0; tests/corpus_nineteenth (28): 25/28, 14/28, 0
# -> 27/28, 20/28, 0; tests/corpus_twentieth (25): 18/25, 13/25, 1 -> 23/25, 19/25, 1; tests/corpus_twentyfirst
# (28): 22/28, 12/28, 4 -> 25/28, 14/28, 2; tests/corpus_twentysecond (25): 20/25, 12/25, 0 -> 24/25, 19/25, 0;
# tests/corpus_twentythird (25): 23/25, 19/25, 1 -> 24/25, 22/25, 0; tests/corpus_twentyfourth (30): 24/30, 13/30, 1
# -> 29/30, 22/30, 1; tests/corpus_twentyfifth (16): 14/16, 5/16, 0 -> 15/16, 8/16, 0;
# tests/corpus_twentysixth (28): 22/28, 13/28, 3 -> 27/28, 20/28, 0; tests/corpus_twentyseventh (29): 24/29, 17/29,
# 2 -> 26/29, 22/29, 0; tests/corpus_twentyeighth (25): 19/25, 9/25, 4 -> 23/25, 16/25, 1;
# tests/corpus_twentyninth (27): 21/27, 9/27, 3 -> 24/27, 17/27, 1; tests/corpus_thirtieth (28): 25/28, 14/28, 0 ->
# 28/28, 22/28, 0; tests/corpus_thirtyfirst (25): 19/25, 13/25, 3 -> 22/25, 16/25, 2;
# tests/corpus_thirtysecond (23): 18/23, 13/23, 2 -> 19/23, 13/23, 2; tests/corpus_thirtythird (25): 18/25, 16/25,
# 1 -> 23/25, 19/25, 0; tests/corpus_thirtyfourth (27): 20/27, 16/27, 1 -> 24/27, 22/27, 0;
# tests/corpus_thirtyfifth (21): 18/21, 12/21, 0 -> 21/21, 13/21, 0; tests/corpus_thirtysixth (21): 19/21, 14/21, 0
# -> 19/21, 15/21, 0; tests/corpus_thirtyseventh (24): 19/24, 18/24, 1 -> 20/24, 20/24, 0;
# tests/corpus_thirtyeighth (25): 21/25, 11/25, 2 -> 25/25, 16/25, 0; tests/corpus_thirtyninth (24): 21/24, 17/24, 1
# -> 23/24, 21/24, 0; tests/corpus_fortieth (24): 21/24, 12/24, 1 -> 21/24, 17/24, 1; tests/corpus_fortyfirst (12):
# 11/12, 9/12, 0 -> 11/12, 11/12, 0; tests/corpus_fortysecond (20): 18/20, 11/20, 0 -> 19/20, 13/20, 0;
# tests/corpus_fortythird (19, measured as a held-out check): 17/19, 12/19, 1 -> 17/19, 13/19, 1;
# tests/corpus_fortyfourth (28): 21/28, 20/28, 5 -> 28/28, 22/28, 0; tests/corpus_fortyfifth (30, measured as a
# held-out check): 26/30, 20/30, 1 -> 29/30, 21/30, 0; tests/corpus_fortysixth (22): 16/22, 9/22, 1 -> 21/22,
# 16/22, 0; tests/corpus_fortyseventh (17, measured as a held-out check): 16/17, 9/17, 1 -> 16/17, 11/17, 1;
# tests/corpus_fortyeighth (23, measured as a held-out check): 18/23, 11/23, 2 -> 20/23, 14/23, 0;
# tests/corpus_fortyninth (7, measured as a held-out check): 4/7, 4/7, 3 -> 7/7, 6/7, 0.
FLOORS = {"corpus_extra": ({"root_cause_rate": 0.97, "category_rate": 0.9}, 0, 120),
          "corpus_new": ({"root_cause_rate": 0.95, "category_rate": 0.85}, 0, 40),
          "corpus_fresh": ({"root_cause_rate": 0.97, "category_rate": 0.8}, 0, 42),
          "corpus_fifth": ({"root_cause_rate": 0.94, "category_rate": 0.86}, 0, 36),
          "corpus_sixth": ({"root_cause_rate": 0.97, "category_rate": 0.88}, 0, 41),
          "corpus_seventh": ({"root_cause_rate": 0.94, "category_rate": 0.85}, 0, 39),
          "corpus_eighth": ({"root_cause_rate": 0.97, "category_rate": 0.86}, 0, 37),
          "corpus_ninth": ({"root_cause_rate": 0.97, "category_rate": 0.86}, 0, 37),
          "corpus_tenth": ({"root_cause_rate": 0.94, "category_rate": 0.74}, 1, 35),
          "corpus_eleventh": ({"root_cause_rate": 0.94, "category_rate": 0.8}, 0, 36),
          "corpus_twelfth": ({"root_cause_rate": 0.95, "category_rate": 0.9}, 0, 22),
          "corpus_thirteenth": ({"root_cause_rate": 0.97, "category_rate": 0.75}, 0, 33),
          "corpus_fourteenth": ({"root_cause_rate": 0.93, "category_rate": 0.65}, 1, 32),
          "corpus_fifteenth": ({"root_cause_rate": 0.95, "category_rate": 0.9}, 0, 23),
          "corpus_sixteenth": ({"root_cause_rate": 0.86, "category_rate": 0.55}, 0, 29),
          "corpus_seventeenth": ({"root_cause_rate": 0.95, "category_rate": 0.8}, 0, 31),
          "corpus_eighteenth": ({"root_cause_rate": 0.9, "category_rate": 0.73}, 0, 30),
          "corpus_nineteenth": ({"root_cause_rate": 0.92, "category_rate": 0.68}, 0, 28),
          "corpus_twentieth": ({"root_cause_rate": 0.88, "category_rate": 0.72}, 1, 25),
          "corpus_twentyfirst": ({"root_cause_rate": 0.85, "category_rate": 0.46}, 2, 28),
          "corpus_twentysecond": ({"root_cause_rate": 0.92, "category_rate": 0.72}, 0, 25),
          "corpus_twentythird": ({"root_cause_rate": 0.92, "category_rate": 0.84}, 0, 25),
          "corpus_twentyfourth": ({"root_cause_rate": 0.93, "category_rate": 0.66}, 1, 30),
          "corpus_twentyfifth": ({"root_cause_rate": 0.9, "category_rate": 0.5}, 0, 16),
          "corpus_twentysixth": ({"root_cause_rate": 0.92, "category_rate": 0.68}, 0, 28),
          "corpus_twentyseventh": ({"root_cause_rate": 0.86, "category_rate": 0.72}, 0, 29),
          "corpus_twentyeighth": ({"root_cause_rate": 0.9, "category_rate": 0.62}, 1, 25),
          "corpus_twentyninth": ({"root_cause_rate": 0.85, "category_rate": 0.6}, 1, 27),
          "corpus_thirtieth": ({"root_cause_rate": 0.95, "category_rate": 0.75}, 0, 28),
          "corpus_thirtyfirst": ({"root_cause_rate": 0.84, "category_rate": 0.6}, 2, 25),
          "corpus_thirtysecond": ({"root_cause_rate": 0.8, "category_rate": 0.55}, 2, 23),
          "corpus_thirtythird": ({"root_cause_rate": 0.9, "category_rate": 0.72}, 0, 25),
          "corpus_thirtyfourth": ({"root_cause_rate": 0.85, "category_rate": 0.78}, 0, 27),
          "corpus_thirtyfifth": ({"root_cause_rate": 0.95, "category_rate": 0.6}, 0, 21),
          "corpus_thirtysixth": ({"root_cause_rate": 0.9, "category_rate": 0.7}, 0, 21),
          "corpus_thirtyseventh": ({"root_cause_rate": 0.8, "category_rate": 0.8}, 0, 24),
          "corpus_thirtyeighth": ({"root_cause_rate": 0.95, "category_rate": 0.6}, 0, 25),
          "corpus_thirtyninth": ({"root_cause_rate": 0.95, "category_rate": 0.85}, 0, 24),
          "corpus_fortieth": ({"root_cause_rate": 0.85, "category_rate": 0.7}, 1, 24),
          "corpus_fortyfirst": ({"root_cause_rate": 0.9, "category_rate": 0.9}, 0, 12),
          "corpus_fortysecond": ({"root_cause_rate": 0.95, "category_rate": 0.65}, 0, 20),
          "corpus_fortythird": ({"root_cause_rate": 0.85, "category_rate": 0.65}, 1, 19),
          "corpus_fortyfourth": ({"root_cause_rate": 0.96, "category_rate": 0.75}, 0, 28),
          "corpus_fortyfifth": ({"root_cause_rate": 0.95, "category_rate": 0.68}, 0, 30),
          "corpus_fortysixth": ({"root_cause_rate": 0.95, "category_rate": 0.72}, 0, 22),
          "corpus_fortyseventh": ({"root_cause_rate": 0.9, "category_rate": 0.6}, 1, 17),
          "corpus_fortyeighth": ({"root_cause_rate": 0.85, "category_rate": 0.6}, 0, 23),
          "corpus_fortyninth": ({"root_cause_rate": 0.95, "category_rate": 0.8}, 0, 7)}


@pytest.mark.parametrize("folder", sorted(FLOORS))
def test_corpora_from_other_bug_reports(folder: str) -> None:
    """Cases from public reports that are not in the dev set (each folder's README.md lists them)."""
    floors, max_decoys, min_cases = FLOORS[folder]
    r = crashdoc("eval", str(ROOT / "tests" / folder), "--format", "json")
    totals = r.json["totals"]
    print({k: totals[k] for k in ("cases", "root_cause_hit", "category_hit", "decoy_first", "fix_hit", "fix_cases")})
    assert totals["cases"] >= min_cases
    for key, floor in floors.items():
        assert totals[key] >= floor, (key, totals[key])
    assert totals["decoy_first"] <= max_decoys
