"""Macro calls in a page's Markdown: found with their line, rendered, and refused with the fix."""

from __future__ import annotations

import pytest

from macros.build.calls import CallError, parse_call, render_calls


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
    ],
)
def test_what_is_not_a_plain_call_is_refused_with_the_fix(markdown: str, message: str) -> None:
    text, problems = render(markdown)
    assert len(problems) >= 1 and message in problems[0][1], problems
    assert "{{" not in text and "{%" not in text


def test_text_without_calls_is_left_alone() -> None:
    assert render("# Title\n\nNo calls, {braces} and }} alone.\n") == (
        "# Title\n\nNo calls, {braces} and }} alone.\n",
        [],
    )
