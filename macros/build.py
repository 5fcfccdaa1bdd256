"""One build's state, and the adapters between MkDocs pages and the pure modules.

`Build` holds what a build shares across pages (configuration, catalog, lessons,
glossary, the figures shown) and the page being rendered. It renders a page's
macro calls (`macros.calls`), gives the quiz extension what it asks of its host,
checks every page's HTML for typed figures, and reports every problem once, as
`docs/<page>.md:<line>: <what> ...`, in the terminal and in the page where it
happened. A strict build fails on any of them. This is the only module that
touches MkDocs or mkdocs-macros.
"""

from __future__ import annotations

import inspect
import logging
import re
import xml.etree.ElementTree as etree
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape as escape_attribute
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AMP_SUBSTITUTE, HTML_PLACEHOLDER_RE
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from . import course, glossary, issues, lessons, reading, schedules
from .assets import strip_site_assets
from .calculator import FIELDS as CALCULATOR_FIELDS
from .calculator import calculator_config, calculator_html
from .calculator import evaluate as evaluate_calculator
from .calls import Call, CallError, render_calls
from .catalog import Catalog, CatalogError, load_catalog
from .charts import ChartError, figure_chart
from .compiled_templates import CompiledTemplates
from .config import ConfigError, CourseConfig, course_config
from .diagrams import DIAGRAMS, DiagramError, frames_html
from .figures import Figure, FigureLog, render_html, tooltip, value_text
from .kinds import KINDS, FigureKind, FigureKindError, check_printed
from .markup import PLAIN_FIELDS, link_html, markup_in, script_json, source_html, without_markup
from .quantities import Display, check_display_options, display_quantity, with_defaults
from .quiz import KeyFigure, QuizExtension
from .scripts import ScriptFound, script_in
from .search import defer_search_docs
from .tables import TableError, figure_table
from .typed_figures import TypedFigure, find_in_text, lines_of, typed_figures
from .unrendered import unrendered

if TYPE_CHECKING:
    import jinja2
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page
    from mkdocs_macros.plugin import MacrosPlugin

log = logging.getLogger("mkdocs.plugins.macros.course")

#: A lesson's question ids and rep ids, in page order.
LessonItems = dict[str, list[str]]

#: Private-use characters around a token's number: plain text to Markdown, and never typed by an author.
_TOKEN_OPEN, _TOKEN_CLOSE = "\ue000", "\ue001"
_TOKEN = re.compile(f"{_TOKEN_OPEN}(\\d+){_TOKEN_CLOSE}")
_PLACEHOLDER = re.compile(r"\s*(\x02wzxhzdk:\d+\x03)")
#: What stands for a page's tooltip data until the page is written.
_FIGURE_DATA = f"{_TOKEN_OPEN}figures{_TOKEN_CLOSE}"
#: Where the syllabus keeps a lesson's reading time (`course.READING_ELEMENT`), as the page is written.
_READING_PLACE = re.compile(r'<span class="sbn-lesson-reading" data-sbn-reading="(\d+)"></span>')

#: What of a piece of Markdown is an address, not text: a link's target, an autolink, a tag.
_MARKDOWN_ADDRESS = re.compile(r"\]\([^)]*\)|<[^>]*>")

#: The last data each course (by its folder) loaded without a problem, for `Build._data`.
_LAST_GOOD: dict[tuple[str, str], Any] = {}
T = TypeVar("T")

#: Data read by a build, by name, with the contents of the files it came from: kept between `mkdocs serve`
#: rebuilds, and between builds of copies of the course in one process, while those are the same (one
#: version of each is enough). Reading a few small files costs far less than checking what they say.
_CACHE: dict[str, tuple[tuple[Any, ...], Any]] = {}


def _cached(name: str, paths: list[Path], load: Callable[[], Any]) -> Any:
    """`load()`, or what it returned for `name` last time if the files of `paths` (by folder, name and
    content) are the same."""
    key = tuple((path.parent.name, path.name, path.read_bytes()) for path in sorted(paths))
    if name not in _CACHE or _CACHE[name][0] != key:
        _CACHE[name] = (key, load())
    return _CACHE[name][1]


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
    linked_terms: set[str] = field(default_factory=set)
    #: HTML the page's macros returned, by token number, with the key figure it shows, if it is one figure.
    html: list[tuple[str, KeyFigure | None]] = field(default_factory=list)
    #: The key figure of each stash placeholder Markdown gave a figure's HTML.
    placeholders: dict[str, KeyFigure] = field(default_factory=dict)
    #: How many charts, diagrams and calculators the page has drawn so far, for their element ids.
    counters: dict[str, int] = field(default_factory=dict)
    #: The scripts and style sheets of ours the page has loaded so far (its first picture loads them).
    scripts: set[str] = field(default_factory=set)
    #: The stash placeholders that stand for HTML the build made (figures, pictures, links from data, boxes):
    #: the page's own text is the rest, read for typed figures without them.
    ours: set[str] = field(default_factory=set)
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
        """A token that stands for `html` in the page's Markdown until Markdown stashes it (see `_StashHtml`).

        Inline HTML costs Markdown's inline parser a pass over every tag and attribute; a stashed
        placeholder costs nothing, and the HTML is put back as it is.
        """
        self.html.append((html, key))
        return f"{_TOKEN_OPEN}{len(self.html) - 1}{_TOKEN_CLOSE}"

    def line_of(self, text: str | None) -> int | None:
        """The first line of the page's source that contains `text`."""
        if not text:
            return None
        for number, line in enumerate(self.source.splitlines(), start=1):
            if text in line:
                return number
        return None

    def lines_holding(self, *texts: str) -> list[int]:
        """The lines of the page's source that hold every one of `texts` (none when one is empty), in order."""
        if not all(texts):
            return []
        return [
            number for number, line in enumerate(self.source.splitlines(), start=1) if all(t in line for t in texts)
        ]

    def script_line(self, script: ScriptFound, occurrence: int) -> int | None:
        """The line `script` was typed on: its `occurrence`-th line (from 0) holding its attribute's name and
        value, or else its value, or else its name; None when the source spells it otherwise (with character
        references, or through a macro)."""
        lines = (
            self.lines_holding(script.name, script.value)
            or self.lines_holding(script.value)
            or self.lines_holding(script.name)
        )
        return lines[min(occurrence, len(lines) - 1)] if lines else None


class Build:
    """The course's state for one MkDocs build."""

    def __init__(self, env: MacrosPlugin) -> None:
        self.env = env
        #: Problems with the course as a whole (a data file), shown at the top of every page.
        self.site_problems: list[str] = []
        self.problems: list[str] = []
        try:
            self.config: CourseConfig = course_config(env.conf)
        except ConfigError as error:
            raise PluginError(str(error)) from None
        catalog_files = sorted(self.config.catalog_dir.glob("*.yml"))
        self.catalog: Catalog = self._data("catalog", lambda: _cached("catalog", catalog_files, self._load_catalog))
        self.lessons = self._data("lessons", lambda: lessons.index_lessons(self.config.docs_dir))
        self.glossary = self._data(
            "glossary",
            lambda: _cached(
                "glossary",
                [*catalog_files, self.config.glossary_file],
                lambda: glossary.load_glossary(
                    self.config.glossary_file, self.catalog.sources, self.config.relative(self.config.glossary_file)
                ),
            ),
        )
        unknown_stages = sorted({lesson.stage for lesson in self.lessons.lessons.values()} - set(self.catalog.stages))
        if unknown_stages:
            raise PluginError(
                f"lessons name stage(s) {unknown_stages} that {self.catalog_file('course')} does not title; "
                f"known stages: {sorted(self.catalog.stages)}"
            )
        self.term_usages = glossary.usages(self.config.docs_dir, self.glossary)
        self.commit = issues.built_commit(self.config.project_dir)
        self.figure_log = FigureLog()
        self._figures: dict[Any, tuple[Figure, Display]] = {}
        self.page: PageState | None = None
        self.question_pages: dict[str, list[str]] = {}
        #: Each lesson's question and rep ids, by lesson number, filled as the lessons are converted.
        self.lesson_items: dict[int, LessonItems] = {}
        #: Each lesson's words, read straight through, by lesson number, counted as the lessons are converted.
        self.reading_words: dict[int, int] = {}
        #: Each page's tooltip data for course.js, by source path, written into the page as it is written.
        self.figure_data: dict[str, dict[str, Any]] = {}
        # Like mkdocstrings, give the Markdown extensions that need the page an instance that knows the build.
        env.conf["markdown_extensions"].extend([QuizExtension(host=_QuizHost(self)), _ChecksExtension(self)])
        # The theme's templates compiled once, not at every build: MkDocs' `env` event hands over the
        # theme's Jinja environment before any template is loaded. (Registered here, not by a plugin of
        # ours, MkDocs' debug log names its plugin '<unknown>'.)
        env.conf.plugins.events["env"].append(self._keep_compiled_templates)
        # A lesson's reading time, from its HTML once converted, for its title and the home page's syllabus.
        env.conf.plugins.events["page_content"].append(self._count_reading)
        env.conf.plugins.events["post_page"].append(self._fill_reading)

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
                raise PluginError(str(error)) from None
            message = f"{error} (until it is fixed, pages use the last good {name})"
            self.site_problems.append(message)
            log.error(message)
            return cast(T, _LAST_GOOD[key])
        _LAST_GOOD[key] = data
        return data

    def _keep_compiled_templates(
        self, jinja_env: jinja2.Environment, /, *, config: MkDocsConfig, files: Files
    ) -> jinja2.Environment:
        """Give the theme's environment a bytecode cache (`macros.compiled_templates`) in the user's cache folder."""
        root = self.config.template_cache
        cache = CompiledTemplates.for_environment(jinja_env, root) if root is not None else None
        if cache is not None:
            jinja_env.bytecode_cache = cache
        return jinja_env

    def _count_reading(self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """After a lesson is converted: count its words, and give its template its reading time (`macros.reading`)."""
        lesson = self.lessons.at(page.file.src_path)
        if lesson is not None:
            self.reading_words[lesson.number] = reading.count_words(html)
            page.meta["sbn_reading"] = self._reading_time(lesson.number, page.file.src_path, page.url)
        return html

    def _fill_reading(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        """As a page is written: each lesson's reading time where the syllabus keeps its place
        (`course.READING_ELEMENT`), now that every lesson has been converted and counted, then the page's
        tooltip data, reading times included."""
        src_path = page.file.src_path

        def fill(match: re.Match[str]) -> str:
            number = int(match.group(1))
            if number not in self.reading_words:
                return ""
            return f'<span class="sbn-lesson-reading">{self._reading_time(number, src_path, page.url)}</span>'

        output = _READING_PLACE.sub(fill, output)
        data = self.figure_data.get(src_path)
        return output if data is None else output.replace(_FIGURE_DATA, escape_attribute(script_json(data)), 1)

    def _reading_time(self, lesson: int, src_path: str, url: str) -> str:
        """The element of a lesson's reading time, logged for figures.json and the tooltips of the page `src_path`
        that shows it."""
        figure = reading.reading_time(self.catalog, lesson, self.reading_words[lesson])
        shown = reading.display(figure)
        self.figure_log.add(src_path, url, figure, shown)
        if src_path in self.figure_data:
            self.figure_data[src_path]["figures"].setdefault(figure.id, tooltip(figure))
        return render_html(figure, shown)

    def _load_catalog(self) -> Catalog:
        catalog = load_catalog(self.config.catalog_dir)
        try:
            check_printed(catalog, KINDS)
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
        return _box(text, "span")

    # --------------------------------------------------------------------- pages

    def start_page(self) -> None:
        """Before a page's Markdown is converted: check it if it is a lesson, and render its macro calls."""
        page = self.env.page
        source = page.file.content_string
        markdown = self.env.markdown
        offset = source[: len(source) - len(markdown)].count("\n") if source.endswith(markdown) else 0
        self.page = PageState(
            src_path=page.file.src_path,
            url=page.url,
            title=str(page.meta.get("title") or page.title or page.file.src_path),
            source=source,
            first_line=offset + 1,
            lesson=self.lessons.at(page.file.src_path),
        )
        for name in ("title", "description"):
            value = page.meta.get(name)
            # A lesson's are checked with its front matter (`macros.lessons`), before any page is built.
            typed = find_in_text(value) if isinstance(value, str) and self.page.lesson is None else []
            if typed:
                self.report(
                    f"the front matter's {name} types {', '.join(map(repr, typed))}; titles and descriptions show"
                    " no figures, since they cannot carry a computed one: say it in words",
                    self.page.line_of(f"{name}:"),
                )
            if isinstance(value, str) and markup_in(value):
                found = ", ".join(map(repr, markup_in(value)))
                self.report(f"the front matter's {name} holds {found}; {PLAIN_FIELDS}", self.page.line_of(f"{name}:"))
                page.meta[name] = without_markup(value)
        if self.page.lesson is not None:
            lesson = self.page.lesson
            try:
                lessons.check_sections(lesson.src_path, markdown, self.page.first_line)
                lessons.check_mission_link(lesson, markdown, self.catalog.mission, self.page.first_line)
            except lessons.LessonError as error:
                self.report(error.detail, error.line)
            page.meta["issue_url"] = self.issue_url(issues.LESSON_FORM, {"title": f"Unclear: {lesson.title}"})
            page.meta["sbn_next"] = self.next_steps(lesson)
        self.page.markdown = markdown
        self.env.markdown = render_calls(
            markdown, self.env.macros, self._report_call, self.page.first_line, self._check_output
        )

    def _report_call(self, line: int, message: str) -> str:
        box = self.report(message, line)
        return self.page.token(box) if self.page else box

    def _check_output(self, call: Call, output: str) -> None:
        """Report the typed figures in what a macro call returned (a label, a caption, a value from the catalog
        or the glossary), at the call's line: the page's own text is checked without it."""
        if self.page is None:
            return
        found: list[TypedFigure] = []
        for number in _TOKEN.findall(output):
            html, key = self.page.html[int(number)]
            if key is None:  # a lone figure is what it says
                found += typed_figures(html)
        # Markdown made from data (the front door's), read without its links' addresses.
        words = _MARKDOWN_ADDRESS.sub(" ", _TOKEN.sub(" ", output))
        found += [TypedFigure(text, "the text") for text in find_in_text(words)]
        for typed in found:
            self.page.inserted.add(typed.text)
            self.report(
                f"{call.text}: {typed.text!r} in {typed.where} of what it shows is a typed figure; it comes from"
                " the call's own arguments (a label, a caption) or from the data it shows (the catalog, the"
                " glossary): compute it with a figure macro, or leave the number out of that text",
                call.line,
            )

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
        occurrences: dict[ScriptFound, int] = {}
        for script in script_in(_restored(md, serialized, page.ours, with_built=True)):
            occurrence = occurrences[script] = occurrences.get(script, -1) + 1
            self.report(
                f"the page's content holds {script.what}, which would run script in a reader's browser: a page is"
                " text, figures and the course's own pictures; remove it (no event handler, <script>, embedded"
                " document, javascript: or data: address: link to an https:// page, or to a file in docs/ by its path)",
                page.script_line(script, occurrence),
            )
        seen: dict[str, int] = {}
        own = _restored(md, serialized, page.ours, with_built=False)
        for syntax in unrendered(own):
            lines = lines_of(page.markdown, syntax.text, page.first_line)
            self.report(
                f"{syntax.text!r} is {syntax.what}: the site's Markdown does not read it (mkdocs.yml's"
                f" markdown_extensions), so the page shows it as typed; {syntax.fix}",
                lines[0] if lines else None,
            )
        for found in typed_figures(own, figures=False, reported=page.reported):
            lines = lines_of(page.markdown, found.text, page.first_line)
            if not lines and found.text in page.inserted:
                continue  # a macro's output, reported at its call's line
            occurrence = seen[found.text] = seen.get(found.text, -1) + 1
            line = lines[min(occurrence, len(lines) - 1)] if lines else None
            hidden = "" if lines else " (written with markup or character references inside it: search the page)"
            self.report(
                f"{found.text!r} in {found.where} is a typed figure{hidden}: compute it with a figure macro, such as"
                ' {{ value("gpt2-1.5b", "parameters") }}, or add the input to the catalog',
                line,
            )

    # ------------------------------------------------- the quiz extension's host

    def find_figure(self, text: str) -> KeyFigure | None:
        """The figure a numeric answer's text starts with (a stashed figure's placeholder), for its key."""
        match = _PLACEHOLDER.match(text)
        return self.page.placeholders.get(match.group(1)) if match and self.page else None

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
        steps = course.next_steps(self.catalog, self.lessons, lesson)
        following = None
        if steps.lesson is not None:
            following = {
                "title": steps.lesson.title,
                "description": steps.lesson.description,
                "url": self._url(steps.lesson.src_path),
            }
        writing = [{"number": stage.number, "title": stage.title, "summary": stage.summary} for stage in steps.writing]
        return {"writing": writing, "lesson": following}

    def _url(self, src_path: str) -> str:
        """The address of a docs page relative to the site, as MkDocs writes it: `stage-4/lesson-08-…/`."""
        return str(self.env.variables["files"].get_file_from_path(src_path).url)

    def collect_items(self, root: etree.Element) -> None:
        """Note the question and rep ids a lesson asks, as its forms and checkboxes carry them for course.js."""
        if self.page is None or self.page.lesson is None:
            return
        self.lesson_items[self.page.lesson.number] = {
            "questions": [form.get("data-quiz-id", "") for form in root.iter("form") if form.get("data-quiz-id")],
            "reps": [box.get("data-rep-id", "") for box in root.iter("input") if box.get("data-rep-id")],
        }

    # --------------------------------------------------------------------- macros

    def figure_macro(self, kind: FigureKind) -> Callable[..., str]:
        """A macro that computes a figure of `kind`, logs it for figures.json and returns its element."""

        def macro(*args: Any, **display: Any) -> str:
            try:
                figure, shown = self._shown(kind, args, display)
            except FigureKindError as error:
                raise CallError(str(error)) from None
            except (KeyError, ValueError, TypeError) as error:
                message = error.args[0] if error.args else str(error)
                raise CallError(
                    f"{str(message).rstrip('.')}. Call it as {kind.usage}; figures take catalog ids from"
                    f" {self.config.relative(self.config.catalog_dir)}/*.yml"
                ) from None
            html = render_html(figure, shown)
            if self.page is None:
                return html
            self.figure_log.add(self.page.src_path, self.page.url, figure, shown)
            self.page.tooltips.setdefault(figure.id, tooltip(figure))
            key = KeyFigure(value_text(figure.value), figure.unit, value_text(shown.factor), shown.symbol, shown.text)
            return self.page.token(html, key)

        macro.__doc__ = kind.compute.__doc__
        return macro

    def _shown(self, kind: FigureKind, args: tuple[Any, ...], display: dict[str, Any]) -> tuple[Figure, Display]:
        """A figure and its display, each computed once per build however often a page shows it."""
        try:
            key: Any = (kind.name, args, tuple(sorted(display.items())))
            hash(key)
        except TypeError:  # a list among the arguments: compute it every time
            key = None
        if key is None or key not in self._figures:
            figure = kind.figure(self.catalog, *args)
            shown = display_quantity(
                figure.value, figure.unit, **check_display_options(with_defaults(figure.computed.display, display))
            )
            if key is None:
                return figure, shown
            self._figures[key] = (figure, shown)
        return self._figures[key]

    def page_macro(self, render: Callable[[Catalog, lessons.LessonIndex, str], str]) -> Callable[[], str]:
        """A macro that renders Markdown from the catalog and lessons for the current page."""

        def macro() -> str:
            return render(self.catalog, self.lessons, self.page.src_path if self.page else "index.md")

        macro.__doc__ = render.__doc__
        return macro

    def syllabus(self) -> str:
        """The syllabus (`course.syllabus_markdown`); the page that shows it also gets every lesson's question
        and rep ids, for `syllabus.js` to count the reader's progress against (overrides/main.html).

        The ids are the dictionary the build fills as it converts the lessons: MkDocs converts every page
        before it renders any template, so the page's template sees them all.
        """
        if self.page is not None:
            self.env.page.meta["sbn_progress"] = self.lesson_items
        return course.syllabus_markdown(self.catalog, self.lessons, self.page.src_path if self.page else "index.md")

    def table(self, kind: str, **layout: Any) -> str:
        """A table of figures of one kind (see `macros.tables`), each cell a figure element."""
        if kind not in KINDS:
            raise CallError(f"there is no figure kind {kind!r}; kinds: {', '.join(KINDS)}")
        try:
            html = figure_table(KINDS[kind], self._figure_html(KINDS[kind]), self.catalog, **layout)
        except TableError as error:
            raise CallError(str(error)) from None
        return self._picture(html)

    def schedule_table(self, schedule: str, stages: int, microbatches: int, caption: str = "") -> str:
        """A pipeline schedule as a table of its passes (see `macros.schedules`), one row per stage."""
        try:
            html = schedules.schedule_table(schedule, stages, microbatches, caption)
        except (KeyError, ValueError, TypeError) as error:
            message = error.args[0] if error.args else str(error)
            raise CallError(f'{message}; call it as schedule_table("gpipe", 4, 8, caption="…")') from None
        return self._picture(html)

    def _figure_html(self, kind: FigureKind) -> Callable[..., str]:
        """The figure macro of `kind` that returns the figure's element itself, to build a table of them."""
        macro = self.figure_macro(kind)

        def render(*args: Any, **display: Any) -> str:
            shown = macro(*args, **display)
            match = _TOKEN.fullmatch(shown)
            return self.page.html[int(match.group(1))][0] if match and self.page else shown

        return render

    def chart(self, kind: str, **layout: Any) -> str:
        """A chart of figures of one kind (see `macros.charts`), every plotted value a figure."""
        if kind not in KINDS:
            raise CallError(f"there is no figure kind {kind!r}; kinds: {', '.join(KINDS)}")
        ident = self.page.ident("chart") if self.page else "sbn-chart"
        try:
            html = figure_chart(
                KINDS[kind], self._figure_html(KINDS[kind]), self._kind_html, self.catalog, ident, **layout
            )
        except ChartError as error:
            raise CallError(str(error)) from None
        return self._picture(html)

    def diagram(self, name: str, caption: str = "", **options: Any) -> str:
        """A diagram of frames that a reader steps through (see `macros.diagrams`), drawn from the model."""
        if name not in DIAGRAMS:
            raise CallError(f"there is no diagram {name!r}; diagrams: {', '.join(DIAGRAMS)}")
        if not isinstance(caption, str) or not caption.strip():
            raise CallError('caption= says what the diagram shows, such as caption="The ring all-reduce"')
        try:
            frames = DIAGRAMS[name](**options)
        except DiagramError as error:
            raise CallError(str(error)) from None
        except TypeError:
            known = ", ".join(inspect.signature(DIAGRAMS[name]).parameters)
            raise CallError(f"the diagram {name} takes caption= and {known or 'no other option'}") from None
        ident = self.page.ident("diagram") if self.page else "sbn-diagram"
        html = frames_html(frames, ident, caption.strip(), self._script("frames.js"))
        return self._picture(html)

    def calculator(self, id: str, **defaults: Any) -> str:
        """The memory calculator (see `macros.calculator`), its inputs kept in the browser under `id`.

        Keyword arguments are its fields' first values: `model="gpt2-1.5b"`, `devices=64`, `stage=1`, ...
        """
        if not isinstance(id, str) or not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", id):
            raise CallError(
                f'id= names the calculator for the reader\'s stored inputs, like "l8-calculator"; got {id!r}'
            )
        fields = [name for name, *_ in CALCULATOR_FIELDS]
        unknown = sorted(set(defaults) - set(fields))
        if unknown:
            raise CallError(f"the calculator has no field {', '.join(unknown)}; its fields are {', '.join(fields)}")
        # The list of models offers the lesson's own first model, whatever its shape (`calculator._models`).
        config = calculator_config(self.catalog, str(defaults.get("model", "")) or None)
        written = {name: str(value) for name, value in defaults.items()}
        # A first value is one a reader could have entered: the calculator's own rules for the fields given.
        problems = {
            name: problem
            for name, problem in evaluate_calculator(config, written).get("problems", {}).items()
            if name in written and not isinstance(defaults[name], bool)
        }
        problems |= {name: "a value, not true or false" for name, value in defaults.items() if isinstance(value, bool)}
        if problems:
            said = "; ".join(
                f"{name}={defaults[name]!r}: {problem.rstrip('.')}" for name, problem in sorted(problems.items())
            )
            choices = {"model": config["models"], "recipe": config["recipes"], "gpu": config["gpus"]}
            known = "; ".join(
                f"{name} is one of {', '.join(str(item['id']) for item in choices[name])}"
                for name in sorted(problems)
                if name in choices
            )
            raise CallError(f"{said}{f' ({known})' if known else ''}")
        if self.page is not None:
            self.add_question(id)
        html = calculator_html(config, id, written, self._script("calculator.js"))
        return self._picture(html)

    def _picture(self, html: str) -> str:
        """A picture's HTML (table, chart, diagram, schedule, calculator) for the page, with the pictures' style sheet
        once.

        Only pages with pictures need their styles, so those pages' content loads them, as it
        loads their scripts: every page's budget of our own script and style stays small.
        """
        if self.page is None:
            return html
        if "pictures.css" not in self.page.scripts:
            self.page.scripts.add("pictures.css")
            href = get_relative_url("assets/stylesheets/pictures.css", self.page.url)
            html = f'<link rel="stylesheet" href="{href}">{html}'
        return self.page.token(html)

    def _kind_html(self, name: str) -> tuple[FigureKind, Callable[..., str]]:
        """The kind `name` and its figure element, for a chart's reference lines."""
        if name not in KINDS:
            raise KeyError(f"there is no figure kind {name!r}; kinds: {', '.join(KINDS)}")
        return KINDS[name], self._figure_html(KINDS[name])

    def _script(self, name: str) -> str | None:
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
        return get_relative_url(path, self.page.url)

    def term(self, name: str, link: bool | None = None) -> str:
        """A term from the glossary: linked to its entry, with its definition as tooltip, where first used.

        `link=True` links a later use too; `link=False` never links.
        """
        try:
            entry = self.glossary.lookup(name)
        except glossary.GlossaryError as error:
            raise CallError(str(error)) from None
        if self.page is None or link is False or (link is None and entry.id in self.page.linked_terms):
            return name
        self.page.linked_terms.add(entry.id)
        files = self.env.variables["files"]
        glossary_file = files.get_file_from_path(self.config.glossary_page)
        if glossary_file is None:
            raise CallError(f"there is no glossary page docs/{self.config.glossary_page} (extra.course.glossary_page)")
        address = get_relative_url(glossary_file.url, self.page.url)
        return self.page.token(glossary.term_link(entry, name, address))

    def glossary_page(self) -> str:
        """The glossary page's entries, as Markdown, each with a link that reports a problem with it."""
        page = self.page.src_path if self.page else self.config.glossary_page

        def report(entry: glossary.Entry) -> str | None:
            fields = {
                "title": f"Glossary: {entry.term}",
                "page-url": f"{self.config.site_url}{self.page.url}#{entry.id}" if self.page else "",
                "source-file": self.config.relative(self.config.glossary_file),
            }
            return self.issue_url(issues.LESSON_FORM, fields, any_page=True)

        if self.page is None:
            return glossary.glossary_markdown(self.glossary, self.term_usages, self.lessons, page, report)
        return glossary.glossary_markdown(self.glossary, self.term_usages, self.lessons, page, report, self.page.token)

    def source_link(self, source_id: str) -> str:
        """A link to a catalog source: its title, authors' citation and URL."""
        try:
            html = source_html(self.catalog.sources[source_id])
        except (KeyError, TypeError):
            raise CallError(f"unknown source {source_id!r}; known: {', '.join(self.catalog.sources)}") from None
        return self.page.token(html) if self.page else html

    def issue_link(self, text: str) -> str:
        """A Markdown link that opens an issue about this page."""
        url = self.issue_url(issues.LESSON_FORM, {"title": f"Unclear: {self.page.title}"}) if self.page else None
        if url is None:
            raise CallError("works on lesson pages only")
        return self.page.token(link_html(text, url)) if self.page else link_html(text, url)

    # ---------------------------------------------------------------- whole site

    def add_question(self, question_id: str) -> None:
        """Note that the current page asks question (or rep) `question_id`."""
        if self.page is not None:
            self.question_pages.setdefault(question_id, []).append(self.page.src_path)

    def finish(self, site_dir: Path) -> None:
        """After the last page: check that question ids are unique on the site, write figures.json, serve
        the course's own script and style without their comments, and keep the search index's pages apart."""
        self.page = None
        for question_id, pages in sorted(self.question_pages.items()):
            if len(pages) > 1:
                self.report(
                    f"the question id {question_id!r} is used on {', '.join(pages)}: ids must be unique on the site,"
                    " so that progress is kept apart"
                )
        self.figure_log.write(site_dir / "figures.json")
        log.info("figures.json: %s figures", len(self.figure_log.records()))
        strip_site_assets(self.config.docs_dir, site_dir)
        defer_search_docs(site_dir)


def _box(message: str, tag: str) -> str:
    """The element that shows a problem in the page, where it happened."""
    escaped = message.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<{tag} class="sbn-build-error" role="alert">{escaped}</{tag}>'


class _QuizHost:
    """What the quiz extension asks of its host, answered by the build (see `macros.quiz.QuizHost`)."""

    def __init__(self, build: Build) -> None:
        self.build = build

    def find_figure(self, text: str) -> KeyFigure | None:
        """The figure a numeric answer starts with."""
        return self.build.find_figure(text)

    def issue_url(self, form: str, fields: dict[str, str]) -> str | None:
        """A new issue about this page."""
        return self.build.issue_url(form, fields)

    def add_question(self, question_id: str) -> None:
        """Note a question id the page asks."""
        self.build.add_question(question_id)

    def script(self, name: str) -> str | None:
        """Our script `name` from this page, the first time the page asks for it."""
        return self.build._script(name)

    def report(self, message: str, near: str | None) -> None:
        """A problem with a quiz block, reported at the line where the block starts."""
        page = self.build.page
        self.build.report(message, page.line_of(near) if page else None)


class _StashHtml(Preprocessor):
    """Stashes the HTML the page's macros returned, for Markdown to put back as it is after parsing."""

    def __init__(self, md: Markdown, build: Build) -> None:
        super().__init__(md)
        self.build = build

    def run(self, lines: list[str]) -> list[str]:
        page = self.build.page
        # The course's own problems open every page, until they are fixed.
        boxes = [self.md.htmlStash.store(_box(problem, "div")) for problem in self.build.site_problems]
        if page is not None:
            page.ours.update(boxes)
        lines = [*boxes, "", *lines] if boxes else lines
        if page is None or not page.html:
            return lines

        def stash(match: re.Match[str]) -> str:
            html, key = page.html[int(match.group(1))]
            placeholder = self.md.htmlStash.store(html)
            page.ours.add(placeholder)
            if key is not None:
                page.placeholders[placeholder] = key
            return placeholder

        return [_TOKEN.sub(stash, line) if _TOKEN_OPEN in line else line for line in lines]


class _PageCheck(Treeprocessor):
    """Runs the build's checks of a page once its tree is whole (`Build.check_page`).

    A tree processor, not a postprocessor: the toc extension runs postprocessors on every heading's text too.
    """

    def __init__(self, md: Markdown, build: Build) -> None:
        super().__init__(md)
        self.build = build

    def run(self, root: etree.Element) -> None:
        self.build.check_page(self.md, root)


#: What stands for the build's own HTML in a page's own text: a character no author types (private use), which
#: parts a number from a unit on either side of it and is no syntax of any kind.
_BUILT = "\ue003"


def _restored(md: Markdown, html: str, built: set[str], *, with_built: bool) -> str:
    """`html` with the stash's placeholders put back as Markdown puts them back; without `with_built`, each of
    `built` (the build's own HTML) put back as `_BUILT`, and the author's as they are."""
    stash = md.htmlStash.rawHtmlBlocks

    def piece(match: re.Match[str]) -> str:
        if not with_built and match.group(0) in built:
            return _BUILT
        index = int(match.group(1))
        if index >= len(stash):
            return match.group(0)
        raw = stash[index]
        return raw if isinstance(raw, str) else md.serializer(raw)

    for _ in range(8):  # a stashed piece may hold another's placeholder (md_in_html's blocks do)
        restored = HTML_PLACEHOLDER_RE.sub(piece, html)
        if restored == html:
            break
        html = restored
    return html.replace(AMP_SUBSTITUTE, "&")


class _CollectItems(Treeprocessor):
    """Hands the build a lesson's question and rep ids, once its quizzes are elements."""

    def __init__(self, md: Markdown, build: Build) -> None:
        super().__init__(md)
        self.build = build

    def run(self, root: etree.Element) -> None:
        self.build.collect_items(root)


class _FigureData(Treeprocessor):
    """Appends what the page's script shows in its figures' tooltips, and where a figure is reported.

    A tree processor, not a postprocessor: the toc extension runs postprocessors on every heading's text too.
    """

    def __init__(self, md: Markdown, build: Build) -> None:
        super().__init__(md)
        self.build = build

    def run(self, root: etree.Element) -> None:
        page = self.build.page
        if page is None or not (page.tooltips or page.lesson):
            return
        data = {"report": self.build.issue_url(issues.FIGURE_FORM, {}, any_page=True), "figures": page.tooltips}
        # Its data goes in as the page is written (`Build._fill_reading`), when the reading times, which
        # follow the conversion of every lesson, have joined the page's figures.
        self.build.figure_data[page.src_path] = data
        # In an attribute, not a <script type="application/json">: Material's instant navigation
        # re-creates a page's scripts without their type, which would run the JSON as code.
        etree.SubElement(root, "div", {"id": "sbn-figures", "hidden": "hidden", "data-json": _FIGURE_DATA})


class _ChecksExtension(Extension):
    """What a page needs of Markdown beyond the quizzes: its macros' HTML stashed, its question ids collected,
    the typed-figure check, and its figures' tooltips."""

    def __init__(self, build: Build) -> None:
        super().__init__()
        self.build = build

    def extendMarkdown(self, md: Markdown) -> None:
        # After whitespace is normalized (30), which would strip a placeholder's control characters.
        md.preprocessors.register(_StashHtml(md, self.build), "sbn-stash-html", 29)
        # Once the blocks are parsed into elements; no later processor adds or removes a quiz.
        md.treeprocessors.register(_CollectItems(md, self.build), "sbn-collect-items", 1)
        # After the raw HTML is put back (30), before anything else of ours.
        # Once every other tree processor (inline, toc, attr_list) has run, before our own at 1.
        md.treeprocessors.register(_PageCheck(md, self.build), "sbn-page-check", 2)
        md.treeprocessors.register(_FigureData(md, self.build), "sbn-figure-data", 1)
