"""What a checked question's verdict was given under, so that a verdict stored under another key is not counted.

course.js stores a reader's answer with its verdict (`right`), and the home page's syllabus counts the
verdicts without the keys, which only a lesson's page has. A key can change between deploys (a figure's
input corrected, a tolerance, the right option), and a verdict stored under the old one would be counted
there until the reader opened the lesson again, which judges the answer anew. So each checked question
carries a digest of what decides its verdict (`data-quiz-verdict`), which course.js stores beside the
verdict, and the home page counts a verdict only under the digest its question has now.
"""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as etree

#: The attributes of a numeric question's form that decide its verdict: its key and its tolerance.
_DECIDING = ("data-key-", "data-tolerance")


def verdict_digest(form: etree.Element) -> str | None:
    """A digest of what decides the verdict of the question `form` asks: a numeric one's key and tolerance, a
    choice's right options; None for a free question, which is marked by the reader, not checked.

    >>> form = etree.fromstring('<form data-quiz-kind="numeric" data-key-value="112" data-tolerance="0.05"/>')
    >>> digest = verdict_digest(form)
    >>> form.set("data-key-value", "113"); digest != verdict_digest(form)
    True
    """
    if form.get("data-quiz-kind") in (None, "free"):
        return None
    deciding = {name: value for name, value in sorted(form.items()) if name.startswith(_DECIDING)}
    right = sorted(option.get("data-option", "") for option in form.iter() if option.get("data-correct") == "true")
    return hashlib.sha256(json.dumps([deciding, right]).encode()).hexdigest()[:12]
