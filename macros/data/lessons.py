"""Lessons: their front matter, their sections, and how they depend on each other.

A lesson is a Markdown page in a stage folder, `stage-N/`, and every page there
is one: its front matter must say its `lesson` number, and a page that leaves
it out (or misspells it) is refused rather than quietly built as a plain page.
This module reads every lesson of the docs folder into a `LessonIndex`, and
checks what ARCHITECTURE.md ("Lessons") asks of one: its sections in the seed's order,
prerequisites that exist and form no cycle, and a mission link that quotes the
bullet it names. It never imports MkDocs.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .markup import PLAIN_FIELDS, PLAIN_TITLE, markdown_in, markup_in
from .schema import (
    Check,
    Fields,
    SchemaError,
    boolean,
    check_record,
    list_of,
    load_yaml,
    nested_error,
    one_of,
    optional,
    positive_amount,
    positive_count,
    read_text,
    text,
)
from .typed_figures import find_in_text

#: What Material's `hide` may hide of a page: a lesson's front matter, and any page's (attack round 7: a lesson's
#: `hide: [toc, sidebar]` passed, "sidebar" being no part Material hides).
HIDEABLE = ("navigation", "toc", "footer", "path", "tags", "feedback")

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
#: The folder a stage's lessons live in: `stage-4/`.
STAGE_FOLDER = re.compile(r"^stage-(\d+)/")
#: A prefix of question ids that `questions:` may set: lower-case letters and digits, a letter first.
QUESTION_PREFIX = re.compile(r"[a-z][a-z0-9]*")


def search_settings(value: Any) -> Mapping[str, Any]:
    """Material's search settings of a page, as its search plugin reads them: `exclude` (true or false) and
    `boost` (a finite number above zero), nothing else.

    The plugin takes any value: a number there stops it with a traceback, `exclude: "no"` (text, so true)
    leaves the lesson out of search without a word, and a `boost` of .nan is written bare into the search
    index as NaN, which is not JSON, and search fails on every page.

    >>> search_settings({"boost": float("nan")})
    Traceback (most recent call last):
    ...
    macros.data.schema.NestedError: boost: got nan; expected a finite number above zero
    """
    settings: Mapping[str, Check[Any]] = {"exclude": boolean, "boost": positive_amount}
    if not isinstance(value, Mapping):
        raise ValueError(f"got {value!r}; expected a mapping of {' or '.join(settings)}, like {{boost: 2}}")
    for name, setting in value.items():
        if name not in settings:
            known = " and ".join(settings)
            raise nested_error(value, name, f"unknown setting {name!r}; the search plugin takes {known}")
        try:
            settings[name](setting)
        except ValueError as error:
            raise nested_error(value, name, f"{name}: {error}") from None
    return value


_FIELDS: Fields = {
    "title": text,
    "lesson": positive_count,
    "stage": positive_count,
    "prerequisites": list_of(positive_count, unique=True),
    "mission": positive_count,
    "also_serves": optional(list_of(positive_count, unique=True), ()),
    # The prefix of the lesson's question and rep ids: the one it was first published under (ARCHITECTURE.md,
    # "Quizzes": ids never change, so a lesson that changes its number keeps its prefix).
    "questions": optional(text),
    "description": optional(text),
    # Material's own page settings, which it reads from the same front matter.
    "hide": optional(list_of(one_of(*HIDEABLE))),
    "search": optional(search_settings),
    "tags": optional(list_of(text)),
}
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


class LessonError(ValueError):
    """A lesson breaks the lesson contract; the message names the file and the fix.

    `line` is the file's line where there is one, and `detail` the message without the file and line.
    """

    def __init__(self, message: str, *, line: int | None = None, detail: str | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.detail = detail or message


def _at(src_path: str, line: int | None, detail: str) -> LessonError:
    """A LessonError at a line of `src_path` (or the file as a whole, when `line` is None)."""
    return LessonError(f"{src_path}:{line}: {detail}" if line else f"{src_path}: {detail}", line=line, detail=detail)


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
    description: str | None = None
    #: The prefix of its question and rep ids, without the hyphen: `questions:` in the front matter, else l{number}.
    questions: str = ""
    #: The file's line of each field of the front matter, for messages about a field that only the whole
    #: course can check (a mission bullet, a prefix another lesson has): told at the line that sets it.
    lines: Mapping[str, int] = field(default_factory=dict, compare=False)

    @property
    def prefix(self) -> str:
        """The prefix every question and rep id of this lesson starts with, hyphen included: `l8-`, `cp-`."""
        return f"{self.questions or f'l{self.number}'}-"

    @property
    def prefix_setting(self) -> str:
        """The front matter's field that gives the prefix, as written: `questions: cp`, else `lesson: 8`."""
        return f"questions: {self.questions}" if self.questions else f"lesson: {self.number}"

    @property
    def questions_line(self) -> int | None:
        """The front matter's line that sets the prefix: `questions:`, else `lesson:` (the number gives it)."""
        return self.lines.get("questions" if self.questions else "lesson")


def read_front_matter(text: str, src_path: str = "") -> dict[str, Any]:
    """The YAML front matter of a Markdown text, or {} when it has none.

    Raises:
        LessonError: the front matter is not valid YAML, repeats a key, or is not a mapping.
    """
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}
    try:
        first_line = text.count("\n", 0, match.start(1)) + 1
        data = load_yaml(match.group(1), src_path, data_file=False, first_line=first_line) or {}
    except SchemaError as error:
        # "file:line: ...", as every other problem of a lesson is told.
        line = re.match(rf"{re.escape(src_path)}:(\d+): ", str(error))
        detail = str(error).removeprefix(line.group(0) if line else f"{src_path}: ")
        raise _at(src_path, int(line.group(1)) if line else None, f"the front matter is {detail}") from None
    if not isinstance(data, dict):
        raise LessonError(f"{src_path}: the front matter should be a mapping of fields, like `title: ...`")
    return data


def front_matter_lines(text: str) -> int:
    """How many lines the front matter takes at the top of a Markdown file (0 without one)."""
    match = _FRONT_MATTER.match(text)
    return match.group(0).count("\n") if match else 0


def parse_lesson(src_path: str, meta: Mapping[str, Any], source: str = "", where: str = "") -> Lesson | None:
    """The lesson that `meta` describes, read from the file `source` (where a field's problem is told at its line,
    the file named `where`, by default `src_path`); None for a page outside the stage folders.

    Raises:
        LessonError: the page is in a stage folder but is not a lesson, a field is unknown,
            missing or of the wrong type, or the stage is not its folder's.
    """
    where = where or src_path
    folder = STAGE_FOLDER.match(src_path)
    if folder is None:
        if "lesson" in meta:
            raise LessonError(f"{where}: a lesson lives in its stage's folder, docs/stage-N/; move it there")
        return None
    if "lesson" not in meta:
        raise LessonError(
            f"{where}: every page in {folder.group(0)} is a lesson; its front matter needs `lesson:` (its number)"
            " and the other lesson fields (see CONTRIBUTING.md)"
        )
    try:
        clean = check_record(f"{where}: front matter", meta, _FIELDS)
    except SchemaError as error:
        raise LessonError(str(error)) from None
    lines = field_lines(source)
    if clean["stage"] != int(folder.group(1)):
        raise _at(
            where,
            lines.get("stage"),
            f"`stage: {clean['stage']}` but the lesson is in {folder.group(0)}; make them agree",
        )
    for name in ("title", "description"):
        typed = find_in_text(clean[name] or "")
        if typed:
            raise _at(
                where,
                lines.get(name),
                f"the front matter's {name} types {', '.join(map(repr, typed))}; "
                "titles and descriptions show no figures, since they cannot carry a computed one",
            )
        markup = markup_in(clean[name] or "")
        if markup:
            raise _at(
                where,
                lines.get(name),
                f"the front matter's {name} holds {', '.join(map(repr, markup))}; {PLAIN_FIELDS}",
            )
    questions = clean["questions"] or ""
    if questions and not QUESTION_PREFIX.fullmatch(questions):
        raise _at(
            where,
            lines.get("questions"),
            f"`questions: {questions}` is no prefix of question ids; write lower-case letters and digits"
            ' starting with a letter, like `questions: cp` (CONTRIBUTING.md, "Add a quiz question")',
        )
    heading = markdown_in(clean["title"])
    if heading is not None:
        raise _at(
            where,
            lines.get("title"),
            f"the front matter's title renders as Markdown: its heading reads {heading!r}; {PLAIN_TITLE}",
        )
    return Lesson(
        src_path=src_path,
        number=clean["lesson"],
        title=clean["title"],
        stage=clean["stage"],
        prerequisites=clean["prerequisites"],
        mission=clean["mission"],
        also_serves=clean["also_serves"],
        description=clean["description"],
        questions=questions,
        lines=lines,
    )


@dataclass(frozen=True)
class LessonIndex:
    """Every lesson of the course by number, checked as a whole."""

    lessons: Mapping[int, Lesson]

    def at(self, src_path: str) -> Lesson | None:
        """The lesson whose source is `src_path`, or None when that page is not a lesson."""
        return next((lesson for lesson in self.lessons.values() if lesson.src_path == src_path), None)

    def owner_of(self, question_id: str) -> Lesson | None:
        """The lesson whose question ids' prefix `question_id` carries, if any."""
        return next((lesson for lesson in self.lessons.values() if question_id.startswith(lesson.prefix)), None)

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
        LessonError: a page cannot be read or is not UTF-8, two lessons share a number, a prerequisite does
            not exist, or prerequisites form a cycle.
    """
    lessons: dict[int, Lesson] = {}

    def shown(src_path: str) -> str:
        """A page as messages name it: from the repository's root, as the author's editor opens it."""
        return f"{docs_dir.name}/{src_path}"

    for path in sorted(docs_dir.rglob("*.md")):
        src_path = path.relative_to(docs_dir).as_posix()
        # Every page, lesson or not: MkDocs reads them later, and its error for one it cannot names no line.
        try:
            source = read_text(path, shown(src_path))
        except SchemaError as error:
            raise LessonError(str(error)) from None
        where = shown(src_path)
        lesson = parse_lesson(src_path, read_front_matter(source, where), source, where)
        if lesson is None:
            continue
        if lesson.number in lessons:
            other = lessons[lesson.number]
            raise _at(
                where,
                lesson.lines.get("lesson"),
                f"Lesson {lesson.number} is already {shown(other.src_path)}:{other.lines.get('lesson')}; give this"
                " one a number no lesson has",
            )
        taken = next((other for other in lessons.values() if other.prefix == lesson.prefix), None)
        if taken is not None:
            # Either lesson may be the one to change (the build cannot know which was published first), so both
            # are named at the line that gives each the prefix.
            raise _at(
                where,
                lesson.questions_line,
                f"`{lesson.prefix_setting}` gives the question ids' prefix {lesson.prefix!r}, which"
                f" {shown(taken.src_path)}:{taken.questions_line} gives too (`{taken.prefix_setting}`): the lesson"
                " first published under it keeps it, and the other takes `questions:` with a prefix no lesson has"
                ' used, like its topic\'s short name (CONTRIBUTING.md, "Add a quiz question")',
            )
        lessons[lesson.number] = lesson
    for lesson in lessons.values():
        for number in lesson.prerequisites:
            if number not in lessons:
                raise _at(
                    shown(lesson.src_path),
                    lesson.lines.get("prerequisites"),
                    f"prerequisite Lesson {number} does not exist; lessons are {sorted(lessons)}",
                )
    _check_acyclic(lessons, shown)
    return LessonIndex(lessons)


def field_lines(source: str) -> dict[str, int]:
    """The line of the file `source` where its front matter sets each field (YAML refuses a field set twice)."""
    lines: dict[str, int] = {}
    for number, line in enumerate(source.splitlines()[: front_matter_lines(source)], start=1):
        name, colon, _ = line.partition(":")
        # A key as YAML reads one: `title :` and `"title":` set `title` too.
        if colon and name and not name[0].isspace():
            lines.setdefault(name.rstrip().strip("\"'"), number)
    return lines


def _check_acyclic(lessons: Mapping[int, Lesson], shown: Callable[[str], str]) -> None:
    done: set[int] = set()

    def visit(number: int, path: tuple[int, ...]) -> None:
        if number in path:
            cycle = " → ".join(f"Lesson {n}" for n in (*path[path.index(number) :], number))
            lesson = lessons[number]
            raise _at(shown(lesson.src_path), lesson.lines.get("prerequisites"), f"prerequisites form a cycle: {cycle}")
        if number in done:
            return
        for prerequisite in lessons[number].prerequisites:
            visit(prerequisite, (*path, number))
        done.add(number)

    for number in sorted(lessons):
        visit(number, ())


#: The placeholder text of the lesson skeleton (`make lesson`), by where it stands: the skeleton writes
#: them, and a lesson that still holds one is not written yet.
PLACEHOLDERS = {
    "description": "One sentence on what this lesson teaches.",
    "mission": "Say how this lesson serves it.",
    "warm-up": "A question that recalls what the prerequisites taught.",
    "model answer": "The model answer.",
    "know this": "What the lesson teaches, every number a figure macro:",
    "numeric question": "A question whose answer is a number with its unit.",
    "working": "the key, a figure macro, then the working.",
    "choice question": "A question with one right option among options of similar length.",
    "right option": "The right option",
    "why right": "Why it is right.",
    "wrong option": "A wrong option",
    "why wrong": "Why it is wrong.",
    "rep": "Something to do with a real model or system.",
    "reading rep": "Something to read in the primary source.",
}


def placeholders_left(source: str) -> list[tuple[int, str]]:
    """Each line of a lesson's file (front matter included) that still holds skeleton text, with that text.

    >>> placeholders_left("# Lesson 14\\n\\nThe right option\\nThe right option, at last")
    [(3, 'The right option')]
    """
    found = []
    for number, line in enumerate(source.splitlines(), start=1):
        text = line.strip().removeprefix("description:").strip().removeprefix("- ")
        for placeholder in PLACEHOLDERS.values():
            # A whole line, or a sentence inside one: "… Say how this lesson serves it."
            if text == placeholder or (placeholder.endswith((".", ":")) and placeholder in text):
                found.append((number, placeholder))
    return found


def check_sections(src_path: str, markdown: str, first_line: int = 1) -> None:
    """Check that `markdown` has every lesson section once, in the seed's order.

    Raises:
        LessonError: naming the first missing, repeated or misplaced section.
    """
    lines = [line.rstrip() for line in markdown.splitlines()]
    positions = []
    for name, opener in SECTIONS:
        found = [i for i, line in enumerate(lines) if line == opener or line.startswith(opener + " ")]
        if not found:
            raise _at(src_path, None, f"missing the {name!r} section; start it with a line `{opener}`")
        if len(found) > 1:
            where = ", ".join(str(first_line + i) for i in found)
            raise _at(src_path, first_line + found[1], f"the {name!r} section appears on lines {where}; keep one")
        positions.append((found[0], name))
    order = sorted(positions)
    expected = [name for name, _ in SECTIONS]
    if [name for _, name in order] != expected:
        first = next(i for i, ((_, a), b) in enumerate(zip(order, expected, strict=True)) if a != b)
        raise _at(
            src_path,
            first_line + order[first][0],
            f"section {order[first][1]!r} comes where {expected[first]!r} belongs; the order is: {', '.join(expected)}",
        )


def check_mission_link(lesson: Lesson, markdown: str, bullets: tuple[str, ...], first_line: int = 1) -> None:
    """Check that the mission link quotes, word for word, the bullet the front matter names.

    Raises:
        LessonError: the bullet does not exist, or the line does not quote it or name its place.
    """
    for name, numbers in (("mission", (lesson.mission,)), ("also_serves", lesson.also_serves)):
        for number in numbers:
            if not 1 <= number <= len(bullets):
                raise _at(
                    lesson.src_path,
                    lesson.lines.get(name),
                    f"`{name}:` names mission bullet {number}, which does not exist: the mission (the home page's"
                    f" list) has {len(bullets)}; name one from 1 to {len(bullets)}",
                )
    number, line = next((n, line) for n, line in enumerate(markdown.splitlines()) if line.startswith(SECTIONS[0][1]))
    at = first_line + number
    # The home page's list ends each bullet with a full stop; a quote may leave it off.
    bullet = bullets[lesson.mission - 1].rstrip(".")
    if f'"{bullet}"' not in line and f"“{bullet}”" not in line:
        raise _at(lesson.src_path, at, f'the mission link must quote bullet {lesson.mission} word for word: "{bullet}"')
    ordinal = ordinal_word(lesson.mission)
    if f"{ordinal} bullet" not in line:
        raise _at(lesson.src_path, at, f"the mission link should call it the {ordinal} bullet")


def ordinal_word(number: int) -> str:
    """ "first", "second", ... for the mission's bullets; "11th" past ten.

    >>> ordinal_word(4), ordinal_word(12)
    ('fourth', '12th')
    """
    return _ORDINALS[number - 1] if 1 <= number <= len(_ORDINALS) else f"{number}th"


def relative_link(from_src: str, to_src: str) -> str:
    """A Markdown link target from one docs page to another, both given by source path."""
    return posixpath.relpath(to_src, posixpath.dirname(from_src) or ".")
