"""The error the knowledge base raises: one line, naming the rule file and the fix."""

from __future__ import annotations

from crashdoc.errors import CrashdocError


class RuleError(CrashdocError):
    """A rule file (packaged or user-supplied) is invalid, or a rule directory is unusable."""

    #: user input (a --rules folder, CRASHDOC_RULES): the same status as an unreadable input
    exit_status = 2
