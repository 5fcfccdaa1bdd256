"""The error a malformed quiz or checklist raises."""

from __future__ import annotations


class QuizError(ValueError):
    """A quiz or checklist is malformed; the message says what and how to fix it."""


class ReportedAlready(QuizError):
    """Where a key or a mistake should start, the host shows a problem it reported already (a macro call that
    failed): the block shows it too, without a second report that would blame the author for something else."""
