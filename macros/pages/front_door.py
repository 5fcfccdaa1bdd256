"""The course's front door and the way on from each lesson: where to start, the mission, the syllabus, what's next.

All of it is generated from `course.yml` and the lesson index, so a new lesson
appears under its stage and under the bullet it serves, "Start here" moves to
the first lesson published, and the lesson before it says it comes next,
without editing any page. Links are Markdown links to source files, which
MkDocs checks.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from ..data.catalog import Catalog, Stage
from ..data.lessons import Lesson, LessonIndex, relative_link
from ..data.markup import markdown_text

#: The home page's element that shows a lesson's progress; `syllabus.js` fills it from the
#: reader's storage. Hidden until then, so that without JavaScript it is not there at all.
PROGRESS_ELEMENT = '<span class="sbn-lesson-progress" data-sbn-lesson="{number}" hidden></span>'
#: Where the home page shows a lesson's reading time: the build fills it once every lesson is counted
#: (`build.Build._fill_reading`).
READING_ELEMENT = '<span class="sbn-lesson-reading" data-sbn-reading="{number}"></span>'
#: The "Start here" box, which the 404 page links to by its id.
START_ELEMENT = '<div class="sbn-start" id="start-here">'


def _data_text(value: str, built: Callable[[str], str]) -> str:
    """A sentence of data (a summary, a description, a mission bullet, a lesson's title) as the build's own HTML on
    the page: escaped and stashed, so the page's Markdown never reads it and every character shows as typed,
    whatever syntax of an extension it looks like ("~~x~~", "==x=="); its typed figures are checked as any macro
    output's are."""
    return built(html.escape(" ".join(value.split()), quote=False))


def _lesson_link(lesson: Lesson, page: str, built: Callable[[str], str]) -> str:
    """A Markdown link to a lesson (which MkDocs checks), its title as data (`_data_text`): the lesson's own page
    has the title as its heading, where the build checks it and tells a problem at its line; read here again, the
    same problem would be told a second time, at the home page and with no line."""
    return f"[{_data_text(lesson.title, built)}]({relative_link(page, lesson.src_path)})"


def start_here_markdown(catalog: Catalog, lessons: LessonIndex, page: str, built: Callable[[str], str]) -> str:
    """The "Start here" box: a link to the first lesson published, and why the course starts there.

    When the first lessons are not published yet, it says so, and whether the lesson it points
    to needs any of them. The box's own elements are the build's HTML, passed through `built` (the build's
    token for HTML it put on the page, which the page's checks hold to nothing an author may type).
    """
    if not lessons.lessons:
        body = "The first lessons are being written: the syllabus below says what each stage will cover."
    else:
        first = lessons.lessons[min(lessons.lessons)]
        about = f": {_data_text(first.description, built)}" if first.description else "."
        body = f"**Start here:** {_lesson_link(first, page, built)}{about}"
        if first.number > 1:
            earlier = "Lesson 1 is" if first.number == 2 else f"Lessons 1 to {first.number - 1} are"
            body += f"\n\n{earlier} being written, so for now the course starts at Stage {first.stage}."
            if not first.prerequisites:
                body += f" Lesson {first.number} needs nothing from them."
    # Each tag a paragraph of its own, which Markdown puts back bare around the box's Markdown.
    return f"{built(START_ELEMENT)}\n\n{body}\n\n{built('</div>')}"


def mission_markdown(catalog: Catalog, lessons: LessonIndex, page: str, built: Callable[[str], str]) -> str:
    """The "Success looks like" list, each bullet (passed through `built`, `_data_text`) followed by the lessons
    that serve it."""
    items = []
    for number, bullet in enumerate(catalog.mission, start=1):
        serving = lessons.serving(number)
        if serving:
            links = ", ".join(f"[Lesson {lesson.number}]({relative_link(page, lesson.src_path)})" for lesson in serving)
            items.append(f"{number}. {_data_text(bullet, built)}  \n   *Lessons:* {links}")
        else:
            items.append(f"{number}. {_data_text(bullet, built)}  \n   *Its lessons are being written.*")
    return "\n".join(items)


def syllabus_markdown(catalog: Catalog, lessons: LessonIndex, page: str, built: Callable[[str], str]) -> str:
    """One section per stage, in order: what it covers, then its lessons, or that they are being written.

    Each lesson is followed by an empty, hidden element where the reader's progress goes (`PROGRESS_ELEMENT`),
    and one where the build puts its reading time (`READING_ELEMENT`), each passed through `built`.
    """
    parts = []
    published = lessons.by_stage()
    for stage in catalog.stages.values():
        lines = [f"### Stage {stage.number}: {markdown_text(stage.title)}", "", _data_text(stage.summary, built), ""]
        if stage.number in published:
            lines += [
                f"- {_lesson_link(lesson, page, built)} {built(READING_ELEMENT.format(number=lesson.number))}"
                f" {built(PROGRESS_ELEMENT.format(number=lesson.number))}"
                for lesson in published[stage.number]
            ]
        else:
            lines.append("*Being written.*")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


@dataclass(frozen=True)
class NextSteps:
    """What follows a lesson: the stages still being written before the next lesson published, then that lesson."""

    writing: tuple[Stage, ...]
    lesson: Lesson | None


def next_steps(catalog: Catalog, lessons: LessonIndex, lesson: Lesson) -> NextSteps:
    """What comes after `lesson`: the next lesson published, and the stages between that have none yet.

    After the last lesson published, `lesson` is None and `writing` holds every later stage.
    """
    later = [number for number in sorted(lessons.lessons) if number > lesson.number]
    following = lessons.lessons[later[0]] if later else None
    published = lessons.by_stage()
    writing = tuple(
        stage
        for stage in catalog.stages.values()
        if stage.number > lesson.stage
        and (following is None or stage.number < following.stage)
        and stage.number not in published
    )
    return NextSteps(writing, following)
