"""Write the skeleton of a new lesson, with every section the build checks, and list it in the nav.

    python -m tools.new_lesson NUMBER STAGE MISSION "Title in words" [--prerequisites 7 8]
    make lesson NUMBER=9 STAGE=5 MISSION=4 TITLE="What ZeRO shards" PREREQUISITES="8"

(`make lesson` hands each value over as typed: the Makefile says how.)

It writes `docs/stage-STAGE/lesson-NN-title-in-words.md` with its front matter,
the mission link quoting bullet MISSION of `course.yml`, the seed's sections in
order, a free warm-up question, a numeric and a single-choice practice question
and a checklist of reps, each with ids that carry the lesson's number; and it
adds the page under its stage in `mkdocs.yml`'s nav (a new stage section when
the stage has none yet). The skeleton builds; its placeholder text says what
to write, and a strict build fails on each placeholder left, at its line. It refuses a number or a
file that exists already, a title the build would refuse (more than one line, markup, template
syntax, Markdown the site does not read, a typed figure), and a nav it cannot add the page to safely
(a stage's section written as a flow sequence, `[...]`, say), at mkdocs.yml's line, writing nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import yaml

from macros.data.catalog import CatalogError, load_catalog
from macros.data.lessons import PLACEHOLDERS, LessonError, index_lessons, ordinal_word
from macros.data.markup import PLAIN_FIELDS, PLAIN_TITLE, heading_html, markdown_in, markup_in
from macros.data.schema import text
from macros.data.typed_figures import find_in_text
from macros.data.unrendered import unrendered

ROOT = Path(__file__).resolve().parent.parent


#: The longest a file name's words may run: a file system takes names of 255 bytes at most, and a title of any
#: length stays whole in the lesson, its file named by its first words.
SLUG_LENGTH = 60


def slug(title: str) -> str:
    """The words of a title as a file name, as many of its first words as `SLUG_LENGTH` holds: "What ZeRO shards"
    is `what-zero-shards`. A letter in another form or with an accent is its plain Latin letter first: a ligature's
    and an accented letter's were dropped ("ﬁnal" gave "nal", attack round 10).

    >>> slug("What ZeRO shards"), slug("ﬁnal ligature"), slug("Café İstanbul")
    ('what-zero-shards', 'final-ligature', 'cafe-istanbul')
    """
    plain = "".join(c for c in unicodedata.normalize("NFKD", title) if not unicodedata.combining(c))
    words = re.findall(r"[a-z0-9]+", plain.lower(), re.ASCII)
    kept = [words[0][:SLUG_LENGTH]] if words else []
    for word in words[1:]:
        if len("-".join([*kept, word])) > SLUG_LENGTH:
            break
        kept.append(word)
    return "-".join(kept)


def page_path(number: int, stage: int, title: str) -> str:
    """Where the lesson goes under docs/: `stage-6/lesson-14-sequence-parallelism.md`."""
    return f"stage-{stage}/lesson-{number:02d}-{slug(title)}.md"


def title_problems(title: str) -> list[str]:
    """What is wrong with a lesson's title, which becomes its front matter's title and its heading: nothing, or
    each of the build's own objections to it."""
    try:
        text(title)
    except ValueError as error:
        return [f"the title: {error}"]
    problems = []
    # Any line break YAML reads (U+2028 too, which the front matter then refuses): the title is written as one line.
    if title.splitlines() != [title]:
        problems.append("the title is one line")
    if markup_in(title):
        problems.append(f"the title holds {', '.join(map(repr, markup_in(title)))}; {PLAIN_FIELDS}")
    elif markdown_in(title) is not None:
        problems.append(f"the title renders as Markdown: its heading reads {markdown_in(title)!r}; {PLAIN_TITLE}")
    # The build's own check of a page's HTML, on the heading the title becomes: syntax of an extension the site
    # does not enable (strikethrough, a footnote, a highlight) renders as typed, and the build refuses it.
    for syntax in unrendered(heading_html(title)):
        problems.append(
            f"the title holds {syntax.text!r}, {syntax.what}: the site's Markdown does not read it, so its heading"
            f" would show it as typed; {syntax.fix}"
        )
    if find_in_text(title):
        problems.append(f"the title types {', '.join(map(repr, find_in_text(title)))}; a title shows no figure")
    return problems


def whole_number(value: str) -> int:
    """A whole number above zero in ASCII digits (`int` reads "١٩" and "2_0" as 19 and 20, and takes 0 and -3)."""
    if not re.fullmatch(r"[0-9]+", value, re.ASCII) or int(value) == 0:
        raise argparse.ArgumentTypeError(f"{value!r}: a whole number above zero, in the digits 0 to 9")
    return int(value)


def numbers(value: str) -> list[int]:
    """The lesson numbers in one argument, separated by spaces or commas: "8", "7 8", "7,8"."""
    return [whole_number(part) for part in re.split(r"[\s,]+", value.strip()) if part]


def skeleton(number: int, stage: int, mission: int, bullet: str, title: str, prerequisites: Sequence[int]) -> str:
    """The Markdown of a new lesson, with a placeholder for everything an author writes.

    It builds, and a strict build names each placeholder left (`lessons.PLACEHOLDERS`) at its line.
    """
    needs = ", ".join(str(n) for n in prerequisites)
    P = PLACEHOLDERS
    # JSON's quoted string is YAML's too: a title may hold a colon ("FSDP: ZeRO in PyTorch").
    heading = json.dumps(f"Lesson {number}. {title}", ensure_ascii=False)
    return f"""---
title: {heading}
description: {P["description"]}
lesson: {number}
stage: {stage}
prerequisites: [{needs}]
mission: {mission}
---

# Lesson {number}. {title}

**Mission link:** "{bullet.rstrip(".")}" is the {ordinal_word(mission)} bullet under [Success looks like](../index.md#success-looks-like). {P["mission"]}

**Primary source:** Paper: {{{{ source("zero") }}}}

**Prerequisites:** {", ".join(f"Lesson {n}" for n in prerequisites) or "none in this course"}.

## Warm-up

/// quiz | Warm-up 1
    id: l{number}-warmup-1
    kind: free

{P["warm-up"]}

//// answer
{P["model answer"]}
////
///

## Know this

{P["know this"]} {{{{ bytes_per_parameter() }}}} per parameter, say.

## Practice

/// quiz | Practice 1
    id: l{number}-practice-1
    kind: numeric
    tolerance: 5%

{P["numeric question"]}

//// answer
{{{{ model_states("example-7b") }}}}: {P["working"]}
////
///

/// quiz | Practice 2
    id: l{number}-practice-2
    kind: single

{P["choice question"]}

//// option | correct
{P["right option"]}

{P["why right"]}
////

//// option
{P["wrong option"]}

{P["why wrong"]}
////
///

## Real-world reps

/// checklist | Real-world reps
    items: [l{number}-rep-1, l{number}-rep-2]

- {P["rep"]}
- {P["reading rep"]}
///

## Going further

- Paper: {{{{ source("zero") }}}}

## Not landing?

Reread the primary source at the top, since this lesson compresses it and compression is where understanding leaks. Check the [glossary](../glossary.md) for any term that felt slippery.

If the lesson itself is unclear rather than the material, that is a defect: {{{{ issue_link("open an issue") }}}}.
"""


class NavError(ValueError):
    """`mkdocs.yml`'s nav is not one a page can be added to safely; the message names its line and the fix."""


#: A line break as YAML reads one, so that a position PyYAML reports is found in the text by the same count.
_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")


def add_to_nav(config: str, stage: int, stage_title: str, page: str) -> str:
    """`mkdocs.yml`'s text with `page` listed last under its stage, or under a new stage section placed in order.

    The stage's section is found as YAML reads its title, whatever its quoting (`'Stage 8: …'` too), and the
    page becomes one more line of its block list, at that list's indentation.

    Raises:
        NavError: mkdocs.yml does not read as YAML; its nav or the stage's section is not a block list (a flow
            sequence `[…]`, say), which a line cannot be added to; or the edit would not leave the nav listing
            the page once, under its stage.
    """
    nav = _read_nav(config)
    sections = [(number, item) for item in nav.value if (number := _stage_of(item)) is not None]
    current = next((item for number, item in sections if number == stage), None)
    if current is not None:
        ((key, entries),) = current.value
        where = key.start_mark
        entries = _block_list(entries, f"the nav section {key.value!r}", where)
        at = _end_of_line(config, _last_index(entries))
        edited = _insert(config, at, f"{' ' * entries.start_mark.column}- {page}\n")
    else:
        where = nav.start_mark
        edited = _insert(config, _new_section_at(config, nav, stage), _new_section(nav, stage, stage_title, page))
    _check_listed(edited, stage, page, where)
    return edited


def _read_nav(config: str) -> yaml.SequenceNode:
    """The `nav:` of mkdocs.yml's text, composed as YAML reads it: each title as its quoting gives it, each entry
    at the place it is written. Composing constructs no tag, so MkDocs's own (`!ENV`) need no loader."""
    try:
        root = yaml.compose(config, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"mkdocs.yml:{mark.line + 1}" if mark else "mkdocs.yml"
        problem = getattr(error, "problem", None) or error
        raise NavError(f"{where}: it does not read as YAML ({problem}): correct it, and run it again") from None
    pairs = root.value if isinstance(root, yaml.MappingNode) else []
    nav = next((value for key, value in pairs if isinstance(key, yaml.ScalarNode) and key.value == "nav"), None)
    if nav is None:
        raise NavError("mkdocs.yml has no nav: to list the page in: write one, a block list, and run it again")
    return _block_list(nav, "the nav", nav.start_mark)


def _block_list(node: yaml.Node, what: str, where: yaml.Mark) -> yaml.SequenceNode:
    """`node` if it is a list written one `- entry` a line, the only kind a line can be added to without
    rewriting it; refused at `where` otherwise."""
    if isinstance(node, yaml.SequenceNode) and not node.flow_style:
        return node
    written = "a flow sequence ([...])" if isinstance(node, yaml.SequenceNode) else "not a list"
    raise NavError(
        f"mkdocs.yml:{where.line + 1}: {what} is {written}; new_lesson adds a page to a block list only: write"
        " it as one, a `- page.md` a line, and run it again"
    )


def _title(item: yaml.Node) -> str | None:
    """The title of a nav entry `Title: target`, as YAML reads it; None for a bare page."""
    if isinstance(item, yaml.MappingNode) and len(item.value) == 1 and isinstance(item.value[0][0], yaml.ScalarNode):
        return str(item.value[0][0].value)
    return None


def _stage_of(item: yaml.Node) -> int | None:
    """The number of the stage a nav entry is the section of, by its title `Stage N: …`; None for another entry."""
    found = re.match(r"Stage ([0-9]+):", _title(item) or "")
    return int(found.group(1)) if found else None


def _last_index(node: yaml.Node) -> int:
    """The position of the last character `node` is written with. A block collection's own end is where the
    next entry starts, past any comment, so its end is that of its last scalar or flow collection."""
    if not isinstance(node, yaml.CollectionNode) or node.flow_style:
        return max(node.end_mark.index - 1, node.start_mark.index)
    children = node.value if isinstance(node, yaml.SequenceNode) else [part for pair in node.value for part in pair]
    return max(_last_index(child) for child in children)


def _end_of_line(config: str, index: int) -> int:
    """The start of the line after the one that holds position `index` (the text's end on its last line)."""
    found = _BREAK.search(config, index)
    return found.end() if found else len(config)


def _insert(config: str, at: int, lines: str) -> str:
    """`config` with `lines` put at `at`, the start of a line, or its end: a last line without a break gets one."""
    if at == len(config) and config and not _BREAK.match(config, at - 1):
        lines = "\n" + lines
    return config[:at] + lines + config[at:]


def _new_section_at(config: str, nav: yaml.SequenceNode, stage: int) -> int:
    """Where a new section for `stage` goes: before the first later stage's, or the glossary, or last in the nav."""
    later = [item for item in nav.value if (number := _stage_of(item)) is not None and number > stage]
    glossary = [item for item in nav.value if _title(item) == "Glossary"]
    if later or glossary:
        mark: yaml.Mark = (later or glossary)[0].start_mark
        return mark.index - mark.column
    return _end_of_line(config, _last_index(nav))


def _new_section(nav: yaml.SequenceNode, stage: int, stage_title: str, page: str) -> str:
    """The lines of a new stage section listing `page`, at the nav's indentation."""
    indent = " " * nav.start_mark.column
    # JSON's quoted string is YAML's too: a stage's title may hold a quote or a colon.
    title = json.dumps(f"Stage {stage}: {stage_title}", ensure_ascii=False)
    return f"{indent}- {title}:\n{indent}    - {page}\n"


def _check_listed(edited: str, stage: int, page: str, where: yaml.Mark) -> None:
    """Refuse an edit after which mkdocs.yml does not read, or its nav does not list `page` once, in its stage's
    section: the places above are YAML's, but YAML allows more than they account for (a page listed already, an
    anchor shared by two sections), and the text the tool writes is no worse than the one it read."""
    try:
        nav: yaml.Node | None = _read_nav(edited)
    except NavError:
        nav = None
    sections = [item for item in (nav.value if isinstance(nav, yaml.SequenceNode) else []) if _stage_of(item) == stage]
    if nav is None or not sections or _count(nav, page) != 1 or _count(sections[0], page) != 1:
        title = f"Stage {stage}" if not sections else _title(sections[0])
        raise NavError(
            f"mkdocs.yml:{where.line + 1}: adding {page} under {title!r} would not leave the nav listing it once, in"
            " that section; mkdocs.yml is left as it was: list the page there by hand"
        )


def _count(node: yaml.Node, page: str) -> int:
    """How many times `node` lists `page`, an alias counted at each place it is used."""
    if isinstance(node, yaml.ScalarNode):
        return int(node.value == page)
    children = node.value if isinstance(node, yaml.SequenceNode) else [part for pair in node.value for part in pair]
    return sum(_count(child, page) for child in children)


def main(argv: Sequence[str] | None = None) -> int:
    """Write the lesson and list it; see the module's docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("number", type=whole_number)
    parser.add_argument("stage", type=whole_number)
    parser.add_argument("mission", type=whole_number, help="the number of the mission bullet it serves")
    parser.add_argument("title", help="the title in words, without 'Lesson N.'")
    parser.add_argument("--prerequisites", type=numbers, nargs="*", default=[], help="lesson numbers, such as 7 8")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    arguments.prerequisites = [number for group in arguments.prerequisites for number in group]
    root: Path = arguments.root
    try:
        catalog = load_catalog(root / "catalog")
        lessons = index_lessons(root / "docs").lessons
    except CatalogError as error:  # the build's own one-line message, at its file and line
        print(f"new_lesson: {error}", file=sys.stderr)
        return 2
    except LessonError as error:  # at its page's path from the repository's root, as the build says it
        print(f"new_lesson: {error}", file=sys.stderr)
        return 2
    problems = title_problems(arguments.title)
    if not slug(arguments.title):
        problems.append("the title gives no file name: it needs a word in Latin letters or digits (not transliterated)")
    repeated = sorted({n for n in arguments.prerequisites if arguments.prerequisites.count(n) > 1})
    problems += [f"prerequisite Lesson {n} is given twice; keep one" for n in repeated]
    if arguments.number in lessons:
        problems.append(f"Lesson {arguments.number} exists already: docs/{lessons[arguments.number].src_path}")
    if arguments.stage not in catalog.stages:
        problems.append(f"stage {arguments.stage} has no title in catalog/course.yml; add it there first")
    if not 1 <= arguments.mission <= len(catalog.mission):
        problems.append(f"mission bullet {arguments.mission} does not exist; there are {len(catalog.mission)}")
    problems += [f"prerequisite Lesson {n} does not exist" for n in arguments.prerequisites if n not in lessons]
    page = page_path(arguments.number, arguments.stage, arguments.title)
    if (root / "docs" / page).exists():
        problems.append(f"docs/{page} exists already")
    config = root / "mkdocs.yml"
    listed = None
    if arguments.stage in catalog.stages:  # the nav as it will be, before anything is written
        try:
            listed = add_to_nav(
                config.read_text(encoding="utf-8"), arguments.stage, catalog.stages[arguments.stage].title, page
            )
        except NavError as error:
            problems.append(str(error))
    if problems or listed is None:  # no listing only for a stage without a title, a problem already
        print("\n".join(f"new_lesson: {problem}" for problem in problems), file=sys.stderr)
        return 2
    path = root / "docs" / page
    path.parent.mkdir(parents=True, exist_ok=True)
    bullet = catalog.mission[arguments.mission - 1]
    text = skeleton(
        arguments.number, arguments.stage, arguments.mission, bullet, arguments.title, arguments.prerequisites
    )
    path.write_text(text, encoding="utf-8")
    config.write_text(listed, encoding="utf-8")
    print(f"wrote docs/{page} and listed it in mkdocs.yml; `make serve` to write it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
