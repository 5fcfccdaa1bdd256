"""Charts of figures (macros/charts.py) and their geometry (macros/plot.py), without a build."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from bs4 import BeautifulSoup

from macros.charts import BOTTOM, LEFT, RIGHT, TOP, ChartError, figure_chart
from macros.figures import render_html
from macros.kinds import KINDS, FigureKind
from macros.plot import Scale, dodge, domain, ticks
from macros.quantities import display_quantity
from macros.typed_figures import typed_figures
from tests.conftest import catalog


def _render(kind: FigureKind) -> Callable[..., str]:
    def render(*arguments: Any, **display: Any) -> str:
        figure = kind.figure(catalog(), *arguments)
        return render_html(
            figure, display_quantity(figure.value, figure.unit, **{**figure.computed.display, **display})
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
    assert [Fraction(p["data-value"]) for p in points] == [16 * n for n in (5 * 10**8, 10**9, 2 * 10**9, 4 * 10**9)]


def test_a_point_sits_where_its_value_is_on_the_axes() -> None:
    soup = chart("device_states", **MEMORY)
    low, high = domain([8e9, 64e9, 32 * 2**30, 80 * 2**30, 24e9], log=False)
    y = Scale(low, high, BOTTOM, TOP)
    x_low, x_high = domain([5e8, 4e9, 1.5e9], log=False)
    x = Scale(x_low, x_high, LEFT, RIGHT)
    for point in soup.select(".sbn-chart__series circle"):
        value = float(Fraction(point["data-value"]))
        assert float(point["cy"]) == pytest.approx(y(value))
        assert float(point["cx"]) == pytest.approx(x(value / 16))


def test_reference_lines_are_the_gpus_memory_as_figures() -> None:
    soup = chart("device_states", **MEMORY)
    lines = soup.select(".sbn-chart__reference line")
    assert [(line["data-fig-id"], int(line["data-value"])) for line in lines] == [
        ("catalog/v100-32gb/memory", 32 * 2**30),
        ("catalog/h100-sxm5/memory", 80 * 2**30),
    ]
    labels = [" ".join(t.get_text().split()) for t in soup.select(".sbn-chart__reference text")]
    assert sorted(labels) == ["H100 80 GB (80 GiB)", "V100 32 GB (32 GiB)"]


def test_a_mark_sits_at_its_entrys_own_x_value() -> None:
    soup = chart("device_states", **MEMORY)
    mark = soup.select_one(".sbn-chart__mark circle")
    assert mark["data-fig-id"] == "device-states/gpt2-1.5b"
    assert int(mark["data-value"]) == 24 * 10**9  # ZeRO §3.1: "at least 24 GB"


def test_the_text_alternative_is_a_table_of_every_plotted_figure() -> None:
    soup = chart("device_states", **MEMORY)
    table = soup.select_one("details.sbn-chart__data table")
    plotted = {e["data-fig-id"] for e in soup.select("svg [data-fig-id]")}
    tabled = {e["data-fig-id"] for e in soup.select("details.sbn-chart__data .fig")}
    assert plotted == tabled and len(table.select("tbody tr")) == 4
    assert soup.select_one("svg")["aria-labelledby"] == soup.select_one("figcaption")["id"]


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
    assert Fraction(soup.select(".sbn-chart__series--4 circle")[-1]["data-value"]) == Fraction(1875, 1000) * 10**9


def test_a_stacked_bar_stacks_each_state_on_the_last() -> None:
    states = ["fp16_parameters", "fp16_gradients", "fp32_parameters", "fp32_momentum", "fp32_variance"]
    soup = chart(
        "bytes_per_parameter", x={"recipe": ["mixed-adam"]}, stack={"state": states}, caption="16 per parameter"
    )
    segments = soup.select("rect.sbn-chart__segment")
    assert [int(s["data-value"]) for s in segments] == [2, 2, 4, 4, 4]
    tops = [float(s["y"]) for s in segments]
    assert tops == sorted(tops, reverse=True)  # each above the one before
    bottom = float(segments[0]["y"]) + float(segments[0]["height"])
    assert bottom == pytest.approx(BOTTOM)


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
