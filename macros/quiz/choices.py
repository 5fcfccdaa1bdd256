"""Single and multiple choice: the options as labelled inputs, and the feedback on every option.

Each `//// option` holds the option's text as its first paragraph, then its
feedback. The options become a list of labelled radios or checkboxes lettered
a), b), ...; the feedback goes behind the answer's disclosure, each entry led by
its verdict and marked with its option's value and whether it is right, so that
the script can show the chosen ones without reading words back out of the page.

An option's value, under which a reader's choice is stored, comes from its
text, not its place: reordering the options keeps a stored choice on the option
it was, and rewording an option drops it (the reader chose other words). So no
two options may read the same, and none may read as nothing.
"""

from __future__ import annotations

import hashlib
import html
import re
import string
import unicodedata
import xml.etree.ElementTree as etree
from collections.abc import Callable, Collection, Sequence

from ..data.lookalike import as_read
from .errors import QuizError

LETTERS = string.ascii_lowercase
#: Characters that show nothing but are neither spaces nor formatting to Unicode: the braille blank, fillers.
_BLANKS = frozenset("\u2800\u3164\u115f\u1160\uffa0")
#: What Markdown's emphasis and code marks are made of: text of nothing else shows nothing.
_MARKS = frozenset("*_`~")
#: What Python-Markdown reads a backslash escape of, before extensions add theirs (`Markdown.ESCAPED_CHARS`).
MARKDOWN_ESCAPES = frozenset("\\`*_{}[]()>#+-.!")

#: What the block gives the options: the HTML its placeholders stand for (a figure's element), by placeholder.
Unstash = Callable[[str], str]


def visible_text(raw: str, unstash: Unstash, escapable: Collection[str] = MARKDOWN_ESCAPES) -> str:
    """What a reader sees of an option's Markdown: placeholders resolved, tags and marks dropped, references read,
    backslash escapes of `escapable` (the page's Markdown's) read as their characters, invisible characters
    (zero-width spaces, no-break spaces, format characters, blanks) gone, spaces collapsed.

    >>> visible_text("&nbsp;\u200b *", lambda text: text)
    ''
    >>> visible_text("A  <b>bold</b> &amp; *right* one", lambda text: text)
    'A bold & right one'
    >>> visible_text("Yes\\\\!", lambda text: text) == visible_text("Yes!", lambda text: text)
    True
    """
    text = html.unescape(re.sub(r"<[^>]*>", "", unstash(raw)))
    # Read as the page shows them, "Yes\\!" as "Yes!": the blocks run before Markdown's inline pass, which reads
    # escapes, so an option's text holds them as typed.
    text = re.sub(r"\\(.)", lambda match: match.group(1) if match.group(1) in escapable else match.group(0), text)
    kept = []
    for character in text:
        category = unicodedata.category(character)
        if category[0] == "Z" or category in ("Cc", "Cf") or character.isspace() or character in _BLANKS:
            kept.append(" ")
        elif character not in _MARKS:
            kept.append(character)
    return " ".join("".join(kept).split())


def option_value(text: str) -> str:
    """The value an option's input carries and a stored choice names: a digest of its visible text as a person reads
    it (`lookalike.as_read`: "Pаris" with a Cyrillic а is "Paris"), in any case, so that two options a reader
    cannot tell apart have one value."""
    return hashlib.sha256(as_read(text).casefold().encode("utf-8")).hexdigest()[:8]


class ApartError(QuizError):
    """Labels a reader cannot tell apart: the message, and the index of the label told (the later of two alike)."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


def values_apart(shown: Sequence[str], names: Sequence[str], noun: str, what: str) -> list[str]:
    """The value of each of `shown` (labels as a reader sees them, `visible_text`), checked to show something and
    to read apart (`option_value`): for a choice's options and a checklist's items alike, one check.

    `names` name each label in a message ("a)", "2 (l8-rep-b)"), `noun` what they are, `what` what each says.

    >>> values_apart(["Yes", "No"], ["a)", "b)"], "option", "what the reader chooses") == [
    ...     option_value("Yes"), option_value("No")]
    True
    >>> try:
    ...     values_apart(["Yes", "No", "yes"], ["1", "2", "3"], "item", "the rep")
    ... except ApartError as error:
    ...     print(error.index, str(error).split(":")[0])
    2 items 1 and 3 read the same, 'yes'

    Raises:
        ApartError: a label that shows nothing, or reads as one before it does.
    """
    values: dict[str, int] = {}
    for index, (text, name) in enumerate(zip(shown, names, strict=False)):
        if not text:
            raise ApartError(
                f"{noun} {name} shows no text (only spaces, marks or invisible characters such as a zero-width"
                f" space or &nbsp;): write {what} as the {noun}'s first paragraph",
                index,
            )
        value = option_value(text)
        if value in values:
            raise ApartError(
                f"{noun}s {names[values[value]]} and {name} read the same, {text!r}: a reader could not tell them"
                " apart; make each say something of its own, or drop one",
                index,
            )
        values[value] = index
    return list(values)


def choices(
    question_id: str,
    kind: str,
    fieldset: etree.Element,
    options: list[etree.Element],
    unstash: Unstash,
    escapable: Collection[str],
) -> etree.Element:
    """Add the options' inputs to `fieldset`, and return the answer: which are right, and every option's feedback.

    `escapable` is what the page's Markdown reads a backslash escape of (its `ESCAPED_CHARS`, with its extensions').

    Raises:
        QuizError: fewer than two options, more than the alphabet letters them, an option that shows
            nothing or reads as another does, or a count of right options the kind does not allow.
    """
    if len(options) < 2:
        raise QuizError("a choice quiz needs at least two `//// option` blocks")
    if len(options) > len(LETTERS):
        raise QuizError(f"a choice quiz takes at most {len(LETTERS)} options (a to z); it has {len(options)}")
    shown = [visible_text(option[0].text or "", unstash, escapable) for option in options]
    try:
        values = values_apart(shown, [f"{letter})" for letter in LETTERS], "option", "what the reader chooses")
    except ApartError as error:
        raise QuizError(str(error)) from None
    for option, value in zip(options, values, strict=True):
        option.set("data-value", value)
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
        value = option.get("data-value", "")
        label_paragraph, *feedback = list(option)
        item = etree.SubElement(listing, "li")
        label = etree.SubElement(item, "label")
        etree.SubElement(label, "input", {"type": input_type, "name": f"{question_id}-choice", "value": value})
        text = etree.SubElement(label, "span")
        text.text = f"{letter}) " + (label_paragraph.text or "")
        text.extend(list(label_paragraph))
        entry = etree.SubElement(
            feedback_list,
            "li",
            {"data-option": value, "data-letter": letter, "data-correct": "true" if right else "false"},
        )
        verdict = etree.SubElement(entry, "strong", {"class": "sbn-quiz__verdict"})
        verdict.text = f"{letter}) {'Right' if right else 'Not this one'}."
        verdict.tail = " "
        why = etree.SubElement(entry, "div", {"class": "sbn-quiz__why"})
        why.extend(feedback)
    return answer
