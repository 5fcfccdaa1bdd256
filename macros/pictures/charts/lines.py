"""The line chart, a chart's default layout: a line per series of figures over numbers on the horizontal axis,
reference lines across it and marked points, each labelled where it is clear of the lines and of the other
labels."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from typing import Any

from ...figures.figure import attribute_value
from ..svg import Scale, crosses, domain, element, kept_within, text_width, tick_text, ticks
from .chart import (
    BOTTOM,
    FONT,
    HEIGHT,
    LEFT,
    RIGHT,
    STYLES,
    TOP,
    WIDTH,
    Chart,
    ChartError,
    Point,
    axis_title,
    axis_unit,
    axis_values,
    chart_svg,
    data_table,
    key_lines,
    legend,
    reference,
    text_alternative,
    unit_of,
    write_label,
    y_axis,
)

#: A label's box in the drawing: left, top, right, bottom.
Box = tuple[float, float, float, float]


def _overlap(a: Box, b: Box) -> bool:
    """Whether two boxes overlap."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


#: A place for a label: its x, its text-anchor, its baseline, and the box it takes.
Place = tuple[float, str, float, Box]


def _label_box(x: float, anchor: str, baseline: float, width: float) -> Place:
    """The place of a label `width` wide written at `x` with `anchor`, on `baseline`."""
    left = x if anchor == "start" else x - width
    return x, anchor, baseline, (left, baseline - 0.8 * FONT, left + width, baseline + 0.25 * FONT)


def _clear_of(candidates: list[Place], drawn: list[list[tuple[float, float]]], placed: list[Box]) -> list[Place]:
    """Those of `candidates` that stay within the drawing and the plot's height, clear of every series in
    `drawn` and of the labels `placed`."""
    return [
        (x, anchor, baseline, box)
        for x, anchor, baseline, box in candidates
        if box[0] >= 0
        and box[2] <= WIDTH
        and box[1] >= TOP
        and box[3] <= BOTTOM - 2
        and not any(crosses(box, line) for line in drawn)
        and not any(_overlap(box, other) for other in placed)
    ]


def _clear_place(candidates: list[Place], drawn: list[list[tuple[float, float]]], placed: list[Box]) -> dict[str, Any]:
    """The first of `candidates` that is clear (`_clear_of`), which joins the labels `placed`; where none is,
    the first. As attributes."""
    x, anchor, baseline, box = (_clear_of(candidates, drawn, placed) or candidates)[0]
    placed.append(box)
    return {"x": x, "y": baseline, "text-anchor": anchor}


def _reference_places(y: float, width: float, side: str, lines: int = 1) -> list[Place]:
    """Where a reference line at `y` may be labelled: right above the line or below it, then further from it;
    at each of these, at the end `side` that the series stay away from, then at the other. A label of two
    `lines` is placed by its first, its box taking both."""
    places = []
    below = (lines - 1) * (FONT + 2)
    for baseline in (y - 4 - below, y + FONT + 2, y - FONT - 5 - below, y + 2 * FONT + 3):
        for end in (side, "right" if side == "left" else "left"):
            x, anchor, first, box = _label_box(
                LEFT + 3 if end == "left" else RIGHT - 2, "start" if end == "left" else "end", baseline, width
            )
            places.append((x, anchor, first, (box[0], box[1], box[2], box[3] + below)))
    return places


def _mark_places(cx: float, cy: float, width: float, below: bool) -> list[Place]:
    """Where a mark at (cx, cy) may be labelled: beside it on the right, then on the left, on the side of the
    series that stays empty (below a rising line, above a falling one) before the other, then further."""
    offsets = (FONT + 4, -8, 2 * FONT + 6, -FONT - 10)
    return [
        _label_box(cx + 8 if side == "start" else cx - 8, side, cy + (offset if below else -offset), width)
        for side in ("start", "end")
        for offset in offsets
    ]


def _side(y: float, points: list[Point], x_scale: Scale, y_scale: Scale) -> str:
    """The end of a horizontal line at `y` to label: away from where the series cross it, or nearer to."""
    coordinates = [(x_scale(float(p.x)), y_scale(float(p.figure.value))) for p in points]
    crossings = [
        x0 + (x1 - x0) * (y - y0) / (y1 - y0)
        for (x0, y0), (x1, y1) in itertools.pairwise(coordinates)
        if x1 > x0 and min(y0, y1) <= y <= max(y0, y1) and y0 != y1
    ]
    if crossings:
        return "left" if sum(crossings) / len(crossings) > (LEFT + RIGHT) / 2 else "right"
    nearest = min(coordinates, key=lambda c: abs(c[1] - y))
    return "left" if nearest[0] > (LEFT + RIGHT) / 2 else "right"


def line_chart(chart: Chart) -> list[ET.Element]:
    """A line per series over numbers on the horizontal axis, with reference lines across and marked points."""
    options, fixed = chart.options, chart.fixed
    x_name, x_values = chart.x
    series_name, series_values = axis_values("series", options.series, chart.kind) if options.series else ("", [None])
    lines, marks = options.lines or [], options.marks or []
    log_x, log_y, x_title, y_title = options.log_x, options.log_y, options.x_title, options.y_title
    if len(series_values) > STYLES or len(lines) > STYLES:
        raise ChartError(f"a chart tells apart at most {STYLES} series and {STYLES} reference lines")
    if any(isinstance(value, bool) or not isinstance(value, int | float) for value in x_values):
        raise ChartError(f"x= gives {x_name!r} numbers on a line chart; for choices, stack them in bars (stack=)")
    points = [
        chart.point({**fixed, x_name: xv, **({series_name: sv} if series_name else {})}, xv, sv)
        for sv in series_values
        for xv in x_values
    ]
    unit = unit_of(points)
    references = [reference(line, chart, unit) for line in lines]
    marked = []
    for mark in marks:
        try:
            where = chart.catalog.quantity(mark, x_name).value
        except KeyError as error:
            raise ChartError(f"marks=: {error.args[0]}") from None
        binding = {**fixed, x_name: mark, **({series_name: series_values[0]} if series_name else {})}
        marked.append((where, chart.point(binding, mark, series_values[0])))
    # The x axis spans the values drawn, no more; a few values are its ticks themselves.
    x_all = [float(v) for v in x_values] + [float(w) for w, _ in marked]
    domain(x_all, log_x, zero=False)  # checks that a log axis can show them
    if min(x_all) == max(x_all):
        raise ChartError("x= needs at least two different values")
    x_low, x_high = (min(x_all), max(x_all)) if log_x else domain(x_all, log=False)
    x_scale = Scale(x_low, x_high, LEFT, RIGHT, log_x)
    x_ticks = sorted(set(x_all)) if log_x and len(set(x_values)) <= 7 else ticks(x_scale.low, x_scale.high, log_x)
    y_all = [float(p.figure.value) for p in points] + [float(p.figure.value) for _, p in marked]
    # Above a reference line there is room for its label: on a linear axis, a line's height and a little more.
    headroom = 1 + (FONT + 8) / (BOTTOM - TOP) if not log_y else 1
    y_all += [float(f.value) * headroom for _, f, _ in references]
    y_scale = Scale(*domain(y_all, log_y), BOTTOM, TOP, log_y)
    y_factor, y_symbol = axis_unit(
        math.sqrt(y_scale.low * y_scale.high) if log_y else y_scale.high, unit, chart.display
    )
    x_factor, x_symbol = axis_unit(math.sqrt(x_scale.low * x_scale.high) if log_x else x_scale.high, options.x_unit, {})

    svg = chart_svg(chart, "lines")
    y_axis(svg, y_scale, y_factor, axis_title(y_title, y_symbol), log_y)
    axis = element("g", {"class": "sbn-chart__axis"}, svg)
    element("line", {"class": "sbn-chart__baseline", "x1": LEFT, "x2": RIGHT, "y1": BOTTOM, "y2": BOTTOM}, axis)
    for tick in x_ticks:
        x = x_scale(tick)
        element("line", {"class": "sbn-chart__tick", "x1": x, "x2": x, "y1": BOTTOM, "y2": BOTTOM + 4}, axis)
        text = tick_text(tick, x_factor)
        tick_x, anchor = kept_within(x, text_width(text, FONT), 0, WIDTH)
        element("text", {"x": tick_x, "y": BOTTOM + FONT + 4, "text-anchor": anchor}, axis, text)
    x_heading = axis_title(x_title or x_name.replace("_", " ").capitalize(), x_symbol)
    element(
        "text",
        {"class": "sbn-chart__title", "x": (LEFT + RIGHT) / 2, "y": HEIGHT - 6, "text-anchor": "middle"},
        axis,
        x_heading,
    )

    # Lines first, then points, then every label on top, each with a halo (course.css), so none is crossed out.
    for index, (_, figure, _) in enumerate(references):
        y = y_scale(float(figure.value))
        group = element("g", {"class": f"sbn-chart__reference sbn-chart__reference--{index + 1}"}, svg)
        data = {"data-fig-id": figure.id, "data-value": attribute_value(figure.value)}
        element("line", {"x1": LEFT, "x2": RIGHT, "y1": y, "y2": y, **data}, group)
    for index, series in enumerate(series_values):
        group = element("g", {"class": f"sbn-chart__series sbn-chart__series--{index + 1}"}, svg)
        own = [(x_scale(float(p.x)), y_scale(float(p.figure.value)), p.figure) for p in points if p.series == series]
        path = " ".join(f"{'M' if i == 0 else 'L'}{x},{y}" for i, (x, y, _) in enumerate(own))
        element("path", {"d": path, "fill": "none"}, group)
        for x, y, figure in own:
            data = {"data-fig-id": figure.id, "data-value": attribute_value(figure.value)}
            element("circle", {"cx": x, "cy": y, "r": 2.5, **data}, group)
    for where, p in marked:
        group = element("g", {"class": "sbn-chart__mark"}, svg)
        data = {"data-fig-id": p.figure.id, "data-value": attribute_value(p.figure.value)}
        element("circle", {"cx": x_scale(float(where)), "cy": y_scale(float(p.figure.value)), "r": 4.5, **data}, group)
    # Labels go where they are clear of the series and of each other: the reference lines' at one of their
    # ends, the marks' beside them (`_clear_place`).
    drawn = [
        [(x_scale(float(p.x)), y_scale(float(p.figure.value))) for p in points if p.series == s] for s in series_values
    ]
    first = [y_scale(float(p.figure.value)) for p in points if p.series == series_values[0]]
    below = first[-1] < first[0]
    # Labelled away from the series, nearest mark first: below a rising line, the highest; above, the lowest.
    in_order = sorted(marked, key=lambda m: float(m[1].figure.value), reverse=below)
    # Every reference line is labelled alike: its name and figure on one line, else on two (`key_lines`), else
    # its name alone (its figure is the line's own, and the data table's): the first form that leaves every
    # label, the marks' too, clear of the series and of each other.
    for figures, wrap in ((True, False), (True, True), (False, False)):
        placed: list[Box] = []
        spots: list[tuple[str, dict[str, Any], str, str | None, bool]] = []
        clear = True
        for entry, figure, html in references:
            y = y_scale(float(figure.value))
            name, shown_html = chart.label(entry), html if figures else None
            label_lines = key_lines(name, shown_html, wrap)
            width = max(text_width(line, FONT) for line in label_lines)
            candidates = _reference_places(y, width, _side(y, points, x_scale, y_scale), len(label_lines))
            clear = clear and bool(_clear_of(candidates, drawn, placed))
            spots.append(("sbn-chart__reference", _clear_place(candidates, drawn, placed), name, shown_html, wrap))
        for where, p in in_order:
            name = chart.label(p.x)
            width = text_width(f"{name} {ET.fromstring(p.html).text or ''}", FONT)
            candidates = _mark_places(x_scale(float(where)), y_scale(float(p.figure.value)), width, below)
            clear = clear and bool(_clear_of(candidates, drawn, placed))
            spots.append(("sbn-chart__mark", _clear_place(candidates, drawn, placed), name, p.html, False))
        if clear:
            break
    for group_class, place, name, shown_html, wrap in spots:
        write_label(element("g", {"class": group_class}, svg), place, name, shown_html, wrap)

    parts: list[ET.Element] = [svg]
    if series_name:
        parts.append(legend([chart.label(s) for s in series_values], "series"))
    table = data_table(
        x_heading,
        [chart.label(s) for s in series_values] if series_name else [axis_title(y_title, "") or "Value"],
        [(tick_text(float(xv), x_factor), [p.html for p in points if p.x == xv]) for xv in x_values],
    )
    extras = [(f"{chart.label(e)}, a reference line:", html) for e, _, html in references]
    extras += [(f"{chart.label(p.x)}, marked:", p.html) for _, p in marked]
    parts.append(text_alternative(table, extras))
    return parts
