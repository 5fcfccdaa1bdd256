"""Figures: computed values with their formula, inputs and provenance, and the element they render as.

A figure kind (`macros.figures.kinds`) computes a `Computed` from the catalog; the
registry gives it its id and what a source printed for it, making a `Figure`.
`render_html` shows a figure as the one `<span class="fig">` element that
ARCHITECTURE.md ("Figures") specifies, `tooltip` says what its tooltip shows beyond its title,
and `FigureLog` gathers what a build showed into `figures.json`. Nothing here
imports MkDocs.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..data.catalog import Measured, Printed, Quantity
from ..data.quantities import Display, Number, format_quantity


@dataclass(frozen=True)
class Computed:
    """What a figure kind computes: a value in a base unit, and how, in symbols and in words."""

    value: Number
    unit: str
    #: The formula in symbols: "16 B × parameters".
    formula: str
    #: The same with the inputs' values, in words a reader understands: "16 bytes × 1.5 billion parameters".
    words: str
    inputs: tuple[Quantity, ...] = ()
    #: Display options this figure takes unless the author says otherwise (a capacity shows as sold).
    display: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Figure:
    """A computed value with its id, its explanation with sources, and what a source printed for it."""

    id: str
    computed: Computed
    printed: Printed | None = None
    #: What running real training software measured for it (the engine tier's `measured.yml`).
    measured: tuple[Measured, ...] = ()

    @property
    def value(self) -> Number:
        """The exact value, in the base unit."""
        return self.computed.value

    @property
    def unit(self) -> str:
        """The base unit."""
        return self.computed.unit

    @property
    def explanation(self) -> str:
        """How it was computed, and from which sources: the hover text."""
        sources = "; ".join(dict.fromkeys(f"{q.label}: {q.source.cite}" for q in self.computed.inputs))
        return f"{self.computed.words} — {sources}" if sources else self.computed.words


def shown(quantity: Quantity) -> str:
    """A catalog input as the explanations show it, in its default display."""
    return format_quantity(quantity.value, quantity.unit, **quantity.display)


def digest(computed: Computed) -> str:
    """A short fingerprint of what a figure is made of: its unit, its formula, and which catalog values it
    takes (each input's entry, field and unit), not their values. measured.yml keeps it beside the figure a
    measurement vouches for, so that a figure made another way since the engine tier ran (another formula,
    another input) is found, not vouched for by an old run; a catalog value changed leaves the measured ratio,
    which scales the figure, as true as it was.

    >>> digest(Computed(16, "B/param", "16 B", "")) == digest(Computed(20, "B/param", "16 B", "sixteen"))
    True
    >>> digest(Computed(16, "B/param", "16 B", "")) == digest(Computed(16, "B/param", "18 B", ""))
    False
    """
    parts = [computed.unit, computed.formula]
    parts += [f"{quantity.entry}.{quantity.field}:{quantity.unit}" for quantity in computed.inputs]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def value_text(value: Number) -> str:
    """The exact value as text: digits for a whole number or a terminating decimal, else "p/q".

    Every digit of a terminating decimal, however many (2⁻¹³³ has 133 places): computed in integers, not in
    `Decimal`'s 28 significant digits.

    >>> value_text(Fraction(21, 128)), value_text(Fraction(1, 3))
    ('0.1640625', '1/3')
    >>> Fraction(value_text(Fraction(1, 2**133))) == Fraction(1, 2**133)
    True
    """
    exact = Fraction(value)
    denominator, places = exact.denominator, {2: 0, 5: 0}
    for prime in places:
        while denominator % prime == 0:
            denominator //= prime
            places[prime] += 1
    if denominator != 1:
        return f"{exact.numerator}/{exact.denominator}"
    if exact.denominator == 1:
        return str(exact.numerator)
    shift = max(places.values())
    digits = str(abs(exact.numerator) * 10**shift // exact.denominator).rjust(shift + 1, "0")
    return f"{'-' if exact < 0 else ''}{digits[:-shift]}.{digits[-shift:]}"


def attribute_value(value: Number) -> str:
    """The value for `data-value`, which scripts read as a number: exact where it terminates, else 20 digits."""
    text = value_text(value)
    if "/" not in text:
        return text
    exact = Fraction(value)
    return format(Decimal(exact.numerator) / Decimal(exact.denominator), ".20g")


#: What an attribute's value escapes, as ElementTree writes it (html.escape would also write "'" as a
#: reference and keep line ends: the same page, other bytes).
_ATTRIBUTE_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#09;"}
)


def render_html(figure: Figure, display: Display) -> str:
    """The one element a figure renders as, with its exact value, unit and explanation.

    Written as text: a page shows hundreds of figures, and building each as an ElementTree
    element to serialize it cost more than computing it.
    """
    attributes = {
        "class": "fig",
        "data-fig-id": figure.id,
        "data-value": attribute_value(figure.value),
        "data-unit": figure.unit,
        "title": figure.explanation,
        # Focusable, so that the explanation shows on keyboard focus and on a tap too.
        "tabindex": "0",
    }
    written = " ".join(f'{name}="{value.translate(_ATTRIBUTE_ESCAPES)}"' for name, value in attributes.items())
    return f"<span {written}>{html.escape(display.text, quote=False)}</span>"


#: Signs that make a formula worth showing: a catalog value's "formula" is only its field's name.
_OPERATORS = frozenset("×÷+−=/")


def tooltip(figure: Figure) -> dict[str, Any]:
    """What a figure's tooltip shows beyond its title: the formula in words with its inputs, the formula in
    symbols where there is one, and each input's source as [label, citation, where, address or None]."""
    sources = dict.fromkeys((q.label, q.source.cite, q.where, q.source.url) for q in figure.computed.inputs)
    shown: dict[str, Any] = {"words": figure.computed.words, "sources": [list(source) for source in sources]}
    if _OPERATORS & set(figure.computed.formula):
        shown["formula"] = figure.computed.formula
    if figure.measured:
        # [the software, why it differs from the course's formula or None, and the figure as the software would
        # show it]: course.js shows "Measured: …".
        shown["measured"] = [
            [measured.software, measured.differs, format_quantity(measured.scaled(figure.value), figure.unit)]
            for measured in figure.measured
        ]
    return shown


def _engine_record(figure: Figure, measured: Measured) -> dict[str, Any]:
    """What figures.json says the software measured for `figure`: the value it would show, in the figure's unit."""
    record = {
        "software": measured.software,
        "measured": value_text(measured.scaled(figure.value)),
        "test": measured.test,
    }
    if measured.differs:
        record["differs"] = measured.differs
    return record


class FigureLog:
    """The figures one build showed, page by page, for `figures.json`."""

    def __init__(self) -> None:
        self._records: dict[tuple[str, str, str], dict[str, Any]] = {}

    def add(self, page: str, url: str, figure: Figure, display: Display) -> None:
        """Record that `page` (its source path) showed `figure` as `display`."""
        record: dict[str, Any] = {
            "page": page,
            "url": url,
            "id": figure.id,
            "value": value_text(figure.value),
            "unit": figure.unit,
            "display": display.text,
            "display_unit": display.symbol,
            "display_factor": value_text(display.factor),
            "formula": figure.computed.formula,
            "explanation": figure.explanation,
            "inputs": [
                {
                    "entry": q.entry,
                    "field": q.field,
                    "value": value_text(q.value),
                    "unit": q.unit,
                    "source": q.source.id,
                    "where": q.where,
                }
                for q in figure.computed.inputs
            ],
        }
        if figure.measured:
            engine = [_engine_record(figure, measured) for measured in figure.measured]
            record["engine"] = engine[0]
            if len(engine) > 1:
                record["engine"]["also"] = engine[1:]
        if figure.printed:
            printed = figure.printed
            record["printed"] = {
                "value": value_text(printed.value),
                "unit": printed.unit,
                "text": printed.text,
                "source": printed.source.id,
                "url": printed.source.url,
                "where": printed.where,
                "rounding": value_text(printed.rounding),
            }
        self._records[(page, figure.id, display.text)] = record

    def on_page(self, page: str) -> list[dict[str, Any]]:
        """The records of one page."""
        return [record for (shown_on, _, _), record in self._records.items() if shown_on == page]

    def records(self) -> list[dict[str, Any]]:
        """Every record, ordered by page, then figure id."""
        return [self._records[key] for key in sorted(self._records)]

    def write(self, path: Path) -> None:
        """Write the records as JSON to `path`, one record per line: as easy to diff as indented JSON, and
        written by json's C encoder, which indenting would turn off."""
        lines = ",\n".join(json.dumps(record, ensure_ascii=False) for record in self.records())
        path.write_text(f"[\n{lines}\n]\n", encoding="utf-8")
