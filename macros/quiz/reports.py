"""Each question's "report a problem" link: which issue form fits it, and what the link fills in.

A question the page marks (choice, numeric) is reported on the quiz-answer form;
a free question, which only a person marks, on the lesson-unclear form. Both
carry the question's id; the course's script adds the reader's answer and the
feedback they saw when the link is followed.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from collections.abc import Callable

from ..pages.issues import LESSON_FORM, QUIZ_FORM
from .options import CHECKED_KINDS

#: What the host makes of a form and fields: a new-issue address with the page's context, or None off a lesson.
IssueUrl = Callable[[str, dict[str, str]], str | None]


def form_for(kind: str) -> str:
    """The issue form for a question of `kind`."""
    return QUIZ_FORM if kind in CHECKED_KINDS else LESSON_FORM


def report_link(parent: etree.Element, question_id: str, kind: str, issue_url: IssueUrl) -> None:
    """Append the question's report link to `parent`, when the page has issue links at all."""
    form = form_for(kind)
    title = f"Quiz answer: {question_id}" if form == QUIZ_FORM else f"Unclear question: {question_id}"
    url = issue_url(form, {"title": title, "question-id": question_id})
    if url is None:
        return
    paragraph = etree.SubElement(parent, "p", {"class": "sbn-quiz__report"})
    link = etree.SubElement(paragraph, "a", {"href": url, "data-report": form})
    link.text = "Report a problem with this question"
