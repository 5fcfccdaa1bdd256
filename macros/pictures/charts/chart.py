"""What every chart shares, whatever its layout: its options, its points and their unit, its axes' values and
titles, its reference lines, its labels, its SVG, legend and data table (the package's docstring has the
options)."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...data.catalog import Catalog
from ...data.quantities import display_quantity
from ...figures.figure import Figure
from ...figures.kinds.registry import FigureKind
from ..labels import label
from ..svg import SEARCH_EXCLUDE, Scale, body_size, element, tick_text, ticks

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


@dataclass(frozen=True, kw_only=True)
class ChartOptions:
    """A chart's own options, as a lesson's call names them (the package's docstring says what each does); the
    call's other keywords are display options for its figures.

    Keyword-only, as a signature's options are: the build reads their names from it to answer a misspelt one.
    """

    x: Mapping[str, Any]
    caption: str = ""
    series: Mapping[str, Any] | None = None
    stack: Mapping[str, Any] | None = None
    fixed: Mapping[str, Any] | None = None
    lines: list[Any] | None = None
    marks: list[Any] | None = None
    labels: Mapping[Any, str] | None = None
    log_x: bool = False
    log_y: bool = False
    x_unit: str = "1"
    x_title: str = ""
    y_title: str = ""
    ranges: Mapping[str, Any] | None = None
    beside: Mapping[str, Any] | None = None
    segments: list[str] | None = None
    base: int = 10


@dataclass(frozen=True)
class Point:
    """One plotted figure: where it goes, and its element for the data table."""

    x: Any
    series: Any
    figure: Figure
    html: str


def axis_values(name: str, spec: Any, kind: FigureKind) -> tuple[str, list[Any]]:
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


def write_label(
    parent: ET.Element, attributes: Mapping[str, Any], label: str, figure_html: str | None, wrap: bool = False
) -> None:
    """A text label, followed by a figure's element as an SVG `tspan` (same class and data, so checked the same).

    With `wrap`, a figure's words in brackets ("40 GB (39.4 GiB to programs)") go on a line of their own
    under the label (`key_lines`), inside the figure's element, so that its text stays whole.
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


def key_lines(name: str, figure_html: str | None, wrap: bool) -> list[str]:
    """The lines of a key's label as `write_label` writes them: one, or with `wrap` its figure's brackets on a
    second."""
    shown = ET.fromstring(figure_html).text or "" if figure_html else ""
    head, bracket, rest = shown.partition(" (") if wrap else (shown, "", "")
    return [f"{name} {head}".rstrip()] + ([f"({rest}"] if bracket else [])


class Chart:
    """One chart being built: its options, its figures, its drawing, its legend and its data table."""

    def __init__(
        self,
        kind: FigureKind,
        render: Callable[..., str],
        resolve: Callable[[str], tuple[FigureKind, Callable[..., str]]],
        catalog: Catalog,
        ident: str,
        options: ChartOptions,
        display: Mapping[str, Any],
    ):
        self.kind, self.render, self.resolve, self.catalog, self.display = kind, render, resolve, catalog, display
        self.ident, self.options = ident, options
        self.labels, self.fixed = dict(options.labels or {}), dict(options.fixed or {})
        #: The parameter the horizontal axis (or the bars, or the ranges' rows) binds, and its values.
        self.x = axis_values("x", options.x, kind)

    def point(self, binding: Mapping[str, Any], x: Any, series: Any, display: Mapping[str, Any] | None = None) -> Point:
        """The figure at `binding`, shown with the chart's display options and `display`'s on top."""
        arguments = _arguments(self.kind, binding)
        try:
            figure = self.kind.figure(self.catalog, *arguments)
        except (KeyError, ValueError, TypeError) as error:
            message = error.args[0] if error.args else str(error)
            raise ChartError(f"the point {dict(binding)} cannot be computed: {message}") from None
        return Point(x, series, figure, self.render(*arguments, **{**self.display, **(display or {})}))

    def label(self, value: Any) -> str:
        """An argument's value as the chart names it (`labels.label`)."""
        return label(value, self.catalog, self.labels)


def unit_of(points: list[Point]) -> str:
    units = {p.figure.unit for p in points}
    if len(units) != 1:
        raise ChartError(f"a chart plots figures of one unit; these are in {', '.join(sorted(units))}")
    return units.pop()


def axis_unit(value: float, unit: str, display: Mapping[str, Any]) -> tuple[float, str]:
    """The display unit an axis is marked in: the figures' own `scale=` (or `percent=`) if given, else that of a
    middle value."""
    options = {name: display[name] for name in ("scale", "percent") if name in display}
    shown = display_quantity(value if value > 0 else 1, unit, **options)
    symbol = {"billion": "billions", "million": "millions", "trillion": "trillions"}.get(shown.symbol, shown.symbol)
    return float(shown.factor), symbol


def axis_title(title: str, symbol: str) -> str:
    return f"{title} ({symbol})" if symbol and title else title or symbol


def chart_svg(chart: Chart, kind_class: str) -> ET.Element:
    """The chart's drawing, named by its caption, sized to read at body size, kept out of the search index."""
    return element(
        "svg",
        {
            "class": f"sbn-chart__svg sbn-chart__svg--{kind_class}",
            "viewBox": f"0 0 {WIDTH} {HEIGHT}",
            "role": "img",
            "aria-labelledby": f"{chart.ident}-caption",
            "font-size": FONT,
            "style": body_size(WIDTH, FONT),
            **SEARCH_EXCLUDE,
        },
    )


def y_ticks(scale: Scale, factor: float, log: bool) -> list[tuple[float, str]]:
    """Where the y axis is marked, and its marks' text: round ticks in the unit the axis is marked in (10, 100
    and 1,000 days, not 10⁶ and 10⁷ seconds)."""
    return [(scale(tick * factor), tick_text(tick, 1)) for tick in ticks(scale.low / factor, scale.high / factor, log)]


def y_axis(
    svg: ET.Element, scale: Scale, factor: float, title: str, log: bool, right: float = RIGHT, left: float = LEFT
) -> None:
    axis = element("g", {"class": "sbn-chart__axis"}, svg)
    for y, text in y_ticks(scale, factor, log):
        element("line", {"class": "sbn-chart__grid", "x1": left, "x2": right, "y1": y, "y2": y}, axis)
        element("text", {"x": left - 5, "y": y + 5, "text-anchor": "end"}, axis, text)
    element("text", {"class": "sbn-chart__title", "x": 2, "y": FONT}, axis, title)


def reference(line: Any, chart: Chart, unit: str) -> tuple[str, Figure, str]:
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
        kind, render = chart.resolve(name)
        figure = kind.figure(chart.catalog, *arguments)
    except (KeyError, ValueError, TypeError) as error:
        raise ChartError(f"lines=: {error.args[0] if error.args else error}") from None
    if figure.unit != unit:
        raise ChartError(f"lines=: {line!r} is in {figure.unit}, the chart's figures in {unit}")
    display = dict(chart.display)
    if name == "value" and arguments[1] == "memory" and unit == "B":
        # A GPU's memory is labelled in the axis's units, as the axis marks it, where prose gives it in GiB:
        # an H100's line sits at 85 GB on a GB axis, which "80 GB (79.2 GiB to programs)" would not say.
        display.setdefault("scale", display_quantity(figure.value, unit).symbol)
    return label, figure, render(*arguments, **display)


def legend(names: list[str], what: str) -> ET.Element:
    """The series' names beside a swatch of their line, as HTML text that wraps on a phone."""
    legend = element("ul", {"class": "sbn-chart__legend"})
    for index, name in enumerate(names):
        item = element("li", {"class": f"sbn-chart__{what}--{index + 1}"}, legend)
        swatch = element("svg", {"class": "sbn-chart__swatch", "viewBox": "0 0 24 8", "aria-hidden": "true"}, item)
        element("line", {"x1": 0, "x2": 24, "y1": 4, "y2": 4}, swatch)
        swatch.tail = f" {name}"
    return legend


def data_table(corner: str, columns: list[str], rows: list[tuple[str, list[str]]]) -> ET.Element:
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


def text_alternative(table: ET.Element, extras: list[tuple[str, str]]) -> ET.Element:
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
