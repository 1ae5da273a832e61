"""Necessary literals (parse/literals.py): every match of a pattern holds one of its literals, so the block
scanner's literal pass never misses a line a rule regex matches."""

from __future__ import annotations

import re

import pytest

from crashdoc.kb import KnowledgeBase
from crashdoc.parse import literal_plan
from crashdoc.parse.literal_plan import prefilter_patterns
from crashdoc.parse.literals import MIN_LEN, necessary_literals
from crashdoc.parse.regex_parts import alternatives, bars, runs
from crashdoc.parse.scan import Scanner
from crashdoc.parse.scan_form import to_scan_pattern


def _holds(lits: object, text: str) -> bool:
    strings = lits.strings  # type: ignore[attr-defined]
    hay = text.lower() if lits.caseless else text  # type: ignore[attr-defined]
    return any(s in hay for s in strings)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\b(?:[Ff]ailed|[Uu]nable) to (?:send|recv|sync)\b", "NCCL: Unable to sync with peer"),
        (r"(?:Ray)?WorkerProc failed[.:]", "WorkerProc failed: rank 3"),
        (r"(?i)exit(?:ed with)? (?:code|status)[:= ]*137\b", "Process EXITED WITH STATUS 137"),
        (r"CUDA out of memory\. Tried to allocate ([\d.]+) GiB", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.50 GiB"),
        (r"[Nn]o (?:GPU|CUDA devices?) (?:found|detected)", "RuntimeError: No CUDA device detected"),
        (r"x{3}y{2}zzz", "..xxxyyzzz.."),
    ],
)
def test_every_match_holds_a_literal(pattern: str, text: str) -> None:
    m = re.search(pattern, text)
    assert m is not None
    lits = necessary_literals(pattern)
    assert lits is not None and lits.shortest >= MIN_LEN
    assert _holds(lits, m.group(0))


def test_patterns_without_a_usable_literal_have_none() -> None:
    assert necessary_literals(r"\w+: \d+") is None
    assert necessary_literals(r"[A-Z]{3}") is None
    assert necessary_literals(r"ab(?:c|)") is None  # "ab" is the longest certain run: too short


def test_common_words_are_a_last_resort() -> None:
    """A set of common words alone is never chosen; joined to the rare strings that follow them it may be."""
    lits = necessary_literals(r"\b(?:[Pp]lease|[Tt]ry) (?:set|use) (VLLM_\w+|SGLANG_\w+)")
    assert lits is not None and not lits.weak
    assert all(s.endswith(("VLLM_", "SGLANG_")) for s in lits.strings)


@pytest.mark.parametrize(
    ("pattern", "text", "joined"),
    [
        # a run reaches into the group that ends it, through optional words
        (r"\b(?:requires?|needs) (?:an? |the )?(SM ?_?\d{2,3}\b|(?:Ampere|Hopper)\b)", "kernel needs an SM 90", "needs an SM"),
        (r"\b(?:requires?|needs) (?:an? |the )?(SM ?_?\d{2,3}\b|(?:Ampere|Hopper)\b)", "FA3 requires Hopper GPUs", "requires Hopper"),
        # the strings every match of a repeated part ends with start the next run
        (r"(?:ab|cd)+\.(?:efgh|ijkl)\d", "x cdab.ijkl7", "ab.ijkl"),
        # an exact part too large to join whole is still joined as a candidate
        (r"\b(?:[Pp]lease|[Yy]ou must) (?:set|use|pass|add|remove|enable|disable|lower|raise)\b \S+", "You must lower it", "You must lower "),
    ],
)
def test_runs_join_the_first_strings_of_the_part_that_ends_them(pattern: str, text: str, joined: str) -> None:
    m = re.search(pattern, text)
    assert m is not None
    lits = necessary_literals(pattern)
    assert lits is not None and not lits.weak and joined in lits.strings
    assert _holds(lits, m.group(0))


def test_runs_are_cut_at_top_level_gaps_only() -> None:
    assert runs(r"\bwith\b[^\n]{0,60}?[\s(]([a-z][\w.]*)(?:>=|==)\d") == [r"\bwith\b", r"[\s(]([a-z][\w.]*)(?:>=|==)\d"]
    assert runs(r"(?i)foo.*bar\S+baz") == ["(?i)foo", "(?i)bar", "(?i)baz"]
    assert runs(r"a(?:b.*c)d") == [r"a(?:b.*c)d"]  # the gap is inside a group
    assert runs(r"ab[^\n]{0,8}cd") == [r"ab[^\n]{0,8}cd"]  # a short bounded gap is part of the run
    assert runs(r"a|b.*c") == [r"a|b.*c"]  # not one alternative
    assert runs(r"(a).*\1") == [r"(a).*\1"]  # a back-reference keeps it whole
    assert bars(r"a|(b|c)|[|]d") == ["a", "(b|c)", "[|]d"]


def test_a_common_word_alternative_is_found_by_its_rare_run() -> None:
    """`with ... pkg>=1.2`: the common word's run would find most lines; the run after the gap stands in, and a
    line with a version requirement is still found while one with only `with` is not."""
    pattern = r"\b(?:[Rr]equires?|with|both)\b[^\n`]{0,60}?[\s(]([a-z][\w.\-]*)(?:>=|==)(\d+\.\d[\w.]*)"
    plan = prefilter_patterns((pattern,))
    assert [(lit, whole) for lit, _, whole, _ in plan] == [(r"[\s(]([a-z][\w.\-]*)(?:>=|==)(\d+\.\d[\w.]*)", True)]
    sc = Scanner(extra_patterns=(pattern,))
    rule = sc.class_bit("rule")
    import io

    log = b"INFO chat with the model\nWARNING built with torch>=2.9 only\nINFO both ways\n"
    assert [h.lineno for h in sc.lines(io.BytesIO(log)) if h.mask & rule] == [2]


def test_rule_examples_hold_their_rules_literals() -> None:
    """On every rule's own match examples, a line its scanner pattern matches holds one of the pattern's literals
    (the literal pass is a prefilter: it may say maybe, never no)."""
    kb = KnowledgeBase.load()
    checked = 0
    for rule in kb.rules:
        for rx in rule.regexes:
            p = to_scan_pattern(rx, rule.ignore_case)
            lits = necessary_literals(p) if p else None
            if p is None or lits is None:
                continue
            crx = re.compile(p.encode())
            for ex in rule.examples:
                for line in ex.log.encode().splitlines():
                    m = crx.search(line)
                    if m is None:
                        continue
                    checked += 1
                    assert _holds(lits, m.group(0).decode("utf-8", "replace")), (rule.id, p, line)
    assert checked > 300


def test_scanner_finds_a_rule_only_line_through_its_literal() -> None:
    """A line no marker matches is still hot when a rule regex matches it (its literal is in the block pass)."""
    line = b"The memory capacity is unbalanced. Some GPUs may be occupied by other processes."
    sc = Scanner(extra_patterns=(r"The memory capacity is unbalanced\.",))
    import io

    hot = list(sc.lines(io.BytesIO(b"INFO starting\n" * 50 + line + b"\n" + b"INFO serving\n" * 50)))
    assert [h.lineno for h in hot if h.mask & sc.class_bit("rule")] == [51]


def test_alternatives_open_outer_groups_and_keep_flags() -> None:
    assert alternatives(r"(?i)(?:foo bar|baz (?:qux|quux))") == ["(?i)foo bar", "(?i)baz (?:qux|quux)"]
    assert alternatives(r"(?:a|b)c") == ["(?:a|b)c"]  # the group is not the whole alternative
    assert alternatives(r"[|(]x|y\|z") == ["[|(]x", r"y\|z"]  # a class and an escape do not split


def test_every_match_of_a_rule_is_a_match_of_one_of_its_alternatives() -> None:
    """Splitting a rule's regex at its top-level alternatives loses no match (the block pass finds a line by one
    alternative and confirms it with the whole regex)."""
    kb = KnowledgeBase.load()
    split = 0
    for rule in kb.rules:
        for rx in rule.regexes:
            p = to_scan_pattern(rx, rule.ignore_case)
            if p is None:
                continue
            alts = [re.compile(a.encode()) for a in alternatives(p)]
            split += len(alts) > 1
            for ex in rule.examples:
                for line in ex.log.encode().splitlines():
                    if re.search(p.encode(), line):
                        assert any(a.search(line) for a in alts), (rule.id, p, line)
    assert split > 20


def test_a_bare_common_word_makes_a_literal_set_weak_a_phrase_does_not() -> None:
    weak = necessary_literals(r"\b(?:[Rr]equires?|with|both)\b[^\n]{0,60}?[\s(]([a-z][\w.\-]*)(?:>=|==)")
    assert weak is not None and weak.weak
    phrase = necessary_literals(r"\b(?:[Tt]ry|[Cc]onsider) (?:using|setting) (--[a-z][\w-]+)")
    assert phrase is not None and not phrase.weak


def test_markers_do_not_fire_on_failure_words_inside_prose() -> None:
    """An INFO request log whose prompt talks about errors, kills and failures has no marker hit at all (the
    markers are anchored to what failures print), while the same words as failures do."""
    sc = Scanner()
    prose = (b"(APIServer pid=1) INFO 11-24 06:07:36 [logger.py:43] Received request chatcmpl-1: prompt: 'Starting from "
             b"the error, I killed the job and it failed to restart, access was denied. Aborted plans.'\n")
    assert sc.matcher.hits(prose) == []
    for failure in (b"Killed\n", b"/bin/sh: line 1: 4242 Killed python -m vllm\n", b"PermissionError: denied\n",
                    b"open /dev/nvidia0: Permission denied\n", b"Failed to initialize NVML: Driver/library version mismatch\n",
                    b"Aborted (core dumped)\n", b"worker was killed by signal 9\n", b"error: unrecognized arguments: --foo\n",
                    b"Nov 24 00:00:03 host systemd[1]: Starting vllm.service - vLLM...\n",
                    b'{"log":"Killed\\n","stream":"stderr","time":"2025-11-24T06:00:00Z"}\n',
                    b'{"MESSAGE":"Killed","_PID":"42"}\n', b'{"MESSAGE":"Aborted","_PID":"42"}\n',
                    b"failed to start the engine process\n", b"Error loading model: /models/x not found\n"):
        assert sc.matcher.hits(failure), failure


def test_a_warning_found_only_by_a_common_word_alternative_is_still_hot() -> None:
    """A rule alternative whose literals are common words (`requires`) is scanned as itself, not dropped: a
    WARNING line saying what a kernel requires is no marker's, and it explains the crash that follows."""
    from crashdoc.analyze.feed import make_scanner

    kb = KnowledgeBase.load()
    sc = make_scanner(kb)
    log = (b"(APIServer pid=1) INFO 11-24 06:00:00 [api_server.py:1] vLLM API server version 0.11.0\n"
           b"(EngineCore_DP0 pid=2) WARNING 11-24 06:07:40 [cuda.py:1] FlashAttention-3 requires SM 90 or higher; "
           b"falling back\n"
           b"Nov 24 06:07:41 h systemd[1]: vllm.service: Main process exited, code=exited, status=1/FAILURE\n")
    import io

    hot = [h for h in sc.lines(io.BytesIO(log)) if h.mask & sc.class_bit("rule")]
    assert any(b"requires SM 90" in h.data for h in hot)


def test_a_common_word_and_one_character_is_weak() -> None:
    """`or 1` (from `(?:only|or|be) [1-6]-?D`) is in every `ERROR 1` caselessly: a set holding it is weak, so the
    run goes on (`or 1d`), or the alternative is found as itself, not by a literal on most lines of an error-dense
    log."""
    lits = necessary_literals(r"(?i)\b(?:only|either|or|be|of) [1-6]-?D\b")
    assert lits is None or lits.weak or ("or 1d" in lits.strings and "or 1" not in lits.strings)
    assert not necessary_literals(r"\bneeds (?:SM|sm)_?\d").weak  # type: ignore[union-attr]


def test_the_plan_finds_every_rule_example_line_through_a_literal_listing_its_pattern() -> None:
    """The block pass's plan, after a literal that contains a shorter one is left out (its patterns listed under
    the shorter one): every rule example line a scanner pattern matches holds a stand-in of the plan that lists
    that pattern; and no plain literal of the plan contains another."""
    kb = KnowledgeBase.load()
    patterns = kb.scan_patterns()
    plan = prefilter_patterns(patterns)
    by_pattern: dict[str, list[tuple[re.Pattern[bytes], tuple[tuple[bytes, bool], ...]]]] = {}
    for stand_in, pats, _, needles in plan:
        crx = re.compile(stand_in.encode(), re.MULTILINE)
        for p, need in zip(pats, needles):
            by_pattern.setdefault(p, []).append((crx, need))
    checked = 0
    for rule in kb.rules:
        for rx in rule.regexes:
            p = to_scan_pattern(rx, rule.ignore_case)
            if p is None or p not in by_pattern:
                continue
            crx = re.compile(p.encode())
            for ex in rule.examples:
                for line in ex.log.encode().splitlines():
                    if crx.search(line):
                        checked += 1
                        assert any(s.search(line) and (not need or any(n in (line.lower() if ci else line) for n, ci in need))
                                   for s, need in by_pattern[p]), (rule.id, p, line)
    assert checked > 300
    # each stand-in took at most MAX_TAKEN literals (the needles a hit may test), and the pass holds far fewer
    assert all(len({n for ns in needles for n in ns}) <= literal_plan.MAX_TAKEN for _, _, _, needles in plan)
    unmerged = _unmerged(patterns)
    assert len(plan) < 0.8 * len(unmerged), (len(plan), len(unmerged))


def _unmerged(patterns: list[str]) -> list[object]:
    taken = literal_plan.MAX_TAKEN
    literal_plan.MAX_TAKEN = 0
    try:
        return literal_plan._prefilter_patterns(patterns)  # (not the cached plan)
    finally:
        literal_plan.MAX_TAKEN = taken


def test_a_merged_literal_keeps_its_case_rules_and_its_own_needle() -> None:
    """A caseless literal with a non-ASCII letter (hyperscan folds ASCII only: its two cases are two literals) is
    not merged into the other case; a pattern merged into a shorter literal is tried only on lines with its own."""
    sc = Scanner(extra_patterns=("(?i)erreur mémoire",))
    data = "x\nERREUR MÉMOIRE\nerreur mémoire\n".encode()
    import io

    assert [h.lineno for h in sc.lines(io.BytesIO(data)) if h.mask & sc.class_bit("rule")] == [3]  # (bytes: ASCII case only)
    plan = prefilter_patterns((r"requires a reload of the prefix block \d+", r"\brequires\b"))
    merged = {lit: dict(zip(pats, needles)) for lit, pats, _, needles in plan}
    assert len(merged) == 1
    [(lit, needles)] = merged.items()
    assert needles[r"\brequires\b"] == () and needles[r"requires a reload of the prefix block \d+"]
