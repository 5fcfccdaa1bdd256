"""The lesson scaffold: what it writes builds as a lesson, listed under its stage."""

from __future__ import annotations

from pathlib import Path

import pytest

from macros.data.catalog import load_catalog
from macros.data.lessons import PLACEHOLDERS, SECTIONS
from tests.checks import heading_text, lesson_body
from tests.conftest import build_copy, soup
from tools.new_lesson import add_to_nav, main


def test_a_new_lesson_builds_with_every_section_under_a_new_stage_and_names_each_placeholder_left(
    course_copy: Path,
) -> None:
    # The next free number, under the first stage of the syllabus that has no lesson yet; a colon in the title.
    numbers = [int(p.name.split("-")[1]) for p in (course_copy / "docs").glob("stage-*/lesson-*.md")]
    number = max(numbers) + 1
    course = course_copy / "catalog" / "course.yml"
    stages = load_catalog(course.parent).stages
    stage = next((n for n in stages if not (course_copy / "docs" / f"stage-{n}").exists()), None)
    if stage is None:  # every stage has its lessons: the copy's syllabus gets one more, last in course.yml
        stage = max(stages) + 1
        course.write_text(course.read_text() + f"  {stage}:\n    title: Later\n    summary: Not written yet.\n")
    title = "Splitting: the layers"
    arguments = [str(number), str(stage), "4", title, "--prerequisites", str(max(numbers)), "--root", str(course_copy)]
    assert main(arguments) == 0
    page = f"stage-{stage}/lesson-{number:02d}-splitting-the-layers"
    lines = (course_copy / "docs" / f"{page}.md").read_text().splitlines()
    built = build_copy(course_copy)
    # The skeleton builds, and a strict build names every placeholder it still holds, at its line.
    expected = [
        f"docs/{page}.md:{next(n for n, line in enumerate(lines, 1) if text in line)}: "
        f"{text!r} is the lesson skeleton's placeholder: write the lesson's own text"
        for text in PLACEHOLDERS.values()
    ]
    assert not built.ok and sorted(built.messages[:-1]) == sorted(expected), built.output
    article = lesson_body(soup(built.site / page / "index.html"))
    found = [heading_text(h).rstrip(":") for h in article.select("p > strong:first-child, h2")]
    assert [name for name in found if name in dict(SECTIONS)] == [name for name, _ in SECTIONS]
    assert f"      - {page}.md\n" in (course_copy / "mkdocs.yml").read_text()


def test_a_taken_number_is_refused_and_nothing_is_written(
    course_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (course_copy / "mkdocs.yml").read_text()
    assert main(["8", "4", "4", "Again", "--root", str(course_copy)]) == 2
    assert "new_lesson: Lesson 8 exists already" in capsys.readouterr().err
    assert (course_copy / "mkdocs.yml").read_text() == before


NAV = """nav:
  - Home: index.md
  - "Stage 4: Data":
      - stage-4/a.md
  - "Stage 6: Split":
      - stage-6/c.md
  - Glossary: glossary.md
"""


@pytest.mark.parametrize(
    ("stage", "expected"),
    [
        (4, '  - "Stage 4: Data":\n      - stage-4/a.md\n      - stage-4/new.md\n  - "Stage 6'),
        (5, '      - stage-4/a.md\n  - "Stage 5: T":\n      - stage-5/new.md\n  - "Stage 6: Split":'),
        (7, '      - stage-6/c.md\n  - "Stage 7: T":\n      - stage-7/new.md\n  - Glossary:'),
    ],
)
def test_the_nav_gets_the_page_under_its_stage_in_order(stage: int, expected: str) -> None:
    assert expected in add_to_nav(NAV, stage, "T", f"stage-{stage}/new.md")
