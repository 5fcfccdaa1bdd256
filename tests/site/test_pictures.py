"""Charts, diagrams and the calculator in the built site: every plotted value a figure, each with its text.

The pictures are found on every page the build writes, never listed here.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from macros.pictures.calculator import calculator_config
from tests.checks import FigureRecord, attribute, lesson_body, one
from tests.conftest import build_copy, catalog, site_pages, soup
from tests.site.test_bad_input import LESSON_7, LESSON_8, Edit, fails_with, line_of


def _pages_with(site_dir: Path, selector: str) -> list[str]:
    return [page for page in site_pages() if soup(site_dir / page).select(selector)]


@pytest.fixture(scope="module")
def records(site_dir: Path) -> list[FigureRecord]:
    shown: list[FigureRecord] = json.loads((site_dir / "figures.json").read_text(encoding="utf-8"))
    return shown


def test_the_lessons_have_charts_a_diagram_and_a_calculator(site_dir: Path) -> None:
    assert _pages_with(site_dir, "figure.sbn-chart")
    assert _pages_with(site_dir, "figure.sbn-frames")
    assert _pages_with(site_dir, "form[data-sbn-calculator]")


def test_every_plotted_value_is_a_figure_in_figures_json_on_its_page(
    site_dir: Path, records: list[FigureRecord], page: str
) -> None:
    url = page.removesuffix("index.html")
    on_page = {r["id"]: r["value"] for r in records if r["url"] == url}
    for plotted in lesson_body(soup(site_dir / page)).select("svg [data-fig-id]"):
        assert plotted["data-fig-id"] in on_page, plotted
        exact, drawn = Fraction(on_page[plotted["data-fig-id"]]), Fraction(attribute(plotted, "data-value"))
        # As for any figure: a value that no decimal ends is "p/q" in figures.json and 20 digits in the attribute.
        assert drawn == exact or ("/" in on_page[plotted["data-fig-id"]] and abs(drawn - exact) <= exact / 10**19)


def test_every_chart_has_a_caption_and_its_data_as_a_table_behind_a_disclosure(site_dir: Path, page: str) -> None:
    for chart in lesson_body(soup(site_dir / page)).select("figure.sbn-chart"):
        caption = one(chart, "figcaption")
        assert caption.get_text().strip() and one(chart, "svg")["aria-labelledby"] == caption["id"]
        data = one(chart, "details.sbn-chart__data")
        assert one(data, "summary").get_text().strip() and data.select_one("table th[scope=col]")
        plotted = {e["data-fig-id"] for e in chart.select("svg [data-fig-id]")}
        assert plotted and plotted <= {e["data-fig-id"] for e in data.select(".fig")}


def test_every_frame_of_a_diagram_is_described_in_words(site_dir: Path, page: str) -> None:
    for diagram in lesson_body(soup(site_dir / page)).select("figure.sbn-frames"):
        frames = diagram.select(".sbn-frames__frame")
        assert len(frames) > 1 and one(diagram, "figcaption").get_text().strip()
        for frame in frames:
            text = one(frame, f"#{one(frame, 'svg')['aria-labelledby']}")
            assert len(text.get_text()) > 40


@pytest.mark.parametrize(
    ("widget", "script"), [("figure.sbn-frames", "frames.js"), ("form[data-sbn-calculator]", "calculator.js")]
)
def test_a_script_loads_once_on_the_pages_that_need_it_and_nowhere_else(
    site_dir: Path, page: str, widget: str, script: str
) -> None:
    body = lesson_body(soup(site_dir / page))
    loads = [s for s in soup(site_dir / page).select("script[src]") if attribute(s, "src").endswith(f"/{script}")]
    assert len(loads) == (1 if body.select(widget) else 0)
    for load in loads:
        # Inside the content, which Material's instant navigation re-runs, and pointing at the file.
        assert load.find_parent(attrs={"data-md-component": "container"}) is not None
        assert (site_dir / page).parent.joinpath(attribute(load, "src")).resolve().is_file()


def test_the_calculator_computes_with_the_models_json(site_dir: Path) -> None:
    for page in _pages_with(site_dir, "form[data-sbn-calculator]"):
        for form in soup(site_dir / page).select("form[data-sbn-calculator]"):
            default = json.loads(attribute(form, "data-sbn-defaults")).get("model")
            assert json.loads(attribute(form, "data-sbn-config")) == json.loads(
                json.dumps(calculator_config(catalog(), default))
            )
            assert form["data-sbn-calculator"] == form["id"]


def test_a_chart_that_names_no_parameter_of_its_kind_fails_at_its_line(course_copy: Path, edit: Edit) -> None:
    path = course_copy / LESSON_8
    edit(path, 'x={"recipe": ["mixed-adam"]}', 'x={"recipes": ["mixed-adam"]}')
    new = 'x={"recipes": ["mixed-adam"]}'
    fails_with(
        build_copy(course_copy), f"{LESSON_8}:{line_of(path, new)}", "bytes_per_parameter has no parameter 'recipes'"
    )


def test_a_diagram_too_wide_for_a_phone_fails_at_its_line(course_copy: Path, edit: Edit) -> None:
    path = course_copy / LESSON_7
    edit(path, 'diagram("ring_allreduce", devices=4', 'diagram("ring_allreduce", devices=12')
    where = f"{LESSON_7}:{line_of(path, 'devices=12')}"
    fails_with(build_copy(course_copy), where, "devices= is a whole number from 2 to 6, got 12")


def test_a_catalog_name_with_a_unit_in_a_chart_label_fails_as_a_typed_figure(course_copy: Path, edit: Edit) -> None:
    """Without its label, the chart names GPT-2 by its catalog name, "GPT-2 1.5B": told at the chart's call."""
    path = course_copy / LESSON_8
    edit(path, '"gpt2-1.5b": "GPT-2", ', "")
    fails_with(
        build_copy(course_copy),
        f"{LESSON_8}:{line_of(path, 'chart(' + chr(34) + 'device_states')}",
        "'1.5B' in the text of what it shows is a typed figure; it comes from the call's own arguments",
    )
