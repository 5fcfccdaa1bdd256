"""The front door and the way on from a lesson, from the lesson index and course.yml (macros/pages/front_door.py)."""

from __future__ import annotations

import dataclasses

import pytest

from macros.data.catalog import Catalog, Stage
from macros.data.lessons import Lesson, LessonIndex
from macros.pages.front_door import next_steps, start_here_markdown, syllabus_markdown
from tests.conftest import catalog


def _catalog(*stages: int) -> Catalog:
    return dataclasses.replace(catalog(), stages={n: Stage(n, f"Title {n}", f"What stage {n} covers.") for n in stages})


def _lesson(number: int, stage: int, prerequisites: tuple[int, ...] = (), description: str | None = None) -> Lesson:
    return Lesson(f"stage-{stage}/lesson-{number:02d}-x.md", number, f"Lesson {number}. X", stage, prerequisites, 1,
                  description=description)  # fmt: skip


def _index(*lessons: Lesson) -> LessonIndex:
    return LessonIndex({lesson.number: lesson for lesson in lessons})


def test_start_here_links_the_first_lesson_and_says_why_the_course_starts_there() -> None:
    lessons = _index(_lesson(8, 4, (7,)), _lesson(7, 4, description="It *does* A."))
    text = start_here_markdown(_catalog(4), lessons, "index.md", str)
    # A title and a description are the build's HTML (here passed through `str`), escaped, which the page's
    # Markdown never reads: the lesson's own heading is where the build checks its title.
    assert "**Start here:** [Lesson 7. X](stage-4/lesson-07-x.md): It *does* A." in text
    assert "Lessons 1 to 6 are being written, so for now the course starts at Stage 4." in text
    assert "Lesson 7 needs nothing from them." in text
    assert 'id="start-here"' in text


def test_start_here_says_nothing_of_missing_lessons_once_lesson_1_is_published() -> None:
    text = start_here_markdown(_catalog(1, 4), _index(_lesson(1, 1), _lesson(7, 4)), "index.md", str)
    assert "[Lesson 1. X](stage-1/lesson-01-x.md)." in text
    assert "being written" not in text


def test_start_here_names_one_missing_lesson_in_the_singular() -> None:
    assert "Lesson 1 is being written" in start_here_markdown(_catalog(1), _index(_lesson(2, 1)), "index.md", str)


def test_start_here_without_lessons_points_at_the_syllabus() -> None:
    assert "syllabus" in start_here_markdown(_catalog(4), _index(), "index.md", str)


@pytest.mark.parametrize(
    ("lessons", "after", "writing", "following"),
    [
        ([(7, 4), (8, 4)], 7, [], 8),  # the next lesson, in the same stage
        ([(7, 4), (8, 4)], 8, [5, 6], None),  # the last one: every later stage is being written
        ([(7, 4), (8, 4), (11, 6)], 8, [5], 11),  # a stage between is being written
        ([(7, 4), (9, 5), (11, 6)], 7, [], 9),  # the next stage has lessons: no stage is said to be written
        ([(7, 4), (10, 5)], 7, [], 10),  # a gap inside a stage is not a stage being written
        ([(11, 6)], 11, [], None),  # the last stage's last lesson: nothing follows
    ],
)
def test_next_steps(lessons: list[tuple[int, int]], after: int, writing: list[int], following: int | None) -> None:
    index = _index(*(_lesson(number, stage) for number, stage in lessons))
    steps = next_steps(_catalog(4, 5, 6), index, index.lessons[after])
    assert [stage.number for stage in steps.writing] == writing
    assert (steps.lesson.number if steps.lesson else None) == following


def test_the_syllabus_keeps_a_place_for_each_lessons_reading_time_and_a_hidden_progress_element() -> None:
    text = syllabus_markdown(_catalog(4, 5), _index(_lesson(7, 4)), "index.md", str)
    reading = '<span class="sbn-lesson-reading" data-sbn-reading="7"></span>'
    progress = '<span class="sbn-lesson-progress" data-sbn-lesson="7" hidden></span>'
    assert f"- [Lesson 7. X](stage-4/lesson-07-x.md) {reading} {progress}" in text
    assert text.count("data-sbn-lesson") == 1
    assert "### Stage 5: Title 5\n\nWhat stage 5 covers.\n\n*Being written.*" in text
