"""The lesson scaffold: what it writes builds as a lesson, listed under its stage."""

from __future__ import annotations

import contextlib
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from macros.data.catalog import load_catalog
from macros.data.lessons import PLACEHOLDERS, SECTIONS
from tests.checks import heading_text, lesson_body
from tests.conftest import ROOT, build_copy, soup
from tools.new_lesson import NavError, add_to_nav, main, slug


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


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # Attack round 9 (F34): a section in single quotes got a second section of the same title.
        (
            NAV.replace('"Stage 4: Data"', "'Stage 4: Data'"),
            "'Stage 4: Data':\n      - stage-4/a.md\n      - stage-4/new.md\n",
        ),
        # A nav indented as YAML allows: the page at its section's own indentation.
        (
            "nav:\n- 'Stage 4: Data':\n  - stage-4/a.md\n- Glossary: glossary.md\n",
            "  - stage-4/a.md\n  - stage-4/new.md\n- Glossary",
        ),
        # A section whose last entry is a section of its own: the page after all of it, not inside it.
        (
            NAV.replace("      - stage-4/a.md\n", "      - stage-4/a.md\n      - More:\n          - stage-4/b.md\n"),
            '          - stage-4/b.md\n      - stage-4/new.md\n  - "Stage 6',
        ),
    ],
)
def test_the_page_goes_under_its_stage_whatever_the_section_s_quoting_and_indentation(
    config: str, expected: str
) -> None:
    written = add_to_nav(config, 4, "T", "stage-4/new.md")
    assert expected in written
    stages = [title for item in yaml.safe_load(written)["nav"] for title in item if title.startswith("Stage 4")]
    assert stages == ["Stage 4: Data"]


def test_a_new_stage_goes_last_in_a_nav_without_a_glossary() -> None:
    # It looked for a `  - Glossary:` line, and stopped with a StopIteration where there was none.
    written = add_to_nav(NAV.replace("  - Glossary: glossary.md\n", ""), 7, "T", "stage-7/new.md")
    assert written.endswith('      - stage-6/c.md\n  - "Stage 7: T":\n      - stage-7/new.md\n')


@pytest.mark.parametrize(
    ("config", "message"),
    [
        # Attack round 9 (F34): a block entry was added under the flow sequence, and mkdocs.yml no longer parsed.
        (
            NAV.replace('"Stage 4: Data":\n      - stage-4/a.md', '"Stage 4: Data": [stage-4/a.md]'),
            "mkdocs.yml:3: the nav section 'Stage 4: Data' is a flow sequence ([...]); new_lesson adds a page to a"
            " block list only: write it as one, a `- page.md` a line, and run it again",
        ),
        (
            NAV.replace('"Stage 4: Data":\n      - stage-4/a.md', '"Stage 4: Data": stage-4/a.md'),
            "mkdocs.yml:3: the nav section 'Stage 4: Data' is not a list;",
        ),
        ("nav: [index.md]\n", "mkdocs.yml:1: the nav is a flow sequence ([...]);"),
        ("site_name: X\n", "mkdocs.yml has no nav:"),
        (NAV + "\t- x.md\n", "mkdocs.yml:8: it does not read as YAML (found character '\\t'"),
        # An edit YAML reads but that does not list the page once in its section: the page was listed already.
        (
            NAV.replace("      - stage-6/c.md\n", "      - stage-6/c.md\n      - stage-4/new.md\n"),
            "mkdocs.yml:3: adding stage-4/new.md under 'Stage 4: Data' would not leave the nav listing it once, in"
            " that section; mkdocs.yml is left as it was: list the page there by hand",
        ),
    ],
)
def test_a_nav_the_page_cannot_be_added_to_safely_is_refused_at_its_line(config: str, message: str) -> None:
    with pytest.raises(NavError) as refused:
        add_to_nav(config, 4, "T", "stage-4/new.md")
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_a_section_new_lesson_cannot_add_to_is_refused_and_nothing_is_written(
    course_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Attack round 9 (F34): it wrote the lesson and broke mkdocs.yml, and the next build stopped at a YAML error.
    config = course_copy / "mkdocs.yml"
    flow = re.sub(r'("Stage 8: Planning a run"):\n      - (\S+)\n', r"\1: [\2]\n", config.read_text())
    config.write_text(flow)
    assert main(["--root", str(course_copy), "99", "8", "4", "Flow"]) == 2
    (err,) = capsys.readouterr().err.splitlines()
    assert err.startswith("new_lesson: mkdocs.yml:") and "is a flow sequence" in err, err
    assert config.read_text() == flow
    assert list((course_copy / "docs").rglob("lesson-99-*")) == []


#: What an author might type as a lesson's title, each a class of character make or the shell would read.
HOSTILE_TITLE = (
    "Costs in `touch {marker}-tick` and $(touch {marker}-sub) and $$HOME and $5 per hour, \"quoted\" 'too' \\"
)


def test_make_lesson_hands_each_value_over_as_typed(tmp_path: Path) -> None:
    """Through make's and the shell's expansion, a title once ran its backquotes, lost its $5 and expanded $$HOME."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python").write_text("#!/bin/sh\nprintf '%s\\0' \"$@\"\n", encoding="utf-8")
    (fake / "python").chmod(0o755)
    marker = tmp_path / "ran"
    # A stamp newer than what it depends on, so that make installs nothing whatever the checkout's file times.
    stamp = tmp_path / "installed"
    stamp.touch()
    title = HOSTILE_TITLE.format(marker=marker) + f" $(shell touch {marker}-make)"
    prerequisites = f"7 8; touch {marker}-list *"
    variables = ["NUMBER=14", "STAGE=6", "MISSION=5", f"TITLE={title}", f"PREREQUISITES={prerequisites}"]
    done = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "lesson", f"BIN={fake}", f"STAMP={stamp}", *variables],
        capture_output=True,
        check=True,
    )
    arguments = done.stdout.decode().split("\0")[:-1]
    assert arguments == ["-m", "tools.new_lesson", "--prerequisites", prerequisites, "--", "14", "6", "5", title]
    assert list(tmp_path.glob("ran*")) == []


def test_a_stage_title_with_a_quote_or_a_colon_keeps_mkdocs_yml_valid() -> None:
    title = 'Say "hi": then \\ leave'
    written = yaml.safe_load(add_to_nav(NAV, 5, title, "stage-5/new.md"))
    assert {"Stage 5: " + title: ["stage-5/new.md"]} in written["nav"]


@pytest.mark.parametrize(
    ("title", "message"),
    [
        ("Two\nlines", "the title is one line"),
        # Attack round 10: a line break YAML reads, which the front matter it wrote then refused on every later run.
        ("Sep\u2028arated", "the title is one line"),
        ('A "quoted" <b>title</b>', "the title holds '\"', '<', '>'"),
        ('Use {{ source("zero") }}', "expected text without template syntax"),
        ("Why 8 GPUs are enough", "the title types '8 GPUs'"),
        ("Bell\x07", "expected text without control characters"),
        (
            "*emphasis* [link](https://x) and `code`",
            "the title renders as Markdown: its heading reads 'emphasis link and code'",
        ),
        ("A ^^new^^ way", "the title renders as Markdown: its heading reads 'A new way'"),
        # Attack round 9 (F1): syntax of extensions the site does not enable, which the build's check refuses.
        ("Title ~~struck~~", "the title holds '~~struck~~', strikethrough"),
        ("Title [^1]", "the title holds '[^1]', a footnote"),
        ("Title ==mark==", "the title holds '==mark==', a highlight"),
    ],
)
def test_a_title_the_build_would_refuse_is_refused_and_nothing_written(
    course_copy: Path, capsys: pytest.CaptureFixture[str], title: str, message: str
) -> None:
    before = (course_copy / "mkdocs.yml").read_text()
    assert main(["--root", str(course_copy), "--", "99", "4", "4", title]) == 2
    assert message in capsys.readouterr().err
    assert (course_copy / "mkdocs.yml").read_text() == before


def test_a_long_title_gets_a_file_name_of_its_first_words(course_copy: Path) -> None:
    title = "Why " + " ".join(["sharding"] * 40)
    assert main(["--root", str(course_copy), "--", "99", "4", "4", title]) == 0
    (written,) = (course_copy / "docs/stage-4").glob("lesson-99-*.md")
    assert written.name == "lesson-99-why-sharding-sharding-sharding-sharding-sharding-sharding.md"
    assert f"# Lesson 99. {title}" in written.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["0", "4", "4", "Zero"], "a whole number above zero"),
        (["--", "-3", "4", "4", "Minus"], "a whole number above zero"),
        (["١٩", "4", "4", "Arabic digits"], "a whole number above zero"),
        (["2_0", "4", "4", "Underscore"], "a whole number above zero"),
        (["99", "4", "4", "Слово"], "the title gives no file name"),
        (["99", "4", "4", "Twice", "--prerequisites", "7,7"], "prerequisite Lesson 7 is given twice"),
    ],
)
def test_a_bad_number_title_or_prerequisite_is_refused_and_nothing_written(
    course_copy: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    # Attack round 8: each wrote a lesson (lesson-00, lesson-19 from ١٩, lesson-17-.md, prerequisites [7, 7]).
    before = (course_copy / "mkdocs.yml").read_text()
    with contextlib.suppress(SystemExit):
        assert main(["--root", str(course_copy), *arguments]) == 2
    assert message in capsys.readouterr().err
    assert (course_copy / "mkdocs.yml").read_text() == before


def test_bad_front_matter_elsewhere_is_one_line_not_a_traceback(
    course_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Attack round 8: a later `make lesson` ended in a traceback ending `LessonError: ...`.
    page = next((course_copy / "docs").rglob("lesson-08-*.md"))
    page.write_text(page.read_text(encoding="utf-8").replace("lesson: 8", "lesson: eight", 1), encoding="utf-8")
    assert main(["--root", str(course_copy), "99", "4", "4", "Fine"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    # Named from the repository's root once, as the build names it (round 10: "docs/docs/…").
    assert len(err) == 1 and err[0].startswith("new_lesson: docs/stage-4/lesson-08-") and "Traceback" not in err[0], err


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("What ZeRO shards", "what-zero-shards"),
        ("\ufb01nal ligature", "final-ligature"),
        ("Café İstanbul", "cafe-istanbul"),
    ],
)
def test_a_titles_letters_in_another_form_or_accented_keep_their_place_in_its_file_name(title: str, name: str) -> None:
    """Attack round 10: "ﬁnal" gave "nal", an accented letter was dropped."""
    assert slug(title) == name
