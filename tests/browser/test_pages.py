"""Pages as a reader meets them in a real Chromium: light, reachable, readable."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Locator, Page, ViewportSize, expect

from macros.data.glossary import load_glossary
from tests.browser.conftest import LESSON_8, PHONE, WCAG_AA, axe_violations, page_errors, requests_made, show_palette
from tests.conftest import catalog, course

GLOSSARY = load_glossary(course().glossary_file, catalog().sources)


def _hosts(addresses: list[str]) -> set[str]:
    return {urlsplit(address).netloc for address in addresses}


def test_a_page_is_light_accessible_and_fits_a_phone(tab: Page, base_url: str, path: str) -> None:
    """One load of each page: no axe violation in either palette, no sideways scroll on a phone, and nothing
    from another host, from the load to the network's rest after all of that."""
    with requests_made(tab) as requested:
        tab.goto(base_url + path)
        for scheme in ("default", "slate"):
            show_palette(tab, scheme)
            violations, report = axe_violations(tab, WCAG_AA)
            assert violations == 0, f"{scheme}: {report}"
        tab.set_viewport_size(PHONE)
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        tab.wait_for_load_state("networkidle")
    assert _hosts(requested) == {urlsplit(base_url).netloc}


def test_search_and_instant_navigation_stay_on_the_site(tab: Page, base_url: str) -> None:
    with requests_made(tab) as requested:
        tab.goto(base_url)
        syllabus = tab.get_by_role("article")
        syllabus.get_by_role("link", name="Lesson 8. Why Data Parallelism Alone Runs Out of Memory").click()
        expect(tab.get_by_role("heading", level=1)).to_contain_text("Lesson 8")
        tab.get_by_label("Search", exact=True).first.click()
        tab.keyboard.type("all-reduce")
        expect(tab.locator(".md-search-result__item").first).to_be_visible()
        tab.wait_for_load_state("networkidle")
    assert _hosts(requested) == {urlsplit(base_url).netloc}


def test_a_page_fetches_the_search_pages_only_when_its_reader_opens_search(tab: Page, base_url: str) -> None:
    with requests_made(tab) as requested:
        tab.goto(f"{base_url}{LESSON_8}/")
        tab.wait_for_load_state("networkidle")
        fetched = [urlsplit(address).path for address in requested]
        searched = [path for path in fetched if path.endswith("/search/search_docs.json")]
        assert searched == [] and any(path.endswith("/search/search_index.json") for path in fetched)
        tab.keyboard.press("/")  # Material's shortcut: the first way into search
        tab.keyboard.type("all-reduce")
        expect(tab.locator(".md-search-result__item").first).to_be_visible()
        tab.keyboard.press("Escape")
        tab.get_by_role("navigation", name="Navigation").get_by_role("link", name="Glossary").first.click()
        _search(tab, "gpt-2")
    assert [urlsplit(address).path for address in requested if address.endswith("/search/search_docs.json")] == [
        urlsplit(base_url).path + "search/search_docs.json"
    ]


def test_a_search_in_the_address_finds_its_results(tab: Page, base_url: str) -> None:
    """Material opens search for `?q=` before the index has come: the pages are fetched then too."""
    tab.goto(f"{base_url}?q=all-reduce")
    expect(tab.locator(".md-search-result__item").first).to_be_visible()


def _search(page: Page, query: str) -> Locator:
    page.get_by_label("Search", exact=True).first.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(query)
    results = page.locator(".md-search-result__item")
    expect(results.first).to_be_visible()
    return results


def test_search_keeps_hyphenated_terms_whole(tab: Page, base_url: str) -> None:
    tab.goto(base_url)
    results = _search(tab, "all-reduce")
    # The best section, after the page's own, is about all-reduce (split at the hyphen, the query
    # found reduce-scatter first), and no result that holds the word strikes it through as missing.
    first = results.locator(".md-search-result__link[href*='#']").first
    expect(first.locator("h2")).to_contain_text(re.compile("all-reduce", re.IGNORECASE))
    expect(results.first).to_be_visible()
    expect(tab.locator(".md-search-result del")).to_have_count(0)
    _search(tab, "gpt-2")
    # Results follow the query as it is typed ("gpt" finds GPT-3 too): wait for the whole query's.
    tab.wait_for_function(
        """() => {
            const marks = [...document.querySelectorAll(".md-search-result mark")].map((m) => m.textContent);
            return marks.length > 0 && marks.every((mark) => mark.toLowerCase().startsWith("gpt-2"));
        }""",
        timeout=5000,
    )


def test_the_search_dialog_has_a_name(tab: Page, base_url: str) -> None:
    tab.goto(base_url)
    expect(tab.get_by_role("dialog", name="Search")).to_have_count(1)
    violations, report = axe_violations(tab, ["aria-dialog-name"])
    assert violations == 0, report


@pytest.mark.parametrize("system", ["light", "dark"])
def test_the_palette_toggle_has_two_states_starting_from_the_systems(
    tab: Page, base_url: str, system: Literal["light", "dark"]
) -> None:
    tab.emulate_media(color_scheme=system)
    tab.goto(base_url + LESSON_8 + "/")
    body = tab.locator("body")
    # The one visible toggle, found by place: its title is what it switches to.
    toggle = tab.locator("[data-md-component=palette] label:not([hidden])")
    first, other = ("default", "slate") if system == "light" else ("slate", "default")
    expect(body).to_have_attribute("data-md-color-scheme", first)
    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", other)
    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", first)


def test_the_glossary_jumps_from_a_letter_to_its_first_term(tab: Page, base_url: str) -> None:
    tab.goto(base_url + "glossary/")
    entries = sorted(GLOSSARY.entries.values(), key=lambda entry: entry.term.casefold())
    letters = tab.get_by_role("navigation", name="Terms from A to Z")
    links = letters.get_by_role("link").all()
    linked = {link.text_content(): urlsplit(link.get_attribute("href")).fragment for link in links}
    first: dict[str, str] = {}
    for entry in entries:
        first.setdefault(entry.term[0].upper(), entry.id)
    assert linked == first
    letters.get_by_role("link", name="R", exact=True).click()
    heading = tab.locator(f"h2#{first['R']}")
    expect(heading).to_be_in_viewport()


#: Values of Material's palette key that it could not have written, each of which used to stop its components.
_ODD_PALETTES = [
    "{",
    "1",
    '"x"',
    "[]",
    '{"index": "a"}',
    '{"color": 5}',
    '{"index": 1.5, "color": {}}',
    '{"index": 0, "color": {"media": "(prefers-color-scheme)"}}',
    '{"index": 0, "color": {" ": "x"}}',
]


@pytest.mark.parametrize("stored", _ODD_PALETTES)
def test_an_odd_stored_palette_is_dropped_and_search_works(tab: Page, base_url: str, stored: str) -> None:
    key = f"{urlsplit(base_url).path}.__palette"
    tab.goto(base_url)
    tab.evaluate("([key, value]) => localStorage.setItem(key, value)", [key, stored])
    with page_errors(tab) as errors:
        tab.goto(f"{base_url}{LESSON_8}/")
        _search(tab, "all-reduce")
    assert errors == []
    # Material stores the palette it shows in its place: one of mkdocs.yml's.
    assert tab.evaluate("(key) => JSON.parse(localStorage.getItem(key)).index", key) in (0, 1)


def test_the_readers_palette_is_kept_across_pages(tab: Page, base_url: str) -> None:
    tab.goto(f"{base_url}{LESSON_8}/")
    show_palette(tab, "slate")
    tab.reload()
    expect(tab.locator("body")).to_have_attribute("data-md-color-scheme", "slate")


#: The tables of the open page (disclosures opened) that hide part of themselves: wider than their column
#: without scrolling, scrolling without showing that they do (the shadow of course.css, with the table
#: transparent over it), or with their caption cut by their scroller.
_HIDING_TABLES = """() => {
    for (const details of document.querySelectorAll("article details")) details.open = true;
    const column = document.querySelector("article").getBoundingClientRect();
    const wrong = [];
    for (const table of document.querySelectorAll("article table")) {
        if (!table.checkVisibility()) continue;
        const name = (table.caption ?? table.rows[0]).textContent.trim().slice(0, 40);
        const own = getComputedStyle(table).overflowX === "auto";
        const scroller = table.closest(".md-typeset__scrollwrap") ?? (own ? table : null);
        if (!scroller) {
            if (table.getBoundingClientRect().right > column.right + 1) wrong.push(`${name}: wider, and no scroller`);
            continue;
        }
        const shadow = /radial-gradient/.test(getComputedStyle(scroller).backgroundImage);
        const clear = own || getComputedStyle(table).backgroundColor === "rgba(0, 0, 0, 0)";
        const scrolls = scroller.scrollWidth > scroller.clientWidth + 1;
        if (scrolls && !(shadow && clear)) wrong.push(`${name}: hides its scroll`);
        const [caption, box] = [table.caption?.getBoundingClientRect(), scroller.getBoundingClientRect()];
        const cut = caption && (caption.left < box.left - 0.5 || caption.right > box.right + 0.5);
        if (cut) wrong.push(`${name}: caption cut`);
    }
    return wrong;
}"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, PHONE], ids=["desktop", "phone"])
def test_a_wide_table_shows_that_it_scrolls_and_keeps_its_caption_whole(
    tab: Page, base_url: str, path: str, viewport: ViewportSize
) -> None:
    tab.set_viewport_size(viewport)
    tab.goto(base_url + path)
    assert tab.evaluate(_HIDING_TABLES) == []
