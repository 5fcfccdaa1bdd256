"""The course's home-page lists, as Markdown: the mission and the syllabus.

Both are generated from `course.yml` and the lesson index, so a new lesson
appears under its stage and under the bullet it serves without editing the
home page. Links are Markdown links to source files, which MkDocs checks.
"""

from __future__ import annotations

from .catalog import Catalog
from .lessons import LessonIndex, relative_link


def mission_markdown(catalog: Catalog, lessons: LessonIndex, page: str) -> str:
    """The "Success looks like" list, each bullet followed by the lessons that serve it."""
    items = []
    for number, bullet in enumerate(catalog.mission, start=1):
        serving = lessons.serving(number)
        if serving:
            links = ", ".join(f"[Lesson {lesson.number}]({relative_link(page, lesson.src_path)})" for lesson in serving)
            items.append(f"{number}. {bullet}  \n   *Lessons:* {links}")
        else:
            items.append(f"{number}. {bullet}  \n   *No lesson published for this yet.*")
    return "\n".join(items)


def syllabus_markdown(catalog: Catalog, lessons: LessonIndex, page: str) -> str:
    """One section per stage that has lessons, listing them; then the stages still to come."""
    parts = []
    published = lessons.by_stage()
    for stage, stage_lessons in published.items():
        title = catalog.stages.get(stage, "")
        lines = [f"### Stage {stage}: {title}", ""]
        lines += [f"- [{lesson.title}]({relative_link(page, lesson.src_path)})" for lesson in stage_lessons]
        parts.append("\n".join(lines))
    upcoming = [f"Stage {stage}, *{title}*" for stage, title in catalog.stages.items() if stage not in published]
    if upcoming:
        parts.append(f"Still being written: {' and '.join(upcoming)}.")
    return "\n\n".join(parts)
