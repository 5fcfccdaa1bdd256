"""Broken copies of the course fail to build, or fail the tests, with a message that says the fix."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.checks import bare_figures, lesson_body, soup
from tests.conftest import LESSON_8, build_copy

LESSON_8_MD = f"docs/{LESSON_8}.md"
Edit = Callable[[Path, str, str], None]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            '{{ model_states("gpt2-1.5b") }}',
            '{{ model_states("gpt-9") }}',
            "{{ model_states('gpt-9') }}: unknown catalog entry 'gpt-9'",
        ),
        (
            '{{ model_states("example-7b") }}',
            "{{ model_states(7000000000) }}",
            '{{ model_states(7000000000) }}: expected a catalog id in quotes, such as "gpt2-1.5b", got 7000000000',
        ),
        (
            '{{ model_states("gpt2-1.5b") }}',
            '{{ model_states("gpt2-1.5b", digits="two") }}',
            "digits must be a whole number from 1 to 6, got 'two'",
        ),
        (
            '{{ model_states("gpt2-1.5b") }}',
            '{{ model_states("gpt2-1.5b", scale="GiB") }}',
            "unknown display unit 'GiB' for B; use one of: PB, TB, GB, MB, kB, B",
        ),
        (
            '{{ value("gpt2-1.5b", "parameters", adjective=true) }}',
            '{{ value("gpt2-1.5b", "params") }}',
            "unknown quantity of 'gpt2-1.5b' 'params'. Did you mean 'parameters'?",
        ),
        (
            '{{ model_states("gpt2-1.5b") }}',
            '{{ model_states("gpt2-1.5b", digit=2) }}',
            "unexpected keyword argument 'digit'",
        ),
        (
            '{{ model_states("gpt2-1.5b") }}',
            '{{ model_states("gpt2-1.5b", "fp16_parameters", 3) }}',
            "call it as model_states(entry, state='all'), then display options",
        ),
        ("{{ bytes_per_parameter() }}", "{{ bytes_per_paramter() }}", "'bytes_per_paramter' is undefined"),
    ],
)
def test_a_wrong_macro_call_fails_the_build_naming_page_and_fix(
    course_copy: Path, edit: Edit, old: str, new: str, message: str
) -> None:
    edit(course_copy / LESSON_8_MD, old, new)
    result = build_copy(course_copy)
    assert result.returncode != 0
    assert f"{LESSON_8}.md" in result.stderr
    assert message in result.stderr


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "parameters: 1_500_000_000",
            "parameters: -1_500_000_000",
            "models.yml: gpt2-1.5b.parameters: must be positive",
        ),
        ("parameters: 1_500_000_000", "parameters: 1.5e9", "write large numbers as 1_500_000_000"),
        ("parameters: 1_500_000_000", "parameters: lots", "models.yml: gpt2-1.5b.parameters: expected a number"),
    ],
)
def test_a_bad_catalog_count_fails_the_build_naming_file_and_key(
    course_copy: Path, edit: Edit, old: str, new: str, message: str
) -> None:
    edit(course_copy / "macros/catalog/models.yml", old, new)
    result = build_copy(course_copy)
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("## Practice\n", "## Exercises\n", "missing the 'Practice' section; start it with a line `## Practice`"),
        ("prerequisites: [7]", "prerequisites: [6]", "prerequisite Lesson 6 does not exist"),
        ("runs out of compute, and when", "runs out of compute and when", "must quote bullet 4 word for word"),
    ],
)
def test_a_malformed_lesson_fails_the_build(course_copy: Path, edit: Edit, old: str, new: str, message: str) -> None:
    edit(course_copy / LESSON_8_MD, old, new)
    result = build_copy(course_copy)
    assert result.returncode != 0
    assert f"{LESSON_8}.md" in result.stderr
    assert message in result.stderr


def test_a_typed_figure_fails_the_tests(course_copy: Path, edit: Edit) -> None:
    edit(course_copy / LESSON_8_MD, "well above the", "(99 GB with buffers) well above the")
    result = build_copy(course_copy)
    assert result.returncode == 0, result.stderr
    article = lesson_body(soup(course_copy / "site" / LESSON_8 / "index.html"))
    assert bare_figures(article) == ["99 GB"]


def test_a_malformed_quiz_fails_the_build_naming_page_and_fix(course_copy: Path, edit: Edit) -> None:
    edit(course_copy / LESSON_8_MD, "//// option | correct\nEvery device", "//// option\nEvery device")
    result = build_copy(course_copy)
    assert result.returncode != 0
    assert f"Error reading page '{LESSON_8}.md'" in result.stderr
    assert "a single-choice quiz needs exactly one `//// option | correct`" in result.stderr


def test_a_question_id_used_on_two_pages_fails_the_build(course_copy: Path, edit: Edit) -> None:
    lesson_7 = course_copy / "docs/stage-4/lesson-07-how-data-parallelism-keeps-every-copy-identical.md"
    edit(lesson_7, "id: l7-warmup-1", "id: l8-warmup-1")
    result = build_copy(course_copy)
    assert result.returncode != 0
    assert "question ids must be unique on the site" in result.stderr
    assert "'l8-warmup-1' on stage-4/lesson-07" in result.stderr


def test_an_unknown_term_fails_the_build_naming_page_and_nearest(course_copy: Path, edit: Edit) -> None:
    edit(course_copy / LESSON_8_MD, '{{ term("ZeRO") }}', '{{ term("ZeR0") }}')
    result = build_copy(course_copy)
    assert result.returncode != 0
    assert f"{LESSON_8}.md: {{{{ term('ZeR0') }}}}: unknown term 'ZeR0'. Nearest: zero" in result.stderr


def test_issue_link_outside_a_lesson_fails_with_a_clear_message(course_copy: Path, edit: Edit) -> None:
    edit(course_copy / "docs/index.md", "## Syllabus", '{{ issue_link("report") }}\n\n## Syllabus')
    result = build_copy(course_copy)
    assert result.returncode != 0
    assert "index.md: {{ issue_link('report') }} works on lesson pages only" in result.stderr


def test_a_lesson_in_an_untitled_stage_fails_the_build(course_copy: Path, edit: Edit) -> None:
    edit(course_copy / LESSON_8_MD, "stage: 4", "stage: 9")
    result = build_copy(course_copy)
    assert result.returncode != 0
    assert "lessons name stage(s) [9] that macros/catalog/course.yml does not title" in result.stderr
