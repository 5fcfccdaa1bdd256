"""Lessons: their front matter, their sections, and how they depend on each other.

A lesson is a Markdown page whose front matter has a `lesson` number. This
module reads every lesson of the docs folder into a `LessonIndex`, and checks
what DESIGN.md asks of one: its sections in the seed's order, prerequisites
that exist and form no cycle, and a mission link that quotes the bullet it
names. It never imports MkDocs.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .catalog import SAFE_LOADER

#: The sections of a lesson, in order, and the Markdown line that opens each:
#: a bold lead-in for the three header lines, a level-2 heading for the rest.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("Mission link", "**Mission link:**"),
    ("Primary source", "**Primary source:**"),
    ("Prerequisites", "**Prerequisites:**"),
    ("Warm-up", "## Warm-up"),
    ("Know this", "## Know this"),
    ("Practice", "## Practice"),
    ("Real-world reps", "## Real-world reps"),
    ("Going further", "## Going further"),
    ("Not landing?", "## Not landing?"),
)

# MkDocs closes front matter with --- or ... (mkdocs/utils/meta.py); so do we.
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?\n)(?:---|\.\.\.)\s*\n", re.DOTALL)
_FIELDS = {
    "title": str,
    "lesson": int,
    "stage": int,
    "prerequisites": list,
    "mission": int,
    "also_serves": list,
    "description": str,
    # Material's own page settings, which it reads from the same front matter.
    "hide": list,
    "search": dict,
    "tags": list,
}
_OPTIONAL = ("also_serves", "description", "hide", "search", "tags")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


class LessonError(ValueError):
    """A lesson breaks the lesson contract; the message names the file and the fix."""


@dataclass(frozen=True)
class Lesson:
    """What the front matter of one lesson says."""

    src_path: str
    number: int
    title: str
    stage: int
    prerequisites: tuple[int, ...]
    mission: int
    also_serves: tuple[int, ...] = ()


def read_front_matter(text: str, src_path: str = "") -> dict[str, Any]:
    """The YAML front matter of a Markdown text, or {} when it has none.

    Raises:
        LessonError: the front matter is not valid YAML.
    """
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}
    try:
        data = yaml.load(match.group(1), Loader=SAFE_LOADER) or {}
    except yaml.YAMLError as error:
        raise LessonError(f"{src_path}: the front matter is not valid YAML: {error}") from None
    return data if isinstance(data, dict) else {}


def parse_lesson(src_path: str, meta: Mapping[str, Any]) -> Lesson | None:
    """The lesson that `meta` describes, None when the page is not a lesson.

    Raises:
        LessonError: a field is unknown, missing or of the wrong type.
    """
    if "lesson" not in meta:
        return None
    unknown = sorted(set(meta) - set(_FIELDS))
    if unknown:
        raise LessonError(
            f"{src_path}: unknown front-matter field(s) {', '.join(unknown)}; allowed: {', '.join(_FIELDS)}"
        )
    for name, kind in _FIELDS.items():
        if name in _OPTIONAL and name not in meta:
            continue
        if name not in meta:
            raise LessonError(f"{src_path}: front matter needs `{name}:` ({kind.__name__})")
        if not isinstance(meta[name], kind) or isinstance(meta[name], bool):
            raise LessonError(f"{src_path}: front matter `{name}: {meta[name]!r}` should be a {kind.__name__}")
    for name, what in (("prerequisites", "lesson"), ("also_serves", "mission bullet")):
        numbers = meta.get(name, [])
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            raise LessonError(f"{src_path}: `{name}` lists {what} numbers, got {numbers!r}")
    return Lesson(
        src_path=src_path,
        number=meta["lesson"],
        title=meta["title"],
        stage=meta["stage"],
        prerequisites=tuple(meta["prerequisites"]),
        mission=meta["mission"],
        also_serves=tuple(meta.get("also_serves", ())),
    )


@dataclass(frozen=True)
class LessonIndex:
    """Every lesson of the course by number, checked as a whole."""

    lessons: Mapping[int, Lesson]

    def at(self, src_path: str) -> Lesson | None:
        """The lesson whose source is `src_path`, or None when that page is not a lesson."""
        return next((lesson for lesson in self.lessons.values() if lesson.src_path == src_path), None)

    def by_stage(self) -> dict[int, list[Lesson]]:
        """Lessons grouped by stage, each group in lesson order."""
        stages: dict[int, list[Lesson]] = {}
        for number in sorted(self.lessons):
            lesson = self.lessons[number]
            stages.setdefault(lesson.stage, []).append(lesson)
        return dict(sorted(stages.items()))

    def serving(self, bullet: int) -> list[Lesson]:
        """Lessons that serve mission bullet `bullet` (in their mission link or `also_serves`), in order."""
        return [
            lesson
            for _, lesson in sorted(self.lessons.items())
            if lesson.mission == bullet or bullet in lesson.also_serves
        ]


def index_lessons(docs_dir: Path) -> LessonIndex:
    """Read every lesson under `docs_dir` and check their numbers and prerequisites.

    Raises:
        LessonError: two lessons share a number, a prerequisite does not exist,
            or prerequisites form a cycle.
    """
    lessons: dict[int, Lesson] = {}
    for path in sorted(docs_dir.rglob("*.md")):
        src_path = path.relative_to(docs_dir).as_posix()
        lesson = parse_lesson(src_path, read_front_matter(path.read_text(encoding="utf-8"), src_path))
        if lesson is None:
            continue
        if lesson.number in lessons:
            raise LessonError(f"{src_path}: Lesson {lesson.number} is already {lessons[lesson.number].src_path}")
        lessons[lesson.number] = lesson
    for lesson in lessons.values():
        for number in lesson.prerequisites:
            if number not in lessons:
                raise LessonError(
                    f"{lesson.src_path}: prerequisite Lesson {number} does not exist; lessons are {sorted(lessons)}"
                )
    _check_acyclic(lessons)
    return LessonIndex(lessons)


def _check_acyclic(lessons: Mapping[int, Lesson]) -> None:
    done: set[int] = set()

    def visit(number: int, path: tuple[int, ...]) -> None:
        if number in path:
            cycle = " → ".join(f"Lesson {n}" for n in (*path[path.index(number) :], number))
            raise LessonError(f"{lessons[number].src_path}: prerequisites form a cycle: {cycle}")
        if number in done:
            return
        for prerequisite in lessons[number].prerequisites:
            visit(prerequisite, (*path, number))
        done.add(number)

    for number in sorted(lessons):
        visit(number, ())


def check_sections(src_path: str, markdown: str) -> None:
    """Check that `markdown` has every lesson section once, in the seed's order.

    Raises:
        LessonError: naming the first missing, repeated or misplaced section.
    """
    lines = [line.rstrip() for line in markdown.splitlines()]
    positions = []
    for name, opener in SECTIONS:
        found = [i for i, line in enumerate(lines) if line == opener or line.startswith(opener + " ")]
        if not found:
            raise LessonError(f"{src_path}: missing the {name!r} section; start it with a line `{opener}`")
        if len(found) > 1:
            raise LessonError(f"{src_path}: the {name!r} section appears {len(found)} times; keep one")
        positions.append((found[0], name))
    order = [name for _, name in sorted(positions)]
    expected = [name for name, _ in SECTIONS]
    if order != expected:
        first = next(i for i, (a, b) in enumerate(zip(order, expected, strict=True)) if a != b)
        raise LessonError(
            f"{src_path}: section {order[first]!r} comes where {expected[first]!r} belongs; "
            f"the order is: {', '.join(expected)}"
        )


def check_mission_link(lesson: Lesson, markdown: str, bullets: tuple[str, ...]) -> None:
    """Check that the mission link quotes, word for word, the bullet the front matter names.

    Raises:
        LessonError: the bullet does not exist, or the line does not quote it or name its place.
    """
    for number in (lesson.mission, *lesson.also_serves):
        if not 1 <= number <= len(bullets):
            raise LessonError(f"{lesson.src_path}: mission bullet {number} does not exist; there are {len(bullets)}")
    line = next(line for line in markdown.splitlines() if line.startswith(SECTIONS[0][1]))
    # The home page's list ends each bullet with a full stop; a quote may leave it off.
    bullet = bullets[lesson.mission - 1].rstrip(".")
    if f'"{bullet}"' not in line and f"“{bullet}”" not in line:
        raise LessonError(
            f'{lesson.src_path}: the mission link must quote bullet {lesson.mission} word for word: "{bullet}"'
        )
    ordinal = _ORDINALS[lesson.mission - 1]
    if f"{ordinal} bullet" not in line:
        raise LessonError(f"{lesson.src_path}: the mission link should call it the {ordinal} bullet")


def relative_link(from_src: str, to_src: str) -> str:
    """A Markdown link target from one docs page to another, both given by source path."""
    return posixpath.relpath(to_src, posixpath.dirname(from_src) or ".")
