"""Pages as a reader meets them in a real Chromium: light, reachable, readable."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from macros.glossary import load_glossary
from tests.browser.conftest import lesson_url
from tests.conftest import catalog, course

LESSON_7 = lesson_url(7).rstrip("/")
LESSON_8 = lesson_url(8).rstrip("/")

PHONE = {"width": 390, "height": 844}
# The axe rules of WCAG 2.0, 2.1 and 2.2 at levels A and AA.
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def _hosts_requested(page: Page, base_url: str, path: str) -> set[str]:
    hosts: set[str] = set()
    page.on("request", lambda request: hosts.add(urlsplit(request.url).netloc))
    page.goto(base_url + path)
    page.wait_for_load_state("networkidle")
    return hosts


def test_a_page_is_light_accessible_and_fits_a_phone(page: Page, base_url: str, path: str) -> None:
    """One load of each page: nothing from another host, no axe violation in either palette, no sideways scroll."""
    assert _hosts_requested(page, base_url, path) == {urlsplit(base_url).netloc}
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        results = Axe().run(page, options={"runOnly": WCAG_AA})
        assert results.violations_count == 0, f"{scheme}: {results.generate_report()}"
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_search_and_instant_navigation_stay_on_the_site(page: Page, base_url: str) -> None:
    hosts = _hosts_requested(page, base_url, "")
    syllabus = page.get_by_role("article")
    syllabus.get_by_role("link", name="Lesson 8. Why Data Parallelism Alone Runs Out of Memory").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Lesson 8")
    page.get_by_label("Search", exact=True).first.click()
    page.keyboard.type("all-reduce")
    expect(page.locator(".md-search-result__item").first).to_be_visible()
    assert hosts == {urlsplit(base_url).netloc}


def test_a_figure_explains_itself_on_keyboard_focus(page: Page, base_url: str) -> None:
    page.goto(base_url + LESSON_8 + "/")
    figure = page.locator('.fig[data-fig-id="model-states/gpt2-1.5b"]').first
    for _ in range(200):  # Tab through the page until the figure has focus
        if figure.evaluate("element => element === document.activeElement"):
            break
        page.keyboard.press("Tab")
    tooltip = page.locator(".md-tooltip2--active")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text("16 bytes × 1.5 billion parameters")


def test_the_palette_toggle_cycles_system_light_dark(page: Page, base_url: str) -> None:
    page.emulate_media(color_scheme="dark")
    page.goto(base_url + LESSON_8 + "/")
    body = page.locator("body")
    # The one visible toggle; Material moves its title into a tooltip, so find it by place.
    toggle = page.locator("[data-md-component=palette] label:not([hidden])")
    expect(body).to_have_attribute("data-md-color-scheme", "slate")  # follows the system at first
    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    toggle.click()
    expect(page.locator("[data-md-component=palette] input:checked")).to_have_attribute(
        "data-md-color-media", "(prefers-color-scheme)"
    )


@pytest.mark.parametrize("how", ["hover", "focus"])
def test_a_term_shows_its_definition_on_hover_and_on_focus(page: Page, base_url: str, how: str) -> None:
    page.goto(f"{base_url}{LESSON_8}/")
    term = page.locator("a.sbn-term", has_text="model states").first
    term.scroll_into_view_if_needed()
    if how == "hover":
        term.hover()
    else:
        term.focus()
    tooltip = page.locator(".md-tooltip2--active")
    expect(tooltip).to_be_visible()
    definition = load_glossary(course().glossary_file, catalog().sources).lookup("model states").tooltip
    expect(tooltip).to_have_text(definition)
