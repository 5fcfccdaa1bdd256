"""Data files never inject script: a copy of the course whose catalog and glossary carry payloads, in Chromium.

Authors and reviewers read the catalog and the glossary as data. A copy of the
course gets a script payload in every text field that reaches a page (a model's
name and its `where`, a source's title and citation, a glossary term, alias and
definition), in each form a reader of the YAML would take for text: a tag, a
quote that ends an attribute, an entity-encoded tag. The build refuses them
at their line; built without that refusal, the defence behind it is tested: in
Chromium, through hovers, focus, taps, instant navigation and search, no script
of theirs may run and no element of theirs may exist. (A lesson's title and
description, and a source's address, are refused by the build instead: see
tests/site/test_bad_input.py.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import PHONE, lesson_url, serve
from tests.conftest import build_copy, script_refusal_off

TAG = "<img src=x onerror=window.__pwned=1>"
BREAKOUT = '"><script>window.__pwned=1</script>'
ENCODED = "&lt;img src=x onerror=window.__pwned=1&gt;"
PAYLOAD = f"{TAG} {BREAKOUT} {ENCODED}"
#: Where the payload goes: (file, text there, its replacement), each a field a page shows.
EDITS = [
    ("catalog/models.yml", "name: GPT-2 1.5B", f"name: 'GPT-2 1.5B {PAYLOAD}'"),
    (
        "catalog/models.yml",
        "  where: >-\n    §3.1 (1.5 billion parameters).",
        f"  where: >-\n    §3.1 {PAYLOAD}",
    ),
    (
        "catalog/sources.yml",
        'title: "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models"',
        f"title: 'ZeRO {PAYLOAD}'",
    ),
    ("catalog/sources.yml", "cite: Rajbhandari et al. 2019", f"cite: 'Rajbhandari et al. 2019 {PAYLOAD}'"),
    ("glossary/terms.yml", "  term: model states\n", f"  term: 'model states {PAYLOAD}'\n"),
    ("glossary/terms.yml", "[model state, model-state, model-states]", f"[model states, model state, '{PAYLOAD}']"),
    (
        "glossary/terms.yml",
        "however many devices there are.\n",
        f"however many devices there are. {PAYLOAD}\n",
    ),
]
#: Elements a payload would have made, and scripts of theirs that would have run.
INJECTED = """() => [
    ...document.querySelectorAll("[onerror], img[src=x]"),
    ...[...document.querySelectorAll("script")].filter(
        (script) => script.type !== "application/json" && script.textContent.includes("__pwned")
    ),
].length"""


@pytest.fixture
def payload_site(course_copy: Path, edit: Callable[[Path, str, str], None]) -> Iterator[str]:
    for file, old, new in EDITS:
        edit(course_copy / file, old, new)
    assert not build_copy(course_copy).ok  # refused at the first payload's line (tests/site/test_bad_input.py)
    with script_refusal_off():  # and were it not, none of them runs
        built = build_copy(course_copy)
    assert built.ok, built.output
    with serve(built.site) as url:
        yield url


def _explain_everything(page: Page) -> None:
    """Open every answer; hover, then focus, figures and terms that carry a payload, waiting as a reader would
    for a tooltip; then hover and focus every other one."""
    page.evaluate("() => { for (const answer of document.querySelectorAll('details')) answer.open = true; }")
    # Taken in one query: a tooltip shown moves its element's title, so counting and then
    # indexing a live locator can race with the page's own script.
    # A payload's element is counted as soon as it exists, and the tooltip is written when it shows:
    # checked once each tooltip is up, without waiting longer than the page takes to show it.
    tip = page.locator(".sbn-tip")
    for carrier in page.query_selector_all(".fig[title*=onerror], a.sbn-term[title*=onerror]")[:3]:
        carrier.evaluate("el => el.scrollIntoView({block: 'center'})")
        carrier.hover()
        expect(tip).to_be_visible()
        _clean(page)
        carrier.focus()
        expect(tip).to_be_visible()
        _clean(page)
        page.mouse.move(0, 0)
        page.keyboard.press("Escape")
    page.evaluate(
        """() => { for (const el of document.querySelectorAll(".fig, a.sbn-term")) {
            el.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
            el.focus();
        } }"""
    )


def _clean(page: Page) -> None:
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate(INJECTED) == 0


def test_no_payload_in_a_data_file_runs_or_becomes_an_element(browser: Browser, payload_site: str) -> None:
    context = browser.new_context()
    context.add_init_script("window.alert = () => { window.__pwned = 'alert'; };")
    page = context.new_page()
    page.goto(f"{payload_site}{lesson_url(8)}")
    _explain_everything(page)
    _clean(page)
    # What the data says shows as the text it is.
    expect(page.get_by_text(f"ZeRO {TAG}", exact=False).first).to_be_attached()
    figure = page.locator('.fig[data-fig-id="catalog/gpt2-1.5b/parameters"]').first
    figure.scroll_into_view_if_needed()
    figure.hover()
    expect(page.locator(".sbn-tip")).to_contain_text(f"GPT-2 1.5B {TAG} {BREAKOUT} {ENCODED}")
    term = page.locator("a.sbn-term", has_text="model states").first
    term.hover()
    expect(page.locator(".sbn-tip")).to_contain_text(ENCODED)
    # Across instant navigation, to every other page, and back.
    for name in ("Lesson 7.", "Glossary", "Home", "Lesson 8."):
        # The load state was reached by the first load and is not waited for again: wait for the
        # content instant navigation swaps out to leave the page, or the old page's elements are taken.
        page.evaluate("window.__left = document.querySelector('[data-md-component=container]')")
        page.get_by_role("navigation", name="Navigation").get_by_role("link", name=name).first.click()
        page.wait_for_function("() => !window.__left.isConnected")
        _explain_everything(page)
        _clean(page)
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    # Search results show the pages' text, payloads included.
    page.get_by_label("Search", exact=True).first.click()
    page.keyboard.type("onerror")
    expect(page.locator(".md-search-result__item").first).to_be_visible()
    _clean(page)
    context.close()


def test_no_payload_runs_on_a_phone_either(browser: Browser, payload_site: str) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(f"{payload_site}{lesson_url(8)}")
    page.evaluate("() => { for (const answer of document.querySelectorAll('details')) answer.open = true; }")
    for trigger in page.locator(".fig[title*=onerror], a.sbn-term").all()[:8]:
        trigger.evaluate("el => el.scrollIntoView({block: 'center'})")
        trigger.tap()
        _clean(page)
        page.keyboard.press("Escape")
    context.close()
