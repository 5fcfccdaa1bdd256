"""Macro calls in a page's Markdown: found with their line, rendered, and refused with the fix."""

from __future__ import annotations

import re
import time

import pytest

from macros.build.calls import CallError, code_ranges, parse_call, render_calls


def _macros() -> dict[str, object]:
    def value(entry: str, field: str, **display: object) -> str:
        if entry == "bad":
            raise CallError("unknown catalog entry 'bad'")
        return f"<{entry}.{field}{display or ''}>"

    return {"value": value}


def render(markdown: str, first_line: int = 1) -> tuple[str, list[tuple[int, str]]]:
    problems: list[tuple[int, str]] = []

    def report(line: int, message: str) -> str:
        problems.append((line, message))
        return "[problem]"

    return render_calls(markdown, _macros(), report, first_line), problems  # type: ignore[arg-type]


def test_a_call_is_replaced_by_what_its_macro_returns() -> None:
    text, problems = render('GPT-2 has {{ value("gpt2", "parameters", short=true) }} in all.')
    assert (text, problems) == ("GPT-2 has <gpt2.parameters{'short': True}> in all.", [])


@pytest.mark.parametrize("written", ["true", "True"])
def test_jinjas_lower_case_constants_read_as_pythons(written: str) -> None:
    assert parse_call(f' value("a", "b", short={written}) ', 1).kwargs == {"short": True}


def test_lists_and_numbers_are_literals() -> None:
    call = parse_call(' table("k", rows={"devices": [1, 4, 16]}, digits=2) ', 1)
    assert call.kwargs == {"rows": {"devices": [1, 4, 16]}, "digits": 2}


def test_a_problem_names_the_files_own_line_after_the_front_matter() -> None:
    _, problems = render('one\n\ntwo {{ value("bad", "x") }}\n', first_line=9)
    assert problems == [(11, '{{ value("bad", "x") }}: unknown catalog entry \'bad\'')]


@pytest.mark.parametrize(
    ("markdown", "message"),
    [
        ('{{ valeu("a", "b") }}', "there is no macro 'valeu'; the macros are value"),
        ('{{ value("a", x) }}', 'arguments are written as literals ("text", 3, true, [1, 2]), not x'),
        ("{{ value('a' }}", "write a macro call with literal arguments"),
        ('{{ value("a", "b") | upper }}', "write a macro call with literal arguments"),
        ("{% if x %}y{% endif %}", "a page holds macro calls only"),
        ('`{{ value("a", "b") }}`', "is inside code, where it would show as raw HTML"),
        ('```\n{{ value("a", "b") }}\n```', "is inside code, where it would show as raw HTML"),
        ('A paragraph.\n\n    {{ value("a", "b") }}', "is inside code, where it would show as raw HTML"),
        # Given twice, an argument or a key would keep its last value in silence (issue 25, round 5).
        ('{{ value("a", "b", digits=1, digits=4) }}', "digits is given twice; give it once"),
        ('{{ value("a", "b", rows={"entry": ["x"], "entry": ["y"]}) }}', "the key 'entry' is given twice"),
        ('{{ value("a", "b", rows={1: 2, 1.0: 3}) }}', "the key 1.0 is given twice"),
    ],
)
def test_what_is_not_a_plain_call_is_refused_with_the_fix(markdown: str, message: str) -> None:
    text, problems = render(markdown)
    assert len(problems) >= 1 and message in problems[0][1], problems
    assert "{{" not in text and "{%" not in text


#: Markdown with its indented code marked [like this], as Python-Markdown reads it: a block indented by four
#: columns after a blank line, but not the content of a list item or an admonition, whose own code is indented
#: four columns more.
INDENTED = [
    "A paragraph.\n\n[    x = 1\n    y = 2\n]\nMore.",
    "[    x\n]",
    "A paragraph.\n\n[\tx = 1\n]",
    "!!! note\n    Its first line.\n\n    Its second paragraph.\n\n[        code\n]\nAfter.",
    '??? tip "A title"\n\n    Inside.\n\n[        code\n]',
    "- an item\n\n    its second paragraph\n\n- another\n\n    - nested\n\n        nested's paragraph",
    "1. a step\n\n    its detail\n\nA paragraph.\n\n[    code again\n]",
    "A paragraph\n    running on, indented.",
]


@pytest.mark.parametrize("marked", INDENTED)
def test_indented_code_is_found_as_python_markdown_reads_it(marked: str) -> None:
    markdown = marked.replace("[", "").replace("]", "")
    # Each mark's place in the text without the marks: two characters fewer for each mark before it.
    expected = [
        (match.start() - 2 * index, match.end() - 2 * index - 2)
        for index, match in enumerate(re.finditer(r"\[([^\]]*)\]", marked))
    ]
    assert code_ranges(markdown) == expected


def test_text_without_calls_is_left_alone() -> None:
    assert render("# Title\n\nNo calls, {braces} and }} alone.\n") == (
        "# Title\n\nNo calls, {braces} and }} alone.\n",
        [],
    )


@pytest.mark.parametrize(
    ("argument", "shown"),
    [
        ("1e999", "inf"),
        ("-1e999", "-inf"),
        ("1e31", "1e+31"),
        ("10_000_000_000_000_000_000_000_000_000_000", "one of about 32 digits"),
        ("1" + "0" * 400, "one of about 401 digits"),
        ("0x" + "f" * 3700, "one of about 4,456 digits"),
        ("2j", "2j"),
    ],
)
def test_a_number_too_large_to_be_a_size_is_refused(argument: str, shown: str) -> None:
    _, problems = render(f'{{{{ value("gpt2", {argument}) }}}}')
    assert (
        len(problems) == 1 and "a number in a call is finite and at most 10^30 in size, not " + shown in problems[0][1]
    )


def _typed_macros() -> dict[str, object]:
    def term(name: str, link: bool | None = None) -> str:
        return f"<{name} {link}>"

    def count(devices: int, share: float = 1.0) -> str:
        return f"<{devices} {share}>"

    def broken(entry: str) -> str:
        return {"a": "ok"}[entry].upper().nope  # type: ignore[attr-defined,no-any-return]

    return {"term": term, "count": count, "broken": broken}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ('term("x", link="no")', "link is true or false or none, got 'no'; call it as term(name, link=None)"),
        ('term({[1]: 2}, "x")', "a mapping's key is text or a number, not [1]"),
        ('term("x", link=' + "-" * 500 + "1)", "an argument is nested too deeply to read"),
        ("term({(1, [2]): 1})", "a mapping's key is text or a number, not (1, [2])"),
        ('term("x", link=0)', "link is true or false or none, got 0"),
        ("term(3)", "name is text in quotes, got 3"),
        ('term("x", "y", "z")', "too many positional arguments; call it as term(name, link=None)"),
        ('term("x", digits=2)', "got an unexpected keyword argument 'digits'; call it as term(name, link=None)"),
        ("term()", "missing a required argument: 'name'"),
        ("count(8.5)", "devices is a whole number, got 8.5; call it as count(devices, share=1.0)"),
        ("count(true)", "devices is a whole number, got True"),
        ('count(8, share="half")', "share is a number, got 'half'"),
        (
            'broken("a")',
            "an argument is not one the macro takes (AttributeError: 'str' object has no attribute 'nope')",
        ),
        ('broken("b")', "an argument is not one the macro takes (KeyError: 'b'); call it as broken(entry)"),
    ],
)
def test_a_call_the_macro_cannot_take_is_reported_at_its_line_never_as_a_traceback(call: str, message: str) -> None:
    problems: list[tuple[int, str]] = []

    def report(line: int, text: str) -> str:
        problems.append((line, text))
        return "[problem]"

    text = render_calls(f"one\n\n{{{{ {call} }}}}\n", _typed_macros(), report, 4)  # type: ignore[arg-type]
    assert text == "one\n\n[problem]\n"
    assert len(problems) == 1 and problems[0][0] == 6 and message in problems[0][1], problems


def test_a_call_that_fits_is_made_and_handed_on_with_what_it_returned() -> None:
    seen: list[tuple[str, int, str]] = []
    text = render_calls(
        'a {{ term("x", link=true) }} b {{ count(8, 0.5) }}',
        _typed_macros(),  # type: ignore[arg-type]
        lambda line, message: "[problem]",
        1,
        lambda call, output: seen.append((call.name, call.line, output)),
    )
    assert text == "a <x True> b <8 0.5>"
    assert seen == [("term", 1, "<x True>"), ("count", 1, "<8 0.5>")]


def test_a_page_of_many_code_spans_is_read_in_time_growing_with_its_length() -> None:
    """Attack round 7: each of 20,000 code spans was checked against every range found before it (a build of 8 s
    took 42 s; 50,000 spans alone 99 s). A bound that only a quadratic reading breaks, not a benchmark."""
    text = ("`a` " * 50 + "\n") * 1000
    start = time.perf_counter()
    found = code_ranges(text)
    assert len(found) == 50_000 and found[1] == (4, 7)
    assert time.perf_counter() - start < 10
