"""`crashdoc eval DIR`: score crashdoc on a corpus folder (cases/<id>.log + <id>.json, see FORMAT.md)."""

from crashdoc.evaluate.corpus import CaseResult, EvalReport, evaluate_dir

__all__ = ["CaseResult", "EvalReport", "evaluate_dir"]
