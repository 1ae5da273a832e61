"""`crashdoc fix UNIT`: diagnose, show the plan, ask, apply (actions/fix.py), watch the next start (the watch
driver) and give a verdict: fixed, not fixed (the same error again), or a new error."""
