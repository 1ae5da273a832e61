"""Reading evidence: files, .gz, stdin and journal JSON, scanned in blocks for the few lines worth parsing."""

from crashdoc.ingest.reader import open_input
from crashdoc.ingest.scan import HotLine, Scanner, ScanStats

__all__ = ["open_input", "HotLine", "Scanner", "ScanStats"]
