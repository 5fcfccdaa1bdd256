"""The course's home-page lists, as Markdown: the mission and the syllabus.

Both are generated from `course.yml` and the lesson index, so a new lesson
appears under its stage and under the bullet it serves without editing the
home page. Links are Markdown links to source files, which MkDocs checks.
"""

from __future__ import annotations

from .catalog import Catalog
from .lessons import LessonIndex, relative_link
from .markup import markdown_text


def mission_markdown(catalog: Catalog, lessons: LessonIndex, page: str) -> str:
    """The "Success looks like" list, each bullet followed by the lessons that serve it."""
    items = []
    for number, bullet in enumerate(catalog.mission, start=1):
        serving = lessons.serving(number)
        if serving:
            links = ", ".join(f"[Lesson {lesson.number}]({relative_link(page, lesson.src_path)})" for lesson in serving)
            items.append(f"{number}. {markdown_text(bullet)}  \n   *Lessons:* {links}")
        else:
            stages = [s for s in catalog.stages.values() if s.number not in lessons.by_stage()]
            coming = f" in Stage {stages[0].number}" if stages else ""
            items.append(f"{number}. {markdown_text(bullet)}  \n   *Its lessons are being written{coming}.*")
    return "\n".join(items)


def syllabus_markdown(catalog: Catalog, lessons: LessonIndex, page: str) -> str:
    """One section per stage, in order: what it covers, then its lessons, or that they are being written."""
    parts = []
    published = lessons.by_stage()
    for stage in catalog.stages.values():
        lines = [f"### Stage {stage.number}: {markdown_text(stage.title)}", "", markdown_text(stage.summary), ""]
        if stage.number in published:
            lines += [
                f"- [{lesson.title}]({relative_link(page, lesson.src_path)})" for lesson in published[stage.number]
            ]
        else:
            lines.append("*Being written.*")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
