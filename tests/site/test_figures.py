"""The figures contract (ARCHITECTURE.md, "Figures"), checked on every built page and on figures.json."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from macros.data.lessons import Lesson, index_lessons
from macros.figures.kinds import kind_of
from tests.checks import FigureRecord, attribute, bare_figures, lesson_body, rederives, tooltip_data
from tests.conftest import catalog, course, soup


@pytest.fixture(scope="module")
def records(site_dir: Path) -> list[FigureRecord]:
    shown: list[FigureRecord] = json.loads((site_dir / "figures.json").read_text(encoding="utf-8"))
    return shown


def test_no_bare_figure_on_a_page(site_dir: Path, page: str) -> None:
    assert bare_figures(lesson_body(soup(site_dir / page))) == []


def test_every_figure_rederives_from_its_value_and_unit(site_dir: Path, page: str) -> None:
    figures = lesson_body(soup(site_dir / page)).select(".fig")
    wrong = [f for f in figures if not rederives(f.get_text(), attribute(f, "data-value"), attribute(f, "data-unit"))]
    assert wrong == []


def test_every_figure_explains_itself(site_dir: Path, page: str) -> None:
    for figure in lesson_body(soup(site_dir / page)).select(".fig"):
        assert figure["data-fig-id"] and len(figure["title"]) > len(figure.get_text()), figure


def test_figures_json_describes_every_element(site_dir: Path, records: list[FigureRecord], page: str) -> None:
    url = page.removesuffix("index.html")
    on_page = {(r["id"], r["display"]): r for r in records if r["url"] == url}
    for element in lesson_body(soup(site_dir / page)).select(".fig"):
        record = on_page[(attribute(element, "data-fig-id"), element.get_text())]
        exact, carried = Fraction(record["value"]), Fraction(attribute(element, "data-value"))
        # A value that no decimal ends is "p/q" in figures.json and 20 digits in the attribute.
        assert carried == exact or ("/" in record["value"] and abs(carried - exact) <= abs(exact) / 10**19)
        assert element["data-unit"] == record["unit"]
        assert record["formula"] and record["explanation"] == element["title"]
        assert all(entry["source"] and entry["where"] for entry in record["inputs"])


def test_every_printed_value_matches_its_figure_within_the_sources_rounding() -> None:
    printed = catalog().printed
    assert printed, "the catalog transcribes no printed value"
    for figure_id, value in printed.items():
        kind = kind_of(figure_id)
        figure = kind.figure(catalog(), *kind.arguments(figure_id))
        assert figure.unit == value.unit
        assert abs(Fraction(figure.value) - Fraction(value.value)) <= Fraction(value.rounding) / 2, figure_id


def test_a_shown_figure_carries_what_its_source_printed(records: list[FigureRecord]) -> None:
    for record in records:
        if record["id"] in catalog().printed:
            assert record["printed"]["text"] == catalog().printed[record["id"]].text


def test_no_template_syntax_survives(site_dir: Path, page: str) -> None:
    text = (site_dir / page).read_text(encoding="utf-8")
    assert "{{" not in text and "{%" not in text


def test_each_page_carries_its_figures_tooltips_once(site_dir: Path, records: list[FigureRecord], page: str) -> None:
    """The tooltip data holds every figure the page shows, and only those, with the formula and sources."""
    html = soup(site_dir / page)
    shown = {figure["data-fig-id"] for figure in lesson_body(html).select(".fig")}
    assert len(html.select("#sbn-figures")) == (1 if shown else 0)
    data = tooltip_data(site_dir, page, html)
    if data is None:
        return
    assert set(data["figures"]) == shown
    url = page.removesuffix("index.html")
    for record in (r for r in records if r["url"] == url):
        tip = data["figures"][record["id"]]
        assert record["explanation"].startswith(tip["words"])
        assert tip.get("formula", record["formula"]) == record["formula"]
        cited = {(i["source"], i["where"]) for i in record["inputs"]}
        assert {(catalog().sources[s].cite, where) for s, where in cited} == {(s[1], s[2]) for s in tip["sources"]}
        assert all(s[3] is None or s[3].startswith("https://") for s in tip["sources"])
    assert data["report"].startswith(f"{course().repo_url}/issues/new?template=figure-wrong.yml&")


#: The stages whose figures real training software can reproduce (issue 27): counts, FLOPs, memory, traffic;
#: Stage 7's context parallelism's ring and its mixture of experts' counts and all-to-alls (issue 29).
#: Stage 3 (number formats) is arithmetic of the formats themselves.
ENGINE_STAGES = {1, 2, 4, 5, 6, 7}
#: Lessons of those stages none of whose figures an engine here reproduces, and why.
#: None today: Lesson 12's pipeline figures (bubble, stage memory) are unmeasured, the tier running no pipeline engine,
#: but it shows GPT-3's tensor-parallel bytes per layer, which the tier measured.
UNMEASURED: dict[int, str] = {}


def test_every_lesson_of_the_engine_stages_shows_a_figure_the_engine_tier_measured(
    records: list[FigureRecord],
) -> None:
    """Each lesson of those stages has a figure whose tooltip says what the software measured (measured.yml's
    records that name a figure, tests/engine/figures.yml), unless UNMEASURED says why it cannot."""
    measured = {record["page"] for record in records if "engine" in record}
    lessons = course_lessons()
    missing = [
        number
        for number, lesson in lessons.items()
        if lesson.stage in ENGINE_STAGES and number not in UNMEASURED and lesson.src_path not in measured
    ]
    assert missing == [], f"lessons {missing} show no figure the engine tier measured: map a record to one"
    assert all(lessons[number].src_path not in measured for number in UNMEASURED), "UNMEASURED is out of date"


def course_lessons() -> dict[int, Lesson]:
    """The course's lessons by number, as the build indexes them."""
    return dict(index_lessons(course().docs_dir).lessons)


def test_a_size_a_shown_time_is_computed_from_is_a_figure(records: list[FigureRecord]) -> None:
    """Lesson 3 typed "with exactly a trillion the formula gives …", the size its nominal training time is computed
    from (issue 25): it is the catalog's, shown as a figure."""
    page = course_lessons()[3].src_path
    assert (page, "catalog/megatron-1t-nominal/parameters") in {(record["page"], record["id"]) for record in records}
