"""The stacked bar chart: one bar per value of x, the figures of the stacked values one above another, with a key
beside the last bar that names them and the reference lines across the bars."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ...figures.figure import attribute_value
from ..svg import Scale, dodge, domain, element, kept_within, text_width
from .chart import (
    BOTTOM,
    FONT,
    HEIGHT,
    STYLES,
    TOP,
    WIDTH,
    Chart,
    ChartError,
    axis_title,
    axis_unit,
    axis_values,
    chart_svg,
    data_table,
    key_lines,
    reference,
    text_alternative,
    unit_of,
    write_label,
    y_axis,
    y_ticks,
)


def bar_chart(chart: Chart) -> list[ET.Element]:
    """A bar per value of x, its figures stacked, named in a key beside the last bar with the reference lines."""
    options, fixed = chart.options, chart.fixed
    x_name, x_values = chart.x
    stack_name, stack_values = axis_values("stack", options.stack, chart.kind)
    lines, x_title, y_title = options.lines or [], options.x_title, options.y_title
    if len(stack_values) > STYLES or len(lines) > STYLES:
        raise ChartError(f"a bar stacks at most {STYLES} values, beside at most {STYLES} reference lines")
    points = [chart.point({**fixed, x_name: xv, stack_name: sv}, xv, sv) for xv in x_values for sv in stack_values]
    unit = unit_of(points)
    references = [reference(line, chart, unit) for line in lines]
    totals = [sum(float(p.figure.value) for p in points if p.x == xv) for xv in x_values]
    y_scale = Scale(*domain(totals + [float(f.value) for _, f, _ in references], log=False), BOTTOM, TOP)
    factor, symbol = axis_unit(y_scale.high, unit, chart.display)
    # The bars start where the y axis's marks end.
    left = max(text_width(text, FONT) for _, text in y_ticks(y_scale, factor, log=False)) + 9
    # The key beside the last bar names the segments; with one bar it gives their figures too, with more it
    # would give one bar's as if for all, and the data table has every bar's. Its column is as wide as it.
    last = [p for p in points if p.x == x_values[-1]]
    with_figures = len(x_values) == 1
    keys = [(chart.label(p.series), p.html if with_figures else None) for p in last]
    keys += [(chart.label(entry), html) for entry, _, html in references]
    # A key too wide for the bars puts its figures' brackets on a line of their own ("A100 40 GB", then
    # "(39.4 GiB to programs)").
    for wrap in (False, True):
        key_text = [key_lines(name, html, wrap) for name, html in keys]
        column = max(text_width(line, FONT) for key in key_text for line in key)
        right = WIDTH - column - 17
        if right - left >= 30 * len(x_values):
            break
    else:
        raise ChartError(
            f"the key beside the bars leaves them too little room: give its {len(keys)} names shorter labels="
        )
    svg = chart_svg(chart, "bars")
    y_axis(svg, y_scale, factor, axis_title(y_title, symbol), log=False, right=right, left=left)
    slot = (right - left) / len(x_values)
    width = min(56.0, slot * 0.6)
    axis = element("g", {"class": "sbn-chart__axis"}, svg)
    element("line", {"class": "sbn-chart__baseline", "x1": left, "x2": right, "y1": BOTTOM, "y2": BOTTOM}, axis)
    # Labels wider than their slot (their width estimated from their letters) alternate between two lines.
    names = [chart.label(xv) for xv in x_values]
    widest = max(text_width(name, FONT) for name in names)
    stagger = widest > slot - 4
    if stagger and (x_title or widest > 2 * slot - 4):
        letters = int((2 * slot - 4) / text_width("x", FONT))
        raise ChartError(
            f"the labels of {len(names)} bars overlap at a phone's width: write them in at most {letters} letters"
            " with labels="
            + (", and leave out x_title=, which two lines of labels leave no room for" if x_title else "")
        )
    for index, xv in enumerate(x_values):
        centre = left + slot * (index + 0.5)
        line = BOTTOM + FONT + 4 + (FONT + 2) * (index % 2 if stagger else 0)
        name_x, anchor = kept_within(centre, text_width(names[index], FONT), left, WIDTH)
        element("text", {"x": name_x, "y": line, "text-anchor": anchor}, axis, names[index])
        base = 0.0
        for position, p in enumerate(q for q in points if q.x == xv):
            top = base + float(p.figure.value)
            y1, y0 = y_scale(top), y_scale(base)
            element(
                "rect",
                {
                    "class": f"sbn-chart__segment sbn-chart__segment--{position + 1}",
                    "x": round(centre - width / 2, 2),
                    "y": y1,
                    "width": round(width, 2),
                    "height": round(y0 - y1, 2),
                    "data-fig-id": p.figure.id,
                    "data-value": attribute_value(p.figure.value),
                },
                svg,
            )
            base = top
    if x_title:
        element(
            "text",
            {"class": "sbn-chart__title", "x": (left + right) / 2, "y": HEIGHT - 6, "text-anchor": "middle"},
            axis,
            x_title,
        )
    # The key: the last bar's segments, and the reference lines, which run across the bars to the same column
    # of labels, kept apart.
    middles, base = [], 0.0
    for p in last:
        middles.append((y_scale(base) + y_scale(base + float(p.figure.value))) / 2)
        base += float(p.figure.value)
    heights = [y_scale(float(f.value)) for _, f, _ in references]
    places = dodge([y + 5 for y in middles + heights], FONT + 2, TOP + FONT, BOTTOM, [len(key) for key in key_text])
    edge = left + slot * (len(x_values) - 0.5) + width / 2
    for index, ((name, html), y, label_y) in enumerate(zip(keys, middles, places[: len(last)], strict=False)):
        group = element("g", {"class": f"sbn-chart__key sbn-chart__key--{index + 1}"}, svg)
        element("line", {"x1": edge + 2, "x2": edge + 12, "y1": y, "y2": label_y - 5}, group)
        write_label(group, {"x": edge + 15, "y": label_y}, name, html, wrap)
    for index, ((entry, figure, html), y, label_y) in enumerate(
        zip(references, heights, places[len(last) :], strict=True)
    ):
        group = element("g", {"class": f"sbn-chart__reference sbn-chart__reference--{index + 1}"}, svg)
        data = {"data-fig-id": figure.id, "data-value": attribute_value(figure.value)}
        element("line", {"x1": left, "x2": edge + 2, "y1": y, "y2": y, **data}, group)
        element("line", {"x1": edge + 2, "x2": edge + 12, "y1": y, "y2": label_y - 5}, group)
        write_label(group, {"x": edge + 15, "y": label_y}, chart.label(entry), html, wrap)
    table = data_table(
        axis_title(y_title, ""),
        [chart.label(xv) for xv in x_values],
        [(chart.label(sv), [p.html for p in points if p.series == sv]) for sv in stack_values],
    )
    extras = [(f"{chart.label(e)}, a reference line:", html) for e, _, html in references]
    return [svg, text_alternative(table, extras)]
