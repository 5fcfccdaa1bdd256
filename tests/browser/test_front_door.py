"""The front door and a lesson's end in a real Chromium: Start here, the reader's progress in the syllabus, what
comes next, the 404 page, and a lesson on paper."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from macros.data.lessons import index_lessons
from tests.browser.conftest import PHONE, lesson_url, page_errors
from tests.conftest import course, lesson_pages

LESSONS = index_lessons(course().docs_dir).lessons
FIRST = min(LESSONS)


def _syllabus_items(page: Page) -> dict[str, dict[str, Any]]:
    """Each lesson's question and rep ids, and each question's kind and options, as the build gives them to the
    home page."""
    items: dict[str, dict[str, Any]] = json.loads(page.locator("#sbn-syllabus").text_content() or "")
    return items


def _of_kind(items: dict[str, Any], *kinds: str) -> str:
    """The lesson's first question of one of `kinds`."""
    return str(next(i for i in items["questions"] if items["answers"][i]["kind"] in kinds))


def _progress(page: Page, number: int) -> Locator:
    return page.locator(f"[data-sbn-lesson='{number}']")


def _plant(page: Page, states: dict[str, object]) -> None:
    """Store states as course.js does: one key per id under the site's path, raw text where a state is a string."""
    page.evaluate(
        """(states) => { for (const [id, state] of Object.entries(states))
            localStorage.setItem('sbn:/course/:' + id, typeof state === 'string' ? state : JSON.stringify(state)); }""",
        states,
    )


def _is_instant(page: Page) -> bool:
    """Whether the page was reached by instant navigation: a marker set before the click survives it."""
    return bool(page.evaluate("window.__sbnMarker === 1"))


def test_start_here_opens_the_first_lesson(tab: Page, base_url: str) -> None:
    tab.goto(base_url)
    tab.locator("#start-here").get_by_role("link").click()
    expect(tab.get_by_role("heading", level=1)).to_contain_text(LESSONS[FIRST].title)
    assert tab.url == base_url + lesson_url(FIRST)


def test_start_here_is_on_a_phones_first_screen(browser: Browser, base_url: str) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(base_url)
    box = page.locator("#start-here").get_by_role("link").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844
    context.close()


def test_the_syllabus_shows_the_readers_progress_in_each_lesson(tab: Page, base_url: str) -> None:
    tab.goto(base_url)
    items = _syllabus_items(tab)
    first = items[str(FIRST)]
    questions, reps = first["questions"], first["reps"]
    free = [i for i in questions if first["answers"][i]["kind"] == "free"]
    choice, numeric = _of_kind(first, "single", "multiple"), _of_kind(first, "numeric")
    assert len(free) >= 2 and reps, "the planted states below need two free questions and a rep"
    _plant(
        tab,
        {
            # A numeric answer checked right, under its key of now (the digest the lesson stored with it).
            numeric: {"v": 1, "answer": "3 GB", "right": True, "verdict": first["answers"][numeric]["verdict"]},
            choice: {"v": 1, "chosen": first["answers"][choice]["options"][:1], "right": False},  # wrong: not done
            free[0]: {"v": 1, "text": "my answer", "mark": "got-it"},  # a free answer marked "got it"
            free[1]: {"v": 1, "text": "typed, never marked"},  # not done yet
            reps[0]: {"v": 1, "done": True},
        },
    )
    tab.reload()
    expected = f"Your progress: 2 of {len(questions)} questions and 1 of {len(reps)} reps done."
    expect(_progress(tab, FIRST)).to_have_text(expected)
    for number in LESSONS.keys() - {FIRST}:
        total = items[str(number)]
        expect(_progress(tab, number)).to_contain_text(f"Your progress: 0 of {len(total['questions'])} questions")


def test_the_syllabus_counts_no_stored_answer_the_lesson_would_drop(tab: Page, base_url: str) -> None:
    """Attack round 8: the home page counted {"v":1,"right":true,"junk":1} as four answers of Lesson 1 that the
    lesson itself dropped; a rep stored with a verdict, and a choice of no option, counted too."""
    tab.goto(base_url)
    first = _syllabus_items(tab)[str(FIRST)]
    questions, reps = first["questions"], first["reps"]
    planted: dict[str, object] = {question: {"v": 1, "right": True, "junk": 1} for question in questions}
    planted[_of_kind(first, "single", "multiple")] = {"v": 1, "chosen": ["no-such-option"], "right": True}
    planted |= {rep: {"v": 1, "done": True, "right": True} for rep in reps}
    _plant(tab, planted)
    tab.reload()
    expect(_progress(tab, FIRST)).to_have_text(
        f"Your progress: 0 of {len(questions)} questions and 0 of {len(reps)} reps done."
    )
    tab.goto(base_url + lesson_url(FIRST))
    expect(tab.locator("[data-sbn-progress]")).to_contain_text(f"0 of {len(questions)} questions")


def test_an_answer_given_on_a_lesson_shows_in_the_syllabus_after_instant_navigation(tab: Page, base_url: str) -> None:
    """The two scripts agree on where an answer is kept, whichever page the reader came in by."""
    tab.goto(base_url)
    tab.evaluate("window.__sbnMarker = 1")
    tab.locator("#start-here").get_by_role("link").click()
    expect(tab.get_by_role("heading", level=1)).to_contain_text(LESSONS[FIRST].title)
    assert _is_instant(tab)
    tab.locator("input[data-rep-id]").first.check()
    tab.get_by_role("navigation", name="Navigation").get_by_role("link", name="Home").first.click()
    expect(tab.get_by_role("heading", level=1)).to_contain_text("Scale by the Numbers")
    assert _is_instant(tab)
    expect(_progress(tab, FIRST)).to_contain_text(" and 1 of ")
    tab.reload()
    expect(_progress(tab, FIRST)).to_contain_text(" and 1 of ")


def test_without_javascript_the_syllabus_shows_no_progress(browser: Browser, base_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(base_url)
    expect(page.locator("[data-sbn-lesson]")).to_have_count(len(LESSONS))
    for number in LESSONS:
        expect(_progress(page, number)).to_be_hidden()
        expect(_progress(page, number)).to_have_attribute("hidden", "")
    expect(page.get_by_text("Your progress")).to_have_count(0)
    context.close()


@pytest.mark.parametrize(
    "state",
    ["{not json", "null", "[1, 2]", '"text"', '{"v": 2, "answer": "3 GB"}', '{"v": 1, "chosen": "b"}', "x" * 9000],
)
def test_corrupt_storage_counts_nothing_and_breaks_nothing(tab: Page, base_url: str, state: str) -> None:
    with page_errors(tab) as errors:
        tab.goto(base_url)
        items = _syllabus_items(tab)[str(FIRST)]
        _plant(tab, dict.fromkeys(items["questions"] + items["reps"], state))
        tab.reload()
        expect(_progress(tab, FIRST)).to_have_text(
            f"Your progress: 0 of {len(items['questions'])} questions and 0 of {len(items['reps'])} reps done."
        )
    assert errors == []


def test_unavailable_storage_leaves_the_syllabus_working(browser: Browser, base_url: str) -> None:
    context = browser.new_context()
    context.add_init_script(
        "Object.defineProperty(window, 'localStorage', {get() { throw new DOMException('denied', 'SecurityError'); }});"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "pageerror", lambda error: errors.append(error.stack or "") if "syllabus.js" in (error.stack or "") else None
    )
    page.goto(base_url)
    expect(_progress(page, FIRST)).to_contain_text("Your progress: 0 of ")
    assert errors == []
    context.close()


@pytest.mark.parametrize("lesson", lesson_pages())
def test_a_lessons_end_leads_on(tab: Page, base_url: str, lesson: str) -> None:
    tab.goto(base_url + lesson.removesuffix("index.html"))
    after = tab.get_by_role("navigation", name="What comes next")
    expect(after).to_be_visible()
    next_lesson = after.locator(".sbn-next__lesson a")
    footer_next = tab.locator(".md-footer__link--next")
    if next_lesson.count():
        title = next_lesson.text_content()
        next_lesson.click()
        expect(tab.get_by_role("heading", level=1)).to_contain_text(title or "")
    else:  # the last lesson published: Material's footer would offer the next page of the nav, the glossary
        expect(after).to_contain_text("This is the course's last lesson.")
        expect(footer_next).to_be_hidden()


def test_an_unknown_address_gets_a_page_that_leads_back(tab: Page, base_url: str) -> None:
    response = tab.goto(base_url + "stage-4/lesson-99-no-such-lesson/")
    assert response is not None and response.status == 404
    expect(tab.get_by_role("heading", level=1)).to_have_text("This page is not in the course")
    tab.get_by_role("link", name="Start here").click()
    expect(tab.locator("#start-here")).to_be_in_viewport()
    assert tab.url == base_url + "#start-here"


def _first_answer(page: Page) -> Locator:
    return page.locator("details.sbn-quiz__answer").first.locator(":scope > :not(summary)").first


@pytest.mark.parametrize("lesson", lesson_pages())
def test_a_lesson_prints_without_its_answers_unless_the_reader_asks(tab: Page, base_url: str, lesson: str) -> None:
    tab.goto(base_url + lesson.removesuffix("index.html"))
    quiz = tab.locator("form[data-quiz-id]").first
    tab.emulate_media(media="print")
    expect(quiz).to_be_visible()
    expect(tab.locator("details.sbn-quiz__answer").first).to_be_hidden()
    for screen_only in (".md-header", ".md-sidebar--primary", ".sbn-next", ".sbn-report", "#sbn-print-answers"):
        expect(tab.locator(screen_only).first).to_be_hidden()
    tab.emulate_media(media="screen")
    tab.get_by_label("Include the answers when I print this lesson").check()
    expect(_first_answer(tab)).to_be_hidden()  # on screen, the answer stays behind its disclosure
    tab.emulate_media(media="print")
    for answer in tab.locator("details.sbn-quiz__answer").all():
        expect(answer.locator(":scope > :not(summary)").first).to_be_visible()
        expect(answer.locator("summary")).to_be_hidden()


#: What a lesson prints that works only on screen: buttons, the calculator or the planner, an
#: answer field left empty, and a diagram's frame that does not print.
_SCREEN_ONLY = """() => {
    const shown = (element) => element.checkVisibility({ visibilityProperty: true });
    const article = document.querySelector("article");
    const name = (element) => `${element.tagName}.${element.className} ${element.textContent.trim().slice(0, 30)}`;
    return [
        ...[...article.querySelectorAll("button, select, form:is([data-sbn-calculator], [data-sbn-planner])")]
            .filter(shown),
        ...[...article.querySelectorAll("input[type=text], textarea")].filter((field) => shown(field) && !field.value),
        ...[...article.querySelectorAll(".sbn-frames__frame")].filter((frame) => !shown(frame)),
    ].map(name);
}"""


@pytest.mark.parametrize("lesson", lesson_pages())
def test_a_lesson_prints_every_frame_and_no_control_or_empty_field(tab: Page, base_url: str, lesson: str) -> None:
    tab.goto(base_url + lesson.removesuffix("index.html"))
    answered = tab.locator("form[data-quiz-kind=numeric] input[name=answer]").first
    answered.fill("12 GB")
    tab.evaluate("dispatchEvent(new Event('beforeprint'))")  # as printing does, before the print styles apply
    tab.emulate_media(media="print")
    assert tab.evaluate(_SCREEN_ONLY) == []
    expect(answered).to_be_visible()  # an answer the reader wrote prints
    tab.emulate_media(media="screen")
    tab.evaluate("dispatchEvent(new Event('afterprint'))")
    expect(tab.locator("article textarea").first).to_be_visible()
