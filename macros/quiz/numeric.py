"""A numeric question: its key is the figure its answer starts with, and a field takes the reader's number.

The answer's first paragraph starts with a figure macro; the host says what
that figure is (its exact value, base unit, the display unit the page showed it
in, and its text) from the build's record of the figures it rendered, so nothing
is read back out of the rendered text. A bare number in the reader's answer
counts in that display unit. The build checks that an answer typed exactly as
the key is shown is right (`answers.judge`), so that no reader copying the key
is marked wrong.

A `//// mistake` block names a wrong answer the course knows readers reach, and
why: it starts with its value, a figure macro like the key, and the page says
its explanation to an answer near that value instead of "too high".
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from markdown.util import HTML_PLACEHOLDER_RE

from ..data.quantities import format_quantity
from ..figures.figure import value_text
from .answers import MAX_ANSWER, judge
from .errors import QuizError
from .units import unit_table


@dataclass(frozen=True)
class KeyFigure:
    """What a numeric key is: exact value and base unit, and the display unit a bare answer is read in."""

    value: str
    unit: str
    #: The display unit's size in the base unit, as exact decimal text ("1000000000" for GB).
    factor: str
    #: Its name as a reader writes it ("GB", "ms", "billion"); "" for none.
    symbol: str
    #: The figure as the page shows it ("112 GB", "32 GB (32 GiB)").
    text: str


#: How the host finds the figure a piece of the page's text starts with; None when it starts with none.
#: (The text is the answer's first paragraph before inline parsing; the host knows how its figures appear there.)
FindFigure = Callable[[str], KeyFigure | None]

#: A figure element at the very start of raw text, as a page without the course's build writes one.
LEADING_FIGURE = re.compile(r'\s*<span\b[^>]*\bclass="fig"[^>]*\bdata-fig-id="([^"]+)"')
#: The whole of such an element.
LEADING_FIGURE_ELEMENT = re.compile(r'\s*<span\b[^>]*\bclass="fig"[^>]*>[^<]*</span>')


def _leading_figure(part: etree.Element, find_figure: FindFigure) -> KeyFigure | None:
    """The figure an answer's or a mistake's first paragraph starts with."""
    starts = part[0].text or "" if len(part) and part[0].tag == "p" else ""
    return find_figure(starts)


def _explained(mistake: etree.Element) -> bool:
    """Whether a mistake says more than its value: words after the leading figure, or a paragraph more."""
    after = LEADING_FIGURE_ELEMENT.sub("", HTML_PLACEHOLDER_RE.sub("", mistake[0].text or "", count=1), count=1)
    return len(mistake) > 1 or bool(re.search(r"\w", after))


def _check_key(key: KeyFigure, share: Fraction) -> None:
    """Refuse a key that an answer typed as the page shows it would not get right."""
    factor = Fraction(key.factor)
    verdict = judge(key.text, Fraction(key.value), key.unit, factor, share, unit_table())
    if verdict.kind in ("wrong-unit", "unknown-unit"):
        raise QuizError(
            f"the key is shown in {key.symbol or verdict.reading.word!r}, which the page cannot read in an answer:"
            f" add it to macros/quiz/units.yml under {key.unit}, or show the key in another unit"
        )
    if verdict.kind != "right":
        read = verdict.reading.value
        off = float((verdict.off or 0) * 100)
        how = f"reads as {format_quantity(read, key.unit)}, {off:.1f}% from the key" if read else f"is {verdict.kind}"
        raise QuizError(
            f"the key shows as {key.text!r}, and an answer typed the same way {how}, beyond the tolerance:"
            " show the key so that it reads back (binary=true for a capacity, and nominal=false for a GPU's memory,"
            " which is shown beside its nominal size otherwise; a scale= or more digits=), or widen the tolerance"
        )


def _mistakes(
    key: KeyFigure, share: Fraction, mistakes: list[etree.Element], find_figure: FindFigure
) -> list[etree.Element]:
    """The known wrong answers, checked and marked for the page: each one's value, in the key's base unit."""
    values: list[Fraction] = []
    for mistake in mistakes:
        figure = _leading_figure(mistake, find_figure)
        if figure is None:
            raise QuizError(
                "a `//// mistake` starts with the wrong answer it explains, a figure macro such as"
                ' {{ zero_states("llama2-7b-one-host", "dp") }}, then says why a reader reaches it'
            )
        if figure.unit != key.unit:
            raise QuizError(f"the mistake {figure.text!r} is in {figure.unit!r}, and the key in {key.unit!r}")
        value = Fraction(figure.value)
        if judge(figure.text, Fraction(key.value), key.unit, Fraction(key.factor), share, unit_table()).kind == "right":
            raise QuizError(f"the mistake {figure.text!r} is within the tolerance of the key: it would count as right")
        if any(abs(other - value) <= share * (other + value) for other in values):
            raise QuizError(f"the mistake {figure.text!r} is within the tolerance of another one: keep one of them")
        if not _explained(mistake):
            raise QuizError(
                f"the mistake {figure.text!r} needs its explanation after its value: what a reader who reaches it"
                " did, and what the question asks instead"
            )
        values.append(value)
        mistake.attrib.update({"class": "sbn-quiz__mistake", "data-mistake-value": figure.value})
    return mistakes


def numeric(
    question_id: str,
    form: etree.Element,
    fieldset: etree.Element,
    answer: etree.Element,
    share: Fraction | None,
    find_figure: FindFigure,
    mistakes: list[etree.Element] | None = None,
) -> list[etree.Element]:
    """Set the form's key from the answer's leading figure, add the answer field with its hint, and return the
    known mistakes, marked for the page.

    Raises:
        QuizError: no tolerance, the answer does not start with a figure, the key as shown does not read back
            as right, or a mistake that is not one.
    """
    if share is None:
        raise QuizError("a numeric quiz needs `tolerance:`, how close counts, like 5%")
    key = _leading_figure(answer, find_figure)
    if key is None:
        raise QuizError(
            "the answer must start with its key, a figure macro such as"
            ' {{ model_states("example-7b") }}; a typed number is not a key'
        )
    _check_key(key, share)
    percent = f"{float(share * 100):g}"
    form.attrib.update(
        {
            "data-key-value": key.value,
            "data-key-unit": key.unit,
            "data-key-scale": key.factor,
            "data-key-symbol": key.symbol,
            "data-tolerance": value_text(share),
            "data-tolerance-percent": percent,
        }
    )
    input_id = f"quiz-{question_id}-answer"
    field = etree.SubElement(fieldset, "p", {"class": "sbn-quiz__field"})
    label = etree.SubElement(field, "label", {"for": input_id})
    label.text = "Your answer"
    etree.SubElement(
        field,
        "input",
        {
            "type": "text",
            "id": input_id,
            "name": "answer",
            "autocomplete": "off",
            "maxlength": str(MAX_ANSWER),
            "spellcheck": "false",
            "inputmode": "text",
            "aria-describedby": f"{input_id}-hint",
        },
    )
    hint = etree.SubElement(field, "span", {"class": "sbn-quiz__hint", "id": f"{input_id}-hint"})
    unit_words = f" (a bare number counts as {key.symbol})" if key.symbol else ""
    # A ratio or a count (base unit "1", shown without a symbol) has no unit to write.
    asked = "A number" if key.unit == "1" and not key.symbol else "A number with its unit"
    hint.text = f"{asked}{unit_words}; within {percent}% counts."
    return _mistakes(key, share, mistakes or [], find_figure)
