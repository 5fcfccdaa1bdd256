"""Tooltips of figures and terms in a real Chromium: made on first hover, focus or tap, as text, on every device."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Locator, Page, Route, ViewportSize, expect

from macros.data.glossary import load_glossary
from tests.browser.conftest import LESSON_8, PHONE
from tests.checks import Tooltip
from tests.conftest import catalog, course

GLOSSARY = load_glossary(course().glossary_file, catalog().sources)
#: A figure computed from a catalog input with a linked source, and the term that the page links first.
FIGURE = '.fig[data-fig-id="model-states/gpt2-1.5b"]'
TERM = "model states"


def _tip(page: Page) -> Locator:
    return page.locator(".sbn-tip")


#: The open page's tooltip data, fetched from where its #sbn-figures says, as course.js fetches it.
_TOOLTIP_DATA = """async () => {
    const address = document.querySelector("#sbn-figures").dataset.src;
    return (await fetch(new URL(address, location.href))).json();
}"""


def _figure_data(page: Page, figure_id: str) -> Tooltip:
    figure: Tooltip = page.evaluate(_TOOLTIP_DATA)["figures"][figure_id]
    return figure


#: The open page's first visible figure in view, and its tooltip opened; false where it shows none.
_FIRST_TIP = """() => {
    const figure = [...document.querySelectorAll(".fig")].find((element) => element.checkVisibility());
    figure?.scrollIntoView({ block: "center" });
    return figure?.dispatchEvent(new MouseEvent("mouseover", { bubbles: true })) ?? false;
}"""


def _with_tooltip_data(page: Page) -> None:
    """Has the open page fetch its tooltip data, as a reader's first figure tooltip does, and waits for it."""
    if not page.evaluate(_FIRST_TIP):
        return
    expect(_tip(page).get_by_role("link", name="Report this figure")).to_have_count(1)  # a link from the data


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
    href = tip.get_by_role("link", name="Report this figure").get_attribute("href")
    assert href is not None
    report = urlsplit(href)
    fields = {key: values[0] for key, values in parse_qs(report.query, strict_parsing=True).items()}
    assert fields["template"] == "figure-wrong.yml" and fields["figure-id"] == "model-states/gpt2-1.5b"
    assert fields["page-url"] == f"{course().site_url}{LESSON_8}/"
    assert fields["description"].startswith(f"The page shows 24 GB (exact value: {16 * 1_500_000_000} B).")


def _focused(page: Page) -> str:
    """What has the focus: a figure's id, a link's text, or the element's tag."""
    focused: str = page.evaluate(
        "() => document.activeElement.dataset.figId ?? document.activeElement.textContent.trim()"
    )
    return focused


def test_a_page_fetches_its_tooltip_data_on_its_first_figure_tooltip_only(lesson: Page) -> None:
    """The page holds no tooltip data (`build.tooltips`): it comes when a reader first opens a figure's tooltip,
    once, and the tip fills in."""
    fetched: list[str] = []
    lesson.on("request", lambda request: fetched.append(request.url) if "tooltips.json" in request.url else None)
    assert lesson.locator("#sbn-figures").get_attribute("data-json") is None
    lesson.locator("a.sbn-term").first.hover()  # a term's tooltip needs none
    expect(_tip(lesson)).to_be_visible()
    lesson.wait_for_timeout(100)
    assert fetched == []
    lesson.locator(FIGURE).first.hover()
    expect(_tip(lesson).locator(".sbn-tip__formula")).to_be_visible()
    lesson.mouse.move(0, 0)
    lesson.locator(".fig").nth(5).hover()
    expect(_tip(lesson).get_by_role("link", name="Report this figure")).to_be_visible()
    assert fetched == [f"{lesson.url}tooltips.json"]
    lesson.locator(FIGURE).first.hover()
    formula = _figure_data(lesson, "model-states/gpt2-1.5b")["formula"]
    expect(_tip(lesson).locator(".sbn-tip__formula")).to_have_text(formula)


@pytest.mark.parametrize("answer", ["abort", "not JSON", "null", "404"])
def test_a_page_whose_tooltip_data_does_not_come_shows_its_figures_titles(lesson: Page, answer: str) -> None:
    def reply(route: Route) -> None:
        if answer == "abort":
            route.abort()
        else:
            route.fulfill(status=404 if answer == "404" else 200, body=answer, content_type="application/json")

    lesson.route("**/tooltips.json", reply)
    errors: list[str] = []
    lesson.on("pageerror", lambda error: errors.append(str(error)))
    figure = lesson.locator(FIGURE).first
    title = figure.get_attribute("title")
    figure.hover()
    lesson.wait_for_timeout(200)
    expect(_tip(lesson).locator(".sbn-tip__text")).to_have_text(title or "")
    lesson.mouse.move(0, 0)
    lesson.locator(".fig").nth(3).hover()
    expect(_tip(lesson)).to_be_visible()
    assert errors == []


def test_a_figure_explains_itself_on_keyboard_focus_and_enter_reaches_its_links(lesson: Page) -> None:
    figure = lesson.locator(FIGURE).first
    figure.focus()
    lesson.keyboard.press("Shift+Tab")
    before = _focused(lesson)
    lesson.keyboard.press("Tab")  # to the figure, as a keyboard reader reaches it
    expect(figure).to_be_focused()
    tip = _tip(lesson)
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("16 bytes × 1.5 billion parameters")
    expect(tip.locator(".sbn-tip__keys")).to_have_text("Enter: go to its links. Escape: close.")
    expect(figure).to_have_attribute("aria-describedby", "sbn-tip-text")
    links = tip.get_by_role("link")
    assert links.count() >= 2
    lesson.keyboard.press("Enter")
    expect(links.first).to_be_focused()
    lesson.keyboard.press("Shift+Tab")  # back before its first link: the figure, its tip still open
    expect(figure).to_be_focused()
    expect(tip).to_be_visible()
    lesson.keyboard.press("Enter")
    for index in range(1, links.count()):
        lesson.keyboard.press("Tab")
        expect(links.nth(index)).to_be_focused()
    lesson.keyboard.press("Escape")  # from a link: back to the figure, its tip closed
    expect(figure).to_be_focused()
    expect(tip).to_have_count(0)
    lesson.keyboard.press("Tab")
    after = _focused(lesson)
    lesson.keyboard.press("Shift+Tab")
    lesson.keyboard.press("Shift+Tab")
    assert _focused(lesson) == before  # one stop between the stops around the figure: itself
    lesson.keyboard.press("Tab")
    lesson.keyboard.press("Enter")
    for _ in range(links.count()):
        lesson.keyboard.press("Tab")
    assert _focused(lesson) == after  # past its last link, the stop after the figure


def test_a_hover_tip_offers_no_keys(lesson: Page) -> None:
    lesson.locator(FIGURE).first.hover()
    expect(_tip(lesson)).to_be_visible()
    expect(_tip(lesson).locator(".sbn-tip__keys")).to_have_count(0)


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
def phone(browser: Browser, base_url: str) -> Iterator[Page]:
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
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
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


#: Every tooltip of the open page opened in turn, its trigger (a figure or a term, disclosures opened) just
#: under the header; then scrolled with it to the bottom of the viewport, and to its middle for a tooltip
#: taller than half the visible area: the tooltips that leave that area (Material's header to the viewport's
#: bottom, edge to edge), cover their own trigger, or are hidden where they open, and how many were opened.
_EVERY_TIP = """() => {
    for (const details of document.querySelectorAll("article details")) details.open = true;
    const top = Math.max(0, document.querySelector(".md-header").getBoundingClientRect().bottom);
    const width = document.documentElement.clientWidth;
    const triggers = [...document.querySelectorAll("article :is(.fig, a.sbn-term)")].filter((t) => t.checkVisibility());
    const wrong = [];
    const check = (trigger, where) => {
        const tip = document.querySelector(".sbn-tip");
        const [shown, own] = [tip?.getBoundingClientRect(), trigger.getBoundingClientRect()];
        const problems = !shown ? ["none"] : [
            shown.top < top - 0.5 && "above the visible area",
            shown.bottom > innerHeight + 0.5 && "below it",
            (shown.left < -0.5 || shown.right > width + 0.5) && "past an edge",
            shown.top < own.bottom - 0.5 && shown.bottom > own.top + 0.5 && "over its trigger",
        ].filter(Boolean);
        if (where === "top" && shown) {
            const seen = document.elementFromPoint(shown.x + shown.width / 2, shown.y + Math.min(shown.height / 2, 8));
            if (!tip.contains(seen)) problems.push(`hidden under ${seen?.tagName}.${seen?.className}`);
        }
        const name = trigger.dataset.figId ?? trigger.textContent;
        if (problems.length) wrong.push(`${name} at the ${where}: ${problems.join(", ")}`);
        return shown?.height ?? 0;
    };
    // The page scrolled so that the trigger's top is at `to`; a scroll event, as the browser sends one.
    const scroll = (trigger, to) => {
        window.scrollBy(0, trigger.getBoundingClientRect().top - to);
        document.dispatchEvent(new Event("scroll"));
    };
    for (const trigger of triggers) {
        const height = trigger.getBoundingClientRect().height;
        window.scrollBy(0, trigger.getBoundingClientRect().top - top - 2);
        trigger.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
        const tall = check(trigger, "top") > (innerHeight - top) / 2;
        scroll(trigger, innerHeight - height - 2);
        check(trigger, "bottom");
        if (tall) scroll(trigger, (innerHeight - height) / 2), check(trigger, "middle");
    }
    return { opened: triggers.length, wrong };
}"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, PHONE], ids=["desktop", "phone"])
def test_every_tooltip_stays_inside_the_viewport(tab: Page, base_url: str, path: str, viewport: ViewportSize) -> None:
    tab.set_viewport_size(viewport)
    tab.goto(base_url + path)
    _with_tooltip_data(tab)
    found = tab.evaluate(_EVERY_TIP)
    assert found["wrong"] == [], f"{len(found['wrong'])} of {found['opened']} tooltips: {found['wrong'][:8]}"


#: Each figure of the open page that the engine tier measured (its tooltip data's `measured`) opened, and what
#: its tooltip says of it; and the first figures it did not measure, whose tooltips must claim no measurement.
_MEASURED_TIPS = """async () => {
    for (const details of document.querySelectorAll("article details")) details.open = true;
    const address = document.querySelector("#sbn-figures")?.dataset.src;
    const data = address ? (await (await fetch(new URL(address, location.href))).json()).figures : {};
    const seen = new Set();
    const said = (trigger) => {
        trigger.scrollIntoView({ block: "center" });
        trigger.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
        return document.querySelector(".sbn-tip")?.textContent ?? "";
    };
    const measured = [], unmeasured = [];
    for (const trigger of document.querySelectorAll("article .fig")) {
        const id = trigger.dataset.figId;
        if (seen.has(id) || !trigger.checkVisibility()) continue;
        seen.add(id);
        if (data[id]?.measured) measured.push([id, data[id].measured, said(trigger)]);
        else if (unmeasured.length < 20) unmeasured.push([id, said(trigger)]);
    }
    return { measured, unmeasured };
}"""


def test_a_figure_the_engine_tier_measured_says_what_the_software_gave(tab: Page, base_url: str, path: str) -> None:
    """On every page: each measured figure's tooltip names the software and the value it gave, and no other
    figure's tooltip claims a measurement."""
    tab.goto(base_url + path)
    _with_tooltip_data(tab)
    found = tab.evaluate(_MEASURED_TIPS)
    for figure_id, entries, text in found["measured"]:
        for software, differs, value in entries:
            assert f"Measured: {software}: {value}" in text, (figure_id, text)
            assert (differs or "the same") in text, (figure_id, text)
    assert [figure_id for figure_id, text in found["unmeasured"] if "Measured:" in text] == []
    assert found["measured"] or found["unmeasured"] or "/lesson-" not in path
