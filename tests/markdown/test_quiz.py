"""The quiz blocks: Markdown in, HTML out, and every malformed quiz refused with its fix."""

from __future__ import annotations

import textwrap

import markdown
import pytest
from bs4 import BeautifulSoup

from macros.quiz import QuizError, duplicate_ids, issue_line

FIGURE = (
    '<span class="fig" data-fig-id="model-states/example-7b" data-value="112000000000" data-unit="B"'
    ' title="16 bytes × 7 billion parameters" tabindex="0">112 GB</span>'
)


def render(source: str) -> BeautifulSoup:
    html = markdown.markdown(textwrap.dedent(source), extensions=["macros.quiz", "pymdownx.superfences"])
    return BeautifulSoup(html, "html.parser")


def quiz(kind: str, body: str, options: str = "") -> str:
    return f"/// quiz | Practice 1\n    id: l8-practice-1\n    kind: {kind}\n{options}\n{body}\n///\n"


CHOICE = """
Which one?

//// option
Bandwidth *saturates*

It limits speed, not fit.
////

//// option | correct
Every device holds a full copy

Copies, not division.
////
"""
NUMERIC = f"""
How much?

//// answer
{FIGURE}: 16 bytes for each parameter.
////
"""
FREE = """
Why?

//// answer
Because of the **all-reduce**.
////
"""


def test_a_single_choice_quiz_is_a_form_with_a_fieldset_legend_and_labelled_radios() -> None:
    form = render(quiz("single", CHOICE)).form
    assert form["data-quiz-id"] == "l8-practice-1" and form["data-quiz-kind"] == "single"
    assert form.fieldset.legend.get_text() == "Practice 1"
    labels = form.select(".sbn-quiz__options label")
    assert [label.input["type"] for label in labels] == ["radio", "radio"]
    assert [label.get_text(" ", strip=True) for label in labels] == [
        "a) Bandwidth saturates",
        "b) Every device holds a full copy",
    ]
    assert labels[0].em is not None  # option text is Markdown


def test_choice_feedback_for_every_option_sits_behind_a_native_disclosure() -> None:
    details = render(quiz("single", CHOICE)).select_one("form > details.sbn-quiz__answer")
    assert details.summary.get_text() == "Show answer"
    entries = details.select("[data-option]")
    assert [(e["data-option"], e["data-correct"]) for e in entries] == [("a", "false"), ("b", "true")]
    assert entries[0].get_text(" ", strip=True) == "a) Not this one. It limits speed, not fit."
    assert "Right: b)" in details.get_text()


def test_a_multiple_choice_quiz_uses_checkboxes() -> None:
    form = render(quiz("multiple", CHOICE)).form
    assert {i["type"] for i in form.select(".sbn-quiz__options input")} == {"checkbox"}


def test_a_numeric_quiz_takes_its_key_from_the_answers_figure() -> None:
    form = render(quiz("numeric", NUMERIC, "    tolerance: 5%")).form
    assert form["data-key-value"] == "112000000000"
    assert form["data-key-unit"] == "B"
    assert form["data-key-scale"] == "1000000000"
    assert form["data-tolerance"] == "0.05"
    field = form.select_one("#quiz-l8-practice-1-answer")
    assert form.select_one("label[for=quiz-l8-practice-1-answer]").get_text() == "Your answer"
    assert "within 5% counts" in form.select_one(f"#{field['aria-describedby']}").get_text()
    assert form.select_one("details .fig")["data-fig-id"] == "model-states/example-7b"


def test_a_numeric_key_in_milliseconds_reads_a_bare_number_as_ms() -> None:
    seconds = FIGURE.replace('data-value="112000000000" data-unit="B"', 'data-value="0.1640625" data-unit="s"')
    form = render(quiz("numeric", NUMERIC.replace(FIGURE, seconds), "    tolerance: 2.5%")).form
    assert (form["data-key-unit"], form["data-key-scale"]) == ("s", "0.001")
    assert form["data-tolerance-percent"] == "2.5"
    assert "a bare number counts as ms); within 2.5% counts." in form.select_one(".sbn-quiz__hint").get_text()


def test_a_free_quiz_has_a_textarea_a_model_answer_and_self_marks() -> None:
    form = render(quiz("free", FREE)).form
    assert form.select_one("textarea#quiz-l8-practice-1-answer") is not None
    details = form.select_one("details")
    assert details.summary.get_text() == "Show model answer"
    assert details.strong.get_text() == "all-reduce"
    marks = form.select("details + .sbn-quiz__marks [data-mark]")
    assert [(m.get_text(), m["aria-pressed"]) for m in marks] == [("Got it", "false"), ("Not yet", "false")]
    assert form.select_one(".sbn-quiz__actions") is None  # nothing to check


def test_the_check_button_and_marks_wait_for_the_script() -> None:
    form = render(quiz("single", CHOICE)).form
    assert form.select_one(".sbn-quiz__actions").has_attr("hidden")
    assert form.select_one(".sbn-quiz__result")["role"] == "status"


def test_a_checklist_gives_each_item_a_labelled_checkbox_and_its_id() -> None:
    page = render(
        """
        /// checklist | Real-world reps
            items: [l8-rep-a, l8-rep-b]

        - Pick a *model*.
        - Read §3.2.
        ///
        """
    )
    boxes = page.select("fieldset.sbn-checklist input[type=checkbox]")
    assert [box["data-rep-id"] for box in boxes] == ["l8-rep-a", "l8-rep-b"]
    assert page.select_one("label[for=check-l8-rep-a]").get_text() == "Pick a model."


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (quiz("single", CHOICE.replace("option | correct", "option")), "exactly one `//// option | correct`"),
        (quiz("multiple", CHOICE.replace("option | correct", "option")), "at least one `//// option | correct`"),
        (quiz("single", CHOICE.replace("Which one?", "")), "the question is empty"),
        (quiz("essay", FREE), "unknown kind 'essay'; use one of: single, multiple, numeric, free"),
        (quiz("numeric", NUMERIC), "a numeric quiz needs `tolerance:`"),
        (quiz("numeric", NUMERIC.replace(FIGURE, "112 GB"), "    tolerance: 5%"), "a typed number is not a key"),
        (quiz("numeric", NUMERIC, "    tolerance: five"), "tolerance 'five' should be a percentage"),
        (quiz("free", FREE, "    tolerance: 5%"), "only a numeric quiz takes a tolerance"),
        (quiz("free", FREE, "    colour: red"), r"unknown option\(s\) colour; allowed: id, kind, tolerance"),
        (quiz("free", "Why?"), "add one `//// answer` block with the model answer"),
        (quiz("free", FREE + CHOICE), "only single and multiple choice take `//// option` blocks"),
        (quiz("single", CHOICE.replace("It limits speed, not fit.", "")), "then its feedback"),
        (quiz("single", CHOICE.replace("option | correct", "option | right")), "the only word allowed after | is"),
        ("/// quiz | P\n    kind: free\n\nWhy?\n///\n", r"missing option\(s\) id"),
        ("/// quiz | P\n    id: Practice 1\n    kind: free\n\nWhy?\n///\n", "id 'Practice 1' should be lower-case"),
        ("/// quiz\n    id: p-1\n    kind: free\n\nWhy?\n///\n", "the argument after | is required"),
        ("//// option\nText\n\nFeedback\n////\n", "//// option belongs inside a /// quiz block"),
        ("/// quiz | P\n    id: [unclosed\n\nWhy?\n///\n", "was left as text: check that its options are valid YAML"),
        (
            "/// checklist | Reps\n    items: [a-1, a-2]\n\n- Only one.\n///\n",
            "write one Markdown list with 2 items, one for each id in `items` \\(found 1\\)",
        ),
    ],
)
def test_a_malformed_quiz_is_refused_with_the_fix(source: str, message: str) -> None:
    with pytest.raises(QuizError, match=message):
        render(source)


@pytest.mark.parametrize("source", ["```\n/// quiz | Example\n```\n", "Write `/// quiz | Title` to ask.\n"])
def test_quiz_syntax_shown_as_code_is_not_a_leftover(source: str) -> None:
    assert "/// quiz" in render(source).get_text()


def test_duplicate_ids_name_every_page_they_are_on() -> None:
    pages = {
        "a/index.html": '<form data-quiz-id="q-1"></form><input data-rep-id="r-1">',
        "b/index.html": '<form data-quiz-id="q-1"></form><form data-quiz-id="q-2"></form>',
    }
    assert duplicate_ids(pages) == {"q-1": ["a/index.html", "b/index.html"]}


def test_a_question_gets_its_report_link_from_the_pages_issue_line() -> None:
    base = "https://github.com/o/r/issues/new?template=quiz-answer-wrong.yml&lesson=Lesson%208"
    form = render(issue_line(base) + "\n\n" + quiz("free", FREE)).form
    link = form.select_one(".sbn-quiz__report a")
    assert link.get_text() == "Report a problem with this question"
    assert link["href"] == f"{base}&title=Quiz%20answer%3A%20l8-practice-1&question-id=l8-practice-1"


def test_without_an_issue_line_a_question_has_no_report_link() -> None:
    assert render(quiz("free", FREE)).select_one(".sbn-quiz__report") is None


def test_an_issue_line_must_be_a_plain_https_url() -> None:
    with pytest.raises(QuizError, match="must be https and have no spaces"):
        issue_line("javascript:alert(1)")
