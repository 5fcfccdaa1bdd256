"""A numeric question: its key is the figure its answer starts with, and a field takes the reader's number.

The answer's first paragraph starts with a figure macro; the host says what
that figure is (its exact value, base unit, and the display unit the page
showed it in) from the build's record of the figures it rendered, so nothing is
read back out of the rendered text. A bare number in the reader's answer counts
in that display unit. The build checks that the page can read an answer
written the way the key is shown (`answers.read_answer`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from .answers import MAX_ANSWER, read_answer
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


#: How the host finds the figure a piece of the page's text starts with; None when it starts with none.
#: (The text is the answer's first paragraph before inline parsing; the host knows how its figures appear there.)
FindFigure = Callable[[str], KeyFigure | None]

#: A figure element at the very start of raw text, as a page without the course's build writes one.
LEADING_FIGURE = re.compile(r'\s*<span\b[^>]*\bclass="fig"[^>]*\bdata-fig-id="([^"]+)"')


def numeric(
    question_id: str,
    form: etree.Element,
    fieldset: etree.Element,
    answer: etree.Element,
    share: Fraction | None,
    find_figure: FindFigure,
) -> None:
    """Set the form's key from the answer's leading figure and add the answer field with its hint.

    Raises:
        QuizError: no tolerance, or the answer does not start with a figure.
    """
    if share is None:
        raise QuizError("a numeric quiz needs `tolerance:`, how close counts, like 5%")
    starts = answer[0].text or "" if len(answer) and answer[0].tag == "p" else ""
    key = find_figure(starts)
    if key is None:
        raise QuizError(
            "the answer must start with its key, a figure macro such as"
            ' {{ model_states("example-7b") }}; a typed number is not a key'
        )
    factor = Fraction(key.factor)
    if key.symbol and read_answer(f"1 {key.symbol}", key.unit, factor, unit_table()).value != factor:
        raise QuizError(
            f"the key is shown in {key.symbol!r}, which the page cannot read in an answer: add it to"
            f" macros/quiz/units.yml under {key.unit}, or show the key in another unit"
        )
    percent = f"{float(share * 100):g}"
    form.attrib.update(
        {
            "data-key-value": key.value,
            "data-key-unit": key.unit,
            "data-key-scale": key.factor,
            "data-key-symbol": key.symbol,
            "data-tolerance": f"{float(share):g}",
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
