"""Lesson front matter, section order, prerequisites and the mission link."""

from __future__ import annotations

from pathlib import Path

import pytest

from macros.data.lessons import (
    SECTIONS,
    LessonError,
    check_mission_link,
    check_sections,
    index_lessons,
    parse_lesson,
    read_front_matter,
)

BULLETS = ("Estimate things.", "Explain why data parallelism runs out of memory.")
WELL_FORMED = "\n\n".join(
    ['**Mission link:** "Explain why data parallelism runs out of memory" is the second bullet.']
    + [f"{opener} text" if opener.startswith("**") else opener for _, opener in SECTIONS[1:]]
)


def _lesson(number: int = 8, prerequisites: list[int] | None = None, mission: int = 2) -> dict[str, object]:
    return {"title": "T", "lesson": number, "stage": 4, "prerequisites": prerequisites or [], "mission": mission}


def test_a_well_formed_lesson_passes() -> None:
    check_sections("stage-4/x.md", WELL_FORMED)
    lesson = parse_lesson("stage-4/x.md", _lesson())
    assert lesson is not None
    check_mission_link(lesson, WELL_FORMED, BULLETS)


def test_a_page_without_a_lesson_number_is_not_a_lesson() -> None:
    assert parse_lesson("index.md", {"title": "Home"}) is None


def test_a_missing_section_is_named_with_its_opener() -> None:
    with pytest.raises(
        LessonError, match=r"stage-4/x.md: missing the 'Practice' section; start it with a line `## Practice`"
    ):
        check_sections("stage-4/x.md", WELL_FORMED.replace("## Practice", ""))


def test_sections_out_of_order_are_refused() -> None:
    swapped = (
        WELL_FORMED.replace("## Warm-up", "@@").replace("## Know this", "## Warm-up").replace("@@", "## Know this")
    )
    with pytest.raises(LessonError, match=r"section 'Know this' comes where 'Warm-up' belongs"):
        check_sections("stage-4/x.md", swapped)


def test_a_repeated_section_is_refused() -> None:
    with pytest.raises(LessonError, match=r"'Going further' section appears on lines 15, 19; keep one"):
        check_sections("stage-4/x.md", WELL_FORMED + "\n\n## Going further\n")


def test_a_misquoted_mission_bullet_is_refused() -> None:
    lesson = parse_lesson("stage-4/x.md", _lesson())
    assert lesson is not None
    with pytest.raises(LessonError, match="must quote bullet 2 word for word"):
        check_mission_link(lesson, WELL_FORMED.replace("runs out of", "exhausts"), BULLETS)


def test_a_mission_link_must_name_the_bullets_place() -> None:
    lesson = parse_lesson("stage-4/x.md", _lesson())
    assert lesson is not None
    with pytest.raises(LessonError, match="should call it the second bullet"):
        check_mission_link(lesson, WELL_FORMED.replace("second", "fourth"), BULLETS)


@pytest.mark.parametrize(
    ("field", "written", "line"), [("mission", "mission: 9", 6), ("also_serves", "mission: 1\nalso_serves: [1, 9]", 7)]
)
def test_a_mission_number_past_the_list_is_refused_at_its_line(
    tmp_path: Path, field: str, written: str, line: int
) -> None:
    """Only the catalog knows how many bullets there are, so this is checked as the page is built, long after its
    front matter was read: the lesson keeps the line of each field for it."""
    _write(tmp_path, "a.md", 8, [])
    path = tmp_path / "stage-4" / "a.md"
    path.write_text(path.read_text().replace("mission: 1", written))
    with pytest.raises(LessonError) as refused:
        check_mission_link(index_lessons(tmp_path).lessons[8], WELL_FORMED, BULLETS)
    assert str(refused.value) == (
        f"stage-4/a.md:{line}: `{field}:` names mission bullet 9, which does not exist: the mission (the home"
        " page's list) has 2; name one from 1 to 2"
    )


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({**_lesson(), "level": 3}, r"stage-4/x.md: front matter: unknown field\(s\) level"),
        ({k: v for k, v in _lesson().items() if k != "stage"}, r"front matter: missing field\(s\) stage"),
        ({**_lesson(), "lesson": "8"}, r"front matter.lesson: got '8'; expected a whole number"),
        ({**_lesson(), "prerequisites": ["Lesson 7"]}, r"front matter.prerequisites: item 1: got 'Lesson 7'"),
        ({**_lesson(), "stage": 5}, r"`stage: 5` but the lesson is in stage-4/; make them agree"),
        ({**_lesson(), "title": "Why 24 GB is too much"}, r"the front matter's title types '24 GB'"),
        (
            {**_lesson(), "title": "*emphasis* [link](https://x) and `code`"},
            r"stage-4/x.md: the front matter's title renders as Markdown: its heading reads 'emphasis link and code'",
        ),
        ({**_lesson(), "title": "Why ZeRO\\_1"}, r"title renders as Markdown: its heading reads 'Why ZeRO_1'"),
        ({k: v for k, v in _lesson().items() if k != "lesson"}, r"every page in stage-4/ is a lesson"),
        # Attack round 7: "sidebar" is no part Material hides; other pages' hide was checked, a lesson's not.
        ({**_lesson(), "hide": ["toc", "sidebar"]}, r"front matter.hide: item 2: .*sidebar"),
        # Attack round 8: a prerequisite or a bullet served given twice passed.
        ({**_lesson(prerequisites=[7, 7])}, r"front matter.prerequisites: item 2: 7 is given twice \(as item 1\)"),
        ({**_lesson(), "also_serves": [4, 5, 5]}, r"front matter.also_serves: item 3: 5 is given twice \(as item 2\)"),
    ],
)
def test_bad_front_matter_is_refused(meta: dict[str, object], message: str) -> None:
    with pytest.raises(LessonError, match=message):
        parse_lesson("stage-4/x.md", meta)


def _write(docs: Path, name: str, number: int, prerequisites: list[int]) -> None:
    (docs / "stage-4").mkdir(exist_ok=True)
    (docs / "stage-4" / name).write_text(
        f"---\ntitle: L\nlesson: {number}\nstage: 4\nprerequisites: {prerequisites}\nmission: 1\n---\n"
    )


def test_a_missing_prerequisite_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", 8, [7])
    with pytest.raises(LessonError, match=r"stage-4/a.md:5: prerequisite Lesson 7 does not exist"):
        index_lessons(tmp_path)


def test_a_prerequisite_cycle_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", 7, [9])
    _write(tmp_path, "b.md", 8, [7])
    _write(tmp_path, "c.md", 9, [8])
    with pytest.raises(LessonError, match=r"cycle: Lesson 7 → Lesson 9 → Lesson 8 → Lesson 7"):
        index_lessons(tmp_path)


def test_two_lessons_with_one_number_are_refused(docs: Path) -> None:
    _write(docs, "a.md", 7, [])
    _write(docs, "b.md", 7, [])
    with pytest.raises(LessonError, match=r"^docs/stage-4/b.md:3: Lesson 7 is already docs/stage-4/a.md:3"):
        index_lessons(docs)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A course's docs/ folder, empty: a problem with a page is told from the repository's root, `docs/…`."""
    (tmp_path / "docs").mkdir()
    return tmp_path / "docs"


def _write_with_prefix(docs: Path, name: str, number: int, questions: str | None) -> None:
    (docs / "stage-4").mkdir(exist_ok=True)
    line = f"questions: {questions}\n" if questions else ""
    (docs / "stage-4" / name).write_text(
        f"---\ntitle: L\nlesson: {number}\nstage: 4\nprerequisites: []\nmission: 1\n{line}---\n"
    )


def test_a_lessons_prefix_defaults_to_its_number_and_may_be_set(tmp_path: Path) -> None:
    _write_with_prefix(tmp_path, "a.md", 7, None)
    _write_with_prefix(tmp_path, "b.md", 8, "cp")
    lessons = index_lessons(tmp_path).lessons
    assert (lessons[7].prefix, lessons[8].prefix) == ("l7-", "cp-")


def test_a_moved_lesson_keeps_its_prefix_and_the_prefix_is_then_taken(docs: Path) -> None:
    """The capstone moved from 13 to 15 (16 since) with `questions: l13`; a new Lesson 13 without `questions:`
    would take the same prefix, and readers' stored answers would land on the wrong questions."""
    _write_with_prefix(docs, "a.md", 13, None)
    _write_with_prefix(docs, "b.md", 15, "l13")
    with pytest.raises(LessonError) as refused:
        index_lessons(docs)
    # Both lessons, each at the line that gives it the prefix: either may be the one to change.
    assert str(refused.value).startswith(
        "docs/stage-4/b.md:7: `questions: l13` gives the question ids' prefix 'l13-', which docs/stage-4/a.md:3"
        " gives too (`lesson: 13`): the lesson first published under it keeps it, and the other takes `questions:`"
    )


def test_a_prefix_is_letters_and_digits(tmp_path: Path) -> None:
    _write_with_prefix(tmp_path, "a.md", 7, "Cp-")
    with pytest.raises(LessonError, match=r"`questions: Cp-` is no prefix of question ids"):
        index_lessons(tmp_path)


def test_front_matter_may_close_with_dots_as_in_mkdocs() -> None:
    assert read_front_matter("---\nlesson: 3\n...\n# L") == {"lesson": 3}


def test_front_matter_that_is_not_yaml_names_its_file() -> None:
    with pytest.raises(LessonError, match=r"^x.md:3: the front matter is not valid YAML"):
        read_front_matter("---\nlesson: [3\n---\n", "x.md")


#: What YAML reads as a line break beside \n (and \r\n), each with its name (attack round 9, F13).
OTHER_BREAKS = [
    ("\u2028", "U+2028 LINE SEPARATOR"),
    ("\u2029", "U+2029 PARAGRAPH SEPARATOR"),
    ("\x85", "U+0085 NEXT LINE"),
]
OTHER_BREAKS += [("\r", "a carriage return (\\r) not followed by a line feed")]


@pytest.mark.parametrize(("character", "named"), OTHER_BREAKS)
def test_a_line_break_only_yaml_reads_in_front_matter_is_told_at_its_line(character: str, named: str) -> None:
    # Attack round 9, F13: a U+2028 on line 3 was told as "not valid YAML: could not find expected ':'" at line 5.
    text = f"---\ntitle: Lesson 12\ndescription: Stages.\u200b{character}second line\nlesson: 12\nstage: 6\n---\n"
    with pytest.raises(LessonError) as refused:
        read_front_matter(text, "docs/stage-6/x.md")
    assert str(refused.value).startswith(f"docs/stage-6/x.md:3: the front matter is not valid YAML here: {named}")
    assert "at column 22, which YAML reads as a line break" in str(refused.value)


def test_front_matter_is_read_from_the_top_only() -> None:
    assert read_front_matter("---\nlesson: 3\n---\n# L") == {"lesson": 3}
    assert read_front_matter("# L\n---\nlesson: 3\n---\n") == {}


def test_a_lesson_serves_its_mission_bullet_and_those_it_also_serves(tmp_path: Path) -> None:
    (tmp_path / "stage-4").mkdir()
    (tmp_path / "stage-4" / "a.md").write_text(
        "---\ntitle: A\nlesson: 7\nstage: 4\nprerequisites: []\nmission: 3\nalso_serves: [4]\n---\n"
    )
    _write(tmp_path, "b.md", 8, [7])  # mission 1
    index = index_lessons(tmp_path)
    assert [lesson.number for lesson in index.serving(3)] == [7]
    assert [lesson.number for lesson in index.serving(4)] == [7]
    assert [lesson.number for lesson in index.serving(1)] == [8]


def test_a_lesson_outside_a_stage_folder_is_refused() -> None:
    with pytest.raises(LessonError, match=r"notes.md: a lesson lives in its stage's folder, docs/stage-N/"):
        parse_lesson("notes.md", _lesson())


def test_a_page_outside_the_stage_folders_is_not_a_lesson() -> None:
    assert parse_lesson("index.md", {"title": "Home"}) is None


def test_a_repeated_key_in_front_matter_is_refused() -> None:
    with pytest.raises(LessonError, match=r"the key 'lesson' is given twice"):
        read_front_matter("---\nlesson: 3\nlesson: 4\n---\n", "x.md")


def test_a_section_out_of_order_names_its_line() -> None:
    swapped = (
        WELL_FORMED.replace("## Warm-up", "@@").replace("## Know this", "## Warm-up").replace("@@", "## Know this")
    )
    with pytest.raises(LessonError) as raised:
        check_sections("stage-4/x.md", swapped, first_line=10)
    assert raised.value.line == 10 + swapped.splitlines().index("## Know this")


def test_a_lesson_may_carry_materials_page_settings() -> None:
    assert parse_lesson("stage-4/x.md", {**_lesson(), "hide": ["toc"], "search": {"boost": 2}}) is not None


@pytest.mark.parametrize(
    ("search", "message"),
    [
        ("5", "search: got 5; expected a mapping of exclude or boost, like {boost: 2}"),
        ('{exclude: "no"}', "search: exclude: got 'no'; expected true or false"),
        ("{boost: .nan}", "search: boost: got nan; expected a finite number above zero"),
        ("{boost: -1}", "search: boost: got -1; expected a finite number above zero"),
        ("{hide: true}", "search: unknown setting 'hide'; the search plugin takes exclude and boost"),
    ],
)
def test_search_settings_are_materials_two_refused_at_their_line(search: str, message: str) -> None:
    text = "---\ntitle: T\nlesson: 8\nstage: 4\nprerequisites: []\nmission: 2\nsearch: " + search + "\n---\n"
    with pytest.raises(LessonError) as refused:
        parse_lesson("stage-4/x.md", read_front_matter(text, "stage-4/x.md"))
    assert str(refused.value) == f"stage-4/x.md:7: front matter.{message}"


def test_search_settings_material_reads_pass() -> None:
    meta = {**_lesson(), "search": {"exclude": False, "boost": 2.5}}
    assert parse_lesson("stage-4/x.md", meta) is not None


def test_a_nested_search_setting_is_refused_at_its_own_line() -> None:
    text = "---\ntitle: T\nlesson: 8\nstage: 4\nprerequisites: []\nmission: 2\n"
    text += "search:\n  exclude: false\n  boost: 0\n---\n"
    with pytest.raises(LessonError) as refused:
        parse_lesson("stage-4/x.md", read_front_matter(text, "stage-4/x.md"))
    assert str(refused.value).startswith("stage-4/x.md:9: front matter.search: boost: got 0")


def test_a_typed_figure_in_a_lessons_title_is_told_at_the_title_line() -> None:
    # Attack round 6: the message named the file and no line.
    source = "---\nlesson: 8\ntitle: Why 24 GB is too much\n---\n"
    with pytest.raises(LessonError, match=r"^stage-4/x\.md:3: the front matter's title types '24 GB'") as raised:
        parse_lesson("stage-4/x.md", {**_lesson(), "title": "Why 24 GB is too much"}, source)
    assert raised.value.line == 3


def _refused_at(source: str, src_path: str = "stage-4/x.md") -> LessonError:
    """What `source`, a lesson's file, is refused with, read as the build reads it."""
    with pytest.raises(LessonError) as refused:
        parse_lesson(src_path, read_front_matter(source, src_path), source)
    return refused.value


def _line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), start=1) if text in line)


LESSON_FILE = "---\ntitle: T\nlesson: 8\nstage: 4\nprerequisites: []\nmission: 2\n---\n"


@pytest.mark.parametrize(
    ("replace", "by", "message"),
    [
        (
            "mission: 2\n",
            "mission: 2\ndescription: Why <b>memory</b> runs out\n",
            "description holds '<', '>'; a page's title",
        ),
        ("mission: 2\n", "mission: 2\nquestions: L2\n", "`questions: L2` is no prefix of question ids; write lower"),
        ("stage: 4\n", "stage: 3\n", "`stage: 3` but the lesson is in stage-4/; make them agree"),
        ("title: T\n", "title: Why <i>memory</i>\n", "title holds '<', '>'; a page's title"),
        ("title: T\n", "title : Why <i>memory</i>\n", "title holds '<', '>'; a page's title"),
        ("title: T\n", "title: Why *ZeRO* shards\n", "title renders as Markdown: its heading reads 'Why ZeRO shards'"),
        ("mission: 2\n", "mission: 2\nlesson: 9\n", "the key 'lesson' is given twice (lines 3 and 7); keep one"),
    ],
)
def test_a_wrong_front_matter_field_is_told_once_at_its_own_line(replace: str, by: str, message: str) -> None:
    # Attack round 8: each was told at no line (a title written `title :` was found at none), and a key given
    # twice at lines counted from the front matter's text, one short of the file's.
    source = LESSON_FILE.replace(replace, by)
    refused = _refused_at(source)
    wrong = by.split("\n")[-2]
    assert refused.line == _line_of(source, wrong)
    assert str(refused).startswith(f"stage-4/x.md:{refused.line}: ")
    assert str(refused).count(message) == 1


def _write_lesson(docs: Path, name: str, number: int, prerequisites: str) -> str:
    (docs / "stage-4").mkdir(exist_ok=True)
    source = LESSON_FILE.replace("lesson: 8", f"lesson: {number}").replace("prerequisites: []", prerequisites)
    (docs / "stage-4" / name).write_text(source)
    return source


@pytest.mark.parametrize(
    ("lessons", "message"),
    [
        ({"a.md": (8, "prerequisites: [99]")}, "prerequisite Lesson 99 does not exist; lessons are [8]"),
        ({"a.md": (7, "prerequisites: [8]"), "b.md": (8, "prerequisites:\n  - 7")}, "prerequisites form a cycle"),
        (
            {"a.md": (7, "prerequisites: []"), "b.md": (7, "prerequisites: []")},
            "Lesson 7 is already docs/stage-4/a.md:3",
        ),
    ],
)
def test_a_wrong_lesson_across_the_course_is_told_at_its_field_line(
    docs: Path, lessons: dict[str, tuple[int, str]], message: str
) -> None:
    # Attack round 8: a missing prerequisite, a cycle and a number given twice were told at no line; and each page
    # is named from the repository's root, as every other problem's page is (they named it from docs/).
    sources = {name: _write_lesson(docs, name, *lesson) for name, lesson in lessons.items()}
    with pytest.raises(LessonError) as refused:
        index_lessons(docs)
    name = str(refused.value).split(":")[0].removeprefix("docs/stage-4/")
    field = "lesson:" if "already" in message else "prerequisites:"
    assert refused.value.line == _line_of(sources[name], field)
    assert str(refused.value).startswith(f"docs/stage-4/{name}:{refused.value.line}: ")
    assert str(refused.value).count(message) == 1


def test_a_lesson_saved_with_a_byte_order_mark_is_read_as_mkdocs_reads_it(docs: Path) -> None:
    """Attack round 9: some editors write one first; MkDocs drops it, and the index did not, so the lesson's front
    matter was not found ("every page in stage-4/ is a lesson; its front matter needs `lesson:`")."""
    _write(docs, "a.md", 7, [])
    page = docs / "stage-4" / "a.md"
    page.write_bytes(b"\xef\xbb\xbf" + page.read_bytes())
    assert index_lessons(docs).lessons[7].src_path == "stage-4/a.md"
