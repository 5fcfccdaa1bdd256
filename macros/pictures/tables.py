"""Tables of figures: one figure kind over rows and columns of its arguments, each cell a figure.

`{{ table("model_states", rows={"entry": ["gpt2-1.5b", "example-7b"]}, columns={"state": [...]}) }}`
binds one of the kind's parameters to the rows and one or two to the columns
(two make grouped column headers), the others to `fixed` values; every cell
is that kind's figure for its row's and column's arguments, rendered and
recorded like any figure in the prose. Options:

- `caption`: what the table shows (required: a table is named for its readers);
- `labels`: header text for argument values, `{"os": "P_{os}"}`, where
  `_{...}` is set as a subscript; catalog ids show their entry's name,
  numbers their value;
- `names`: header text for the row parameter, and for the column groups;
- `fits`: a GPU id: cells whose bytes fit in its memory are marked;
- `printed`: where a source prints a cell differently from the computed
  figure's display, show the source's number beside it (default true): "rounds
  it to" where it is the same value to the source's own digits, rounded half up,
  "prints" where it is not (its arithmetic differs);
- display options (`digits`, `scale`, ...) apply to every cell.

Markdown in, an accessible `<table>` out: a caption, column headers with
`scope`, row headers, and the marks explained in the caption. Nothing here
imports MkDocs.
"""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from ..data.catalog import Catalog, Printed
from ..data.quantities import display_quantity, round_significant
from ..figures.kinds.registry import FigureKind
from .labels import label


class TableError(ValueError):
    """A table is laid out wrongly; the message says which argument and how to fix it."""


def _axis(name: str, value: Any, kind: FigureKind, most: int) -> list[tuple[str, list[Any]]]:
    if not isinstance(value, Mapping) or not 1 <= len(value) <= most:
        raise TableError(
            f"{name}= maps {'one parameter' if most == 1 else 'one or two parameters'} of"
            f' {kind.usage} to a list of values, like {{"entry": ["gpt2-1.5b"]}}'
        )
    parameters = [p.name for p in kind.parameters]
    axes = []
    for parameter, values in value.items():
        if parameter not in parameters:
            raise TableError(f"{name}=: {kind.name} has no parameter {parameter!r}; it takes {', '.join(parameters)}")
        if not isinstance(values, list) or not values:
            raise TableError(f"{name}=: give {parameter!r} a non-empty list of values")
        axes.append((parameter, values))
    return axes


#: A label's subscript: "P_{os+g}" shows P with os+g set low.
_SUBSCRIPT = re.compile(r"_\{([^{}]*)\}")


def _write(element: ET.Element, label: str) -> None:
    """Set `label` as the element's text, each `_{...}` in it as a `<sub>`."""
    parts = _SUBSCRIPT.split(label)
    element.text = parts[0]
    for low, tail in zip(parts[1::2], parts[2::2], strict=True):
        sub = ET.SubElement(element, "sub")
        sub.text, sub.tail = low, tail


#: The most cells a table of figures has: a reader compares a few dozen, and each cell is computed at every build,
#: a plan's in about a second.
MAX_CELLS = 120


def figure_table(
    kind: FigureKind,
    render: Callable[..., str],
    catalog: Catalog,
    *,
    rows: Mapping[str, list[Any]],
    columns: Mapping[str, list[Any]],
    caption: str = "",
    fixed: Mapping[str, Any] | None = None,
    labels: Mapping[Any, str] | None = None,
    names: Mapping[str, str] | None = None,
    fits: str | None = None,
    printed: bool = True,
    **display: Any,
) -> str:
    """The table's HTML: `render(*arguments, **display)` in every cell (see the module's docstring).

    Raises:
        TableError: a layout argument that does not fit the kind, or a cell that cannot be computed.
    """
    if not isinstance(caption, str) or not caption.strip():
        raise TableError('caption= says what the table shows, such as caption="Memory per device"')
    labels, names, fixed = labels or {}, names or {}, dict(fixed or {})
    (row_name, row_values), *_ = _axis("rows", rows, kind, 1)
    column_axes = _axis("columns", columns, kind, 2)
    bound = {row_name, *fixed, *(name for name, _ in column_axes)}
    parameters = [p.name for p in kind.parameters]
    missing = [p.name for p in kind.parameters if p.default is p.empty and p.name not in bound]
    if missing or len(bound) != 1 + len(fixed) + len(column_axes) or set(fixed) - set(parameters):
        raise TableError(
            f"bind each parameter of {kind.usage} once, by rows=, columns= or fixed=;"
            f" {'unbound: ' + ', '.join(missing) if missing else 'some are bound twice or unknown'}"
        )
    cells = len(row_values) * math.prod(len(values) for _, values in column_axes)
    if cells > MAX_CELLS:
        raise TableError(
            f"the table has {cells:,} cells, more than the {MAX_CELLS} a table of figures holds: each cell is"
            " computed at every build (a plan searches every layout), so give fewer rows or columns, or chart it"
        )
    memory = catalog.quantity(fits, "memory") if fits is not None else None

    # Class-less, so that Material styles it as every table of the course and lets it scroll on a phone.
    table = ET.Element("table")
    caption_element = ET.SubElement(table, "caption")
    caption_element.text = caption.strip()
    legends = []
    if memory is not None:
        legends.append(f"✓ marks a cell that fits in the memory of one {memory.label}.")
    head = ET.SubElement(table, "thead")
    column_keys = list(itertools.product(*(values for _, values in column_axes)))
    if len(column_axes) == 2:
        group_row = ET.SubElement(head, "tr")
        corner = ET.SubElement(group_row, "td")
        corner.text = ""
        _, outer_values = column_axes[0]
        inner_count = len(column_axes[1][1])
        for value in outer_values:
            cell = ET.SubElement(group_row, "th", {"scope": "colgroup", "colspan": str(inner_count)})
            _write(cell, label(value, catalog, labels))
    header_row = ET.SubElement(head, "tr")
    row_header = ET.SubElement(header_row, "th", {"scope": "col"})
    _write(row_header, names.get(row_name, row_name))
    for key in column_keys:
        cell = ET.SubElement(header_row, "th", {"scope": "col"})
        _write(cell, label(key[-1], catalog, labels))

    body = ET.SubElement(table, "tbody")
    printed_notes = 0
    for row_value in row_values:
        row = ET.SubElement(body, "tr")
        header = ET.SubElement(row, "th", {"scope": "row"})
        _write(header, label(row_value, catalog, labels))
        for key in column_keys:
            binding = {**fixed, row_name: row_value, **dict(zip((n for n, _ in column_axes), key, strict=True))}
            arguments = _arguments(kind, binding)
            try:
                figure = kind.figure(catalog, *arguments)
            except (KeyError, ValueError, TypeError) as error:
                message = error.args[0] if error.args else str(error)
                raise TableError(f"the cell {binding} cannot be computed: {message}") from None
            cell = ET.SubElement(row, "td")
            # The figure's element is HTML of our own; it is parsed back into the tree to sit in the cell.
            cell.append(ET.fromstring(render(*arguments, **display)))
            if memory is not None and figure.unit == "B" and figure.value <= memory.value:
                cell.set("class", "sbn-table__fits")
                mark = ET.SubElement(cell, "span", {"class": "sbn-table__mark", "aria-label": "fits"})
                mark.text = "\u2009✓"
                mark.tail = None
            if printed and figure.printed is not None:
                shown = display_quantity(figure.value, figure.unit, **display)
                theirs = Fraction(figure.printed.value) / shown.factor
                if _number(shown.text) != theirs:
                    printed_notes += 1
                    verb = "rounds it to" if _rounds_to(Fraction(figure.value), figure.printed) else "prints"
                    source = ET.SubElement(cell, "span", {"class": "sbn-table__printed"})
                    source.text = f"{figure.printed.source.cite} {verb} {round_significant(theirs, 6)}"
    if printed_notes:
        legends.append(
            "Where the source prints a cell differently, its number is shown beside ours: it rounds the same"
            " value to its own digits (a final 5 up, where ours rounds it to even), or it prints another number."
        )
    if legends:
        caption_element.text = f"{caption_element.text} "  # the caption's words apart from the legend's, as shown
        note = ET.SubElement(caption_element, "span", {"class": "sbn-table__legend"})
        note.text = " ".join(legends)
    return ET.tostring(table, encoding="unicode")


def _arguments(kind: FigureKind, binding: Mapping[str, Any]) -> tuple[Any, ...]:
    """The kind's positional arguments from a binding of parameter names, defaults where unbound."""
    return tuple(binding.get(p.name, p.default) for p in kind.parameters)


def _digits(text: str) -> str:
    """The first number of a display or printed text as written, without its thousands separators."""
    written = "".join(itertools.takewhile(lambda c: c.isdigit() or c in ",.", text.strip().lstrip("~≈ ")))
    return written.rstrip(".,").replace(",", "")


def _number(text: str) -> Fraction | None:
    """The first number in a display or printed text, for comparing a source's rounding with ours."""
    try:
        return Fraction(_digits(text))
    except ValueError:
        return None


def _rounds_to(value: Fraction, printed: Printed) -> bool:
    """Whether the source's number is `value` rounded half up to the digits it prints (0.46875 GB as 0.47).

    The printed text's number and the printed value give the text's unit (a
    power of ten: 0.47 for 470,000,000 bytes is GB); anything else is not read
    as a rounding.
    """
    try:
        written = Decimal(_digits(printed.text))
    except ArithmeticError:
        return False
    if written <= 0:
        return False
    unit = Fraction(printed.value) / Fraction(written)
    exponent = written.as_tuple().exponent
    if unit.denominator != 1 or str(unit.numerator).rstrip("0") != "1" or not isinstance(exponent, int):
        return False
    exact = Fraction(value) / unit
    step = Decimal(1).scaleb(exponent)
    return (Decimal(exact.numerator) / Decimal(exact.denominator)).quantize(step, rounding=ROUND_HALF_UP) == written
