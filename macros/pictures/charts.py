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
figure. Colours are CSS classes (course.css sets them for both palettes);
text is real text, sized to read on a phone. Nothing here imports MkDocs.
"""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..data.catalog import Catalog
from ..data.quantities import display_quantity, power_text
from ..figures.figure import Figure, attribute_value
from ..figures.kinds.registry import FigureKind
from .labels import label
from .svg import (
    SEARCH_EXCLUDE,
    PlotError,
    Scale,
    body_size,
    crosses,
    dodge,
    domain,
    element,
    kept_within,
    text_width,
    tick_text,
    ticks,
)

#: The drawing's size in its own units, and its text's. It scales to the column, at most so wide that its
#: text reads at body size (`plot.body_size`: 380 px for 16 px text), and on a 390 px phone at 15 px.
WIDTH, HEIGHT = 380, 280
FONT = 16
#: The plot area's edges: room for the y axis's ticks on the left, its title on top, the x axis's below.
LEFT, RIGHT, TOP, BOTTOM = 52, WIDTH - 12, 32, HEIGHT - 48
#: The most series, stacked values or reference lines a chart tells apart (course.css has a style for each).
STYLES = 6


class ChartError(ValueError):
    """A chart is laid out wrongly; the message says which argument and how to fix it."""


@dataclass(frozen=True)
class _Point:
    """One plotted figure: where it goes, and its element for the data table."""

    x: Any
    series: Any
    figure: Figure
    html: str


def _values(name: str, spec: Any, kind: FigureKind) -> tuple[str, list[Any]]:
    """The parameter an axis binds, and its values: a list, or a range {"from", "to", "step" or "times"}."""
    parameters = [p.name for p in kind.parameters]
    if not isinstance(spec, Mapping) or len(spec) != 1:
        raise ChartError(f'{name}= maps one parameter of {kind.usage} to its values, like {{"devices": [1, 8, 64]}}')
    ((parameter, values),) = spec.items()
    if parameter not in parameters:
        raise ChartError(f"{name}=: {kind.name} has no parameter {parameter!r}; it takes {', '.join(parameters)}")
    if isinstance(values, Mapping):
        values = _range(name, values)
    if not isinstance(values, list) or not values:
        raise ChartError(f"{name}=: give {parameter!r} a non-empty list of values, or a range")
    return parameter, values


#: The most values one axis of a chart takes; beyond it a chart is unreadable, and a range is refused, never cut.
MAX_POINTS = 200


def _range(name: str, spec: Mapping[str, Any]) -> list[Any]:
    """The values of a range: from `from` to `to`, adding `step` or multiplying by `times`."""
    keys = set(spec)
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in spec.values())
    if not numbers or keys not in ({"from", "to", "step"}, {"from", "to", "times"}):
        raise ChartError(
            f'{name}=: a range is {{"from": 1, "to": 1024, "times": 2}} or {{"from": 1, "to": 8, "step": 1}}'
        )
    first, last = spec["from"], spec["to"]
    too_many = (
        f"{name}=: the range {dict(spec)} has more than {MAX_POINTS} values, the most a chart plots: take a larger step"
    )
    if "step" in spec and spec["step"] > 0 and last >= first:
        steps = (last - first) / spec["step"]  # counted before any value is made: a range can be a billion long
        if not math.isfinite(steps) or steps + 1 > MAX_POINTS + 1e-9:
            raise ChartError(too_many)
        return [first + i * spec["step"] for i in range(math.floor(steps + 1e-9) + 1)]
    if "times" in spec and spec["times"] > 1 and 0 < first <= last:
        values = [first]
        while values[-1] * spec["times"] <= last:
            if len(values) == MAX_POINTS:
                raise ChartError(too_many)
            values.append(values[-1] * spec["times"])
        return values
    raise ChartError(f"{name}=: the range {dict(spec)} is empty; it must climb from `from` to `to`")


def _arguments(kind: FigureKind, binding: Mapping[str, Any]) -> tuple[Any, ...]:
    """The kind's positional arguments from a binding of parameter names, defaults where unbound."""
    missing = [p.name for p in kind.parameters if p.default is p.empty and p.name not in binding]
    if missing:
        raise ChartError(f"bind {', '.join(missing)} of {kind.usage} by x=, series=, stack= or fixed=")
    return tuple(binding.get(p.name, p.default) for p in kind.parameters)


def _labelled(
    parent: ET.Element, attributes: Mapping[str, Any], label: str, figure_html: str | None, wrap: bool = False
) -> None:
    """A text label, followed by a figure's element as an SVG `tspan` (same class and data, so checked the same).

    With `wrap`, a figure's words in brackets ("40 GB (39.4 GiB to programs)") go on a line of their own
    under the label (`_key_lines`), inside the figure's element, so that its text stays whole.
    """
    text = element("text", attributes, parent, f"{label} " if figure_html else label)
    if figure_html:
        span = ET.fromstring(figure_html)
        span.attrib.pop("tabindex", None)  # the data table's figures take the focus
        head, bracket, rest = (span.text or "").partition(" (") if wrap else (span.text or "", "", "")
        tspan = element("tspan", span.attrib, text, f"{head} " if bracket else head)
        if bracket:
            element("tspan", {"x": attributes["x"], "dy": FONT + 2}, tspan, f"({rest}")
        tspan.tail = None


def _key_lines(name: str, figure_html: str | None, wrap: bool) -> list[str]:
    """The lines of a key's label as `_labelled` writes them: one, or with `wrap` its figure's brackets on a
    second."""
    shown = ET.fromstring(figure_html).text or "" if figure_html else ""
    head, bracket, rest = shown.partition(" (") if wrap else (shown, "", "")
    return [f"{name} {head}".rstrip()] + ([f"({rest}"] if bracket else [])


class _Chart:
    """One chart being built: its figures, its drawing, its legend and its data table."""

    def __init__(self, kind: FigureKind, render: Callable[..., str], catalog: Catalog, display: Mapping[str, Any]):
        self.kind, self.render, self.catalog, self.display = kind, render, catalog, display

    def point(
        self, binding: Mapping[str, Any], x: Any, series: Any, display: Mapping[str, Any] | None = None
    ) -> _Point:
        """The figure at `binding`, shown with the chart's display options and `display`'s on top."""
        arguments = _arguments(self.kind, binding)
        try:
            figure = self.kind.figure(self.catalog, *arguments)
        except (KeyError, ValueError, TypeError) as error:
            message = error.args[0] if error.args else str(error)
            raise ChartError(f"the point {dict(binding)} cannot be computed: {message}") from None
        return _Point(x, series, figure, self.render(*arguments, **{**self.display, **(display or {})}))


def _unit_of(points: list[_Point]) -> str:
    units = {p.figure.unit for p in points}
    if len(units) != 1:
        raise ChartError(f"a chart plots figures of one unit; these are in {', '.join(sorted(units))}")
    return units.pop()


def _axis_unit(value: float, unit: str, display: Mapping[str, Any]) -> tuple[float, str]:
    """The display unit an axis is marked in: the figures' own `scale=` (or `percent=`) if given, else that of a
    middle value."""
    options = {name: display[name] for name in ("scale", "percent") if name in display}
    shown = display_quantity(value if value > 0 else 1, unit, **options)
    symbol = {"billion": "billions", "million": "millions", "trillion": "trillions"}.get(shown.symbol, shown.symbol)
    return float(shown.factor), symbol


def _title(title: str, symbol: str) -> str:
    return f"{title} ({symbol})" if symbol and title else title or symbol


def figure_chart(
    kind: FigureKind,
    render: Callable[..., str],
    resolve: Callable[[str], tuple[FigureKind, Callable[..., str]]],
    catalog: Catalog,
    ident: str,
    *,
    x: Mapping[str, Any],
    caption: str = "",
    series: Mapping[str, Any] | None = None,
    stack: Mapping[str, Any] | None = None,
    fixed: Mapping[str, Any] | None = None,
    lines: list[Any] | None = None,
    marks: list[Any] | None = None,
    labels: Mapping[Any, str] | None = None,
    log_x: bool = False,
    log_y: bool = False,
    x_unit: str = "1",
    x_title: str = "",
    y_title: str = "",
    ranges: Mapping[str, Any] | None = None,
    beside: Mapping[str, Any] | None = None,
    segments: list[str] | None = None,
    base: int = 10,
    **display: Any,
) -> str:
    """The chart's HTML: a `<figure>` with its SVG, legend, caption and data table (see the module's docstring).

    `render(*arguments, **display)` is the figure element of `kind` (and records
    it); `resolve(name)` gives another kind and its element, for `lines`.

    Raises:
        ChartError: a layout argument that does not fit the kind, or a point that cannot be computed or drawn.
    """
    if not isinstance(caption, str) or not caption.strip():
        raise ChartError('caption= says what the chart shows, such as caption="Memory per device"')
    labels, fixed = dict(labels or {}), dict(fixed or {})
    chart = _Chart(kind, render, catalog, display)
    x_name, x_values = _values("x", x, kind)
    try:
        if ranges is not None:
            if stack is not None or series or lines or marks or log_x or log_y:
                raise ChartError("a range chart (ranges=) takes no stack=, series=, lines=, marks= or log axes")
            range_name, range_values = _values("ranges", ranges, kind)
            body = _ranges(
                chart,
                ident,
                (x_name, x_values, range_name, range_values),
                fixed,
                labels,
                (beside, segments, base),
                x_title,
            )
        elif stack is not None:
            if series or marks or log_x or log_y:
                raise ChartError("a stacked bar chart (stack=) takes no series=, marks= or log axes")
            stack_name, stack_values = _values("stack", stack, kind)
            axes = (x_name, x_values, stack_name, stack_values)
            body = _bars(chart, resolve, ident, axes, fixed, lines or [], labels, (x_title, y_title))
        else:
            series_name, series_values = _values("series", series, kind) if series else ("", [None])
            body = _lines(
                chart,
                resolve,
                ident,
                (x_name, x_values, series_name, series_values),
                fixed,
                lines or [],
                marks or [],
                labels,
                (log_x, log_y, x_unit, x_title, y_title),
            )
    except PlotError as error:
        raise ChartError(str(error)) from None
    figure = element("figure", {"class": "sbn-chart", "id": ident})
    for part in body[:-1]:
        figure.append(part)
    figcaption = element("figcaption", {"id": f"{ident}-caption"}, figure, caption.strip())
    figcaption.tail = None
    figure.append(body[-1])
    return ET.tostring(figure, encoding="unicode", short_empty_elements=False)


def _svg(ident: str, kind_class: str) -> ET.Element:
    return element(
        "svg",
        {
            "class": f"sbn-chart__svg sbn-chart__svg--{kind_class}",
            "viewBox": f"0 0 {WIDTH} {HEIGHT}",
            "role": "img",
            "aria-labelledby": f"{ident}-caption",
            "font-size": FONT,
            "style": body_size(WIDTH, FONT),
            **SEARCH_EXCLUDE,
        },
    )


def _y_ticks(scale: Scale, factor: float, log: bool) -> list[tuple[float, str]]:
    """Where the y axis is marked, and its marks' text: round ticks in the unit the axis is marked in (10, 100
    and 1,000 days, not 10⁶ and 10⁷ seconds)."""
    return [(scale(tick * factor), tick_text(tick, 1)) for tick in ticks(scale.low / factor, scale.high / factor, log)]


def _y_axis(
    svg: ET.Element, scale: Scale, factor: float, title: str, log: bool, right: float = RIGHT, left: float = LEFT
) -> None:
    axis = element("g", {"class": "sbn-chart__axis"}, svg)
    for y, text in _y_ticks(scale, factor, log):
        element("line", {"class": "sbn-chart__grid", "x1": left, "x2": right, "y1": y, "y2": y}, axis)
        element("text", {"x": left - 5, "y": y + 5, "text-anchor": "end"}, axis, text)
    element("text", {"class": "sbn-chart__title", "x": 2, "y": FONT}, axis, title)


def _reference(
    line: Any, chart: _Chart, resolve: Callable[[str], tuple[FigureKind, Callable[..., str]]], unit: str
) -> tuple[str, Figure, str]:
    """A reference line: a GPU's memory ("v100-32gb"), a catalog value ([entry, field]), or any figure
    ({"kind": "ring_bytes_limit", "args": ["gpt2-1.5b"], "label": "…"}); its label, figure and element."""
    if isinstance(line, str):
        line = [line, "memory"]
    if isinstance(line, list) and len(line) == 2:
        name, arguments, label = "value", line, line[0]
    elif isinstance(line, Mapping) and set(line) <= {"kind", "args", "label"} and isinstance(line.get("args"), list):
        name, arguments, label = str(line.get("kind", "")), line["args"], str(line.get("label", ""))
    else:
        raise ChartError(
            f'lines=: {line!r} is a GPU id, [entry, field], or {{"kind": "...", "args": [...], "label": "..."}}'
        )
    try:
        kind, render = resolve(name)
        figure = kind.figure(chart.catalog, *arguments)
    except (KeyError, ValueError, TypeError) as error:
        raise ChartError(f"lines=: {error.args[0] if error.args else error}") from None
    if figure.unit != unit:
        raise ChartError(f"lines=: {line!r} is in {figure.unit}, the chart's figures in {unit}")
    return label, figure, render(*arguments, **chart.display)


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


def _side(y: float, points: list[_Point], x_scale: Scale, y_scale: Scale) -> str:
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


def _lines(
    chart: _Chart,
    resolve: Callable[[str], tuple[FigureKind, Callable[..., str]]],
    ident: str,
    axes: tuple[str, list[Any], str, list[Any]],
    fixed: Mapping[str, Any],
    lines: list[Any],
    marks: list[Any],
    labels: Mapping[Any, str],
    options: tuple[bool, bool, str, str, str],
) -> list[ET.Element]:
    x_name, x_values, series_name, series_values = axes
    log_x, log_y, x_unit, x_title, y_title = options
    if len(series_values) > STYLES or len(lines) > STYLES:
        raise ChartError(f"a chart tells apart at most {STYLES} series and {STYLES} reference lines")
    if any(isinstance(value, bool) or not isinstance(value, int | float) for value in x_values):
        raise ChartError(f"x= gives {x_name!r} numbers on a line chart; for choices, stack them in bars (stack=)")
    points = [
        chart.point({**fixed, x_name: xv, **({series_name: sv} if series_name else {})}, xv, sv)
        for sv in series_values
        for xv in x_values
    ]
    unit = _unit_of(points)
    references = [_reference(line, chart, resolve, unit) for line in lines]
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
    y_factor, y_symbol = _axis_unit(
        math.sqrt(y_scale.low * y_scale.high) if log_y else y_scale.high, unit, chart.display
    )
    x_factor, x_symbol = _axis_unit(math.sqrt(x_scale.low * x_scale.high) if log_x else x_scale.high, x_unit, {})

    svg = _svg(ident, "lines")
    _y_axis(svg, y_scale, y_factor, _title(y_title, y_symbol), log_y)
    axis = element("g", {"class": "sbn-chart__axis"}, svg)
    element("line", {"class": "sbn-chart__baseline", "x1": LEFT, "x2": RIGHT, "y1": BOTTOM, "y2": BOTTOM}, axis)
    for tick in x_ticks:
        x = x_scale(tick)
        element("line", {"class": "sbn-chart__tick", "x1": x, "x2": x, "y1": BOTTOM, "y2": BOTTOM + 4}, axis)
        text = tick_text(tick, x_factor)
        tick_x, anchor = kept_within(x, text_width(text, FONT), 0, WIDTH)
        element("text", {"x": tick_x, "y": BOTTOM + FONT + 4, "text-anchor": anchor}, axis, text)
    x_heading = _title(x_title or x_name.replace("_", " ").capitalize(), x_symbol)
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
    # Every reference line is labelled alike: its name and figure on one line, else on two (`_key_lines`), else
    # its name alone (its figure is the line's own, and the data table's): the first form that leaves every
    # label, the marks' too, clear of the series and of each other.
    for figures, wrap in ((True, False), (True, True), (False, False)):
        placed: list[Box] = []
        spots: list[tuple[str, dict[str, Any], str, str | None, bool]] = []
        clear = True
        for entry, figure, html in references:
            y = y_scale(float(figure.value))
            name, shown_html = label(entry, chart.catalog, labels), html if figures else None
            label_lines = _key_lines(name, shown_html, wrap)
            width = max(text_width(line, FONT) for line in label_lines)
            candidates = _reference_places(y, width, _side(y, points, x_scale, y_scale), len(label_lines))
            clear = clear and bool(_clear_of(candidates, drawn, placed))
            spots.append(("sbn-chart__reference", _clear_place(candidates, drawn, placed), name, shown_html, wrap))
        for where, p in in_order:
            name = label(p.x, chart.catalog, labels)
            width = text_width(f"{name} {ET.fromstring(p.html).text or ''}", FONT)
            candidates = _mark_places(x_scale(float(where)), y_scale(float(p.figure.value)), width, below)
            clear = clear and bool(_clear_of(candidates, drawn, placed))
            spots.append(("sbn-chart__mark", _clear_place(candidates, drawn, placed), name, p.html, False))
        if clear:
            break
    for group_class, place, name, shown_html, wrap in spots:
        _labelled(element("g", {"class": group_class}, svg), place, name, shown_html, wrap)

    parts: list[ET.Element] = [svg]
    if series_name:
        parts.append(_legend([label(s, chart.catalog, labels) for s in series_values], "series"))
    table = _table(
        x_heading,
        [label(s, chart.catalog, labels) for s in series_values] if series_name else [_title(y_title, "") or "Value"],
        [(tick_text(float(xv), x_factor), [p.html for p in points if p.x == xv]) for xv in x_values],
    )
    extras = [(f"{label(e, chart.catalog, labels)}, a reference line:", html) for e, _, html in references]
    extras += [(f"{label(p.x, chart.catalog, labels)}, marked:", p.html) for _, p in marked]
    parts.append(_data(table, extras))
    return parts


def _bars(
    chart: _Chart,
    resolve: Callable[[str], tuple[FigureKind, Callable[..., str]]],
    ident: str,
    axes: tuple[str, list[Any], str, list[Any]],
    fixed: Mapping[str, Any],
    lines: list[Any],
    labels: Mapping[Any, str],
    titles: tuple[str, str],
) -> list[ET.Element]:
    x_name, x_values, stack_name, stack_values = axes
    x_title, y_title = titles
    if len(stack_values) > STYLES or len(lines) > STYLES:
        raise ChartError(f"a bar stacks at most {STYLES} values, beside at most {STYLES} reference lines")
    points = [chart.point({**fixed, x_name: xv, stack_name: sv}, xv, sv) for xv in x_values for sv in stack_values]
    unit = _unit_of(points)
    references = [_reference(line, chart, resolve, unit) for line in lines]
    totals = [sum(float(p.figure.value) for p in points if p.x == xv) for xv in x_values]
    y_scale = Scale(*domain(totals + [float(f.value) for _, f, _ in references], log=False), BOTTOM, TOP)
    factor, symbol = _axis_unit(y_scale.high, unit, chart.display)
    # The bars start where the y axis's marks end.
    left = max(text_width(text, FONT) for _, text in _y_ticks(y_scale, factor, log=False)) + 9
    # The key beside the last bar names the segments; with one bar it gives their figures too, with more it
    # would give one bar's as if for all, and the data table has every bar's. Its column is as wide as it.
    last = [p for p in points if p.x == x_values[-1]]
    with_figures = len(x_values) == 1
    keys = [(label(p.series, chart.catalog, labels), p.html if with_figures else None) for p in last]
    keys += [(label(entry, chart.catalog, labels), html) for entry, _, html in references]
    # A key too wide for the bars puts its figures' brackets on a line of their own ("A100 40 GB", then
    # "(39.4 GiB to programs)").
    for wrap in (False, True):
        key_lines = [_key_lines(name, html, wrap) for name, html in keys]
        column = max(text_width(line, FONT) for key in key_lines for line in key)
        right = WIDTH - column - 17
        if right - left >= 30 * len(x_values):
            break
    else:
        raise ChartError(
            f"the key beside the bars leaves them too little room: give its {len(keys)} names shorter labels="
        )
    svg = _svg(ident, "bars")
    _y_axis(svg, y_scale, factor, _title(y_title, symbol), log=False, right=right, left=left)
    slot = (right - left) / len(x_values)
    width = min(56.0, slot * 0.6)
    axis = element("g", {"class": "sbn-chart__axis"}, svg)
    element("line", {"class": "sbn-chart__baseline", "x1": left, "x2": right, "y1": BOTTOM, "y2": BOTTOM}, axis)
    # Labels wider than their slot (their width estimated from their letters) alternate between two lines.
    names = [label(xv, chart.catalog, labels) for xv in x_values]
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
    places = dodge([y + 5 for y in middles + heights], FONT + 2, TOP + FONT, BOTTOM, [len(key) for key in key_lines])
    edge = left + slot * (len(x_values) - 0.5) + width / 2
    for index, ((name, html), y, label_y) in enumerate(zip(keys, middles, places[: len(last)], strict=False)):
        group = element("g", {"class": f"sbn-chart__key sbn-chart__key--{index + 1}"}, svg)
        element("line", {"x1": edge + 2, "x2": edge + 12, "y1": y, "y2": label_y - 5}, group)
        _labelled(group, {"x": edge + 15, "y": label_y}, name, html, wrap)
    for index, ((entry, figure, html), y, label_y) in enumerate(
        zip(references, heights, places[len(last) :], strict=True)
    ):
        group = element("g", {"class": f"sbn-chart__reference sbn-chart__reference--{index + 1}"}, svg)
        data = {"data-fig-id": figure.id, "data-value": attribute_value(figure.value)}
        element("line", {"x1": left, "x2": edge + 2, "y1": y, "y2": y, **data}, group)
        element("line", {"x1": edge + 2, "x2": edge + 12, "y1": y, "y2": label_y - 5}, group)
        _labelled(group, {"x": edge + 15, "y": label_y}, label(entry, chart.catalog, labels), html, wrap)
    table = _table(
        _title(y_title, ""),
        [label(xv, chart.catalog, labels) for xv in x_values],
        [(label(sv, chart.catalog, labels), [p.html for p in points if p.series == sv]) for sv in stack_values],
    )
    extras = [(f"{label(e, chart.catalog, labels)}, a reference line:", html) for e, _, html in references]
    return [svg, _data(table, extras)]


def _legend(names: list[str], what: str) -> ET.Element:
    """The series' names beside a swatch of their line, as HTML text that wraps on a phone."""
    legend = element("ul", {"class": "sbn-chart__legend"})
    for index, name in enumerate(names):
        item = element("li", {"class": f"sbn-chart__{what}--{index + 1}"}, legend)
        swatch = element("svg", {"class": "sbn-chart__swatch", "viewBox": "0 0 24 8", "aria-hidden": "true"}, item)
        element("line", {"x1": 0, "x2": 24, "y1": 4, "y2": 4}, swatch)
        swatch.tail = f" {name}"
    return legend


def _table(corner: str, columns: list[str], rows: list[tuple[str, list[str]]]) -> ET.Element:
    table = element("table", {})
    head = element("tr", {}, element("thead", {}, table))
    element("th", {"scope": "col"}, head, corner)
    for name in columns:
        element("th", {"scope": "col"}, head, name)
    body = element("tbody", {}, table)
    for header, cells in rows:
        row = element("tr", {}, body)
        element("th", {"scope": "row"}, row, header)
        for html in cells:
            element("td", {}, row).append(ET.fromstring(html))
    return table


def _data(table: ET.Element, extras: list[tuple[str, str]]) -> ET.Element:
    """The text alternative: the chart's figures as a table, and its reference lines and marks, behind a disclosure."""
    details = element("details", {"class": "sbn-chart__data"})
    element("summary", {}, details, "The chart's data, as a table")
    details.append(table)
    if extras:
        listing = element("ul", {}, details)
        for text, html in extras:
            item = element("li", {}, listing, f"{text} ")
            item.append(ET.fromstring(html))
    return details


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


def _ranges(
    chart: _Chart,
    ident: str,
    axes: tuple[str, list[Any], str, list[Any]],
    fixed: Mapping[str, Any],
    labels: Mapping[Any, str],
    options: tuple[Mapping[str, Any] | None, list[str] | None, int],
    x_title: str,
) -> list[ET.Element]:
    x_name, x_values, range_name, range_values = axes
    beside, segments, base = options
    if not 2 <= len(range_values) <= STYLES + 1:
        raise ChartError(f"ranges= gives from 2 to {STYLES + 1} values: where a bar starts, changes colour and ends")
    if segments is not None and (
        not isinstance(segments, list) or len(segments) != len(range_values) - 1 or not all(segments)
    ):
        raise ChartError(f"segments= names the {len(range_values) - 1} spans between the ranges= values, in order")
    if base not in _LOGS:
        raise ChartError(f"base= is {' or '.join(map(str, _LOGS))}: the powers a range chart's axis is marked in")
    bars = [[chart.point({**fixed, x_name: xv, range_name: rv}, xv, rv) for rv in range_values] for xv in x_values]
    _unit_of([p for bar in bars for p in bar])
    for bar in bars:
        values = [p.figure.value for p in bar]
        if values[0] <= 0 or any(b < a for a, b in itertools.pairwise(values)):
            raise ChartError(
                f"ranges=: the values of {bar[0].x!r} must be positive and climb in the order given: "
                + ", ".join(f"{p.series} is {float(p.figure.value):g}" for p in bar)
            )
    chosen = _beside(beside, chart.kind)
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
    svg = _svg(ident, "ranges")
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
    if x_title:
        element(
            "text",
            {"class": "sbn-chart__title", "x": WIDTH / 2, "y": height - 6, "text-anchor": "middle"},
            axis,
            x_title,
        )
    # Each bar under its name, its spans in the segments' colours, a tick at each value; its note at the right.
    for row, (bar, xv) in enumerate(zip(bars, x_values, strict=True)):
        text_y = _RANGE_TOP + _RANGE_ROW * row + FONT
        bar_y = text_y + 6
        group = element("g", {"class": "sbn-chart__range"}, svg)
        element("text", {"x": _RANGE_LEFT, "y": text_y}, group, label(xv, chart.catalog, labels))
        if notes:
            note = notes[row]
            place = {"x": _RANGE_RIGHT, "y": text_y, "text-anchor": "end"}
            _labelled(group, place, label(note.series, chart.catalog, labels), note.html)
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
    names = [label(v, chart.catalog, labels) for v in range_values]
    spans = segments or [f"{a} to {b}" for a, b in itertools.pairwise(names)]
    table = _table(
        label(x_name, chart.catalog, labels),
        [*names, label(chosen[1], chart.catalog, labels)] if chosen else names,
        [
            (label(xv, chart.catalog, labels), [p.html for p in bar] + ([notes[row].html] if notes else []))
            for row, (bar, xv) in enumerate(zip(bars, x_values, strict=True))
        ],
    )
    return [svg, _legend(spans, "segment"), _data(table, [])]
