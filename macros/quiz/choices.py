"""Single and multiple choice: the options as labelled inputs, and the feedback on every option.

Each `//// option` holds the option's text as its first paragraph, then its
feedback. The options become a list of labelled radios or checkboxes lettered
a), b), ...; the feedback goes behind the answer's disclosure, each entry led by
its verdict and marked with its letter and whether it is right, so that the
script can show the chosen ones without reading words back out of the page.
"""

from __future__ import annotations

import string
import xml.etree.ElementTree as etree

from .errors import QuizError

LETTERS = string.ascii_lowercase


def choices(question_id: str, kind: str, fieldset: etree.Element, options: list[etree.Element]) -> etree.Element:
    """Add the options' inputs to `fieldset`, and return the answer: which are right, and every option's feedback.

    Raises:
        QuizError: fewer than two options, more than the alphabet letters them,
            or a count of right options the kind does not allow.
    """
    if len(options) < 2:
        raise QuizError("a choice quiz needs at least two `//// option` blocks")
    if len(options) > len(LETTERS):
        raise QuizError(f"a choice quiz takes at most {len(LETTERS)} options (a to z); it has {len(options)}")
    correct = [option for option in options if option.get("data-correct") == "true"]
    if kind == "single" and len(correct) != 1:
        raise QuizError(f"a single-choice quiz needs exactly one `//// option | correct`; it has {len(correct)}")
    if kind == "multiple" and not correct:
        raise QuizError("a multiple-choice quiz needs at least one `//// option | correct`")
    listing = etree.SubElement(fieldset, "ul", {"class": "sbn-quiz__options"})
    answer = etree.Element("div", {"class": "sbn-quiz__feedback"})
    lead = etree.SubElement(answer, "p")
    lead.text = "Right: " + ", ".join(f"{LETTERS[options.index(option)]})" for option in correct)
    feedback_list = etree.SubElement(answer, "ul")
    input_type = "radio" if kind == "single" else "checkbox"
    for letter, option in zip(LETTERS, options, strict=False):
        right = option.get("data-correct") == "true"
        label_paragraph, *feedback = list(option)
        item = etree.SubElement(listing, "li")
        label = etree.SubElement(item, "label")
        etree.SubElement(label, "input", {"type": input_type, "name": f"{question_id}-choice", "value": letter})
        text = etree.SubElement(label, "span")
        text.text = f"{letter}) " + (label_paragraph.text or "")
        text.extend(list(label_paragraph))
        entry = etree.SubElement(
            feedback_list, "li", {"data-option": letter, "data-correct": "true" if right else "false"}
        )
        verdict = etree.SubElement(entry, "strong", {"class": "sbn-quiz__verdict"})
        verdict.text = f"{letter}) {'Right' if right else 'Not this one'}."
        verdict.tail = " "
        why = etree.SubElement(entry, "div", {"class": "sbn-quiz__why"})
        why.extend(feedback)
    return answer
