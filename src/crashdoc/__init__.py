"""crashdoc: from a crashed inference service's log to the root cause, the evidence and the fix."""

__version__ = "0.1.0"
