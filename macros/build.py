"""One build's state and the adapters between MkDocs pages and the pure modules.

`Build` holds what a build shares across pages (the catalog, the lesson index,
the figures shown) and wraps each pure function as a macro that knows its
page. This is the only module that touches the mkdocs-macros environment.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.exceptions import PluginError

from . import figures, glossary, issues, lessons, quiz
from .catalog import Catalog, CatalogError, load_catalog
from .quantities import format_quantity

if TYPE_CHECKING:
    from mkdocs_macros.plugin import MacrosPlugin

log = logging.getLogger("mkdocs.plugins.macros.course")

#: The one source of terms, and the page generated from it.
GLOSSARY_FILE = Path(__file__).parent.parent / "glossary" / "terms.yml"
GLOSSARY_PAGE = "glossary.md"


class MacroError(ValueError):
    """A macro was called wrongly; the message names the page, the call and the fix."""


def _call(name: str, args: tuple[Any, ...], options: dict[str, Any]) -> str:
    """A macro call as the author wrote it, for an error: {{ name('a', b=1) }}."""
    written = [repr(arg) for arg in args] + [f"{key}={value!r}" for key, value in options.items()]
    return f"{{{{ {name}({', '.join(written)}) }}}}"


class Build:
    """The catalog, lessons and figure log of one MkDocs build."""

    def __init__(self, env: MacrosPlugin) -> None:
        self.env = env
        try:
            self.catalog = load_catalog()
        except CatalogError as error:
            raise PluginError(f"macros/catalog: {error}") from error
        docs_dir = Path(env.conf["docs_dir"])
        try:
            self.lessons = lessons.index_lessons(docs_dir)
        except lessons.LessonError as error:
            raise PluginError(str(error)) from error
        try:
            self.glossary = glossary.load_glossary(GLOSSARY_FILE, self.catalog.sources)
        except glossary.GlossaryError as error:
            raise PluginError(str(error)) from error
        unknown_stages = sorted({lesson.stage for lesson in self.lessons.lessons.values()} - set(self.catalog.stages))
        if unknown_stages:
            raise PluginError(
                f"lessons name stage(s) {unknown_stages} that macros/catalog/course.yml does not title; "
                f"known stages: {sorted(self.catalog.stages)}"
            )
        if not str(env.conf.get("repo_url") or "").startswith("https://"):
            raise PluginError("mkdocs.yml: set repo_url to the course repository's https URL; issue links need it")
        self.term_usages = glossary.usages(docs_dir, self.glossary)
        self.commit = issues.built_commit(Path(env.conf["config_file_path"]).parent)
        self.figure_log = figures.FigureLog()
        # The glossary entries each page has linked already: only a term's first use links.
        self.linked_terms: dict[str, set[str]] = {}

    @property
    def page_path(self) -> str:
        """Source path of the page being rendered, relative to docs/."""
        return self.env.page.file.src_path

    def figure_macro(self, name: str, compute: Callable[..., figures.Figure]) -> Callable[..., str]:
        """A macro that computes a figure, logs it for figures.json and returns its element."""

        parameters = list(inspect.signature(compute).parameters.values())[1:]  # after the catalog
        usage = ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in parameters)

        def macro(*args: Any, **display: Any) -> str:
            call = _call(name, args, display)
            if not len([p for p in parameters if p.default is p.empty]) <= len(args) <= len(parameters):
                raise MacroError(f"{self.page_path}: {call}: call it as {name}({usage}), then display options")
            try:
                figure = compute(self.catalog, *args)
                text = format_quantity(figure.value, figure.unit, **display)
            except (KeyError, ValueError, TypeError) as error:
                message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
                raise MacroError(
                    f"{self.page_path}: {call}: {message.rstrip('.')}. "
                    f"Figures take catalog ids from macros/catalog/*.yml and the display options"
                    f" digits=1..6, short=, adjective=, bare= and scale=."
                ) from None
            self.figure_log.add(self.page_path, self.env.page.url, figure, text)
            return figures.render_html(figure, text)

        macro.__doc__ = compute.__doc__
        return macro

    def page_macro(self, render: Callable[[Catalog, lessons.LessonIndex, str], str]) -> Callable[[], str]:
        """A macro that renders Markdown from the catalog and lessons for the current page."""

        def macro() -> str:
            return render(self.catalog, self.lessons, self.page_path)

        macro.__doc__ = render.__doc__
        return macro

    def term(self, name: str, link: bool | None = None) -> str:
        """A term from the glossary: linked to its entry, with its definition as tooltip, where first used.

        `link=True` links a later use too; `link=False` never links.
        """
        try:
            entry = self.glossary.lookup(name)
        except glossary.GlossaryError as error:
            raise MacroError(f"{self.page_path}: {_call('term', (name,), {})}: {error}") from None
        linked = self.linked_terms.setdefault(self.page_path, set())
        if link is False or (link is None and entry.id in linked):
            return name
        linked.add(entry.id)
        return glossary.term_link(entry, name, self.page_path, GLOSSARY_PAGE)

    def glossary_page(self) -> str:
        """The glossary page's entries, as Markdown."""
        return glossary.glossary_markdown(self.glossary, self.term_usages, self.lessons, self.page_path)

    def source_link(self, source_id: str) -> str:
        """A Markdown link to a catalog source: its title, authors' citation and URL."""
        try:
            source = self.catalog.sources[source_id]
        except KeyError:
            raise MacroError(
                f"{self.page_path}: unknown source {source_id!r}; known: {', '.join(self.catalog.sources)}"
            ) from None
        return f'"{source.title_markdown}", {source.cite}'

    def prepare_page(self) -> None:
        """Before a page's macros run: if it is a lesson, check its source and give it its issue links.

        The lesson's own link goes into `page.meta.issue_url`, for the footer the
        theme override shows; its questions' link goes into a last line that the
        quiz extension reads.
        """
        # The index read every lesson's front matter once, at the start of the build.
        lesson = self.lessons.at(self.page_path)
        if lesson is None:
            return
        try:
            lessons.check_sections(self.page_path, self.env.markdown)
            lessons.check_mission_link(lesson, self.env.markdown, self.catalog.mission)
        except lessons.LessonError as error:
            raise PluginError(str(error)) from error
        self.env.page.meta["issue_url"] = self.issue_url(issues.LESSON_FORM, {"title": f"Unclear: {lesson.title}"})
        question_base = self.issue_url(issues.QUIZ_FORM, {})
        # At the end, so that Jinja's line numbers in error messages stay the file's own.
        self.env.markdown = f"{self.env.markdown}\n\n{quiz.issue_line(question_base)}\n"

    def issue_url(self, form: str, fields: dict[str, str]) -> str:
        """A new issue on the course repository, with this page's context filled in."""
        config = self.env.conf
        context = issues.PageContext(
            lesson=self.env.page.meta.get("title", self.page_path),
            page_url=f"{config['site_url'] or ''}{self.env.page.url}",
            source_file=f"docs/{self.page_path}",
            commit=self.commit,
        )
        return issues.new_issue_url(config["repo_url"], form, context, fields)

    def issue_link(self, text: str) -> str:
        """A Markdown link that opens an issue about this page."""
        if "issue_url" not in self.env.page.meta:
            raise MacroError(f"{self.page_path}: {_call('issue_link', (text,), {})} works on lesson pages only")
        return f"[{text}]({self.env.page.meta['issue_url']})"

    def check_question_ids(self, site_dir: Path) -> None:
        """Fail the build when two questions or reps share an id anywhere on the site."""
        pages = {
            path.relative_to(site_dir).as_posix(): path.read_text(encoding="utf-8") for path in site_dir.rglob("*.html")
        }
        duplicates = quiz.duplicate_ids(pages)
        if duplicates:
            listed = "; ".join(f"{question_id!r} on {', '.join(where)}" for question_id, where in duplicates.items())
            raise PluginError(f"question ids must be unique on the site, so that progress is kept apart: {listed}")

    def write_figures(self, site_dir: Path) -> None:
        """Write figures.json at the site root."""
        self.figure_log.write(site_dir / "figures.json")
        log.info("figures.json: %s figures", len(self.figure_log.records()))
