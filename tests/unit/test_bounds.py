"""Every size an author can write is bounded: beyond its limit it is refused at once, the limit named.

A chart's range, a pipeline schedule's stages and microbatches, a pass's length and a call's numbers each
cost the build time or memory in proportion to what the author wrote; a billion must be refused in
milliseconds, never built, cut short in silence, or left to run out of memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from macros.build.calls import CallError, parse_call
from macros.figures.kinds import KINDS
from macros.figures.kinds.pipeline import _pipeline
from macros.model import pipeline
from macros.pictures.charts import ChartError, figure_chart
from macros.pictures.charts.chart import MAX_POINTS
from tests.conftest import catalog
from tests.unit.test_charts import _render, _resolve


@contextmanager
def at_once() -> Iterator[None]:
    """The block takes well under a second: what it refuses, it refuses before doing the work."""
    start = time.perf_counter()
    yield
    assert time.perf_counter() - start < 0.5


def _chart(x: dict[str, Any]) -> str:
    kind = KINDS["device_states"]
    return figure_chart(kind, _render(kind), _resolve, catalog(), "c", x=x, caption="Memory per device")


@pytest.mark.parametrize(
    "spec",
    [
        {"from": 1, "to": 10**12, "step": 1},  # a trillion values, once built in full before being cut to 200
        {"from": 1, "to": 6_000_000_000, "step": 5e-324},  # a step so small the count is infinite
        {"from": 1, "to": 10**30, "times": 1.0001},
        {"from": 1, "to": 201, "step": 1},  # one more than a chart plots
    ],
    ids=["trillion-steps", "subnormal-step", "tiny-factor", "one-too-many"],
)
def test_a_chart_range_beyond_its_limit_is_refused_not_cut(spec: dict[str, Any]) -> None:
    catalog()  # loaded before the clock starts
    with at_once(), pytest.raises(ChartError, match=f"has more than {MAX_POINTS} values, the most a chart plots"):
        _chart({"parameters": spec})


def test_a_chart_range_at_its_limit_is_drawn_whole() -> None:
    html = _chart({"parameters": {"from": 10**8, "to": 200 * 10**8, "step": 10**8}})
    assert html.count("<tr") > MAX_POINTS  # every value has its row in the data table, none cut


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pipeline.schedule("gpipe", 10**6, 8), "has more than 131,072 passes per direction"),
        (lambda: pipeline.schedule("1f1b", 8, 10**30), "has more than 131,072 passes per direction"),
        (lambda: pipeline.stage_order("1f1b", 10**9, 10**9, 0), "has more than 131,072 passes per direction"),
        (lambda: pipeline.schedule("1f1b", 4, 8, forward=10**9), "a pass takes at most 100 time slots"),
    ],
)
def test_a_pipeline_schedule_beyond_its_limit_is_refused_before_it_is_simulated(
    call: Callable[[], object], message: str
) -> None:
    with at_once(), pytest.raises(ValueError, match=message):
        call()


def test_every_schedule_the_course_follows_is_within_the_limit() -> None:
    """Each workload of the catalog with a pipeline: its stages × microbatches, simulated for its bubble."""
    sizes = {}
    for entry, table in catalog().tables.items():
        if table == "workloads" and catalog().workload(entry).pipeline:
            p, _, m = _pipeline(catalog(), entry)
            sizes[entry] = p.count * m
    assert sizes and max(sizes.values()) <= pipeline.MAX_PASSES, sizes


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1e31", "10" + "0" * 30, "1j"])
def test_a_number_in_a_call_beyond_any_size_is_refused(number: str) -> None:
    with at_once(), pytest.raises(CallError, match="a number in a call is finite and at most 10\\^30 in size"):
        parse_call(f" pipeline_bubble({number}, 8) ", 1)
