"""The error a malformed quiz or checklist raises."""

from __future__ import annotations


class QuizError(ValueError):
    """A quiz or checklist is malformed; the message says what and how to fix it."""
