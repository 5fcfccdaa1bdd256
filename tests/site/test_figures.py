"""The figures contract (DESIGN.md), checked on the built site and its figures.json."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from macros.catalog import load_catalog
from tests.checks import bare_figures, lesson_body, rederives, soup
from tests.conftest import LESSON_7, LESSON_8

LESSONS = [LESSON_7, LESSON_8]


@pytest.fixture(scope="module")
def records(site_dir: Path) -> list[dict]:
    return json.loads((site_dir / "figures.json").read_text(encoding="utf-8"), parse_float=Decimal)


@pytest.mark.parametrize("lesson", LESSONS)
def test_no_bare_figure_in_a_lesson(site_dir: Path, lesson: str) -> None:
    assert bare_figures(lesson_body(soup(site_dir / lesson / "index.html"))) == []


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_figure_rederives_from_its_value_and_unit(site_dir: Path, lesson: str) -> None:
    figures = lesson_body(soup(site_dir / lesson / "index.html")).select(".fig")
    assert figures, "a lesson without figures"
    wrong = [f for f in figures if not rederives(f.get_text(), f["data-value"], f["data-unit"])]
    assert wrong == []


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_figure_explains_itself(site_dir: Path, lesson: str) -> None:
    for figure in lesson_body(soup(site_dir / lesson / "index.html")).select(".fig"):
        assert figure["data-fig-id"] and len(figure["title"]) > len(figure.get_text()), figure


def test_every_printed_figure_matches_its_source(records: list[dict]) -> None:
    printed = [r for r in records if "printed" in r]
    assert printed, "no figure carries a printed value"
    for record in printed:
        source = record["printed"]
        assert source["unit"] == record["unit"]
        assert abs(Decimal(record["value"]) - Decimal(source["value"])) <= Decimal(source["rounding"]) / 2, record


def test_every_printed_value_is_shown_somewhere(records: list[dict]) -> None:
    shown = {r["id"] for r in records}
    assert set(load_catalog().printed) <= shown


def test_figures_json_describes_every_element(site_dir: Path, records: list[dict]) -> None:
    for lesson in LESSONS:
        on_page = {(r["id"], r["display"]): r for r in records if r["url"] == f"{lesson}/"}
        for element in lesson_body(soup(site_dir / lesson / "index.html")).select(".fig"):
            record = on_page[(element["data-fig-id"], element.get_text())]
            assert Decimal(element["data-value"]) == Decimal(record["value"])
            assert element["data-unit"] == record["unit"]
            assert record["formula"] and record["explanation"].startswith(element["title"][:20])
            assert all(entry["source"] and entry["where"] for entry in record["inputs"])


def test_no_template_syntax_survives(site_dir: Path) -> None:
    for page in site_dir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "{{" not in text and "{%" not in text, page
