"""A lesson read with the keyboard alone: how many Tab stops it takes, and that a figure costs one.

A figure is one stop: focused, it shows its tooltip, whose links join the Tab order only when
the reader asks for them (Enter). The stops of every lesson are walked as Chromium orders them
(document order: the course sets no positive tabindex), focusing each stop in turn so that what
a focus shows (a tooltip) is there when the next stop is found; one lesson is walked with real
Tab presses too, which holds the walk to the browser's own order.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import LESSON_8
from tests.conftest import lesson_pages

#: The elements that can take part in sequential focus navigation, as the HTML standard lists them.
_FOCUSABLE = "a[href], area[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable]"

#: What a stop is, as the walk and the real presses name it: a figure's id, else its tag and text.
_NAME = "(e) => e.dataset.figId ? `figure ${e.dataset.figId}` : `${e.tagName} ${e.textContent.trim().slice(0, 40)}`"

#: Every Tab stop of the open page, from the top, each focused in turn: for each, what it is (a figure's id,
#: else its tag and text), whether it is inside a tooltip, and the stops that focusing it added to the page.
_WALK = f"""() => {{
    // A radio button is a stop when it is its group's checked one, or the first of a group none is checked in.
    const radio = (input) => {{
        const group = [...document.querySelectorAll(`input[type=radio][name="${{CSS.escape(input.name)}}"]`)];
        return input === (group.find((other) => other.checked) ?? group[0]);
    }};
    const stop = (element) => element.tabIndex >= 0 && !element.disabled && !element.closest("[inert]")
        && element.checkVisibility({{ visibilityProperty: true }}) && (element.type !== "radio" || radio(element));
    const seen = new Set();
    // The stops among the focusable elements not seen yet (the page's, then those a focus adds).
    const stops = () => [...document.querySelectorAll({_FOCUSABLE!r})]
        .filter((e) => !seen.has(e) && seen.add(e) && stop(e));
    const walked = [];
    const known = new Set(stops());
    for (const element of known) {{
        element.focus({{ preventScroll: true }});
        const added = stops();
        added.forEach((other) => known.add(other));
        walked.push({{
            what: ({_NAME})(element),
            figure: Boolean(element.dataset.figId),
            inTip: Boolean(element.closest(".sbn-tip")),
            inFigure: Boolean(element.parentElement?.closest(".fig")),
            practice: Boolean(element.closest("form[data-quiz-id*=practice]")),
            added: added.length,
        }});
    }}
    return walked;
}}"""


def _walk(page: Page) -> list[dict[str, Any]]:
    walked: list[dict[str, Any]] = page.evaluate(_WALK)
    return walked


def _first_practice(walked: list[dict[str, Any]]) -> int:
    """The number of Tab presses from the top of the page to the first practice question's first field."""
    return next(index for index, stop in enumerate(walked, start=1) if stop["practice"])


@pytest.mark.parametrize("lesson", [page.removesuffix("index.html") for page in lesson_pages()])
def test_a_figure_costs_a_keyboard_reader_one_stop(tab: Page, base_url: str, lesson: str) -> None:
    tab.goto(base_url + lesson)
    walked = _walk(tab)
    figures = [stop["what"] for stop in walked if stop["figure"]]
    assert figures, "no figure is a stop"
    assert [stop["what"] for stop in walked if stop["added"]] == [], "focusing these added stops"
    assert [stop["what"] for stop in walked if stop["inTip"] or stop["inFigure"]] == [], "stops in a figure's tooltip"
    # Reported for whoever reads the run: the presses to the first practice answer, and how many are figures.
    presses = _first_practice(walked)
    print(f"{lesson}: {presses} presses to the first practice answer, {len(figures)} figures in {len(walked)} stops")


def test_the_walk_is_the_order_tab_follows(tab: Page, base_url: str) -> None:
    """Real Tab presses on Lesson 8, from the top to its first practice answer, stop where the walk does."""
    tab.goto(f"{base_url}{LESSON_8}/")
    expected = [stop["what"] for stop in _walk(tab)]
    presses = _first_practice(_walk(tab))
    tab.goto(f"{base_url}{LESSON_8}/")  # from the top again, nothing focused
    tab.evaluate(
        f"""() => {{ window.sbnStops = [];
            document.addEventListener("focusin", (event) => window.sbnStops.push(({_NAME})(event.target))); }}"""
    )
    for _ in range(presses):
        tab.keyboard.press("Tab")
    assert tab.evaluate("window.sbnStops") == expected[:presses]
    assert tab.evaluate("Boolean(document.activeElement.closest('form[data-quiz-id*=practice]'))")
