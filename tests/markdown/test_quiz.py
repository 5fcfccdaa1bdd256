"""The quiz blocks: Markdown in, HTML out, and every malformed quiz refused with its fix."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Sequence

import markdown
import pytest
from bs4 import BeautifulSoup

from macros.quiz import KeyFigure, QuizError, QuizExtension, StandaloneHost
from macros.quiz.blocks import find_line
from macros.quiz.choices import option_value
from macros.quiz.units import page_json, unit_table
from tests.checks import attribute, one


def figure(figure_id: str, text: str) -> str:
    """A figure's element, as a page without the course's build has it."""
    return f'<span class="fig" data-fig-id="{figure_id}" data-value="1" data-unit="B" tabindex="0">{text}</span>'


FIGURE = figure("model-states/example-7b", "112 GB")
#: What the build says it rendered for each figure: its value, the display unit it was shown in, and its text.
FIGURES = {
    "model-states/example-7b": KeyFigure("112000000000", "B", "1000000000", "GB", "112 GB"),
    "allreduce-seconds/x": KeyFigure("0.1640625", "s", "0.001", "ms", "164 ms"),
    "one-copy/example-7b/fp16": KeyFigure("14000000000", "B", "1000000000", "GB", "14 GB"),
    "one-copy/example-7b/fp32": KeyFigure("28000000000", "B", "1000000000", "GB", "28 GB"),
    "model-states/example-7b/fp32-adam": KeyFigure("112000000000", "B", "1000000000", "GB", "113 GB"),
    "near/example-7b": KeyFigure("109000000000", "B", "1000000000", "GB", "109 GB"),
    "near/example-7b-2": KeyFigure("14500000000", "B", "1000000000", "GB", "14.5 GB"),
    "catalog/example-7b/parameters": KeyFigure("7000000000", "param", "1000000000", "billion", "7 billion"),
    "catalog/v100-32gb/memory": KeyFigure("34089730048", "B", "1073741824", "GiB", "32 GB (31.7 GiB to programs)"),
    "catalog/example/powers": KeyFigure("1503238553.6", "param", "1", "parameters", "1.4 × 2³⁰ parameters"),
}
ISSUES = "https://github.com/o/r/issues/new"


def render(source: str, host: StandaloneHost | None = None) -> BeautifulSoup:
    extension = QuizExtension(host=host or StandaloneHost(FIGURES))
    html = markdown.markdown(textwrap.dedent(source), extensions=[extension, "pymdownx.superfences"])
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
    form = one(render(quiz("single", CHOICE)), "form")
    assert form["data-quiz-id"] == "l8-practice-1" and form["data-quiz-kind"] == "single"
    assert one(one(form, "fieldset"), "legend").get_text() == "Practice 1"
    labels = form.select(".sbn-quiz__options label")
    assert [one(label, "input")["type"] for label in labels] == ["radio", "radio"]
    assert [label.get_text(" ", strip=True) for label in labels] == [
        "a) Bandwidth saturates",
        "b) Every device holds a full copy",
    ]
    assert labels[0].em is not None  # option text is Markdown


def test_choice_feedback_for_every_option_sits_behind_a_native_disclosure() -> None:
    page = render(quiz("single", CHOICE))
    details = one(page, "form > fieldset > details.sbn-quiz__answer")
    form = one(page, "form")
    assert one(details, "summary").get_text() == "Show answer"
    entries = details.select("[data-option]")
    assert [(e["data-letter"], e["data-correct"]) for e in entries] == [("a", "false"), ("b", "true")]
    values = [one(label, "input")["value"] for label in form.select(".sbn-quiz__options label")]
    assert [e["data-option"] for e in entries] == values
    assert entries[0].get_text(" ", strip=True) == "a) Not this one. It limits speed, not fit."
    # The verdict and the feedback are apart, so that the script shows the feedback without cutting words.
    assert one(entries[0], ".sbn-quiz__verdict").get_text() == "a) Not this one."
    assert one(entries[0], ".sbn-quiz__why").get_text(strip=True) == "It limits speed, not fit."
    assert "Right: b)" in details.get_text()


def test_a_multiple_choice_quiz_uses_checkboxes() -> None:
    form = one(render(quiz("multiple", CHOICE)), "form")
    assert {i["type"] for i in form.select(".sbn-quiz__options input")} == {"checkbox"}


def test_a_numeric_quiz_takes_its_key_from_the_answers_figure() -> None:
    form = one(render(quiz("numeric", NUMERIC, "    tolerance: 5%")), "form")
    assert form["data-key-value"] == "112000000000"
    assert form["data-key-unit"] == "B"
    assert form["data-key-scale"] == "1000000000"
    assert form["data-tolerance"] == "0.05"
    field = one(form, "#quiz-l8-practice-1-answer")
    assert one(form, "label[for=quiz-l8-practice-1-answer]").get_text() == "Your answer"
    assert "within 5% counts" in one(form, f"#{field['aria-describedby']}").get_text()
    assert one(form, "details .fig")["data-fig-id"] == "model-states/example-7b"


def test_a_numeric_key_in_milliseconds_reads_a_bare_number_as_ms() -> None:
    seconds = FIGURE.replace("model-states/example-7b", "allreduce-seconds/x")
    form = one(render(quiz("numeric", NUMERIC.replace(FIGURE, seconds), "    tolerance: 2.5%")), "form")
    assert (form["data-key-unit"], form["data-key-scale"], form["data-key-symbol"]) == ("s", "0.001", "ms")
    assert form["data-tolerance-percent"] == "2.5"
    assert "a bare number counts as ms); within 2.5% counts." in one(form, ".sbn-quiz__hint").get_text()


def test_the_answer_fields_take_no_more_than_the_page_keeps() -> None:
    numeric = one(render(quiz("numeric", NUMERIC, "    tolerance: 5%")), "input[name=answer]")
    free = one(render(quiz("free", FREE)), "textarea[name=answer]")
    assert (numeric["maxlength"], free["maxlength"]) == ("100", "4000")


def test_a_page_with_numeric_questions_gets_the_units_table_once() -> None:
    second = quiz("numeric", NUMERIC, "    tolerance: 5%").replace("l8-practice-1", "l8-practice-9")
    page = render(quiz("numeric", NUMERIC, "    tolerance: 5%") + "\n" + second)
    tables = page.select("#sbn-units")
    assert len(tables) == 1 and tables[0].has_attr("hidden")
    assert json.loads(attribute(tables[0], "data-json")) == json.loads(page_json(unit_table()))
    assert render(quiz("single", CHOICE)).select("#sbn-units, script") == []


def test_a_key_shown_in_a_unit_no_answer_can_be_written_in_is_refused() -> None:
    figures = {"model-states/example-7b": KeyFigure("112000000000", "B", "1000000000", "gigaoctets", "112 gigaoctets")}
    with pytest.raises(QuizError, match="the key is shown in 'gigaoctets', which the page cannot read in an answer"):
        render(quiz("numeric", NUMERIC, "    tolerance: 5%"), StandaloneHost(figures))


def _numeric_key(figure_id: str, tolerance: str) -> str:
    body = NUMERIC.replace(FIGURE, figure(figure_id, FIGURES[figure_id].text))
    return attribute(one(render(quiz("numeric", body, f"    tolerance: {tolerance}")), "form"), "data-key-value")


def test_a_key_must_read_back_as_the_page_shows_it() -> None:
    """ "32 GB (31.7 GiB to programs)" typed as shown reads as 32 GB, 6.1% below the key: refused at 5%."""
    message = (
        "the key shows as '32 GB (31.7 GiB to programs)', and an answer typed the same way reads as 32 GB, 6.1% from"
        " the key,"
        " beyond the tolerance: show the key so that it reads back (binary=true for a capacity"
    )
    with pytest.raises(QuizError, match=re.escape(message)):
        _numeric_key("catalog/v100-32gb/memory", "5%")
    assert _numeric_key("catalog/v100-32gb/memory", "8%") == "34089730048"


def test_a_key_in_powers_of_two_reads_back() -> None:
    assert _numeric_key("catalog/example/powers", "1%") == "1503238553.6"


def test_the_tolerance_is_written_exactly() -> None:
    """As the page reads it, in fractions: not rounded to a float's six digits."""
    form = one(render(quiz("numeric", NUMERIC, "    tolerance: 2.123456789%")), "form")
    assert form["data-tolerance"] == "0.02123456789"


def test_a_free_quiz_has_a_textarea_a_model_answer_and_self_marks() -> None:
    form = one(render(quiz("free", FREE)), "form")
    assert form.select_one("textarea#quiz-l8-practice-1-answer") is not None
    details = one(form, "details")
    assert one(details, "summary").get_text() == "Show model answer"
    assert one(details, "strong").get_text() == "all-reduce"
    marks = form.select("fieldset > details + .sbn-quiz__marks [data-mark]")
    assert [(m.get_text(), m["aria-pressed"]) for m in marks] == [("Got it", "false"), ("Not yet", "false")]
    assert form.select_one(".sbn-quiz__actions") is None  # nothing to check


def test_the_check_button_and_marks_wait_for_the_script() -> None:
    form = one(render(quiz("single", CHOICE)), "form")
    assert one(form, ".sbn-quiz__actions").has_attr("hidden")
    assert one(form, ".sbn-quiz__result")["role"] == "status"


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
    assert one(page, "label[for=check-l8-rep-a]").get_text() == "Pick a model."


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (quiz("single", CHOICE.replace("option | correct", "option")), "exactly one `//// option | correct`"),
        (quiz("multiple", CHOICE.replace("option | correct", "option")), "at least one `//// option | correct`"),
        (quiz("single", CHOICE.replace("Which one?", "")), "the question is empty"),
        (
            quiz("essay", FREE),
            "/// quiz | Practice 1: kind: got 'essay'; expected one of: single, multiple, numeric, free",
        ),
        (quiz("numeric", NUMERIC), "a numeric quiz needs `tolerance:`"),
        (quiz("numeric", NUMERIC.replace(FIGURE, "112 GB"), "    tolerance: 5%"), "a typed number is not a key"),
        (quiz("numeric", NUMERIC, "    tolerance: five"), "tolerance: got 'five'; expected a percentage"),
        # One message of both bounds (attack round 9: 0% said "at most 100", and 100% then said "below 100").
        (
            quiz("numeric", NUMERIC, "    tolerance: 100%"),
            "tolerance: got '100%'; expected a percentage above 0 and below 100",
        ),
        (
            quiz("numeric", NUMERIC, "    tolerance: 0%"),
            "tolerance: got '0%'; expected a percentage above 0 and below 100",
        ),
        (
            quiz("numeric", NUMERIC.replace("model-states/example-7b", "model-states/unknown"), "    tolerance: 5%"),
            "a typed number is not a key",
        ),
        (quiz("free", FREE, "    tolerance: 5%"), "only a numeric quiz takes a tolerance"),
        (quiz("free", FREE, "    colour: red"), r"unknown option\(s\) colour; allowed: id, kind, tolerance"),
        (quiz("free", "Why?"), "add one `//// answer` block with the model answer"),
        (quiz("free", FREE + CHOICE), "only single and multiple choice take `//// option` blocks"),
        (quiz("single", CHOICE.replace("It limits speed, not fit.", "")), "then its feedback"),
        (quiz("single", CHOICE.replace("option | correct", "option | right")), "the only word allowed after | is"),
        ("/// quiz | P\n    kind: free\n\nWhy?\n///\n", r"missing option\(s\) id"),
        (
            "/// quiz | P\n    id: Practice 1\n    kind: free\n\nWhy?\n///\n",
            "id: got 'Practice 1'; expected lower-case",
        ),
        ("/// quiz\n    id: p-1\n    kind: free\n\nWhy?\n///\n", "the title after | is required"),
        ("//// option\nText\n\nFeedback\n////\n", "//// option: it belongs directly inside a /// quiz block"),
        (quiz("free", FREE).removesuffix("///\n"), "/// quiz | Practice 1: is not closed: end it with a line ///"),
        (
            quiz("free", FREE).replace("\n///\n", "\n") + quiz("free", FREE).replace("l8-practice-1", "l8-practice-2"),
            "/// quiz | Practice 1: is not closed: end it with a line /// before /// quiz | Practice 1, inside it",
        ),
        (
            quiz("single", CHOICE.replace("It limits speed, not fit.\n////", "It limits speed, not fit.")),
            "the `//// option` before it is not closed: end that one with ////",
        ),
        (
            quiz("single", "Which?\n\n" + "".join(f"//// option\nO{i}\n\nF{i}\n////\n\n" for i in range(27))),
            "a choice quiz takes at most 26 options",
        ),
        ("/// quiz | P\n    id: [unclosed\n\nWhy?\n///\n", "was left as text: check that its options are valid YAML"),
        (
            "/// checklist | Reps\n    items: [a-1, a-2]\n\n- Only one.\n///\n",
            "write one Markdown list with 2 items, one for each id in `items` \\(found 1\\)",
        ),
        # Issue 25, round 5, finding 9: the page would hold two checkboxes of one id.
        (
            "/// checklist | Reps\n    items: [a-1, a-2, a-1]\n\n- One.\n- Two.\n- Three.\n///\n",
            "`items` lists a-1 more than once: give each rep its own id",
        ),
    ],
)
def test_a_malformed_quiz_is_refused_with_the_fix(source: str, message: str) -> None:
    with pytest.raises(QuizError, match=message.replace("|", r"\|")):
        render(source)


@pytest.mark.parametrize("source", ["```\n/// quiz | Example\n```\n", "Write `/// quiz | Title` to ask.\n"])
def test_quiz_syntax_shown_as_code_is_not_a_leftover(source: str) -> None:
    assert "/// quiz" in render(source).get_text()


def test_a_checked_question_is_reported_on_the_quiz_answer_form() -> None:
    form = one(render(quiz("single", CHOICE), StandaloneHost(FIGURES, ISSUES)), "form")
    link = one(form, "fieldset .sbn-quiz__report a")
    assert link.get_text() == "Report a problem with this question"
    assert link["href"] == (
        f"{ISSUES}?template=quiz-answer-wrong.yml&title=Quiz%20answer%3A%20l8-practice-1&question-id=l8-practice-1"
    )


def test_a_free_question_is_reported_as_unclear_with_its_id() -> None:
    link = one(render(quiz("free", FREE), StandaloneHost(FIGURES, ISSUES)), ".sbn-quiz__report a")
    assert link["data-report"] == "lesson-unclear.yml"
    href = attribute(link, "href")
    assert "template=lesson-unclear.yml" in href and "question-id=l8-practice-1" in href


def test_without_issue_links_a_question_has_no_report_link() -> None:
    assert render(quiz("free", FREE)).select_one(".sbn-quiz__report") is None


class Reporting(StandaloneHost):
    """A host that keeps every problem reported, with the line of `source` it is told at (as the build finds it)."""

    def __init__(self, source: str) -> None:
        super().__init__(FIGURES)
        self.lines = textwrap.dedent(source).splitlines()
        self.problems: list[tuple[str, int | None]] = []

    def report(self, message: str, near: Sequence[re.Pattern[str]]) -> None:
        self.problems.append((message, find_line(self.lines, near)))


def reported(source: str) -> tuple[list[tuple[str, int | None]], BeautifulSoup]:
    """Each problem `source` is reported with, and its line; and the page."""
    host = Reporting(source)
    return host.problems, render(source, host)


def line_with(source: str, text: str, occurrence: int = 1) -> int:
    """The line of `source` that is the `occurrence`-th to hold `text`."""
    return [n for n, line in enumerate(source.splitlines(), start=1) if text in line][occurrence - 1]


def test_a_reporting_host_gets_each_problem_once_and_the_page_shows_it() -> None:
    source = quiz("single", CHOICE.replace("option | correct", "option"))
    problems, page = reported(source)
    assert problems == [
        (
            "/// quiz | Practice 1: a single-choice quiz needs exactly one `//// option | correct`; it has 0",
            line_with(source, "id: l8-practice-1"),
        )
    ]
    assert one(page, ".sbn-build-error").get_text() == problems[0][0]
    assert page.form is None


def test_an_id_given_twice_on_a_page_is_told_once_at_its_second_line() -> None:
    # Issue 25, round 5, finding 9: two forms of one id on the page, and the site's "used on" this page twice,
    # neither at a line. The second quiz is told at its own id line.
    source = quiz("free", FREE) + "\n" + quiz("free", FREE)
    problems, page = reported(source)
    assert problems == [
        (
            "/// quiz | Practice 1: the id l8-practice-1 is already a question of this page: give this one its own id",
            line_with(source, "id: l8-practice-1", 2),
        )
    ]
    assert len(page.select("form")) == 1
    rep = "/// checklist | Reps\n    items: [l8-practice-1]\n\n- One.\n///\n"
    problems, _ = reported(quiz("free", FREE) + "\n" + rep)
    assert [message for message, _ in problems] == [
        "/// checklist | Reps: `items` gives l8-practice-1, already a question of this page: give each its own id"
    ]


#: A second quiz of one id, written so that a search for the text "id: l8-practice-1" misfound its line (attack
#: round 8): the id quoted, spaced, in a flow mapping, with a comment; or that text said first in prose or in a
#: quiz of another title. Each is told once, at the second quiz's own id line, marked here by "# here".
SECOND_ID_LINES = [
    '    id: "l8-practice-1"  # here',
    "    id : 'l8-practice-1'  # here",
    "    {kind: free, id: l8-practice-1}  # here",
]


@pytest.mark.parametrize("id_line", SECOND_ID_LINES)
def test_a_second_quiz_of_one_id_is_told_once_at_its_own_id_line_however_it_is_written(id_line: str) -> None:
    second = quiz("free", FREE).replace("    id: l8-practice-1\n    kind: free\n", "    kind: free\n" + id_line + "\n")
    if "{" in id_line:
        second = quiz("free", FREE).replace("    id: l8-practice-1\n    kind: free\n", id_line + "\n")
    source = "Say `id: l8-practice-1` in prose.\n\n" + quiz("free", FREE) + "\n" + second
    problems, _ = reported(source)
    assert problems == [
        (
            "/// quiz | Practice 1: the id l8-practice-1 is already a question of this page: give this one its own id",
            line_with(source, "# here"),
        )
    ]


def test_a_quiz_is_found_by_its_own_header_not_a_longer_one_or_prose_before_it() -> None:
    # "/// quiz | Practice 10" starts with the text of "/// quiz | Practice 1", and prose may quote the id line:
    # the bad quiz is told at its own id line, after its own header.
    other = quiz("free", FREE).replace("Practice 1", "Practice 10").replace("l8-practice-1", "l8-practice-10")
    bad = quiz("single", CHOICE.replace("option | correct", "option"))
    source = "Write `id: l8-practice-1` under it.\n\n" + other + "\n" + bad
    problems, _ = reported(source)
    own = [n for n, line in enumerate(source.splitlines(), start=1) if line == "    id: l8-practice-1"]
    assert [line for _, line in problems] == own


# ------------------------------------------------------------- choices' values


def _values(source: str) -> dict[str, str]:
    """Each option's text and the value its input carries."""
    form = one(render(source), "form")
    return {
        label.get_text(" ", strip=True)[3:]: attribute(one(label, "input"), "value")
        for label in form.select(".sbn-quiz__options label")
    }


def test_an_options_value_comes_from_its_text_not_its_place() -> None:
    """A reader's stored choice names its option's value: reordering keeps it, rewording drops it."""
    first, second = CHOICE.split("////\n\n//// option | correct")
    swapped = (
        "\nWhich one?\n\n//// option | correct"
        + second.rstrip()
        + "\n\n"
        + first.replace("\nWhich one?\n\n", "")
        + "////\n"
    )
    assert list(_values(quiz("single", swapped))) == ["Every device holds a full copy", "Bandwidth saturates"]
    assert _values(quiz("single", swapped)) == _values(quiz("single", CHOICE))
    reworded = _values(quiz("single", CHOICE.replace("full copy", "whole copy")))
    assert reworded["Bandwidth saturates"] == _values(quiz("single", CHOICE))["Bandwidth saturates"]
    assert "Every device holds a full copy" not in reworded
    assert len(set(_values(quiz("single", CHOICE)).values())) == 2


def test_an_options_value_reads_a_figure_by_its_text() -> None:
    source = quiz("single", CHOICE.replace("Bandwidth *saturates*", f"About {FIGURE}"))
    assert "About 112 GB" in _values(source)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("\u200b", "a zero-width space"),
        ("&nbsp;", "a no-break space, as a reference"),
        ("\u00a0\u2060\ufeff", "no-break space, word joiner, byte-order mark"),
        ("*&nbsp;*", "emphasis around a no-break space"),
        ("<span></span>", "an empty element"),
        ("\u2800", "the braille blank"),
    ],
)
def test_an_option_that_shows_nothing_is_refused(text: str, why: str) -> None:
    with pytest.raises(QuizError, match=r"option a\) shows no text \(only spaces, marks or invisible characters"):
        render(quiz("single", CHOICE.replace("Bandwidth *saturates*", text)))


@pytest.mark.parametrize(
    "text",
    ["Every device holds a full copy", "every device  holds a *full* copy", "Every device holds a full&#32;copy"],
)
def test_two_options_that_read_the_same_are_refused(text: str) -> None:
    with pytest.raises(
        QuizError,
        match=r"options a\) and b\) read the same, 'every device holds a full copy'|"
        r"options a\) and b\) read the same, 'Every device holds a full copy'",
    ):
        render(quiz("single", CHOICE.replace("Bandwidth *saturates*", text)))


@pytest.mark.parametrize(
    "text",
    # Issue 25, round 5: a Cyrillic а, a Cyrillic е, a Greek capital Omicron, and a combining underline.
    [
        "Every dev\u0456ce holds a full copy",
        "Every device holds a full c\u043epy",
        "Every device holds a full copy\u0332",
    ],
)
def test_two_options_that_differ_by_a_look_alike_letter_or_a_combining_mark_are_refused(text: str) -> None:
    with pytest.raises(QuizError, match=r"options a\) and b\) read the same"):
        render(quiz("single", CHOICE.replace("Bandwidth *saturates*", text)))


def test_two_options_that_differ_by_a_backslash_escape_alone_are_refused() -> None:
    """`Yes\\!` shows as "Yes!": Markdown's escape is a placeholder until the page is written, read as its character."""
    source = CHOICE.replace("Bandwidth *saturates*", "Yes\\!").replace("Every device holds a full copy", "Yes!")
    with pytest.raises(QuizError, match=r"options a\) and b\) read the same, 'Yes!'"):
        render(quiz("single", source))


def test_an_escaped_options_value_is_that_of_its_text_as_shown() -> None:
    assert _values(quiz("single", CHOICE.replace("Bandwidth *saturates*", "Yes\\!")))["Yes!"] == option_value("Yes!")


# ------------------------------------------------------------- known mistakes


def mistake(figure_id: str, why: str = " counts only the fp16 parameters.") -> str:
    """A `//// mistake` block: the wrong answer, a figure, then `why`."""
    return f"\n//// mistake\n{figure(figure_id, FIGURES[figure_id].text)}{why}\n////\n"


MISTAKE = mistake("one-copy/example-7b/fp16")


def test_a_known_mistake_goes_behind_the_answer_with_its_value() -> None:
    form = one(render(quiz("numeric", NUMERIC + MISTAKE, "    tolerance: 5%")), "form")
    shown = one(form, "details.sbn-quiz__answer > .sbn-quiz__model + .sbn-quiz__mistake")
    assert shown["data-mistake-value"] == "14000000000"
    assert shown.get_text(" ", strip=True) == "14 GB counts only the fp16 parameters."
    assert not shown.has_attr("data-sbn")


@pytest.mark.parametrize(
    ("mistakes", "message"),
    [
        (mistake("catalog/example-7b/parameters"), "the mistake '7 billion' is in 'param', and the key in 'B'"),
        (
            MISTAKE.replace(figure("one-copy/example-7b/fp16", "14 GB"), "14 GB"),
            "a `//// mistake` starts with the wrong answer it explains, a figure macro",
        ),
        (
            mistake("near/example-7b"),
            "the mistake '109 GB' is within the tolerance of the key: it would count as right",
        ),
        (
            MISTAKE + mistake("near/example-7b-2"),
            "the mistake '14.5 GB' is within the tolerance of another one: keep one of them",
        ),
        (mistake("one-copy/example-7b/fp16", "."), "the mistake '14 GB' needs its explanation after its value"),
        ("\n//// mistake\n////\n", "//// mistake: write the wrong answer's figure first, then why"),
        (
            MISTAKE.replace("//// mistake", "//// mistake | common"),
            "//// mistake | common: the title after | is not allowed",
        ),
    ],
)
def test_a_mistake_that_is_not_one_is_refused(mistakes: str, message: str) -> None:
    with pytest.raises(QuizError, match=re.escape(message)):
        render(quiz("numeric", NUMERIC + mistakes, "    tolerance: 5%"))


def test_two_mistakes_far_apart_are_both_kept() -> None:
    form = one(
        render(quiz("numeric", NUMERIC + MISTAKE + mistake("one-copy/example-7b/fp32"), "    tolerance: 5%")), "form"
    )
    assert [m["data-mistake-value"] for m in form.select(".sbn-quiz__mistake")] == ["14000000000", "28000000000"]


def test_only_a_numeric_quiz_takes_a_mistake() -> None:
    with pytest.raises(QuizError, match=re.escape("only a numeric quiz takes `//// mistake` blocks")):
        render(quiz("single", CHOICE + MISTAKE))


def test_a_failed_option_is_reported_once_near_its_own_header_after_its_quizs() -> None:
    first = quiz("single", CHOICE).replace("Practice 1", "Warm-up")
    second = quiz("single", CHOICE.replace("Bandwidth *saturates*\n\nIt limits speed, not fit.", "Bandwidth"))
    source = first + "\n" + second.replace("l8-practice-1", "l8-practice-2")
    problems, _ = reported(source)
    assert problems == [
        (
            "//// option: write the option's text as its first paragraph, then its feedback (why it is right or"
            " wrong) below",
            line_with(source, "//// option", 3),
        )
    ]


# ------------------------------------------------------------- checklist items as read

#: Attack round 8, F7: a checklist whose items read the same, or one reads as nothing, rendered two labels a reader
#: cannot tell apart and an empty one, without a word. Each is refused at its own item's line, marked "here".
CHECKLIST_ITEMS = [
    ("- Same rep text.\n- Same rep text.  <!-- here -->\n- Third.", "read the same, 'Same rep text.'"),
    (
        "- Same rep text.\n- Same r\u0435p *text*.  <!-- here -->\n- Third.",
        "items 1 (l8-rep-x1) and 2 (l8-rep-x2)",
    ),
    ("- First.\n- Second.\n- &#8203;  <!-- here -->", "shows no text"),
    ("- First.\n- \u200b<b></b>  <!-- here -->\n- Third.", "shows no text"),
]


@pytest.mark.parametrize(("items", "message"), CHECKLIST_ITEMS)
def test_checklist_items_that_read_the_same_or_as_nothing_are_refused_at_the_items_line(
    items: str, message: str
) -> None:
    marked = f"Before.\n\n/// checklist | Extra reps\n    items: [l8-rep-x1, l8-rep-x2, l8-rep-x3]\n\n{items}\n///\n"
    problems, page = reported(marked.replace("  <!-- here -->", ""))
    assert len(problems) == 1
    assert message in problems[0][0] and problems[0][0].startswith("/// checklist | Extra reps: item")
    assert problems[0][1] == line_with(marked, "<!-- here -->")
    assert page.select(".sbn-checklist") == []


# ------------------------------------------------------------- attack round 9


@pytest.mark.parametrize(
    "misplaced",
    [
        "/// checklist | Extra reps\n    items: [l8-rep-x1]\n\n- One.\n\n//// answer\nx\n////\n///\n",
        "Before.\n\n//// answer\nx\n////\n",
    ],
)
def test_a_part_outside_a_quiz_is_told_at_its_own_line_not_at_the_pages_first_of_its_name(misplaced: str) -> None:
    """F11: an answer inside a checklist (or in no block) was told at the page's first `//// answer`, a quiz's."""
    source = quiz("free", FREE) + "\n" + misplaced
    problems, _ = reported(source)
    assert problems == [
        (
            "//// answer: it belongs directly inside a /// quiz block, one level deeper (four slashes)",
            line_with(source, "//// answer", 2),
        )
    ]


def test_a_quiz_left_open_is_told_once_and_the_blocks_after_it_are_still_checked() -> None:
    """F10: each later block of the page was told it starts inside the open quiz, for one missing line; now the
    quiz is told once, at its own line, and a later quiz's own problem is still told, at its line."""
    left_open = quiz("free", FREE).removesuffix("///\n")
    later = quiz("free", FREE).replace("Practice 1", "Practice 2").replace("practice-1", "practice-2")
    wrong = quiz("single", CHOICE.replace("option | correct", "option"))
    wrong = wrong.replace("Practice 1", "Practice 3").replace("practice-1", "practice-3")
    reps = "/// checklist | Reps\n    items: [l8-rep-1]\n\n- One.\n///\n"
    source = "\n".join([left_open, later, wrong, reps])
    problems, page = reported(source)
    assert problems == [
        (
            "/// quiz | Practice 1: is not closed: end it with a line /// before /// quiz | Practice 2, inside it",
            line_with(source, "id: l8-practice-1"),
        ),
        (
            "/// quiz | Practice 3: a single-choice quiz needs exactly one `//// option | correct`; it has 0",
            line_with(source, "id: l8-practice-3"),
        ),
    ]
    assert page.select("form") == [] and len(page.select(".sbn-build-error")) == 1


@pytest.mark.parametrize(
    "options",
    [
        "    id: l8-practice-1\n    kind: free\n    id: l8-practice-2  # here\n",
        "    id: l8-practice-1\n    kind: free\n    'id' : l8-practice-2  # here\n",
        "    {id: l8-practice-1, kind: free, id: l8-practice-2}  # here\n",
    ],
)
def test_an_option_given_twice_is_told_at_its_second_line(options: str) -> None:
    """F9: PyYAML's safe_load, which pymdownx reads options with, took the last `id:` in silence."""
    source = "Write `id: l8-practice-1` once.\n\n/// quiz | Practice 1\n" + options + FREE + "///\n"
    problems, page = reported(source)
    assert problems == [
        (
            "/// quiz | Practice 1: the key 'id' is given twice in its options: keep one",
            line_with(source, "# here"),
        )
    ]
    assert page.form is None


def test_options_yaml_the_course_does_not_read_is_told_at_the_header() -> None:
    source = "/// checklist | Reps\n    items: &reps [l8-rep-1]\n    again: *reps\n\n- One.\n///\n"
    problems, _ = reported(source)
    assert problems == [
        (
            "/// checklist | Reps: its options are not valid YAML: this value is used again by an alias (*name):"
            " write it out",
            1,
        )
    ]


def test_a_problems_box_shows_its_message_as_written() -> None:
    """Python-Markdown writes an "&" that starts a character reference as it is: the box showed "&nbsp;" in an
    empty item's message as the space it stands for ("such as a zero-width space or  )")."""
    problems, page = reported("/// checklist | Reps\n    items: [l8-rep-1, l8-rep-2]\n\n- \n- Two.\n///\n")
    assert "&nbsp;" in problems[0][0]
    assert one(page, ".sbn-build-error").get_text() == problems[0][0]
