"""Watching a start as it happens: `crashdoc watch UNIT | --file LOG` and `crashdoc run -- COMMAND`.

The phase display comes from data (data/phases.yaml: phases, the engines' own percentages, ready and fatal
lines); the diagnosis of a failed attempt is the log pipeline's (`crashdoc.investigate.diagnose_stream`) over
that attempt's captured output, with one knowledge base loaded once per watch.
"""

from crashdoc.status import WatchStatus
from crashdoc.watch.cli import register

__all__ = ["WatchStatus", "register"]
