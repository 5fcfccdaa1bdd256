"""Tooltips of figures and terms in a real Chromium: made on first hover, focus or tap, as text, on every device."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from macros.data.glossary import load_glossary
from tests.browser.conftest import LESSON_8, PHONE
from tests.conftest import catalog, course

GLOSSARY = load_glossary(course().glossary_file, catalog().sources)
#: A figure computed from a catalog input with a linked source, and the term that the page links first.
FIGURE = '.fig[data-fig-id="model-states/gpt2-1.5b"]'
TERM = "model states"


def _tip(page: Page) -> Locator:
    return page.locator(".sbn-tip")


def _figure_data(page: Page, figure_id: str) -> dict:
    return json.loads(page.locator("#sbn-figures").get_attribute("data-json") or "")["figures"][figure_id]


def test_nothing_is_set_up_at_load_and_material_makes_no_tooltips(lesson: Page) -> None:
    figures = lesson.locator(".fig")
    assert figures.count() > 10
    assert lesson.evaluate("[...document.querySelectorAll('.fig, a.sbn-term')].every((el) => el.getAttribute('title'))")
    assert lesson.locator(".sbn-tip, .md-tooltip2, [data-title]").count() == 0


def test_a_figure_explains_itself_on_hover_with_its_formula_sources_and_a_report_link(lesson: Page) -> None:
    figure = lesson.locator(FIGURE).first
    title = figure.get_attribute("title")
    figure.hover()
    tip = _tip(lesson)
    expect(tip).to_be_visible()
    data = _figure_data(lesson, "model-states/gpt2-1.5b")
    expect(tip.locator(".sbn-tip__formula")).to_have_text(data["formula"])
    expect(tip.locator(".sbn-tip__text")).to_have_text(f"= {data['words']}")
    label, cite, where, url = data["sources"][0]
    expect(tip.get_by_role("link", name=cite)).to_have_attribute("href", url)
    expect(tip.locator(".sbn-tip__source").first).to_have_text(f"{label}: {cite}, {where}")
    # The title moved into data, so that the browser's own tooltip does not repeat it.
    expect(figure).not_to_have_attribute("title", title)
    expect(figure).to_have_attribute("data-title", title)
    report = urlsplit(tip.get_by_role("link", name="Report this figure").get_attribute("href"))
    fields = {key: values[0] for key, values in parse_qs(report.query, strict_parsing=True).items()}
    assert fields["template"] == "figure-wrong.yml" and fields["figure-id"] == "model-states/gpt2-1.5b"
    assert fields["page-url"] == f"{course().site_url}{LESSON_8}/"
    assert fields["description"].startswith(f"The page shows 24 GB (exact value: {16 * 1_500_000_000} B).")


def test_a_figure_explains_itself_on_keyboard_focus_and_its_links_come_next(lesson: Page) -> None:
    figure = lesson.locator(FIGURE).first
    for _ in range(300):  # Tab through the page until the figure has focus
        if figure.evaluate("element => element === document.activeElement"):
            break
        lesson.keyboard.press("Tab")
    tip = _tip(lesson)
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("16 bytes × 1.5 billion parameters")
    expect(figure).to_have_attribute("aria-describedby", "sbn-tip-text")
    lesson.keyboard.press("Tab")
    expect(tip.get_by_role("link").first).to_be_focused()
    lesson.keyboard.press("Escape")
    expect(tip).to_have_count(0)


def test_one_tooltip_at_a_time(lesson: Page) -> None:
    figures = lesson.locator(".fig")
    figures.nth(0).hover()
    figures.nth(5).hover()
    expect(_tip(lesson)).to_have_count(1)
    lesson.mouse.move(0, 0)
    expect(_tip(lesson)).to_have_count(0)


@pytest.mark.parametrize("how", ["hover", "focus"])
def test_a_term_shows_its_definition_and_its_entry_on_hover_and_focus(lesson: Page, how: str) -> None:
    term = lesson.locator("a.sbn-term", has_text=TERM).first
    term.scroll_into_view_if_needed()
    term.hover() if how == "hover" else term.focus()
    tip = _tip(lesson)
    expect(tip.locator(".sbn-tip__text")).to_have_text(GLOSSARY.lookup(TERM).tooltip)
    expect(tip.get_by_role("link", name=f"Glossary: {TERM}")).to_have_attribute("href", term.get_attribute("href"))


@pytest.fixture
def phone(browser: Browser, base_url: str):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(f"{base_url}{LESSON_8}/")
    yield page
    context.close()


def test_a_tap_on_a_figure_explains_it_within_the_screen(phone: Page) -> None:
    figure = phone.locator(FIGURE).first
    figure.scroll_into_view_if_needed()
    figure.tap()
    tip = _tip(phone)
    expect(tip).to_be_visible()
    box = tip.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    phone.locator("article h1").tap()
    expect(tip).to_have_count(0)


def test_a_tap_on_a_term_shows_its_definition_first_and_a_second_tap_follows_it(phone: Page) -> None:
    term = phone.locator("a.sbn-term", has_text=TERM).first
    term.scroll_into_view_if_needed()
    url, entry = phone.url, term.evaluate("el => el.href")
    term.tap()
    expect(_tip(phone).locator(".sbn-tip__text")).to_have_text(GLOSSARY.lookup(TERM).tooltip)
    assert phone.url == url
    term.tap()
    expect(phone).to_have_url(entry)


def test_a_tooltip_inside_a_reps_label_ticks_nothing(lesson: Page) -> None:
    rep = lesson.get_by_label("Pick a published open model")
    figure = lesson.locator(".sbn-checklist .fig").first
    figure.hover()
    _tip(lesson).locator(".sbn-tip__text").click()
    expect(rep).not_to_be_checked()
