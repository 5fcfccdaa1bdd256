"""The geometry of a chart: scales from values to the drawing's coordinates, ticks, and labels kept apart.

Plain arithmetic on floats, for drawing only: the values a chart shows are
exact figures elsewhere (`macros.charts`); here they only find their place.
Nothing here imports MkDocs or knows about figures. `element` writes the elements of
charts, diagrams and the calculator alike.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: What keeps a drawing's text (tick marks, cell letters, controls) out of Material's search index: the drawing
#: is read through its caption, its data table or its frames' descriptions, which stay in. Material's search
#: plugin skips an element with this attribute; it compares elements by tag, so it goes on an element that
#: holds no element of its own tag (an <svg>, a <form>, a <div> of buttons).
SEARCH_EXCLUDE: Mapping[str, str] = {"data-search-exclude": ""}


class PlotError(ValueError):
    """Values that cannot be drawn on the axis asked for, such as zero on a log axis."""


@dataclass(frozen=True)
class Scale:
    """Maps values in [low, high] onto coordinates [start, end], linearly or by their logarithm."""

    low: float
    high: float
    start: float
    end: float
    log: bool = False

    def __call__(self, value: float) -> float:
        """The coordinate of `value`."""
        if self.log:
            share = (math.log10(value) - math.log10(self.low)) / (math.log10(self.high) - math.log10(self.low))
        else:
            share = (value - self.low) / (self.high - self.low)
        return round(self.start + share * (self.end - self.start), 2)


def domain(values: Sequence[float], log: bool, zero: bool = True) -> tuple[float, float]:
    """The axis's range: on a log axis, from 1, 2 or 5 times a power of ten below the values to one above;
    on a linear one, from 0 (or the least value) to a round top.

    >>> domain([2.4e10, 1.6e12], log=True)
    (20000000000.0, 2000000000000.0)
    >>> domain([2, 2, 4, 4, 4], log=False)
    (0, 4.0)

    Raises:
        PlotError: no values, or a value at or below zero on a log axis.
    """
    if not values:
        raise PlotError("there are no values to draw")
    low, high = min(values), max(values)
    if log:
        if low <= 0:
            raise PlotError(f"a log axis cannot show {low!r}; draw it on a linear axis")
        return _round_down(low), _round_up(high)
    bottom = 0 if zero and low >= 0 else low
    if high == bottom:
        return bottom, bottom + 1.0
    step = _step(high - bottom)
    return bottom, math.ceil(high / step - 1e-9) * step


def _round_down(value: float) -> float:
    power = 10.0 ** math.floor(math.log10(value) + 1e-9)
    return max(power * m for m in (1, 2, 5) if power * m <= value * (1 + 1e-9))


def _round_up(value: float) -> float:
    power = 10.0 ** math.floor(math.log10(value) - 1e-9)
    return min(power * m for m in (1, 2, 5, 10) if power * m >= value * (1 - 1e-9))


def _step(span: float, most: int = 6) -> float:
    """A round step (1, 2 or 5 times a power of ten) that cuts `span` into at most `most` parts."""
    power = 10.0 ** math.floor(math.log10(span / most))
    return next(power * m for m in (1, 2, 5, 10) if span / (power * m) <= most)


def ticks(low: float, high: float, log: bool) -> list[float]:
    """Where the axis is marked: powers of ten on a log axis (1, 2 and 5 times them when fewer than three
    fit), round steps on a linear one.

    >>> ticks(1e9, 2e12, log=True)
    [1000000000.0, 10000000000.0, 100000000000.0, 1000000000000.0]
    >>> ticks(2, 100, log=True)
    [2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
    >>> ticks(0, 20, log=False)
    [0.0, 5.0, 10.0, 15.0, 20.0]
    """
    if log:
        first, last = math.floor(math.log10(low) - 1e-9), math.ceil(math.log10(high) + 1e-9)
        inside = [10.0**p for p in range(first, last + 1) if low * (1 - 1e-9) <= 10.0**p <= high * (1 + 1e-9)]
        if len(inside) >= 3:
            every = max(1, math.ceil((len(inside) - 1) / 6))
            return inside[::every]
        steps = [10.0**p * m for p in range(first, last + 1) for m in (1, 2, 5)]
        return [t for t in steps if low * (1 - 1e-9) <= t <= high * (1 + 1e-9)]
    step = _step(high - low)
    count = math.floor((high - low) / step + 1e-9)
    return [low + i * step for i in range(count + 1)]


def tick_text(value: float, factor: float) -> str:
    """A tick's number in the display unit of `factor`, without the unit (the axis's title names it).

    >>> tick_text(1e8, 1e9), tick_text(1.6e12, 1e9), tick_text(12.0, 1)
    ('0.1', '1,600', '12')
    """
    number = value / factor
    text = f"{number:,.6g}" if abs(number) < 1e6 else f"{number:,.0f}"
    return text


def dodge(positions: Sequence[float], gap: float, low: float, high: float) -> list[float]:
    """Move labels at `positions` apart to at least `gap`, in their order, keeping them within [low, high].

    >>> dodge([50, 52, 100], 10, 0, 200)
    [46.0, 56.0, 100.0]
    """
    order = sorted(range(len(positions)), key=lambda i: positions[i])
    placed = [float(positions[i]) for i in order]
    for _ in range(200):  # push neighbours apart around their middle until none overlap
        moved = False
        for i in range(1, len(placed)):
            overlap = gap - (placed[i] - placed[i - 1])
            if overlap > 1e-9:
                placed[i - 1] -= overlap / 2
                placed[i] += overlap / 2
                moved = True
        if placed and placed[0] < low:
            placed = [p + low - placed[0] for p in placed]
        if placed and placed[-1] > high:
            placed = [p - (placed[-1] - high) for p in placed]
        if not moved:
            break
    result = [0.0] * len(placed)
    for index, position in zip(order, placed, strict=True):
        result[index] = round(position, 2)
    return result


def element(tag: str, attributes: Mapping[str, Any], parent: ET.Element | None = None, text: str = "") -> ET.Element:
    """An SVG (or HTML) element with its attributes as strings, appended to `parent` when there is one."""
    attrs = {key: str(value) for key, value in attributes.items()}
    made = ET.Element(tag, attrs) if parent is None else ET.SubElement(parent, tag, attrs)
    if text:
        made.text = text
    return made
