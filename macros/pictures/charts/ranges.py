"""The range chart: a horizontal bar per value of x on a log axis marked in powers, from the first of its
`ranges=` values to the last, a colour per span between them, and a figure beside each bar (`beside=`)."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from typing import Any

from ...data.quantities import power_text
from ...figures.figure import attribute_value
from ...figures.kinds.registry import FigureKind
from ..svg import Scale, element, kept_within, text_width
from .chart import (
    FONT,
    STYLES,
    WIDTH,
    Chart,
    ChartError,
    axis_values,
    chart_svg,
    data_table,
    legend,
    text_alternative,
    unit_of,
    write_label,
)

#: A range chart's rows: a line of text (the bar's name, and the figure beside it), then the bar.
_RANGE_ROW, _RANGE_BAR, _RANGE_TOP = 36, 10, 4
#: Its plot spans the drawing, keeping room for the end ticks' labels.
_RANGE_LEFT, _RANGE_RIGHT = 16, WIDTH - 16
#: The logarithms a range chart's axis can be marked in, by base.
_LOGS: Mapping[int, Callable[[float], float]] = {2: math.log2, 10: math.log10}


def _power_ticks(low: float, high: float, base: int) -> list[int]:
    """The exponents of `base` that mark a log axis from `low` to `high`: multiples of a round step (1, 2 or 5
    times a power of ten), at most seven, the first at or below `low` and the last at or above `high`.

    >>> _power_ticks(2.0**-149, 2.0**128, 2), _power_ticks(0.5, 300, 10)
    ([-150, -100, -50, 0, 50, 100, 150], [-1, 0, 1, 2, 3])
    """
    log = _LOGS[base]
    first, last = math.floor(log(low) + 1e-9), math.ceil(log(high) - 1e-9)
    for step in (10**power * m for power in range(4) for m in (1, 2, 5)):
        start, end = math.floor(first / step) * step, math.ceil(last / step) * step
        if (end - start) // step <= 6:
            return list(range(start, end + 1, step))
    raise ChartError(f"the values span too many powers of {base} to draw")


def _beside(spec: Mapping[str, Any] | None, kind: FigureKind) -> tuple[str, Any, dict[str, Any]] | None:
    """The parameter and the one value of it whose figure `beside=` writes beside each bar, and that figure's own
    display options, if any."""
    if spec is None:
        return None
    parameters = [p.name for p in kind.parameters]
    chosen = [key for key in spec if key in parameters] if isinstance(spec, Mapping) else []
    if len(chosen) != 1:
        raise ChartError(
            f"beside= maps one parameter of {kind.usage} to one value, and may add display options for its"
            ' figure, like {"quantity": "epsilon", "power_of_two": true}'
        )
    return chosen[0], spec[chosen[0]], {key: value for key, value in spec.items() if key != chosen[0]}


def range_chart(chart: Chart) -> list[ET.Element]:
    """A horizontal bar per value of x on a log axis, from the first of the `ranges=` values to the last."""
    options, fixed = chart.options, chart.fixed
    x_name, x_values = chart.x
    range_name, range_values = axis_values("ranges", options.ranges, chart.kind)
    segments, base = options.segments, options.base
    if not 2 <= len(range_values) <= STYLES + 1:
        raise ChartError(f"ranges= gives from 2 to {STYLES + 1} values: where a bar starts, changes colour and ends")
    if segments is not None and (
        not isinstance(segments, list) or len(segments) != len(range_values) - 1 or not all(segments)
    ):
        raise ChartError(f"segments= names the {len(range_values) - 1} spans between the ranges= values, in order")
    if base not in _LOGS:
        raise ChartError(f"base= is {' or '.join(map(str, _LOGS))}: the powers a range chart's axis is marked in")
    bars = [[chart.point({**fixed, x_name: xv, range_name: rv}, xv, rv) for rv in range_values] for xv in x_values]
    unit_of([p for bar in bars for p in bar])
    for bar in bars:
        values = [p.figure.value for p in bar]
        if values[0] <= 0 or any(b < a for a, b in itertools.pairwise(values)):
            raise ChartError(
                f"ranges=: the values of {bar[0].x!r} must be positive and climb in the order given: "
                + ", ".join(f"{p.series} is {float(p.figure.value):g}" for p in bar)
            )
    chosen = _beside(options.beside, chart.kind)
    notes = []
    if chosen:
        parameter, value, note_display = chosen
        notes = [chart.point({**fixed, x_name: xv, parameter: value}, xv, value, note_display) for xv in x_values]
    lows = [float(bar[0].figure.value) for bar in bars]
    highs = [float(bar[-1].figure.value) for bar in bars]
    exponents = _power_ticks(min(lows), max(highs), base)
    scale = Scale(float(base) ** exponents[0], float(base) ** exponents[-1], _RANGE_LEFT, _RANGE_RIGHT, log=True)
    axis_y = _RANGE_TOP + _RANGE_ROW * len(bars) + 4
    height = axis_y + 2 * FONT + 14
    svg = chart_svg(chart, "ranges")
    svg.set("viewBox", f"0 0 {WIDTH} {height}")
    axis = element("g", {"class": "sbn-chart__axis"}, svg)
    for exponent in exponents:
        x = scale(float(base) ** exponent)
        element("line", {"class": "sbn-chart__grid", "x1": x, "x2": x, "y1": _RANGE_TOP, "y2": axis_y}, axis)
        power = power_text(base, exponent)
        tick_x, anchor = kept_within(x, text_width(power, FONT), 0, WIDTH)
        element("text", {"x": tick_x, "y": axis_y + FONT + 4, "text-anchor": anchor}, axis, power)
    element(
        "line",
        {"class": "sbn-chart__baseline", "x1": _RANGE_LEFT, "x2": _RANGE_RIGHT, "y1": axis_y, "y2": axis_y},
        axis,
    )
    if options.x_title:
        element(
            "text",
            {"class": "sbn-chart__title", "x": WIDTH / 2, "y": height - 6, "text-anchor": "middle"},
            axis,
            options.x_title,
        )
    # Each bar under its name, its spans in the segments' colours, a tick at each value; its note at the right.
    for row, (bar, xv) in enumerate(zip(bars, x_values, strict=True)):
        text_y = _RANGE_TOP + _RANGE_ROW * row + FONT
        bar_y = text_y + 6
        group = element("g", {"class": "sbn-chart__range"}, svg)
        element("text", {"x": _RANGE_LEFT, "y": text_y}, group, chart.label(xv))
        if notes:
            note = notes[row]
            place = {"x": _RANGE_RIGHT, "y": text_y, "text-anchor": "end"}
            write_label(group, place, chart.label(note.series), note.html)
        for index, (start, end) in enumerate(itertools.pairwise(bar)):
            x0, x1 = scale(float(start.figure.value)), scale(float(end.figure.value))
            attributes = {"x": x0, "y": bar_y, "width": round(x1 - x0, 2), "height": _RANGE_BAR}
            element("rect", {"class": f"sbn-chart__segment sbn-chart__segment--{index + 1}", **attributes}, group)
        for p in bar:
            x = scale(float(p.figure.value))
            data = {"data-fig-id": p.figure.id, "data-value": attribute_value(p.figure.value)}
            element(
                "line",
                {"class": "sbn-chart__bound", "x1": x, "x2": x, "y1": bar_y - 3, "y2": bar_y + _RANGE_BAR + 3, **data},
                group,
            )
    names = [chart.label(v) for v in range_values]
    spans = segments or [f"{a} to {b}" for a, b in itertools.pairwise(names)]
    table = data_table(
        chart.label(x_name),
        [*names, chart.label(chosen[1])] if chosen else names,
        [
            (chart.label(xv), [p.html for p in bar] + ([notes[row].html] if notes else []))
            for row, (bar, xv) in enumerate(zip(bars, x_values, strict=True))
        ],
    )
    return [svg, legend(spans, "segment"), text_alternative(table, [])]
