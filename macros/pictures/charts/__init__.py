"""Charts of figures: one figure kind over a range of one argument, drawn at build time as inline SVG.

`{{ chart("device_states", x={"parameters": [...]}, lines=["v100-32gb"], log_x=true, log_y=true, caption="…") }}`
binds one of the kind's parameters to the horizontal axis, and, as tables do,
optionally one to `series` (a line each) and others to `fixed` values. Every
plotted value is that kind's figure, rendered and recorded like any figure in
the prose: it sits in the chart's data table behind a disclosure, the chart's
text alternative, and each point of the drawing carries its figure's id and
exact value. Three layouts:

- a line chart (the default): `x` is numbers, a list or a range
  `{"from": 1, "to": 1024, "times": 2}` (or `"step": 1`); `lines` draws
  horizontal reference lines at catalog quantities (`"v100-32gb"` is its
  memory, `["pcie-gen4-x16", "bandwidth_per_direction"]` any other field),
  labelled with their figures where the plot has room, on two lines if need
  be, else by their names alone (the data table has every figure);
  `marks` marks points whose x argument is a catalog id (`"gpt2-1.5b"`), at
  that entry's own value of the x parameter; `log_x`/`log_y` for log axes;
  `x_unit` is the base unit of the x values ("param", "B", "1"...);
- a stacked bar chart: `stack={"state": [...]}` stacks those values of one
  parameter in one bar per value of `x` (a list of choices or catalog ids),
  with `lines` across the bars, named in the key beside the last bar (a
  figure's brackets on a line of their own where the key is too wide); bars'
  names too wide for one line alternate between two, or are refused;
- a range chart: `ranges={"quantity": ["min_subnormal", "min_normal",
  "max_normal"]}` draws one horizontal bar per value of `x` on a log axis
  marked in powers of `base` (10, or 2), from the first of those values to the
  last, in a colour per span between them (`segments` names the spans);
  `beside={"quantity": "epsilon"}` writes one more figure beside each bar.

Also `caption` (required), `x_title`, `y_title`, `labels` (text for argument
values; catalog ids show their entry's name), and display options for every
figure; an option the layout does not draw (a range chart's `y_title`, a line
chart's `segments`) is refused. Colours are CSS classes (course.css sets them
for both palettes); text is real text, sized to read on a phone. Nothing here
imports MkDocs.

Each layout is a module of its own (`lines`, `bars`, `ranges`); `chart` holds
what they share: the options, the points and their unit, the axes, the labels,
the legend and the data table.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any

from ...data.catalog import Catalog
from ...figures.kinds.registry import FigureKind
from ..svg import PlotError, element
from .bars import bar_chart
from .chart import Chart, ChartError, ChartOptions
from .lines import line_chart
from .ranges import range_chart

__all__ = ["ChartError", "ChartOptions", "figure_chart"]

#: The keywords of a call that are the chart's own; the others are its figures' display options.
_OWN = frozenset(option.name for option in fields(ChartOptions))
#: The options every layout reads.
_EVERY_LAYOUT = ("x", "caption", "fixed", "labels", "x_title")
#: Each layout: what the build calls it, the option that chooses it (none: the default), how it is drawn, and
#: the options it reads besides those of every layout. One it does not read is refused, never dropped: a
#: `y_title` or `segments` given to a layout that draws none would vanish without a word, its text unchecked.
_LAYOUTS: tuple[tuple[str, str | None, Callable[[Chart], list[ET.Element]], tuple[str, ...]], ...] = (
    ("a range chart (ranges=)", "ranges", range_chart, ("ranges", "beside", "segments", "base")),
    ("a stacked bar chart (stack=)", "stack", bar_chart, ("stack", "lines", "y_title")),
    ("a line chart", None, line_chart, ("series", "lines", "marks", "log_x", "log_y", "x_unit", "y_title")),
)


def figure_chart(
    kind: FigureKind,
    render: Callable[..., str],
    resolve: Callable[[str], tuple[FigureKind, Callable[..., str]]],
    catalog: Catalog,
    ident: str,
    **options: Any,
) -> str:
    """The chart's HTML: a `<figure>` with its SVG, legend, caption and data table (see the module's docstring).

    `options` are a `ChartOptions` and display options for every figure;
    `render(*arguments, **display)` is the figure element of `kind` (and records
    it); `resolve(name)` gives another kind and its element, for `lines`.

    Raises:
        ChartError: a layout argument that does not fit the kind, or a point that cannot be computed or drawn.
    """
    layout = ChartOptions(**{name: value for name, value in options.items() if name in _OWN})
    display = {name: value for name, value in options.items() if name not in _OWN}
    caption = layout.caption
    if not isinstance(caption, str) or not caption.strip():
        raise ChartError('caption= says what the chart shows, such as caption="Memory per device"')
    name, draw, reads = next(
        (name, draw, (*_EVERY_LAYOUT, *reads))
        for name, chooser, draw, reads in _LAYOUTS
        if chooser is None or getattr(layout, chooser) is not None
    )
    given = [o.name for o in fields(ChartOptions) if o.default is MISSING or getattr(layout, o.name) != o.default]
    unread = [option for option in given if option not in reads]
    if unread:
        raise ChartError(
            f"{name} takes no {', '.join(f'{option}=' for option in unread)}: its options are {', '.join(reads)}"
        )
    chart = Chart(kind, render, resolve, catalog, ident, layout, display)
    try:
        body = draw(chart)
    except PlotError as error:
        raise ChartError(str(error)) from None
    figure = element("figure", {"class": "sbn-chart", "id": ident})
    for part in body[:-1]:
        figure.append(part)
    figcaption = element("figcaption", {"id": f"{ident}-caption"}, figure, caption.strip())
    figcaption.tail = None
    figure.append(body[-1])
    return ET.tostring(figure, encoding="unicode", short_empty_elements=False)
