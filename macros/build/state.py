"""One build's state: the course's data, the page being rendered, and every problem found.

`Build` holds what a build shares across pages (configuration, catalog, lessons,
glossary, the figures shown) and the page being rendered (`PageState`). A host
(`build.mkdocs` under MkDocs) hands it each page (`start_page`), has it render
the page's macro calls (`render`) and lets the Markdown extension of
`build.markdown` do the rest; after the last page, `finish` writes the site's
own files. Every problem is reported once, as `docs/<page>.md:<line>: <what>`,
in the terminal and in the page where it happened; a strict build fails on any
of them. Nothing here knows which generator runs it.
"""

from __future__ import annotations

import logging
import posixpath
import re
import unicodedata
import xml.etree.ElementTree as etree
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from html import escape as escape_attribute
from html import unescape as html_text
from pathlib import Path
from typing import Any, TypeVar, cast

from markdown import Markdown, util
from markdown.util import AMP_SUBSTITUTE, HTML_PLACEHOLDER_RE

from ..data import glossary, lessons
from ..data.catalog import Catalog, CatalogError, load_catalog
from ..data.config import ConfigError, CourseConfig, course_config, navigation_problems
from ..data.markup import PLAIN_FIELDS, markup_in, source_citations, without_citations, without_markup
from ..data.nesting import MAX_NESTING, too_deep
from ..data.schema import CONTROL
from ..data.scripts import (
    ALLOWED_ELEMENTS,
    AUTHOR_ATTRIBUTES,
    AUTHOR_CLASSES,
    ScriptFound,
    attributes_not_allowed,
    heading_lines,
    headings_renamed,
    ids_given_twice,
    lines_repeating_id,
    markup_not_allowed,
    reserved_id,
    script_in,
)
from ..data.typed_figures import FIGURE, TypedFigure, find_in_text, lines_of, typed_figures
from ..data.unrendered import unrendered
from ..figures.figure import FigureLog, render_html, tooltip
from ..figures.kinds import KINDS, FigureKindError, check_measured, check_printed
from ..pages import front_door, issues, reading
from ..pages.lesson_head import with_head
from ..quiz import KeyFigure, ReportedAlready
from ..quiz.units import UnitTableError, unit_table
from ..quiz.verdicts import verdict_digest
from . import tooltips
from .assets import strip_site_assets
from .calls import Call, code_ranges, in_code, render_calls
from .search import defer_search_docs

# The name MkDocs' strict mode counts errors under (any logger under "mkdocs").
log = logging.getLogger("mkdocs.plugins.macros.course")

#: A lesson's question ids and rep ids, in page order.
#: A lesson's question and rep ids, in its order, and each question's answers as the page's form takes them (its
#: kind and its options' values), so that the home page reads a stored answer as the lesson does (course.js).
LessonItems = dict[str, Any]

#: The inputs of a choice question, whose values are its options.
CHOICES = ("radio", "checkbox")
#: Private-use characters around a token's number: plain text to Markdown, and never typed by an author.
TOKEN_OPEN, TOKEN_CLOSE = "\ue000", "\ue001"
TOKEN = re.compile(f"{TOKEN_OPEN}(\\d+){TOKEN_CLOSE}")
#: Where the syllabus keeps a lesson's reading time (`front_door.READING_ELEMENT`), as the page is written.
_READING_PLACE = re.compile(r'<span class="sbn-lesson-reading" data-sbn-reading="(\d+)"></span>')
#: A stash placeholder at the start of a text, as Python-Markdown writes it (`markdown.util`).
_PLACEHOLDER = re.compile(rf"\s*({util.HTML_PLACEHOLDER_RE.pattern})")

#: What of a piece of Markdown is an address, not text: a link's target, an autolink, a tag.
_MARKDOWN_ADDRESS = re.compile(r"\]\([^)]*\)|<[^>]*>")

#: The last data each course (by its folder) loaded without a problem, for `Build._data`.
_LAST_GOOD: dict[tuple[str, str], Any] = {}
T = TypeVar("T")

#: Data read by a build, by name, with the contents of the files it came from: kept between `mkdocs serve`
#: rebuilds, and between builds of copies of the course in one process, while those are the same (one
#: version of each is enough). Reading a few small files costs far less than checking what they say.
_CACHE: dict[str, tuple[tuple[Any, ...], Any]] = {}


class BuildError(Exception):
    """The course cannot be built at all (its configuration or a data file, on a first build): the host stops."""


@dataclass(frozen=True)
class PageSource:
    """A page as its host hands it over, before its Markdown is converted."""

    src_path: str
    url: str
    title: str
    #: The page's front matter, as the host keeps it: what the build writes into it reaches the theme's templates.
    meta: MutableMapping[str, Any]
    #: The whole file, front matter included, to number lines as the author sees them.
    source: str
    #: The Markdown the host converts (the file after its front matter).
    markdown: str


def relative_url(url: str, from_url: str) -> str:
    """The address of site path `url` from page address `from_url`, as a link in that page writes it."""
    base = (
        from_url if from_url.endswith("/") or "." not in posixpath.basename(from_url) else posixpath.dirname(from_url)
    )
    relative = posixpath.relpath("/" + url, "/" + base)
    return relative + "/" if url.endswith("/") else relative


def _contents(path: Path) -> bytes | str:
    """What `path` holds, to compare; for one that cannot be read (a folder), why: `load` reports it, with
    the file's name, through the one reader of data files (`schema.read_text`)."""
    try:
        return path.read_bytes() if path.is_file() else "not a file"
    except OSError as error:
        return str(error)


def _cached(name: str, paths: list[Path], load: Callable[[], Any]) -> Any:
    """`load()`, or what it returned for `name` last time if the files of `paths` (by folder, name and
    content) are the same."""
    key = tuple((path.parent.name, path.name, _contents(path)) for path in sorted(paths))
    if name not in _CACHE or _CACHE[name][0] != key:
        _CACHE[name] = (key, load())
    return _CACHE[name][1]


#: The elements toc gives an id from their text.
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


@dataclass
class PageState:
    """The page being rendered: where it comes from, and what it has shown and reported so far."""

    src_path: str
    url: str
    title: str
    source: str
    #: The file's line number of the Markdown's first line, after the front matter.
    first_line: int
    lesson: lessons.Lesson | None
    #: The page's front matter, as its host keeps it (`PageSource.meta`).
    meta: MutableMapping[str, Any] = field(default_factory=dict)
    linked_terms: set[str] = field(default_factory=set)
    #: HTML the page's macros returned, by token number, with the key figure it shows, if it is one figure.
    html: list[tuple[str, KeyFigure | None]] = field(default_factory=list)
    #: The key figure of each stash placeholder Markdown gave a figure's HTML.
    placeholders: dict[str, KeyFigure] = field(default_factory=dict)
    #: The tokens, then the stash placeholders, that stand for a problem reported already (a failed macro call).
    problem_tokens: set[int] = field(default_factory=set)
    problem_placeholders: set[str] = field(default_factory=set)
    #: How many charts, diagrams and calculators the page has drawn so far, for their element ids.
    counters: dict[str, int] = field(default_factory=dict)
    #: The scripts and style sheets of ours the page has loaded so far (its first picture loads them).
    scripts: set[str] = field(default_factory=set)

    #: The stash placeholders that stand for HTML the build made (figures, pictures, links from data, boxes):
    #: the page's own text is the rest, read for typed figures without them.
    ours: set[str] = field(default_factory=set)
    #: The HTML blocks the author typed, by stash index, as Markdown first stashed them: md_in_html takes the
    #: ones marked `markdown` out of the stash later, into the page's tree, where they read as Markdown's own.
    typed_blocks: dict[int, str] = field(default_factory=dict)
    #: The stash placeholders of fenced code, as the highlighter wrote it (`build.markdown`).
    code: set[str] = field(default_factory=set)
    #: Each element of the page's tree with its attributes before attribute lists were read: what an author
    #: gave with `{: ... }` (or toc with a heading's text) is what differs once they were.
    attributes_before: list[tuple[etree.Element, dict[str, str]]] = field(default_factory=list)
    #: The problems reported on the page, as reported (a box that repeats one is not read again).
    reported: set[str] = field(default_factory=set)
    #: Typed figures already reported at the line of the macro call whose output holds them.
    inserted: set[str] = field(default_factory=set)
    #: The page's Markdown as the author wrote it, after the front matter: where a typed figure's line is found.
    markdown: str = ""

    def ident(self, what: str) -> str:
        """An element id for the page's next `what` (chart, diagram, calculator): `sbn-chart-1`, ..."""
        self.counters[what] = self.counters.get(what, 0) + 1
        return f"sbn-{what}-{self.counters[what]}"

    #: What the tooltip of each figure the page shows says beyond its title, by figure id (`figures.tooltip`).
    tooltips: dict[str, dict[str, Any]] = field(default_factory=dict)

    def token(self, html: str, key: KeyFigure | None = None) -> str:
        """A token that stands for `html` in the page's Markdown until Markdown stashes it (see `build.markdown`).

        Inline HTML costs Markdown's inline parser a pass over every tag and attribute; a stashed
        placeholder costs nothing, and the HTML is put back as it is.
        """
        self.html.append((html, key))
        return f"{TOKEN_OPEN}{len(self.html) - 1}{TOKEN_CLOSE}"

    def field_line(self, name: str) -> int | None:
        """The line of the page's front matter that sets the field `name`, however YAML lets it be written
        (`title :`, `"title":`), never a line of the page's text."""
        return lessons.field_lines(self.source).get(name)

    def line_of(self, text: str | None) -> int | None:
        """The first line of the page's source that contains `text`."""
        if not text:
            return None
        for number, line in enumerate(self.source.splitlines(), start=1):
            if text in line:
                return number
        return None

    def lines_holding(self, *texts: str, read: bool = False, fold: bool = False) -> list[int]:
        r"""The lines of the page's source that hold every one of `texts` (none when one is empty), in order; with
        `read`, as the lines read once their character references and Markdown's backslash escapes are
        (`&#115;` as "s", `\(` as "("); with `fold`, in any
        case (an element's name: `<foreignObject>` is found as `<foreignobject`)."""
        if not all(texts):
            return []
        lines = self.source.splitlines()
        if read:
            lines = [html_text(_BACKSLASH_ESCAPE.sub(r"\1", line)) for line in lines]
        if fold:
            lines, texts = [line.lower() for line in lines], tuple(text.lower() for text in texts)
        return [number for number, line in enumerate(lines, start=1) if all(t in line for t in texts)]

    def attribute_lines(self, name: str) -> list[int]:
        """The lines of the page's source where `name` is written as an attribute: in a tag, or in an attribute
        list (an empty `hidden` is found there, not in a sentence that says "hidden")."""
        written = re.compile(rf"(?:<[a-z][^<>]*|\{{[^{{}}\n]*)(?<![\w-]){re.escape(name)}(?![\w-])", re.IGNORECASE)
        return [number for number, line in enumerate(self.source.splitlines(), start=1) if written.search(line)]

    def script_lines(self) -> Callable[[ScriptFound], int | None]:
        """A finder of the line each finding of a page was typed on, asked of the findings in the page's order:
        the next line not yet told of those holding its attribute's name and value, or else its value, or else
        those (or the value alone) as its line reads once its character references are read, or else its name
        (a span's onclick and an attribute list's give the same words on two lines); None when the source spells
        none of them."""
        told: dict[tuple[int, ...], int] = {}

        def line(script: ScriptFound) -> int | None:
            # A value spelt with character references ("java&#115;cript:x") reads as itself once they are read.
            lines = tuple(
                self.lines_holding(script.name, script.value)
                or self.lines_holding(script.value)
                or self.lines_holding(script.name, script.value, read=True)
                # A Markdown link's address names no attribute: "[x](&#106;avascript:…)".
                or self.lines_holding(script.value, read=True)
                or self.attribute_lines(script.name)
                or self.lines_holding(script.name, fold=True)
            )
            if not lines:
                return None
            occurrence = told[lines] = told.get(lines, -1) + 1
            return lines[min(occurrence, len(lines) - 1)]

        return line


class Build:
    """The course's state for one build."""

    def __init__(self, conf: Mapping[str, Any], url_of: Callable[[str], str]) -> None:
        """The build of the course that configuration `conf` describes (the host's loaded `mkdocs.yml`, with
        `config_file_path` and `docs_dir`); `url_of` gives a docs page's address in the site, as the host
        writes it (`stage-4/lesson-08-…/`).

        Raises:
            BuildError: the configuration is wrong, or a data file is and no good version was loaded before.
        """
        self.url_of = url_of
        #: Problems with the course as a whole (a data file), shown at the top of every page.
        self.site_problems: list[str] = []
        self.problems: list[str] = []
        try:
            self.config: CourseConfig = course_config(conf)
        except ConfigError as error:
            raise BuildError(str(error)) from None
        #: The navigation's problems, told at their lines of mkdocs.yml and at the top of every page, which meanwhile
        #: shows the navigation without them (`navigation.cleaned`, `nav`): under `mkdocs serve` a refused title
        #: stopped the build, and the server answered no request until mkdocs.yml was fixed.
        self.nav_problems = navigation_problems(conf)
        for problem in self.nav_problems:
            self.site_problems.append(f"{problem} (until it is fixed, the navigation shows it without that)")
            log.error(problem)
        catalog_files = sorted(self.config.catalog_dir.glob("*.yml"))
        self.catalog: Catalog = self._data("catalog", lambda: _cached("catalog", catalog_files, self._load_catalog))
        #: The sources' citations as pages show them, which a macro's output is read past for typed figures.
        self.citations = source_citations(self.catalog.sources.values())
        self.lessons = self._data("lessons", lambda: lessons.index_lessons(self.config.docs_dir))
        self.glossary = self._data(
            "glossary",
            lambda: _cached(
                "glossary",
                [*catalog_files, self.config.glossary_file, self.config.docs_dir / self.config.glossary_page],
                lambda: glossary.load_glossary(
                    self.config.glossary_file,
                    self.catalog.sources,
                    self.config.relative(self.config.glossary_file),
                    self._glossary_page_ids(),
                ),
            ),
        )
        try:
            # Read here, before any page, not by the first page with a numeric question: its problem is the
            # file's, not that page's. (Read again only when it changes; the pages' quizzes read it too.)
            unit_table()
        except UnitTableError as error:
            raise BuildError(str(error)) from None
        unknown_stages = sorted({lesson.stage for lesson in self.lessons.lessons.values()} - set(self.catalog.stages))
        if unknown_stages:
            raise BuildError(
                f"lessons name stage(s) {unknown_stages} that {self.catalog_file('course')} does not title; "
                f"known stages: {sorted(self.catalog.stages)}"
            )
        try:
            self.term_usages = glossary.usages(self.config.docs_dir, self.glossary)
        except glossary.GlossaryError as error:  # a page turned unreadable under `mkdocs serve`: MkDocs reads it next
            raise BuildError(str(error)) from None
        self.commit = issues.built_commit(self.config.project_dir)
        self.figure_log = FigureLog()
        self.page: PageState | None = None
        #: The page that first gave each question and rep id, so that the next to give it is told at its own line.
        self.question_pages: dict[str, str] = {}
        #: Each lesson's question and rep ids, by lesson number, filled as the lessons are converted.
        self.lesson_items: dict[int, LessonItems] = {}
        #: Each lesson's words, read straight through, by lesson number, counted as the lessons are converted.
        self.reading_words: dict[int, int] = {}
        #: Each page's tooltip data for course.js, by source path, written beside the page (`tooltips`).
        self.figure_data: dict[str, dict[str, Any]] = {}
        #: The address of each page that has tooltip data, by source path.
        self.page_urls: dict[str, str] = {}
        #: Each page's source as converted, by source path: where a problem found in the written page is told.
        self.page_sources: dict[str, str] = {}
        #: The page's macros by name, filled by the host (`build.macros.course_macros`).
        self.macros: dict[str, Callable[..., str]] = {}

    def _data(self, name: str, load: Callable[[], T]) -> T:
        """The course's data `name`, loaded; on a problem, the last good version this process loaded, if any.

        Under `mkdocs serve` a slip in a data file then shows at the top of every page, and the site
        keeps rendering; without a good version to fall back on (a first build, `mkdocs build`), the
        build stops with the problem. Either way the problem is logged, and a strict build fails.
        """
        key = (name, str(self.config.project_dir))
        try:
            data = load()
        except (CatalogError, FigureKindError, lessons.LessonError, glossary.GlossaryError) as error:
            if key not in _LAST_GOOD:
                raise BuildError(str(error)) from None
            message = f"{error} (until it is fixed, pages use the last good {name})"
            self.site_problems.append(message)
            log.error(message)
            return cast(T, _LAST_GOOD[key])
        _LAST_GOOD[key] = data
        return data

    def _glossary_page_ids(self) -> set[str]:
        """The ids the glossary page's own Markdown gives (`glossary.page_ids`): none if it is not there yet."""
        page = self.config.docs_dir / self.config.glossary_page
        return glossary.page_ids(page.read_text(encoding="utf-8", errors="replace")) if page.is_file() else set()

    def _load_catalog(self) -> Catalog:
        catalog = load_catalog(self.config.catalog_dir)
        try:
            check_printed(catalog, KINDS)
            check_measured(catalog, KINDS)
        except FigureKindError as error:
            raise CatalogError(f"{self.config.relative(self.config.catalog_dir)}/{error}") from None
        return catalog

    def catalog_file(self, name: str) -> str:
        """A catalog file as the repository names it, for messages."""
        return f"{self.config.relative(self.config.catalog_dir)}/{name}.yml"

    # ------------------------------------------------------------------ problems

    def report(self, message: str, line: int | None = None) -> str:
        """Log a problem with the current page once, naming its file and line; return a box that shows it."""
        where = f"docs/{self.page.src_path}" if self.page else "docs"
        text = f"{where}:{line}: {message}" if line else f"{where}: {message}"
        if self.page is not None:
            self.page.reported.update((message, text))
        if text not in self.problems:
            self.problems.append(text)
            log.error(text)
        return problem_box(text, "span")

    # --------------------------------------------------------------------- pages

    def start_page(self, source: PageSource) -> str:
        """Before a page's Markdown is converted: note it, and check it if it is a lesson. Return the Markdown to
        build it from: the page's, without the lines nested beyond what the site reads (`data.nesting`)."""
        text, markdown, meta = source.source, source.markdown, source.meta
        offset = text[: len(text) - len(markdown)].count("\n") if text.endswith(markdown) else 0
        self.page_sources[source.src_path] = text
        self.page = PageState(
            src_path=source.src_path,
            url=source.url,
            title=source.title,
            source=text,
            first_line=offset + 1,
            lesson=self.lessons.at(source.src_path),
            meta=meta,
        )
        controls = list(_control_characters(text))
        for line, control in controls:
            self.report(
                f"the page holds {control} here, which a reader does not see as typed (a browser drops a NUL, draws"
                " most controls as a box, and a bidirectional control reorders the text after it): delete it",
                line,
            )
        if controls:
            # Built without them meanwhile, so that no other check reads them for something else (a private-use
            # character as the build's own placeholder of a figure, with 'GB' after it told as a typed unit).
            markdown = _PRIVATE_USE.sub("", CONTROL.sub("", markdown))
        deep, markdown = too_deep(markdown)
        for index in deep:
            self.report(
                f"this line is nested more than {MAX_NESTING} levels deep (a list item, an admonition, a quote, an"
                " HTML element or a /// block around it is a level, and so are four columns of indentation); the site"
                f" reads at most {MAX_NESTING} and leaves out every line beyond: nest fewer",
                self.page.first_line + index,
            )
        if self.page.lesson is None:  # a lesson's front matter has its schema (`data.lessons`)
            self._check_page_front_matter(meta)
        for name in ("title", "description"):
            value = meta.get(name)
            # A lesson's are checked with its front matter (`data.lessons`), before any page is built.
            typed = find_in_text(value) if isinstance(value, str) and self.page.lesson is None else []
            if typed:
                self.report(
                    f"the front matter's {name} types {', '.join(map(repr, typed))}; titles and descriptions show"
                    " no figures, since they cannot carry a computed one: say it in words",
                    self.page.field_line(name),
                )
            if isinstance(value, str) and markup_in(value):
                found = ", ".join(map(repr, markup_in(value)))
                self.report(f"the front matter's {name} holds {found}; {PLAIN_FIELDS}", self.page.field_line(name))
                meta[name] = without_markup(value)
        if self.page.lesson is not None:
            lesson = self.page.lesson
            try:
                lessons.check_sections(lesson.src_path, markdown, self.page.first_line)
                lessons.check_mission_link(lesson, markdown, self.catalog.mission, self.page.first_line)
            except lessons.LessonError as error:
                self.report(error.detail, error.line)
            for line, placeholder in lessons.placeholders_left(text):
                self.report(f"{placeholder!r} is the lesson skeleton's placeholder: write the lesson's own text", line)
            meta["issue_url"] = self.issue_url(issues.LESSON_FORM, {"title": f"Unclear: {lesson.title}"})
            meta["sbn_next"] = self.next_steps(lesson)
        self.page.markdown = markdown
        return markdown

    def render(self, markdown: str) -> str:
        """The page's Markdown with its macro calls rendered (`build.calls`), each problem reported at its line."""
        first_line = self.page.first_line if self.page else 1
        return render_calls(markdown, self.macros, self._report_call, first_line, self._check_output)

    def _report_call(self, line: int, message: str) -> str:
        """Report a macro call that failed; what stands in its place is known as a problem (`find_figure`)."""
        box = self.report(message, line)
        if self.page is None:
            return box
        self.page.problem_tokens.add(len(self.page.html))
        return self.page.token(box)

    def _check_lesson_headings(self, root: etree.Element, title: str) -> None:
        """A lesson's one top heading (`#`) is its title, as its front matter writes it: the browser's tab, the
        navigation and search show the front matter's, and a heading edited alone read otherwise on the page,
        silently (attack round 9); so did a second top heading. (What stands before it is not asked: the boxes of
        the site's problems do, on every page, while one is told.)"""
        assert self.page is not None
        source = self.page.source
        tops = [element for element in root if element.tag == "h1"]
        shown = _without_permalink("".join(tops[0].itertext())) if tops else ""
        if shown != title:
            lines = heading_lines(source, shown) if shown else []
            self.report(
                f"the lesson begins with the heading {shown!r}, and its front matter's title is {title!r}, which the"
                f" browser's tab, the navigation and search show: begin it with `# {title}`, or change both"
                if shown
                else f"the lesson does not begin with its title: begin it with `# {title}`, its front matter's title",
                lines[0] if lines else self.page.first_line,
            )
        for extra in tops[1:]:
            text = _without_permalink("".join(extra.itertext()))
            lines = heading_lines(source, text)
            self.report(
                f"{text!r} is a second top heading (#) of the lesson, whose one is its title: make it ## or lower",
                lines[0] if lines else None,
            )

    def _check_output(self, call: Call, output: str) -> None:
        """Report the typed figures in what a macro call returned (a label, a caption, a value from the catalog
        or the glossary), at the call's line: the page's own text is checked without it."""
        if self.page is None:
            return
        found: list[TypedFigure] = []
        for number in TOKEN.findall(output):
            html, key = self.page.html[int(number)]
            if key is None:  # a lone figure is what it says; a source's name is the source's own
                found += typed_figures(without_citations(html, self.citations))
        # Markdown made from data (the front door's), read without its links' addresses.
        words = _MARKDOWN_ADDRESS.sub(" ", TOKEN.sub(" ", output))
        found += [TypedFigure(text, "the text") for text in find_in_text(words)]
        # One argument may show in several places (a diagram's caption is its list's aria-label too): each typed
        # figure is told once, with every place it shows in.
        places: dict[str, list[str]] = {}
        for typed in found:
            places.setdefault(typed.text, [])
            if typed.where not in places[typed.text]:
                places[typed.text].append(typed.where)
        for text, wheres in places.items():
            self.page.inserted.add(text)
            self.report(
                f"{call.text}: {text!r} in {' and '.join(wheres)} of what it shows is a typed figure; it comes from"
                " the call's own arguments (a label, a caption) or from the data it shows (the catalog, the"
                " glossary): compute it with a figure macro, or leave the number out of that text",
                call.line,
            )

    def note_attributes(self, root: etree.Element) -> None:
        """Before attribute lists are read: each element's attributes, for `check_page` to tell which ones an
        author gave with `{: ... }` from those the page's Markdown made."""
        if self.page is not None:
            self.page.attributes_before = [(element, dict(element.attrib)) for element in root.iter()]

    def check_page(self, md: Markdown, root: etree.Element) -> None:
        """Once a page's Markdown is a tree: report anything in it that would run script, Markdown it left as
        typed, and every typed figure of the page's own text, each at the line it was typed on.

        The page's own text is its HTML without what the build put in it (figures, pictures, links made
        from data, boxes), which is checked where each call was made: no class or tag of the author's
        hides a number, and no number the build showed is taken for the author's.
        """
        page = self.page
        if page is None:
            return
        serialized = md.serializer(root)
        heading = _theme_title(md, root, page.ours)
        if heading is not None and markup_in(heading):
            marks = ", ".join(map(repr, markup_in(heading)))
            self.report(
                f"the page's first heading, which the theme takes for its title ({heading!r}), holds {marks} once its"
                f" character references are read; {PLAIN_FIELDS}",
                page.line_of("# "),
            )
        if page.lesson is not None:
            self._check_lesson_headings(root, page.lesson.title)
        script_line = page.script_lines()
        for script in script_in(_restored(md, serialized, page.ours, with_built=True)):
            self.report(
                f"the page's content holds {script.what}, which would run script in a reader's browser: a page is"
                " text, figures and the course's own pictures; remove it (no event handler, <script>, embedded"
                " document, javascript: or data: address: link to an https:// page, or to a file in docs/ by its path)",
                script_line(script),
            )
        own = _restored(md, serialized, page.ours, with_built=False)
        markup_line = page.script_lines()
        typed, code = _typed_and_code(md, page.ours, page.code, page.typed_blocks)
        for markup in markup_not_allowed(typed, own, code):
            if markup.name.startswith("<") or markup.name == "style":
                self.report(
                    f"the page's own HTML holds {markup.what}, which a page does not use: a page is text, figures"
                    " and the course's own pictures (a picture comes from a macro, a style from the course's style"
                    f" sheets); write Markdown, or HTML of these elements only: {', '.join(sorted(ALLOWED_ELEMENTS))}",
                    markup_line(markup),
                )
            else:
                self._report_attribute(markup, markup_line(markup))
        for element, before in page.attributes_before:
            given = {name: value for name, value in element.attrib.items() if before.get(name) != value}
            for attribute in attributes_not_allowed(str(element.tag), given) if given else ():
                if element.tag in _HEADINGS and attribute.name == "id":
                    # toc names a heading from its text, where no id is typed: the heading's line, either way.
                    lines = page.lines_holding(next((text.strip() for text in element.itertext() if text.strip()), ""))
                    self._report_attribute(attribute, lines[0] if lines else None)
                else:
                    self._report_attribute(attribute, markup_line(attribute))
        source_code = code_ranges(page.markdown)  # once a page, for the two source readings below
        for math_line, math in _escaped_math(page.markdown, page.first_line, source_code):
            shown = _BACKSLASH_ESCAPE.sub(r"\1", math)
            kind, read_as = (
                ("inline", r"\( and \) as escaped parentheses")
                if math[1] == "("
                else ("display", r"\[ and \] as escaped brackets")
            )
            self.report(
                f"{math!r} is MathJax's {kind} math: the site does not enable MathJax (mkdocs.yml's"
                f" markdown_extensions), so Markdown reads {read_as} and the page shows"
                f" {shown!r}; write the formula in words or in code",
                math_line,
            )
        seen: dict[str, int] = {}
        source = _comments_blanked(page.markdown, source_code)
        for syntax in unrendered(own):
            lines = lines_of(source, syntax.text, page.first_line)
            self.report(
                f"{syntax.text!r} is {syntax.what}: the site's Markdown does not read it (mkdocs.yml's"
                f" markdown_extensions), so the page shows it as typed; {syntax.fix}",
                lines[0] if lines else None,
            )
        # A heading's label in the table of contents (attr_list's data-toc-label), which toc took off the heading.
        own_labels = "".join(
            f"<p>{escape_attribute(label)}</p>" for label in _toc_labels(getattr(md, "toc_tokens", []))
        )
        # The page's own text with what a reader sees of the build's beside it (`_seen`): a term's words, a figure.
        read = _restored(md, serialized, page.ours, with_built=False, as_seen=True)
        for found in typed_figures(read + own_labels, figures=False, reported=page.reported):
            lines = lines_of(source, found.text, page.first_line)
            if not lines and found.text in page.inserted:
                continue  # a macro's output, reported at its call's line
            occurrence = seen[found.text] = seen.get(found.text, -1) + 1
            line = lines[min(occurrence, len(lines) - 1)] if lines else None
            hidden = "" if lines else " (written with markup or character references inside it: search the page)"
            if found.text.startswith(FIGURE):
                unit = found.text.replace(FIGURE, "").strip()
                self.report(
                    f"{unit!r} typed after a figure in {found.where} is a typed figure{hidden}: the figure is"
                    " computed, its unit is not; show a figure that measures in that unit (its macro writes the"
                    " unit), or leave the unit out",
                    line,
                )
                continue
            if FIGURE in found.text:
                joined = found.text.replace(FIGURE, "")
                self.report(
                    f"{joined!r} typed right before a figure in {found.where} is a typed figure{hidden}: it makes the"
                    " figure another number, which no formula computed; leave it out, or put a word between them",
                    line,
                )
                continue
            self.report(
                f"{found.text!r} in {found.where} is a typed figure{hidden}: compute it with a figure macro, such as"
                ' {{ value("gpt2-1.5b", "parameters") }}, or add the input to the catalog',
                line,
            )

    def _report_attribute(self, attribute: ScriptFound, line: int | None) -> None:
        """Report an attribute of the page's content that an author does not give (`attributes_not_allowed`)."""
        self.report(
            f"the page's content holds {attribute.what}: the theme's scripts and the course's find their own"
            " elements by such names, so content gives none; an element takes only the attributes"
            f" {', '.join(sorted(AUTHOR_ATTRIBUTES))}, a class only {', '.join(sorted(AUTHOR_CLASSES))}, and an id"
            " that starts neither with __ nor with sbn- (rename the heading, or leave the attribute out)",
            line,
        )

    def _check_page_front_matter(self, meta: MutableMapping[str, Any]) -> None:
        """Report, and take out of `meta`, each front matter field a page other than a lesson does not take.

        The theme writes a page's front matter into it as it is (an `author` into a meta tag, a `subtitle`
        into the navigation of every page), and some fields change the page's template (`template`, `icon`):
        only plain `title` and `description` (checked with a lesson's) and Material's `hide` are the course's.
        """
        assert self.page is not None
        for name in [name for name in meta if name not in _PAGE_FIELDS]:
            self.report(
                f"the front matter's {name!r} is not a field a page of the course takes: the theme writes it into"
                f" the page as it is, or changes the page's template; use only {', '.join(_PAGE_FIELDS)}",
                self.page.field_line(name),
            )
            del meta[name]
        for name in ("title", "description"):
            if name in meta and not isinstance(meta[name], str):
                self.report(
                    f"the front matter's {name} is {type(meta[name]).__name__} {meta[name]!r}, not text: the theme"
                    f" writes it into the page as Python prints it; write the {name} as one line of plain text",
                    self.page.field_line(name),
                )
                del meta[name]
        hidden = meta.get("hide", [])
        if not (isinstance(hidden, list) and all(part in _HIDEABLE for part in hidden)):
            self.report(
                f"the front matter's hide is {hidden!r}; write a list of what the page hides, of:"
                f" {', '.join(sorted(_HIDEABLE))}",
                self.page.field_line("hide"),
            )
            meta.pop("hide")

    # ------------------------------------------ what the page's macros and blocks ask

    def find_figure(self, text: str) -> KeyFigure | None:
        """The figure a numeric answer's text starts with (a stashed figure's placeholder), for its key."""
        match = _PLACEHOLDER.match(text)
        if not match or self.page is None:
            return None
        if match.group(1) in self.page.problem_placeholders:
            raise ReportedAlready("its first figure's macro call failed (reported above at its line)")
        return self.page.placeholders.get(match.group(1))

    def issue_url(self, form: str, fields: dict[str, str], any_page: bool = False) -> str | None:
        """A new issue on the course repository about this page, or None off a lesson unless `any_page`."""
        if self.page is None or (self.page.lesson is None and not any_page):
            return None
        context = issues.PageContext(
            lesson=self.page.title,
            page_url=f"{self.config.site_url}{self.page.url}",
            source_file=f"docs/{self.page.src_path}",
            commit=self.commit,
        )
        return issues.new_issue_url(self.config.repo_url, form, context, fields)

    def next_steps(self, lesson: lessons.Lesson) -> dict[str, Any]:
        """What follows `lesson`, as the lesson footer shows it (overrides/main.html): plain values, addresses as
        the site has them."""
        steps = front_door.next_steps(self.catalog, self.lessons, lesson)
        following = None
        if steps.lesson is not None:
            following = {
                "title": steps.lesson.title,
                "description": steps.lesson.description,
                "url": self.url_of(steps.lesson.src_path),
            }
        writing = [{"number": stage.number, "title": stage.title, "summary": stage.summary} for stage in steps.writing]
        return {"writing": writing, "lesson": following}

    def collect_items(self, root: etree.Element) -> None:
        """Note the question and rep ids a lesson asks, as its forms and checkboxes carry them for course.js."""
        if self.page is None or self.page.lesson is None:
            return
        forms = [form for form in root.iter("form") if form.get("data-quiz-id")]
        answers: dict[str, dict[str, Any]] = {}
        for form in forms:
            answers[form.get("data-quiz-id", "")] = {
                "kind": form.get("data-quiz-kind", ""),
                "options": [box.get("value", "") for box in form.iter("input") if box.get("type") in CHOICES],
            }
            verdict = verdict_digest(form)
            if verdict is not None:  # course.js stores it with a verdict; the home page counts only a current one
                form.set("data-quiz-verdict", verdict)
                answers[form.get("data-quiz-id", "")]["verdict"] = verdict
        self.lesson_items[self.page.lesson.number] = {
            "questions": [form.get("data-quiz-id", "") for form in forms],
            "reps": [box.get("data-rep-id", "") for box in root.iter("input") if box.get("data-rep-id")],
            "answers": answers,
        }

    def script(self, name: str) -> str | None:
        """The address of our script `name` from the current page, the first time the page asks for it.

        Scripts that only some pages need are loaded by those pages' content: Material's instant
        navigation runs the scripts of the content it swaps in, and so does a first load.
        """
        if self.page is not None and name in self.page.scripts:
            return None
        path = f"assets/javascripts/{name}"
        if self.page is None:
            return path
        self.page.scripts.add(name)
        return relative_url(path, self.page.url)

    def picture(self, html: str) -> str:
        """A picture's HTML (chart, diagram, schedule, calculator) for the page, with the pictures' style sheet once.

        Only pages with pictures need their styles, so those pages' content loads them, as it
        loads their scripts: every page's budget of our own script and style stays small.
        """
        if self.page is None:
            return html
        if "pictures.css" not in self.page.scripts:
            self.page.scripts.add("pictures.css")
            href = relative_url("assets/stylesheets/pictures.css", self.page.url)
            html = f'<link rel="stylesheet" href="{href}">{html}'
        return self.page.token(html)

    def add_question(self, question_id: str) -> str | None:
        """Note that the current page asks question (or rep) `question_id`; return what is wrong with the id, if
        anything, for the caller to tell at the line that gives it (a quiz's `id:`, a calculator's call).

        One message per id. An id off this lesson's prefix is told as that (and whose it is, if another page gave
        it) and not kept, so that the lesson whose prefix it carries is not told of it too; so is an id with a
        lesson's prefix on a page that is not a lesson, whichever came first; an id given a second time is told
        there.
        """
        if self.page is None:
            return None
        lesson, first = self.page.lesson, self.question_pages.get(question_id)
        if lesson is not None and not question_id.startswith(lesson.prefix):
            whose = f" (docs/{first}'s)" if first is not None and first != self.page.src_path else ""
            return (
                f"the question id {question_id!r}{whose} does not start with this lesson's prefix {lesson.prefix!r}:"
                f" a lesson's ids carry the prefix it was first published under, so write {lesson.prefix}… (or set"
                " `questions:` in the front matter of a lesson that has never been published; CONTRIBUTING.md,"
                ' "Add a quiz question")'
            )
        owner = None if lesson is not None else self.lessons.owner_of(question_id)
        if owner is not None:
            # Told here, whichever page came first: the lesson whose prefix it carries was blamed when it came later.
            return (
                f"the question id {question_id!r} carries the prefix {owner.prefix!r} of Lesson {owner.number}"
                f" (docs/{owner.src_path}), and this page is not that lesson: give it an id that starts with no"
                " lesson's prefix"
            )
        if first is not None:
            where = "this page" if first == self.page.src_path else f"docs/{first}"
            return (
                f"the question id {question_id!r} is already given on {where}: ids must be unique on the site, so"
                " that progress is kept apart; give this one its own"
            )
        self.question_pages[question_id] = self.page.src_path
        return None

    # ------------------------------------------------------- after the conversion

    def count_reading(self, src_path: str, url: str, html: str) -> str:
        """After a page is converted to `html`: if it is a lesson, count its words, and return it with its
        reading time (`pages.reading`) and progress line after its title (`pages.lesson_head`)."""
        lesson = self.lessons.at(src_path)
        if lesson is None:
            return html
        self.reading_words[lesson.number] = reading.count_words(html)
        return with_head(html, self._reading_time(lesson.number, src_path, url))

    def fill_page(self, src_path: str, url: str, output: str) -> str:
        """As a page is written: each lesson's reading time where the syllabus keeps its place
        (`front_door.READING_ELEMENT`), now that every lesson has been converted and counted; then the ids its
        elements share, which only the whole page shows, told at their lines."""

        def fill(match: re.Match[str]) -> str:
            number = int(match.group(1))
            if number not in self.reading_words:
                return ""
            return f'<span class="sbn-lesson-reading">{self._reading_time(number, src_path, url)}</span>'

        output = _READING_PLACE.sub(fill, output)
        for twice, count in ids_given_twice(output).items():
            if reserved_id(twice):
                continue  # an id the scripts look up, told at its line as that already (`check_page`)
            # The theme's scripts and the course's take the first element of an id, and the page's content comes
            # before the theme's own: whatever gave the content this id (a heading's text, data), it is refused,
            # at each line that repeats it (`{#id}`, `{: #id }`, `id="id"`, a block's `id:`), else the page's.
            lines = lines_repeating_id(self.page_sources.get(src_path, ""), twice, count)
            for where in [f"docs/{src_path}:{line}" for line in lines] or [f"docs/{src_path}"]:
                self.problems.append(
                    f"{where}: the page holds two elements with the id {twice!r}, and a page's scripts find the"
                    " first: rename what gives the page's content that id (a heading, a glossary term)"
                )
                log.error(self.problems[-1])
        source = self.page_sources.get(src_path, "")
        for renamed, heading in headings_renamed(output).items():
            # The toc extension keeps an id the author wrote and renames the heading whose text gives it, silently:
            # the heading's link in the table of contents then jumps to the other element. Told at the line that
            # writes it; two headings of one text, which no line writes, are the toc's own and fine.
            told = lines_repeating_id(source, heading.taken, 2)
            for line in told:
                self.problems.append(
                    f"docs/{src_path}:{line}: the page holds two elements with the id {heading.taken!r}: a"
                    f" heading's, which the table of contents renamed {renamed!r} (its link would jump here), and"
                    " this one's: give this element another id"
                )
                log.error(self.problems[-1])
            if told or heading.by_heading:
                continue
            # No line writes the id and no heading holds it: the course's own element does (a quiz's form is
            # `quiz-<id>`, a checklist's box `check-<id>`), and the heading's text is what gives it. Told there.
            lines = heading_lines(source, heading.text)
            for where in [f"docs/{src_path}:{line}" for line in lines] or [f"docs/{src_path}"]:
                self.problems.append(
                    f"{where}: the heading {heading.text!r} would have the id {heading.taken!r}, which a quiz's or"
                    f" checklist's element of the page holds, and the table of contents renamed it {renamed!r}:"
                    " give the heading other words or an id of its own ({#...})"
                )
                log.error(self.problems[-1])
        return output

    def keep_tooltip_data(self, page: PageState, data: dict[str, Any]) -> str:
        """Keep `page`'s tooltip data for `finish` to write beside it; the address the page gives it."""
        self.figure_data[page.src_path] = data
        self.page_urls[page.src_path] = page.url
        return tooltips.from_page(page.url)

    def _reading_time(self, lesson: int, src_path: str, url: str) -> str:
        """The element of a lesson's reading time, logged for figures.json and the tooltips of the page `src_path`
        that shows it."""
        figure = reading.reading_time(self.catalog, lesson, self.reading_words[lesson])
        shown = reading.display(figure)
        self.figure_log.add(src_path, url, figure, shown)
        if src_path in self.figure_data:
            self.figure_data[src_path]["figures"].setdefault(figure.id, tooltip(figure))
        return render_html(figure, shown)

    # ---------------------------------------------------------------- whole site

    def finish(self, site_dir: Path) -> None:
        """After the last page: write figures.json and each page's tooltip data, serve the course's own script
        and style without their comments, and keep the search index's pages apart."""
        self.page = None
        self.figure_log.write(site_dir / "figures.json")
        tooltips.write_tooltip_data(
            site_dir, {url: self.figure_data[src_path] for src_path, url in self.page_urls.items()}
        )
        log.info("figures.json: %s figures", len(self.figure_log.records()))
        strip_site_assets(self.config.docs_dir, site_dir)
        defer_search_docs(site_dir)


#: Unicode's private-use characters (the basic plane's and the two planes of them).
_PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")


def _control_characters(text: str) -> Iterator[tuple[int, str]]:
    r"""The first control character (`schema.CONTROL`) of each line of a page's `text` that holds one, as the line
    (numbered as an editor numbers them, by line feeds) and the character's code point and name.

    A private-use character too: no font draws it, and the build stands for its own placeholders with some (an
    author's U+E004 was told as a figure, `typed_figures.FIGURE`).

    >>> list(_control_characters("a\n80\x00 GB\nb\u202ec\n\ue004 GB"))
    [(2, 'U+0000 at column 3'), (3, 'U+202E RIGHT-TO-LEFT OVERRIDE at column 2'), (4, 'U+E004 at column 1')]
    """
    for number, line in enumerate(text.split("\n"), start=1):
        control = CONTROL.search(line) or _PRIVATE_USE.search(line)
        if control:
            name = unicodedata.name(control.group(0), "")
            yield number, f"U+{ord(control.group(0)):04X}{f' {name}' if name else ''} at column {control.start() + 1}"


def problem_box(message: str, tag: str) -> str:
    """The element that shows a problem in the page, where it happened."""
    escaped = message.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<{tag} class="sbn-build-error" role="alert">{escaped}</{tag}>'


#: What stands for the build's own HTML in a page's own text: a character no author types (private use), which
#: parts a number from a unit on either side of it and is no syntax of any kind.
_BUILT = "\ue003"
#: A glossary term's link as the build makes it (`glossary.term_link`), and its words; and a figure's element.
_TERM_LINK = re.compile(r'<a class="sbn-term"[^>]*>([^<]*)</a>')
_FIGURE_ELEMENT = re.compile(r'<span class="fig"[\s>].*</span>', re.DOTALL)


def _seen(html: str) -> str:
    """What a reader sees of a piece of the build's own HTML, beside the page's own words, as its typed figures are
    read: a term as its words ("16 {{ term('ranks') }}" reads "16 ranks", a typed figure), a figure as `FIGURE`
    (a unit typed after it is a typed figure), anything else as `_BUILT`. Each is checked where it was made
    (`Build._check_output`), so none of its own text is read here."""
    term = _TERM_LINK.fullmatch(html)
    if term is not None:
        return term.group(1)
    return FIGURE if _FIGURE_ELEMENT.fullmatch(html) and html.count("<span") == 1 else _BUILT


#: Markdown's backslash escape, in a page's source: of the characters Python-Markdown escapes (with the site's
#: `|` and `^`); before any other, as before ":", the backslash stays.
_BACKSLASH_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|^>])")
#: A character Markdown's backslash escape holds until its unescape tree processor runs (`markdown.util`).
_ESCAPED = re.compile(f"{util.STX}([0-9]+){util.ETX}")
#: The front matter fields a page other than a lesson takes (a lesson's have their schema, `data.lessons`).
_PAGE_FIELDS = ("title", "description", "hide")
#: What Material's `hide` may hide of a page (a lesson's too: `data.lessons`).
_HIDEABLE = frozenset(lessons.HIDEABLE)


#: MathJax's inline math, `\(x\)`, on one line, and its display math, `\[x\]`, over as many lines as it takes: in the
#: HTML they are "(x)" and "[x]", brackets like any other, so a figure typed in one (`\[ 80\,\text{GB} \]`) was
#: read as "80\,\text{GB}", no figure; both are refused as what they are.
_ESCAPED_MATH = re.compile(r"\\\((?:(?!\\\)).)+\\\)|(?s:\\\[(?:(?!\\\]).)+\\\])")


#: An HTML comment, ended as the HTML standard ends one (`typed_figures._MARKUP`), or by the end of the page.
_COMMENT = re.compile(r"<!--(?:-?>|.*?--!?>|.*\Z)", re.DOTALL)


def _comments_blanked(markdown: str, code: list[tuple[int, int]]) -> str:
    r"""`markdown` with its HTML comments outside code blanked, their line breaks kept: a reader never reads a
    comment, so a figure typed in one is no line of the same figure read later (attack round 8: one in an indented
    code block was reported at an earlier comment's line). In code a comment shows as typed, and stays.

    >>> text = "a <!-- 4\nGB --> b\n`<!-- c -->`"
    >>> _comments_blanked(text, code_ranges(text))
    'a       \n       b\n`<!-- c -->`'
    """
    return _COMMENT.sub(
        lambda comment: comment.group(0) if in_code(code, comment.start()) else re.sub(r"[^\n]", " ", comment.group(0)),
        markdown,
    )


def _escaped_math(markdown: str, first_line: int, code: list[tuple[int, int]]) -> list[tuple[int, str]]:
    r"""Each `\(…\)` and `\[…\]` of a page's Markdown outside code, with its line (where it starts): read in the source,
    since the page's HTML shows it as parentheses or brackets (ARCHITECTURE.md, "A build": every problem at its line).

    >>> text = "a\n\\(y\\) and `\\(z\\)`\n```\n\\(w\\)\n```\n\\[\n v \\]"
    >>> _escaped_math(text, 1, code_ranges(text))
    [(2, '\\(y\\)'), (6, '\\[\n v \\]')]
    """
    return [
        (first_line + markdown.count("\n", 0, match.start()), match.group(0))
        for match in _ESCAPED_MATH.finditer(markdown)
        if not in_code(code, match.start())
    ]


def _without_permalink(heading: str) -> str:
    """A heading's text as it reads, without the permalink toc gives it ("¶", which the tree holds as Markdown's
    placeholder of "&para;" until the page is written) and with its spaces collapsed."""
    return " ".join(html_text(heading.replace(AMP_SUBSTITUTE, "&")).split()).removesuffix("¶").rstrip()


def _theme_title(md: Markdown, root: etree.Element, built: set[str]) -> str | None:
    """The title a theme gives a page from its first heading, when the page begins with one: the heading's text
    as MkDocs takes it (tags stripped), its character references read as Material's `striptags` reads them. A
    "&lt;" typed in a heading becomes a "<" in the page's <title>, which the theme writes unescaped."""
    first = next(iter(root), None)
    if first is None or first.tag != "h1":
        return None
    inner = _restored(md, md.serializer(first), built, with_built=True)
    return html_text(re.sub(r"<[^>]*>", "", inner))


def _toc_labels(tokens: list[dict[str, Any]]) -> Iterator[str]:
    """The labels an author gave headings for the table of contents (`data-toc-label`), as toc keeps them."""
    for token in tokens:
        if token.get("data-toc-label"):
            yield str(token["data-toc-label"])
        yield from _toc_labels(token.get("children", []))


def typed_stash(md: Markdown, built: set[str]) -> dict[int, str]:
    """The HTML an author typed into a page, piece by piece as Markdown has stashed it so far, by stash index:
    the stash without the build's own pieces (`built`, by placeholder), each as HTML."""
    stash = md.htmlStash
    return {
        index: raw if isinstance(raw, str) else md.serializer(raw)
        for index, raw in enumerate(stash.rawHtmlBlocks)
        if stash.get_placeholder(index) not in built
    }


def _typed_and_code(
    md: Markdown, built: set[str], code: set[str], blocks: Mapping[int, str]
) -> tuple[list[str], list[str]]:
    """The HTML an author typed into a page, piece by piece, and apart from it the code pieces (`code`, by
    placeholder), from one read of the stash: the blocks as first stashed (`blocks`, which md_in_html has since
    emptied where it took one into the tree), then the inline pieces (`typed_stash`). What Markdown made of the
    page's text is not in either."""
    typed, fenced = list(blocks.values()), []
    for index, html in typed_stash(md, built).items():
        if md.htmlStash.get_placeholder(index) in code:
            fenced.append(html)
        elif index not in blocks:
            typed.append(html)
    return typed, fenced


def _restored(md: Markdown, html: str, built: set[str], *, with_built: bool, as_seen: bool = False) -> str:
    """`html` with the stash's placeholders put back as Markdown puts them back; without `with_built`, each of
    `built` (the build's own HTML) put back as `_BUILT`, and the author's as they are; with `as_seen` too, each
    of `built` as what a reader sees of it beside the author's words (`_seen`)."""
    stash = md.htmlStash.rawHtmlBlocks

    def piece(match: re.Match[str]) -> str:
        index = int(match.group(1))
        raw = stash[index] if index < len(stash) else None
        if not with_built and match.group(0) in built:
            return _seen(raw) if as_seen and isinstance(raw, str) else _BUILT
        if raw is None:
            return match.group(0)
        return raw if isinstance(raw, str) else md.serializer(raw)

    for _ in range(8):  # a stashed piece may hold another's placeholder (md_in_html's blocks do)
        restored = HTML_PLACEHOLDER_RE.sub(piece, html)
        if restored == html:
            break
        html = restored
    # A backslash escape (`\(`, `\ `) is still Markdown's placeholder here, and becomes its character after the
    # checks (Python-Markdown's unescape tree processor): read as that character, as the page will have it.
    html = _ESCAPED.sub(lambda match: escape_attribute(chr(int(match.group(1)))), html)
    return html.replace(AMP_SUBSTITUTE, "&")
