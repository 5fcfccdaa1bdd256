"""Charts of figures (macros/pictures/charts/) and their geometry (macros/pictures/svg.py), without a build."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from bs4 import BeautifulSoup

from macros.data.quantities import display_quantity, with_defaults
from macros.data.typed_figures import typed_figures
from macros.figures.figure import render_html
from macros.figures.kinds import KINDS, FigureKind
from macros.pictures.charts import ChartError, figure_chart
from macros.pictures.charts.chart import BOTTOM, LEFT, RIGHT, TOP, WIDTH
from macros.pictures.svg import Scale, crosses, dodge, domain, text_width, ticks
from tests.checks import attribute, one
from tests.conftest import catalog


def _render(kind: FigureKind) -> Callable[..., str]:
    def render(*arguments: Any, **display: Any) -> str:
        figure = kind.figure(catalog(), *arguments)
        # As the build shows a figure: the kind's display, with the author's options on top (notations replaced).
        return render_html(
            figure, display_quantity(figure.value, figure.unit, **with_defaults(figure.computed.display, display))
        )

    return render


def _resolve(name: str) -> tuple[FigureKind, Callable[..., str]]:
    return KINDS[name], _render(KINDS[name])


def chart(kind: str, **layout: Any) -> BeautifulSoup:
    html = figure_chart(KINDS[kind], _render(KINDS[kind]), _resolve, catalog(), "c", **layout)
    return BeautifulSoup(html, "html.parser")


MEMORY = dict(
    x={"parameters": [500_000_000, 1_000_000_000, 2_000_000_000, 4_000_000_000]},
    lines=["v100-32gb", "h100-sxm5"],
    marks=["gpt2-1.5b"],
    labels={"v100-32gb": "V100", "h100-sxm5": "H100", "gpt2-1.5b": "GPT-2"},
    x_unit="param",
    caption="Model states against parameters",
)


def test_every_point_is_the_kinds_figure_with_its_id_and_exact_value() -> None:
    soup = chart("device_states", **MEMORY)
    points = soup.select(".sbn-chart__series circle")
    assert [p["data-fig-id"] for p in points] == [
        f"device-states/{n}" for n in (500_000_000, 1_000_000_000, 2_000_000_000, 4_000_000_000)
    ]
    # 16 bytes per parameter (ZeRO §3.1): 8 GB for half a billion parameters.
    assert [Fraction(attribute(p, "data-value")) for p in points] == [
        16 * n for n in (5 * 10**8, 10**9, 2 * 10**9, 4 * 10**9)
    ]


def test_a_point_sits_where_its_value_is_on_the_axes() -> None:
    soup = chart("device_states", **MEMORY)
    low, high = domain([8e9, 64e9, 32 * 2**30, 80 * 2**30, 24e9], log=False)
    y = Scale(low, high, BOTTOM, TOP)
    x_low, x_high = domain([5e8, 4e9, 1.5e9], log=False)
    x = Scale(x_low, x_high, LEFT, RIGHT)
    for point in soup.select(".sbn-chart__series circle"):
        value = float(Fraction(attribute(point, "data-value")))
        assert float(attribute(point, "cy")) == pytest.approx(y(value))
        assert float(attribute(point, "cx")) == pytest.approx(x(value / 16))


def test_reference_lines_are_the_gpus_memory_as_figures() -> None:
    soup = chart("device_states", **MEMORY)
    lines = soup.select(".sbn-chart__reference line")
    assert [(line["data-fig-id"], int(attribute(line, "data-value"))) for line in lines] == [
        # What CUDA gives programs (deviceQuery): a V100 32 GB under driver 11.4, an H100 80GB under driver 570.
        ("catalog/v100-32gb/memory", 34_089_730_048),
        ("catalog/h100-sxm5/memory", 85_028_896_768),
    ]
    # Labelled in the axis's decimal GB, where the lines are drawn; on this chart by name alone (the series
    # runs where "H100 85 GB to programs (79.2 GiB)" would go), with the figures in the data table.
    labels = [" ".join(t.get_text().split()) for t in soup.select(".sbn-chart__reference text")]
    assert sorted(labels) == ["H100", "V100"]
    extras = [" ".join(li.get_text().split()) for li in soup.select("details.sbn-chart__data li")]
    assert "H100, a reference line: 85 GB to programs (79.2 GiB)" in extras
    assert "V100, a reference line: 34.1 GB to programs (31.7 GiB)" in extras


def test_a_mark_sits_at_its_entrys_own_x_value() -> None:
    soup = chart("device_states", **MEMORY)
    mark = one(soup, ".sbn-chart__mark circle")
    assert mark["data-fig-id"] == "device-states/gpt2-1.5b"
    assert int(attribute(mark, "data-value")) == 24 * 10**9  # ZeRO §3.1: "at least 24 GB"


def _series_points(soup: BeautifulSoup) -> list[tuple[float, float]]:
    """The points the first series' path runs through, from its steps ("M12.5,80", "L40,62.25", …)."""
    steps = attribute(one(soup, ".sbn-chart__series path"), "d").split()
    return [(float(x), float(y)) for x, y in (step[1:].split(",") for step in steps)]


def _label_boxes(soup: BeautifulSoup) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Each reference's and mark's label in the drawing, with its box as the chart estimates it."""
    boxes = []
    for text in soup.select(".sbn-chart__reference text, .sbn-chart__mark text"):
        width, x, y = text_width(text.get_text(), 16), float(attribute(text, "x")), float(attribute(text, "y"))
        left = x - width if text["text-anchor"] == "end" else x
        boxes.append((text.get_text(), (left, y - 0.8 * 16, left + width, y + 0.25 * 16)))
    return boxes


def test_reference_lines_too_close_for_their_figures_are_labelled_by_name_all_alike() -> None:
    """Lesson 8: four GPUs' lines a line of text apart, which the series crosses, and two marks beside them:
    "A100 42.3 GB to programs (39.4 GiB)" has no room there, on one line or two, so each line is named only."""
    soup = chart(
        "device_states",
        x={"parameters": {"from": 250_000_000, "to": 6_000_000_000, "step": 250_000_000}},
        lines=["rtx-4090", "v100-32gb", "a100-40gb", "h100-sxm5"],
        marks=["zero-dp-limit", "gpt2-1.5b"],
        labels={"rtx-4090": "RTX 4090", "v100-32gb": "V100", "a100-40gb": "A100", "h100-sxm5": "H100",
                "gpt2-1.5b": "GPT-2", "zero-dp-limit": "ZeRO's limit"},
        x_unit="param",
        caption="Model states",
    )  # fmt: skip
    names = [t.get_text() for t in soup.select(".sbn-chart__reference text")]
    assert names == ["RTX 4090", "V100", "A100", "H100"]
    assert len(soup.select("svg .sbn-chart__reference line[data-fig-id]")) == 4  # the lines keep their figures
    extras = [" ".join(li.get_text().split()) for li in soup.select("details.sbn-chart__data li")]
    assert "A100, a reference line: 42.3 GB to programs (39.4 GiB)" in extras
    points = _series_points(soup)
    boxes = _label_boxes(soup)
    assert [name for name, _ in boxes if "GB" in name] == ["GPT-2 24 GB", "ZeRO's limit 22.4 GB"]
    for index, (name, box) in enumerate(boxes):
        assert not crosses(box, points), name
        others = [other for _, other in boxes[index + 1 :]]
        assert not any(box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3] for o in others), name


def test_the_text_alternative_is_a_table_of_every_plotted_figure() -> None:
    soup = chart("device_states", **MEMORY)
    table = one(soup, "details.sbn-chart__data table")
    plotted = {e["data-fig-id"] for e in soup.select("svg [data-fig-id]")}
    tabled = {e["data-fig-id"] for e in soup.select("details.sbn-chart__data .fig")}
    assert plotted == tabled and len(table.select("tbody tr")) == 4
    assert one(soup, "svg")["aria-labelledby"] == one(soup, "figcaption")["id"]


def test_tick_labels_carry_no_unit_and_the_drawing_has_no_typed_figure() -> None:
    soup = chart("device_states", **MEMORY)
    assert typed_figures(str(soup)) == []
    ticks_text = [t.get_text() for t in soup.select(".sbn-chart__axis text:not(.sbn-chart__title)")]
    assert ticks_text and all(t.replace(",", "").replace(".", "").isdigit() for t in ticks_text)
    assert [t.get_text() for t in soup.select(".sbn-chart__title")] == ["GB", "Parameters (billions)"]


def test_several_series_get_a_legend_in_order() -> None:
    soup = chart(
        "device_states",
        x={"devices": {"from": 1, "to": 64, "times": 4}},
        series={"stage": [0, 1, 2, 3]},
        fixed={"parameters": 7_500_000_000},
        log_x=True,
        log_y=True,
        caption="ZeRO's stages",
    )
    assert [li.get_text().strip() for li in soup.select(".sbn-chart__legend li")] == ["0", "1", "2", "3"]
    assert len(soup.select(".sbn-chart__series")) == 4
    # Nd = 64 at stage 3 is ZeRO's 1.875 GB (Table 1 prints 1.88).
    assert (
        Fraction(attribute(soup.select(".sbn-chart__series--4 circle")[-1], "data-value"))
        == Fraction(1875, 1000) * 10**9
    )


def test_a_stacked_bar_stacks_each_state_on_the_last() -> None:
    states = ["fp16_parameters", "fp16_gradients", "fp32_parameters", "fp32_momentum", "fp32_variance"]
    soup = chart(
        "bytes_per_parameter", x={"recipe": ["mixed-adam"]}, stack={"state": states}, caption="16 per parameter"
    )
    segments = soup.select("rect.sbn-chart__segment")
    assert [int(attribute(s, "data-value")) for s in segments] == [2, 2, 4, 4, 4]
    tops = [float(attribute(s, "y")) for s in segments]
    assert tops == sorted(tops, reverse=True)  # each above the one before
    bottom = float(attribute(segments[0], "y")) + float(attribute(segments[0], "height"))
    assert bottom == pytest.approx(BOTTOM)


def test_the_key_of_one_bar_gives_its_figures_and_of_several_only_the_names() -> None:
    """Beside the last bar, a figure would read as every bar's: with more bars than one, the key names the
    segments, and the data table has each bar's figures."""
    names = {"blocks": "blocks", "embeddings": "embeddings", "gpt2-xl": "GPT-2", "gpt3-175b": "GPT-3"}
    layout = dict(stack={"part": ["blocks", "embeddings"]}, labels=names)
    one = chart("shape_share", x={"entry": ["gpt3-175b"]}, caption="GPT-3", **layout)
    two = chart("shape_share", x={"entry": ["gpt2-xl", "gpt3-175b"]}, caption="Both", **layout)
    assert [len(key.select("tspan.fig")) for key in one.select(".sbn-chart__key text")] == [1, 1]
    assert [key.get_text() for key in two.select(".sbn-chart__key text")] == ["blocks", "embeddings"]
    assert len(two.select("details.sbn-chart__data td .fig")) == 4


def test_a_tick_label_at_the_axis_end_stays_inside_the_drawing() -> None:
    soup = chart("zero_states", x={"dp": [1, 4, 16, 64, 256, 1024]}, fixed={"entry": "zero-7.5b", "stage": "os"},
                 log_x=True, caption="Per device")  # fmt: skip
    last = [t for t in soup.select(".sbn-chart__axis text") if t.get_text() == "1,024"]
    assert len(last) == 1 and last[0]["text-anchor"] == "end" and float(attribute(last[0], "x")) <= WIDTH


def test_a_reference_label_keeps_clear_of_the_series() -> None:
    """Twice the fp32 gradients: the fp32 curve climbs towards the line, so its label sits where it does not."""
    soup = chart("ring_bytes", x={"devices": [2, 4, 8, 16, 32, 64]}, series={"precision": ["fp32"]},
                 fixed={"entry": "gpt2-1.5b"}, lines=[{"kind": "ring_bytes_limit", "args": ["gpt2-1.5b", "fp32"],
                 "label": "Twice the fp32 gradients"}], log_x=True, caption="Sent")  # fmt: skip
    points = _series_points(soup)
    label = soup.select(".sbn-chart__reference text")[-1]
    width = text_width(label.get_text(), 16)
    left = float(attribute(label, "x")) - (width if label["text-anchor"] == "end" else 0)
    box = (left, float(attribute(label, "y")) - 13, left + width, float(attribute(label, "y")) + 4)
    assert not crosses(box, points)


SCHEMES = ["dp", "zero3", "tensor", "pipeline", "ptd"]
STEP = dict(
    x={"scheme": SCHEMES},
    stack={"part": ["compute", "bubble", "network", "nvlink"]},
    fixed={"workload": "gpt3-ptd"},
    caption="One step per layout",
)


def _bar_labels(soup: BeautifulSoup) -> list[tuple[str, float]]:
    """The bars' names under the axis, with their height on the page: the texts below the plot."""
    texts = soup.select(".sbn-chart__axis text")
    return [
        (t.get_text(), float(attribute(t, "y")))
        for t in texts
        if float(attribute(t, "y")) > BOTTOM + 8 and t.get("class") is None
    ]


def test_bar_labels_too_wide_for_their_bar_alternate_between_two_lines() -> None:
    labels = {"dp": "DP", "zero3": "ZeRO-3", "tensor": "tensor", "pipeline": "pipe", "ptd": "PTD-P"}
    placed = _bar_labels(chart("layout", labels=labels, **STEP))
    assert [name for name, _ in placed] == list(labels.values())
    lines = [y for _, y in placed]
    assert lines[0] == lines[2] == lines[4] < lines[1] == lines[3]


def test_bar_labels_that_fit_their_bar_stay_on_one_line() -> None:
    labels = {"dp": "DP", "zero3": "Z", "tensor": "TP", "pipeline": "PP", "ptd": "PTD"}
    assert len({y for _, y in _bar_labels(chart("layout", labels=labels, **STEP))}) == 1


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        (
            {"labels": {"pipeline": "a pipeline only"}},
            r"the labels of 5 bars overlap at a phone's width: write them in at most \d+ letters with labels=",
        ),
        (
            {"labels": {"ptd": "PTD-P"}, "x_title": "Layout"},
            "leave out x_title=, which two lines of labels leave no room for",
        ),
    ],
)
def test_bar_labels_that_would_overlap_are_refused_with_the_fix(layout: dict[str, Any], message: str) -> None:
    with pytest.raises(ChartError, match=message):
        chart("layout", **STEP, **layout)


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ({"x": {"parameters": [1]}, "caption": ""}, "caption="),
        ({"x": {"size": [1, 2]}, "caption": "c"}, "no parameter 'size'"),
        ({"x": {"devices": [1, 2]}, "caption": "c"}, "bind parameters of"),
        (
            {"x": {"parameters": [0, 10]}, "caption": "c", "log_x": True},
            "cannot be computed: parameters must be positive",
        ),
        ({"x": {"parameters": [10**9, 2 * 10**9]}, "lines": ["pcie-gen4-x16"], "caption": "c"}, "quantity of"),
        ({"x": {"parameters": {"from": 10, "to": 1}}, "caption": "c"}, "a range is"),
        ({"x": {"parameters": {"from": 10, "to": 1, "step": 1}}, "caption": "c"}, "is empty"),
    ],
)
def test_a_wrong_layout_is_refused_with_the_fix(layout: dict[str, Any], message: str) -> None:
    with pytest.raises(ChartError, match=message):
        chart("device_states", **layout)


def test_log_ticks_are_decades_or_one_two_five() -> None:
    assert ticks(1e9, 2e12, log=True) == [1e9, 1e10, 1e11, 1e12]
    assert ticks(2, 100, log=True) == [2, 5, 10, 20, 50, 100]


def test_a_log_scale_puts_each_decade_an_equal_step_apart() -> None:
    scale = Scale(1, 1000, 0, 300, log=True)
    assert [scale(v) for v in (1, 10, 100, 1000)] == [0, 100, 200, 300]
    assert math.isclose(scale(10**1.5), 150)


def test_dodged_labels_keep_their_order_and_gap_within_bounds() -> None:
    placed = dodge([100, 101, 102, 50], 13, 20, 200)
    order = sorted(range(4), key=lambda i: [100, 101, 102, 50][i])
    assert [placed[i] for i in order] == sorted(placed)
    assert all(b - a >= 13 - 1e-6 for a, b in itertools.pairwise(sorted(placed)))


@pytest.mark.parametrize(
    ("svg", "found"),
    [
        # A tick's number and the axis's title are separate labels, not "100GB".
        ('<svg><text x="1">100</text><text x="2">GB</text></svg>', []),
        # A label that types a figure is one, inside a drawing as anywhere.
        ('<svg><text x="1">V100 32 GB</text></svg>', ["32 GB"]),
        # A figure's own element is skipped, whatever its tag.
        ('<svg><text>V100 <tspan class="fig" data-fig-id="x">32 GB</tspan></text></svg>', []),
    ],
)
def test_the_typed_figure_check_reads_each_svg_label_on_its_own(svg: str, found: list[str]) -> None:
    assert [f.text for f in typed_figures(svg)] == found


def test_a_log_axis_in_days_is_marked_in_round_days() -> None:
    soup = chart(
        "time_at_utilization",
        x={"devices": [64, 512, 4096]},
        series={"utilization": [30, 50]},
        fixed={"workload": "gpt3-on-a100s"},
        log_x=True,
        log_y=True,
        scale="days",
        caption="Days",
    )
    y_ticks = [t.get_text() for t in soup.select("svg > g.sbn-chart__axis")[0].select("text:not(.sbn-chart__title)")]
    assert y_ticks == ["10", "100", "1,000"]  # powers of ten in days, not of seconds
    assert one(soup, ".sbn-chart__title").get_text() == "days"


def test_a_chart_of_shares_in_percent_is_marked_in_percent() -> None:
    soup = chart(
        "shape_share",
        x={"entry": ["gpt2-xl", "gpt3-175b"]},
        stack={"part": ["blocks", "embeddings"]},
        labels={"gpt2-xl": "GPT-2", "gpt3-175b": "GPT-3"},
        percent=True,
        y_title="Share",
        caption="Shares",
    )
    assert one(soup, ".sbn-chart__title").get_text() == "Share (%)"
    assert "100" in [t.get_text() for t in soup.select(".sbn-chart__axis text:not(.sbn-chart__title)")]


STEP_MEMORY = dict(
    x={"workload": ["gpt2-batch-1", "zero-gpt2-activations"]},
    stack={"part": ["fp32_parameters", "fp32_gradients", "activations"]},
    fixed={"recipe": "fp32-adam", "precision": "fp32"},
    lines=["a100-40gb"],
    labels={"a100-40gb": "A100", "gpt2-batch-1": "batch 1", "gpt2-batch-8": "batch 8", "zero-gpt2-activations": "32"},
    caption="A step's memory",
)


def test_a_reference_line_runs_across_stacked_bars_at_its_figure() -> None:
    soup = chart("step_bytes", **STEP_MEMORY)
    line = one(soup, ".sbn-chart__reference line[data-fig-id]")
    # What CUDA gives programs of an A100 40 GB: deviceQuery on an AWS p4, driver 535, 42,298,834,944 bytes.
    assert (line["data-fig-id"], int(attribute(line, "data-value"))) == ("catalog/a100-40gb/memory", 42_298_834_944)
    # Batch 32's activations in fp32 (4 × 12 × 1600 × 32 × 1024 × 48 bytes) and two 6 GB states: under 150 GB.
    y = Scale(0, 150e9, BOTTOM, TOP)
    assert float(attribute(line, "y1")) == float(attribute(line, "y2")) == pytest.approx(y(42_298_834_944))
    label = " ".join(one(soup, ".sbn-chart__reference text").get_text().split())
    assert label == "A100 42.3 GB to programs (39.4 GiB)"
    extras = [" ".join(li.get_text().split()) for li in soup.select("details.sbn-chart__data li")]
    assert extras == ["A100, a reference line: 42.3 GB to programs (39.4 GiB)"]


def test_a_bar_charts_labels_beside_the_last_bar_keep_apart() -> None:
    # Batch 8's fp32 activations (30.2 GB on 24 GB of states) centre 3.2 GB from the A100's 42.3 GB: too close.
    states = ["fp32_parameters", "fp32_gradients", "fp32_momentum", "fp32_variance"]
    crowded = {**STEP_MEMORY, "x": {"workload": ["gpt2-batch-8"]}, "stack": {"part": [*states, "activations"]}}
    soup = chart("step_bytes", **crowded)
    ys = sorted(float(attribute(t, "y")) for t in soup.select(".sbn-chart__key text, .sbn-chart__reference text"))
    assert len(ys) == 6 and all(b - a >= 15 - 1e-6 for a, b in itertools.pairwise(ys))


def test_a_key_too_wide_for_the_bars_puts_a_figures_brackets_on_a_line_of_its_own() -> None:
    # Lesson 4's chart: three bars, five segments and the A100, whose key "A100 42.3 GB to programs (39.4 GiB)"
    # on one line would leave the bars under 30 units each.
    states = ["fp32_parameters", "fp32_gradients", "fp32_momentum", "fp32_variance"]
    workloads = ["gpt2-batch-1", "gpt2-batch-8", "zero-gpt2-activations"]
    three = {**STEP_MEMORY, "x": {"workload": workloads}, "stack": {"part": [*states, "activations"]}}
    soup = chart("step_bytes", **three)
    text = one(soup, ".sbn-chart__reference text")
    figure = one(text, "tspan.fig")
    assert figure.get_text() == "42.3 GB to programs (39.4 GiB)"  # whole, as the figure's checks read it
    second = one(figure, "tspan")
    assert (second.get_text(), second["x"], float(attribute(second, "dy"))) == ("(39.4 GiB)", text["x"], 18)
    # Every label, the second line included, keeps a line's height from the next.
    ys = sorted(float(attribute(t, "y")) for t in soup.select(".sbn-chart__key text"))
    ys = sorted([*ys, float(attribute(text, "y")), float(attribute(text, "y")) + 18])
    assert len(ys) == 7 and all(b - a >= 18 - 1e-6 for a, b in itertools.pairwise(ys))
    bars = soup.select("rect.sbn-chart__segment")
    assert min(float(attribute(bar, "width")) for bar in bars) >= 18


FORMATS = ["fp32", "fp16", "e4m3"]
RANGES = dict(
    x={"fmt": FORMATS},
    ranges={"quantity": ["min_subnormal", "min_normal", "max_normal"]},
    beside={"quantity": "epsilon", "power_of_two": True},
    segments=["subnormals", "normals"],
    base=2,
    caption="Ranges",
)


def test_a_range_chart_marks_each_value_of_each_bar_with_its_figure() -> None:
    soup = chart("format_value", **RANGES)
    bounds = soup.select("line.sbn-chart__bound")
    assert [b["data-fig-id"] for b in bounds] == [
        f"format/{fmt}/{q}" for fmt in FORMATS for q in ("min_subnormal", "min_normal", "max_normal")
    ]
    # fp16: 2⁻²⁴ (IEEE 754 binary16's smallest subnormal), 2⁻¹⁴ and 65,504.
    assert [Fraction(attribute(b, "data-value")) for b in bounds[3:6]] == [
        Fraction(1, 2**24),
        Fraction(1, 2**14),
        65504,
    ]


def test_a_range_chart_puts_each_value_on_a_log_axis_of_powers_of_two() -> None:
    soup = chart("format_value", **RANGES)
    ticks_text = [t.get_text() for t in soup.select(".sbn-chart__axis text:not(.sbn-chart__title)")]
    assert ticks_text == ["2⁻¹⁵⁰", "2⁻¹⁰⁰", "2⁻⁵⁰", "2⁰", "2⁵⁰", "2¹⁰⁰", "2¹⁵⁰"]
    grid = [float(attribute(line, "x1")) for line in soup.select(".sbn-chart__grid")]
    scale = Scale(2.0**-150, 2.0**150, grid[0], grid[-1], log=True)
    for bound in soup.select("line.sbn-chart__bound"):
        assert float(attribute(bound, "x1")) == pytest.approx(
            scale(float(Fraction(attribute(bound, "data-value")))), abs=0.01
        )
    # fp32's bar spans from 2⁻¹⁴⁹ up: its subnormal segment starts one binade above the axis's 2⁻¹⁵⁰.
    segments = soup.select("rect.sbn-chart__segment")
    assert [s["class"][1] for s in segments[:2]] == ["sbn-chart__segment--1", "sbn-chart__segment--2"]
    assert float(attribute(segments[0], "x")) == pytest.approx(scale(2.0**-149), abs=0.01)


def test_a_range_chart_writes_a_figure_beside_each_bar_and_names_its_spans() -> None:
    soup = chart("format_value", **RANGES)
    notes = soup.select(".sbn-chart__range tspan.fig")
    assert [(n["data-fig-id"], n.get_text()) for n in notes] == [
        ("format/fp32/epsilon", "2⁻²³"),
        ("format/fp16/epsilon", "2⁻¹⁰"),
        ("format/e4m3/epsilon", "2⁻³"),
    ]
    assert [li.get_text().strip() for li in soup.select(".sbn-chart__legend li")] == ["subnormals", "normals"]
    rows = soup.select("details.sbn-chart__data tbody tr")
    assert [len(row.select(".fig")) for row in rows] == [4, 4, 4]
    assert typed_figures(str(soup)) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ranges": {"quantity": ["max_normal", "min_normal"]}, "segments": None}, "must be positive and climb"),
        ({"ranges": {"quantity": ["min_normal"]}}, "from 2 to 7 values"),
        ({"segments": ["subnormals"]}, "names the 2 spans"),
        ({"base": 3}, "base= is 2 or 10"),
        ({"beside": {"digits": 2}}, "beside= maps one parameter"),
        ({"series": {"fmt": ["fp16"]}}, "takes no series="),
    ],
)
def test_a_wrong_range_chart_is_refused_with_the_fix(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ChartError, match=message):
        chart("format_value", **{**RANGES, **change})


LINE = dict(x={"parameters": [10**9, 2 * 10**9]}, caption="States")


@pytest.mark.parametrize(
    ("kind", "layout", "message"),
    [
        # A range chart draws no y axis: its y_title was dropped without a word, its text never read.
        (
            "format_value",
            {**RANGES, "y_title": "80 GB"},
            r"a range chart \(ranges=\) takes no y_title=: its options are x, caption, fixed, labels, x_title, ranges,",
        ),
        ("format_value", {**RANGES, "x_unit": "B", "log_x": True}, r"takes no log_x=, x_unit=:"),
        ("layout", {**STEP, "x_unit": "B", "segments": ["80 GB"]}, r"a stacked bar chart \(stack=\) takes no x_unit=,"),
        (
            "layout",
            {**STEP, "marks": ["gpt-3"], "log_y": True},
            r"stacked bar chart \(stack=\) takes no marks=, log_y=",
        ),
        ("device_states", {**LINE, "segments": ["80 GB"]}, r"a line chart takes no segments=: its options are"),
        ("device_states", {**LINE, "beside": {"quantity": "x"}, "base": 2}, r"line chart takes no beside=, base="),
    ],
)
def test_an_option_the_layout_does_not_draw_is_refused(kind: str, layout: dict[str, Any], message: str) -> None:
    with pytest.raises(ChartError, match=message):
        chart(kind, **layout)
