"""The geometry of a chart: scales from values to the drawing's coordinates, ticks, and labels kept apart.

Plain arithmetic on floats, for drawing only: the values a chart shows are
exact figures elsewhere (`macros.pictures.charts`); here they only find their place.
Nothing here imports MkDocs or knows about figures. `element` writes the elements of
charts, diagrams and the calculator alike.
"""

from __future__ import annotations

import itertools
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


#: The font size of Material's body text, in rem (`.md-typeset`: 0.8rem): a drawing whose text should read at
#: body size is shown at most `width × BODY_REM / font` rem wide, where `font` is its text's size in its own units.
BODY_REM = 0.8
#: Letters' widths as shares of the font size, in the metrics of Helvetica and Arial (the theme's faces after
#: Apple's system font, which runs a few percent wider: `_WIDER`): what keeps labels apart and inside their
#: drawing before the browser lays them out. The browser tests hold every drawing to its real boxes.
_NARROW, _WIDE = frozenset("ijlftI.,:;!|'()[] ·"), frozenset("mwMW@%—")
_WIDER = 1.08


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


def dodge(
    positions: Sequence[float], gap: float, low: float, high: float, lines: Sequence[int] | None = None
) -> list[float]:
    """Move labels at `positions` apart to at least `gap`, in their order, keeping them within [low, high].

    A label of several `lines` (one each by default) is placed by its first, and takes `gap` for each.

    >>> dodge([50, 52, 100], 10, 0, 200)
    [46.0, 56.0, 100.0]
    >>> dodge([50, 52, 100], 10, 0, 200, lines=[2, 1, 1])
    [41.0, 61.0, 100.0]
    """
    order = sorted(range(len(positions)), key=lambda i: positions[i])
    placed = [float(positions[i]) for i in order]
    room = [gap * (lines[i] if lines else 1) for i in order]
    for _ in range(200):  # push neighbours apart around their middle until none overlap
        moved = False
        for i in range(1, len(placed)):
            overlap = room[i - 1] - (placed[i] - placed[i - 1])
            if overlap > 1e-9:
                placed[i - 1] -= overlap / 2
                placed[i] += overlap / 2
                moved = True
        if placed and placed[0] < low:
            placed = [p + low - placed[0] for p in placed]
        if placed and placed[-1] + room[-1] - gap > high:
            placed = [p - (placed[-1] + room[-1] - gap - high) for p in placed]
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


def body_size(width: float, font: float) -> str:
    """The style that shows a drawing `width` units wide at most so wide that its `font`-unit text reads at
    body size (and smaller on a narrower column).

    >>> body_size(380, 16)
    'max-width: 19.00rem'
    """
    return f"max-width: {width * BODY_REM / font:.2f}rem"


def text_width(text: str, font: float) -> float:
    """The estimated width of `text` at `font` units (see `_NARROW`).

    >>> round(text_width("A100 40 GB", 16), 1)
    93.1
    """

    def share(letter: str) -> float:
        if letter in _NARROW:
            return 0.3
        if letter in _WIDE:
            return 0.85
        return 0.67 if letter.isupper() else 0.556

    return _WIDER * font * sum(share(letter) for letter in text)


def kept_within(x: float, width: float, low: float, high: float) -> tuple[float, str]:
    """Where to anchor a label of `width` meant to be centred on `x`, so that it stays within [low, high]:
    its x and its text-anchor.

    >>> kept_within(350, 40, 0, 360), kept_within(5, 40, 0, 360), kept_within(100, 40, 0, 360)
    ((360, 'end'), (0, 'start'), (100, 'middle'))
    """
    if x + width / 2 > high:
        return high, "end"
    if x - width / 2 < low:
        return low, "start"
    return x, "middle"


def crosses(box: tuple[float, float, float, float], points: Sequence[tuple[float, float]]) -> bool:
    """Whether the polyline through `points` passes through the rectangle `box` (left, top, right, bottom).

    Each segment is clipped to the box (Liang and Barsky's method): a segment with a part inside crosses it.

    >>> crosses((0, 0, 10, 10), [(-5, 5), (15, 5)]), crosses((0, 0, 10, 10), [(-5, 15), (15, 15)])
    (True, False)
    """
    left, top, right, bottom = box
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        dx, dy = x1 - x0, y1 - y0
        start, end = 0.0, 1.0
        for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
            if p == 0:
                if q < 0:
                    break
                continue
            t = q / p
            if p < 0:
                start = max(start, t)
            else:
                end = min(end, t)
        else:
            if start <= end:
                return True
    return False
