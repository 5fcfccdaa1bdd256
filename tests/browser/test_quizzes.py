"""Quizzes in a real Chromium: right and wrong answers, keyboard, storage, no script."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.conftest import lesson_url

LESSON_7 = lesson_url(7).rstrip("/")
LESSON_8 = lesson_url(8).rstrip("/")

# Material keeps its own settings in localStorage too (such as the palette).
OUR_KEYS = "Object.keys(localStorage).filter((key) => key.startsWith('sbn:')).sort()"


@pytest.fixture
def lesson(page: Page, base_url: str) -> Page:
    page.goto(f"{base_url}{LESSON_8}/")
    return page


def _quiz(page: Page, quiz_id: str) -> Locator:
    return page.locator(f"form[data-quiz-id='{quiz_id}']")


def _answer_numeric(page: Page, quiz_id: str, text: str) -> Locator:
    quiz = _quiz(page, quiz_id)
    quiz.get_by_label("Your answer").fill(text)
    quiz.get_by_role("button", name="Check").click()
    return quiz.get_by_role("status")


@pytest.mark.parametrize("typed", ["112", "112 GB", "112GB", "0.112 TB", "1.12e11 bytes", "104.3 GiB", "115 gb"])
def test_a_numeric_answer_is_right_in_any_unit_within_tolerance(lesson: Page, typed: str) -> None:
    expect(_answer_numeric(lesson, "l8-practice-1", typed)).to_have_text("✓ Correct: within 5% of the key.")


@pytest.mark.parametrize(
    ("typed", "told"),
    [
        ("120 GB", "✗ Not quite: too high, by 7%."),
        ("11.2 GB", "✗ Not quite: too low, by 90%."),
        ("112 s", "✗ Wrong unit: “s” is a time, and this answer is an amount of memory."),
        ("112 GB/s", "✗ Wrong unit: “gb/s” is a rate"),
        ("112 furlongs", "✗ Unknown unit “furlongs”: try GB or bytes."),
        ("lots", "Write a number, with its unit, such as 3 GB."),
    ],
)
def test_a_wrong_numeric_answer_is_told_why(lesson: Page, typed: str, told: str) -> None:
    expect(_answer_numeric(lesson, "l8-practice-1", typed)).to_contain_text(told)


def test_a_single_choice_answers_with_the_chosen_options_feedback(lesson: Page) -> None:
    quiz = _quiz(lesson, "l8-practice-2")
    quiz.get_by_label("a) Communication bandwidth").check()
    quiz.get_by_role("button", name="Check").click()
    expect(quiz.get_by_role("status")).to_contain_text("✗ Not quite. a) A real cost, but it limits speed")
    expect(quiz).to_have_attribute("data-result", "wrong")
    quiz.get_by_label("b) Every device holds").check()
    quiz.get_by_role("button", name="Check").click()
    expect(quiz.get_by_role("status")).to_contain_text("✓ Right. b) The model states are copied")
    expect(quiz).to_have_attribute("data-result", "right")


def test_checking_without_a_choice_asks_for_one(lesson: Page) -> None:
    quiz = _quiz(lesson, "l8-practice-2")
    quiz.get_by_role("button", name="Check").click()
    expect(quiz.get_by_role("status")).to_have_text("Pick an option first.")
    expect(quiz).to_have_attribute("data-result", "")


def test_a_free_answer_reveals_the_model_then_takes_a_self_mark(lesson: Page) -> None:
    quiz = _quiz(lesson, "l8-warmup-1")
    quiz.get_by_label("Your answer").fill("An all-reduce of the gradients.")
    got_it = quiz.get_by_role("button", name="Got it")
    expect(got_it).to_be_hidden()
    quiz.get_by_text("Show model answer").click()
    expect(quiz.get_by_text("of the gradients: every device contributes")).to_be_visible()
    got_it.click()
    expect(got_it).to_have_attribute("aria-pressed", "true")
    expect(quiz.get_by_role("button", name="Not yet")).to_have_attribute("aria-pressed", "false")


def test_progress_counts_answers_and_reps(lesson: Page) -> None:
    progress = lesson.locator(".sbn-progress__text")
    expect(progress).to_have_text("Your progress: 0 of 6 questions answered, 0 of 3 reps done.")
    _answer_numeric(lesson, "l8-practice-1", "112 GB")
    lesson.get_by_label("Tomorrow: without looking ahead").check()
    expect(progress).to_have_text("Your progress: 1 of 6 questions answered, 1 of 3 reps done.")


def test_the_quizzes_work_from_the_keyboard_alone(lesson: Page) -> None:
    quiz = _quiz(lesson, "l8-practice-2")
    quiz.get_by_label("a) Communication bandwidth").focus()
    lesson.keyboard.press("ArrowDown")  # moves the radio selection to b)
    lesson.keyboard.press("Tab")  # to Check
    lesson.keyboard.press("Enter")
    expect(quiz.get_by_role("status")).to_contain_text("✓ Right.")
    numeric = _quiz(lesson, "l8-practice-1").get_by_label("Your answer")
    numeric.focus()
    lesson.keyboard.type("112 GB")
    lesson.keyboard.press("Enter")
    expect(_quiz(lesson, "l8-practice-1").get_by_role("status")).to_contain_text("✓ Correct")
    answer = _quiz(lesson, "l8-practice-1").locator("summary")
    answer.focus()
    lesson.keyboard.press("Enter")
    expect(_quiz(lesson, "l8-practice-1").locator("details")).to_have_attribute("open", "")


def test_a_reload_keeps_every_kind_of_progress(lesson: Page) -> None:
    _answer_numeric(lesson, "l8-practice-1", "120 GB")
    choice = _quiz(lesson, "l8-practice-2")
    choice.get_by_label("b) Every device holds").check()
    choice.get_by_role("button", name="Check").click()
    free = _quiz(lesson, "l8-warmup-2")
    free.get_by_label("Your answer").fill("No: every device keeps a full copy.")
    free.get_by_text("Show model answer").click()
    free.get_by_role("button", name="Not yet").click()
    lesson.get_by_label("Pick a published open model").check()
    lesson.reload()
    numeric = _quiz(lesson, "l8-practice-1")
    expect(numeric.get_by_label("Your answer")).to_have_value("120 GB")
    expect(numeric.get_by_role("status")).to_contain_text("✗ Not quite: too high")
    expect(choice.get_by_label("b) Every device holds")).to_be_checked()
    expect(choice.get_by_role("status")).to_contain_text("✓ Right.")
    expect(free.get_by_label("Your answer")).to_have_value("No: every device keeps a full copy.")
    expect(free.get_by_role("button", name="Not yet")).to_have_attribute("aria-pressed", "true")
    expect(lesson.get_by_label("Pick a published open model")).to_be_checked()
    expect(lesson.locator(".sbn-progress__text")).to_have_text(
        "Your progress: 3 of 6 questions answered, 1 of 3 reps done."
    )


def test_progress_is_stored_per_question_under_the_sites_base_path(lesson: Page, base_url: str) -> None:
    _answer_numeric(lesson, "l8-practice-1", "112 GB")
    lesson.goto(f"{base_url}{LESSON_7}/")
    _answer_numeric(lesson, "l7-practice-1", "5.9 GB")
    keys = lesson.evaluate(OUR_KEYS)
    assert keys == ["sbn:/course/:l7-practice-1", "sbn:/course/:l8-practice-1"]
    stored = json.loads(lesson.evaluate("localStorage.getItem('sbn:/course/:l8-practice-1')"))
    assert stored["answer"] == "112 GB"


def test_the_reset_control_clears_this_pages_progress(lesson: Page) -> None:
    _answer_numeric(lesson, "l8-practice-1", "112 GB")
    lesson.get_by_label("Pick a published open model").check()
    lesson.once("dialog", lambda dialog: dialog.accept())
    lesson.get_by_role("button", name="Reset this page's answers").click()
    expect(lesson.locator(".sbn-progress__text")).to_have_text(
        "Your progress: 0 of 6 questions answered, 0 of 3 reps done."
    )
    expect(_quiz(lesson, "l8-practice-1").get_by_label("Your answer")).to_have_value("")
    assert lesson.evaluate(OUR_KEYS) == []


def test_corrupt_storage_does_not_break_the_page(lesson: Page) -> None:
    lesson.evaluate(
        """() => {
        localStorage.setItem('sbn:/course/:l8-practice-1', '{not json');
        localStorage.setItem('sbn:/course/:l8-practice-2', JSON.stringify({v: 1, chosen: 'b'}));
        localStorage.setItem('sbn:/course/:l8-warmup-1', JSON.stringify([1, 2]));
        localStorage.setItem('sbn:/course/:l8-rep-estimate', 'null');
    }"""
    )
    errors: list[str] = []
    lesson.on("pageerror", lambda error: errors.append(str(error)))
    lesson.reload()
    expect(_answer_numeric(lesson, "l8-practice-1", "112 GB")).to_contain_text("✓ Correct")
    assert errors == []


def test_unavailable_storage_does_not_break_the_page(browser: Browser, base_url: str) -> None:
    context = browser.new_context()
    context.add_init_script(
        "Object.defineProperty(window, 'localStorage', {get() { throw new DOMException('denied', 'SecurityError'); }});"
    )
    page = context.new_page()
    # Material's own inline palette script reads localStorage outside a try and
    # throws here; that stops only that script. Ours must not throw at all.
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(error.stack or "") if "course.js" in (error.stack or "") else None)
    page.goto(f"{base_url}{LESSON_8}/")
    expect(_answer_numeric(page, "l8-practice-1", "112 GB")).to_contain_text("✓ Correct")
    page.get_by_label("Pick a published open model").check()
    expect(page.locator(".sbn-progress__text")).to_contain_text("1 of 3 reps done")
    assert errors == []
    context.close()


def test_without_javascript_every_answer_is_reachable(browser: Browser, base_url: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base_url}{LESSON_8}/")
    quiz = _quiz(page, "l8-practice-1")
    expect(quiz.get_by_role("button", name="Check")).to_be_hidden()
    expect(quiz.get_by_text("Using the breakdown of")).to_be_visible()
    quiz.get_by_text("Show answer").click()
    expect(quiz.locator("details .fig").first).to_have_text("112 GB")
    choice = _quiz(page, "l8-practice-2")
    choice.get_by_text("Show answer").click()
    expect(choice.get_by_text("b) Right.")).to_be_visible()
    expect(page.locator("[data-sbn-progress]")).to_be_hidden()
    context.close()


def test_quizzes_keep_working_across_instant_navigation(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}{LESSON_7}/")
    _answer_numeric(page, "l7-practice-1", "5.9 GB")
    page.get_by_role("navigation").get_by_role("link", name="Lesson 8. Why Data Parallelism").first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Lesson 8")
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1  # no full page load
    expect(_answer_numeric(page, "l8-practice-1", "112 GB")).to_contain_text("✓ Correct")
    expect(page.locator(".sbn-progress__text")).to_contain_text("1 of 6 questions answered")
    page.go_back()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Lesson 7")
    expect(_quiz(page, "l7-practice-1").get_by_role("status")).to_contain_text("✓ Correct")
    expect(_answer_numeric(page, "l7-practice-1", "9 GB")).to_contain_text("✗ Not quite")
