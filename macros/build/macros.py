"""The page macros: thin adapters from a macro call to a pure function of the course's layers.

`course_macros` gives every macro a page may call, by name: one per figure kind
(`figures.kinds`), and `table`, `chart`, `diagram`, `calculator`, `term`, ... Each
computes with the build's data, logs what it showed, and returns HTML as a token
the page's Markdown keeps until `build.markdown` stashes it.
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..data import glossary, lessons
from ..data.catalog import Catalog, PerCatalog
from ..data.markup import link_html, source_html
from ..data.quantities import DISPLAY_OPTIONS, Display, check_display_options, display_quantity, with_defaults
from ..figures.figure import Figure, render_html, tooltip, value_text
from ..figures.kinds import KINDS, FigureKind, FigureKindError
from ..pages import front_door, issues
from ..pictures import schedules
from ..pictures.calculator import FIELDS as CALCULATOR_FIELDS
from ..pictures.calculator import calculator_config, calculator_html
from ..pictures.calculator import evaluate as evaluate_calculator
from ..pictures.charts import ChartError, ChartOptions, figure_chart
from ..pictures.diagrams import DIAGRAMS
from ..pictures.diagrams.frames import DiagramError, frames_html
from ..pictures.planner import FIELD_NAMES as PLANNER_FIELDS
from ..pictures.planner import planner_config, planner_defaults, planner_html
from ..pictures.planner import read as read_planner
from ..pictures.tables import TableError, figure_table
from ..quiz import KeyFigure
from .calls import CallError
from .state import TOKEN, Build, relative_url


def course_macros(build: Build) -> dict[str, Callable[..., str]]:
    """Every macro a page may call, by name, each working on `build`."""
    macros = Macros(build)
    named: dict[str, Callable[..., str]] = {name: macros.figure_macro(kind) for name, kind in KINDS.items()}
    named |= {
        "table": macros.table,
        "schedule_table": macros.schedule_table,
        "chart": macros.chart,
        "diagram": macros.diagram,
        "calculator": macros.calculator,
        "planner": macros.planner,
        "mission": macros.page_macro(front_door.mission_markdown),
        "start_here": macros.start_here,
        "syllabus": macros.syllabus,
        "source": macros.source_link,
        "term": macros.term,
        "glossary": macros.glossary_page,
        "issue_link": macros.issue_link,
    }
    return named


#: Each figure, its display and its element by kind, arguments and display options, made once from the catalog.
_SHOWN: PerCatalog[Any, tuple[Figure, Display, str]] = PerCatalog()


def _first_values_refused(problems: dict[str, str], defaults: dict[str, Any], config: dict[str, Any]) -> CallError:
    """What a page tool's call is told of the first values it gave that a reader could not have entered, with
    the ids each list takes (the calculator's and the planner's alike)."""
    said = "; ".join(f"{name}={defaults[name]!r}: {problem.rstrip('.')}" for name, problem in sorted(problems.items()))
    choices = {"model": config["models"], "recipe": config["recipes"], "gpu": config["gpus"]}
    known = "; ".join(
        f"{name} is one of {', '.join(str(item['id']) for item in choices[name])}"
        for name in sorted(problems)
        if name in choices
    )
    return CallError(f"{said}{f' ({known})' if known else ''}")


class Macros:
    """The macros of one build."""

    def __init__(self, build: Build) -> None:
        self.build = build

    def _src_path(self) -> str:
        """The page being rendered, or the home page outside a page."""
        return self.build.page.src_path if self.build.page else "index.md"

    def figure_macro(self, kind: FigureKind) -> Callable[..., str]:
        """A macro that computes a figure of `kind`, logs it for figures.json and returns its element."""

        def macro(*args: Any, **keywords: Any) -> str:
            try:
                figure, shown, html = self._shown(kind, *kind.placed(args, keywords))
            except FigureKindError as error:
                raise CallError(str(error)) from None
            except (KeyError, ValueError, TypeError) as error:
                message = error.args[0] if error.args else str(error)
                raise CallError(
                    f"{str(message).rstrip('.')}. Call it as {kind.usage}; figures take catalog ids from"
                    f" {self.build.config.relative(self.build.config.catalog_dir)}/*.yml"
                ) from None
            if self.build.page is None:
                return html
            self.build.figure_log.add(self.build.page.src_path, self.build.page.url, figure, shown)
            self.build.page.tooltips.setdefault(figure.id, tooltip(figure))
            key = KeyFigure(value_text(figure.value), figure.unit, value_text(shown.factor), shown.symbol, shown.text)
            return self.build.page.token(html, key)

        macro.__doc__ = kind.compute.__doc__
        return macro

    def _shown(self, kind: FigureKind, args: tuple[Any, ...], display: dict[str, Any]) -> tuple[Figure, Display, str]:
        """A figure, its display and its element, made once from the catalog however often the pages show it."""
        made = _SHOWN.of(self.build.catalog)
        try:
            key: Any = (kind.name, args, tuple(sorted(display.items())))
            return made[key]
        except KeyError:
            pass
        except TypeError:  # a list among the arguments: compute it every time
            return self._display(kind, args, display)
        made[key] = self._display(kind, args, display)
        return made[key]

    def _display(self, kind: FigureKind, args: tuple[Any, ...], display: dict[str, Any]) -> tuple[Figure, Display, str]:
        figure = kind.figure(self.build.catalog, *args)
        options = check_display_options(with_defaults(figure.computed.display, display))
        shown = display_quantity(figure.value, figure.unit, **options)
        return figure, shown, render_html(figure, shown)

    def page_macro(
        self, render: Callable[[Catalog, lessons.LessonIndex, str, Callable[[str], str]], str]
    ) -> Callable[[], str]:
        """A macro that renders Markdown from the catalog and lessons for the current page, its data's text as the
        build's HTML (`_built`)."""

        def macro() -> str:
            return render(self.build.catalog, self.build.lessons, self._src_path(), self._built)

        macro.__doc__ = render.__doc__
        return macro

    def syllabus(self) -> str:
        """The syllabus (`front_door.syllabus_markdown`); the page that shows it also gets every lesson's question
        and rep ids, for `syllabus.js` to count the reader's progress against (overrides/main.html).

        The ids are the dictionary the build fills as it converts the lessons: MkDocs converts every page
        before it renders any template, so the page's template sees them all.
        """
        if self.build.page is not None:
            self.build.page.meta["sbn_progress"] = self.build.lesson_items
        return front_door.syllabus_markdown(self.build.catalog, self.build.lessons, self._src_path(), self._built)

    def start_here(self) -> str:
        """The "Start here" box (`front_door.start_here_markdown`)."""
        return front_door.start_here_markdown(self.build.catalog, self.build.lessons, self._src_path(), self._built)

    def _built(self, html: str) -> str:
        """`html` as the build's own on the page: a token Markdown stashes and puts back as it is."""
        return self.build.page.token(html) if self.build.page else html

    def table(self, kind: str, **layout: Any) -> str:
        """A table of figures of one kind (see `macros.pictures.tables`), each cell a figure element."""
        if kind not in KINDS:
            raise CallError(f"there is no figure kind {kind!r}; kinds: {', '.join(KINDS)}")
        _check_options("table", figure_table, layout)
        try:
            html = figure_table(KINDS[kind], self._figure_html(KINDS[kind]), self.build.catalog, **layout)
        except TableError as error:
            raise CallError(str(error)) from None
        return self.build.picture(html)

    def schedule_table(self, schedule: str, stages: int, microbatches: int, caption: str = "") -> str:
        """A pipeline schedule as a table of its passes (see `macros.pictures.schedules`), one row per stage."""
        try:
            html = schedules.schedule_table(schedule, stages, microbatches, caption)
        except (KeyError, ValueError, TypeError) as error:
            message = error.args[0] if error.args else str(error)
            raise CallError(f'{message}; call it as schedule_table("gpipe", 4, 8, caption="…")') from None
        return self.build.picture(html)

    def _figure_html(self, kind: FigureKind) -> Callable[..., str]:
        """The figure macro of `kind` that returns the figure's element itself, to build a table of them."""
        macro = self.figure_macro(kind)

        def render(*args: Any, **display: Any) -> str:
            shown = macro(*args, **display)
            match = TOKEN.fullmatch(shown)
            return self.build.page.html[int(match.group(1))][0] if match and self.build.page else shown

        return render

    def chart(self, kind: str, **layout: Any) -> str:
        """A chart of figures of one kind (see `macros.pictures.charts`), every plotted value a figure."""
        if kind not in KINDS:
            raise CallError(f"there is no figure kind {kind!r}; kinds: {', '.join(KINDS)}")
        _check_options("chart", ChartOptions, layout)
        ident = self.build.page.ident("chart") if self.build.page else "sbn-chart"
        try:
            html = figure_chart(
                KINDS[kind], self._figure_html(KINDS[kind]), self._kind_html, self.build.catalog, ident, **layout
            )
        except ChartError as error:
            raise CallError(str(error)) from None
        return self.build.picture(html)

    def diagram(self, name: str, caption: str = "", **options: Any) -> str:
        """A diagram of frames that a reader steps through (see `macros.pictures.diagrams`), drawn from the model."""
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
        ident = self.build.page.ident("diagram") if self.build.page else "sbn-diagram"
        html = frames_html(frames, ident, caption.strip(), self.build.script("frames.js"))
        return self.build.picture(html)

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
        config = calculator_config(self.build.catalog, str(defaults.get("model", "")) or None)
        written = {name: str(value) for name, value in defaults.items()}
        # A first value is one a reader could have entered: the calculator's own rules for the fields given.
        problems = {
            name: problem
            for name, problem in evaluate_calculator(config, written).get("problems", {}).items()
            if name in written and not isinstance(defaults[name], bool)
        }
        problems |= {name: "a value, not true or false" for name, value in defaults.items() if isinstance(value, bool)}
        if problems:
            raise _first_values_refused(problems, defaults, config)
        problem = self.build.add_question(id)
        if problem:
            raise CallError(problem)
        html = calculator_html(config, id, written, self.build.script("calculator.js"))
        return self.build.picture(html)

    def planner(self, id: str, **defaults: Any) -> str:
        """The layout planner (see `macros.pictures.planner`), its inputs kept in the browser under `id`.

        Keyword arguments are its fields' first values: `model="llama-3-8b"`, `gpu="h100-sxm5"`, `nodes=2`, ...;
        the share of peak and the recipe default to the model's (`planner.Run`), and no price is assumed.
        """
        if not isinstance(id, str) or not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", id):
            raise CallError(f'id= names the planner for the reader\'s stored inputs, like "l13-planner"; got {id!r}')
        unknown = sorted(set(defaults) - set(PLANNER_FIELDS))
        if unknown:
            raise CallError(
                f"the planner has no field {', '.join(unknown)}; its fields are {', '.join(PLANNER_FIELDS)}"
            )
        bad = [name for name, value in defaults.items() if isinstance(value, bool)]
        if bad:
            raise CallError(f"{', '.join(bad)}: a value, not true or false")
        config = planner_config(self.build.catalog, str(defaults.get("model", "")) or None)
        written = {**planner_defaults(), **{name: str(value) for name, value in defaults.items()}}
        # A first value is one a reader could have entered: the planner's own rules for the fields given.
        problems = {name: problem for name, problem in read_planner(config, written)[0].items() if name in defaults}
        if problems:
            raise _first_values_refused(problems, defaults, config)
        problem = self.build.add_question(id)
        if problem:
            raise CallError(problem)
        html = planner_html(config, id, written, self.build.script("planner.js"))
        return self.build.picture(html)

    def _kind_html(self, name: str) -> tuple[FigureKind, Callable[..., str]]:
        """The kind `name` and its figure element, for a chart's reference lines."""
        if name not in KINDS:
            raise KeyError(f"there is no figure kind {name!r}; kinds: {', '.join(KINDS)}")
        return KINDS[name], self._figure_html(KINDS[name])

    def term(self, name: str, link: bool | None = None) -> str:
        """A term from the glossary: linked to its entry, with its definition as tooltip, where first used.

        `link=True` links a later use too; `link=False` never links.
        """
        try:
            entry = self.build.glossary.lookup(name)
        except glossary.GlossaryError as error:
            raise CallError(str(error)) from None
        if self.build.page is None or link is False or (link is None and entry.id in self.build.page.linked_terms):
            return name
        self.build.page.linked_terms.add(entry.id)
        glossary_url = self.build.url_of(self.build.config.glossary_page)
        if glossary_url is None:
            raise CallError(
                f"there is no glossary page docs/{self.build.config.glossary_page} (extra.course.glossary_page)"
            )
        address = relative_url(glossary_url, self.build.page.url)
        return self.build.page.token(glossary.term_link(entry, name, address))

    def glossary_page(self) -> str:
        """The glossary page's entries, as Markdown, each with a link that reports a problem with it."""
        page = self.build.page.src_path if self.build.page else self.build.config.glossary_page

        def report(entry: glossary.Entry) -> str | None:
            fields = {
                "title": f"Glossary: {entry.term}",
                "page-url": f"{self.build.config.site_url}{self.build.page.url}#{entry.id}" if self.build.page else "",
                "source-file": self.build.config.relative(self.build.config.glossary_file),
            }
            return self.build.issue_url(issues.LESSON_FORM, fields, any_page=True)

        if self.build.page is None:
            return glossary.glossary_markdown(
                self.build.glossary, self.build.term_usages, self.build.lessons, page, report
            )
        return glossary.glossary_markdown(
            self.build.glossary, self.build.term_usages, self.build.lessons, page, report, self.build.page.token
        )

    def source_link(self, source_id: str) -> str:
        """A link to a catalog source: its title, authors' citation and URL."""
        try:
            html = source_html(self.build.catalog.sources[source_id])
        except (KeyError, TypeError):
            raise CallError(f"unknown source {source_id!r}; known: {', '.join(self.build.catalog.sources)}") from None
        return self.build.page.token(html) if self.build.page else html

    def issue_link(self, text: str) -> str:
        """A Markdown link that opens an issue about this page."""
        url = (
            self.build.issue_url(issues.LESSON_FORM, {"title": f"Unclear: {self.build.page.title}"})
            if self.build.page
            else None
        )
        if url is None:
            raise CallError("works on lesson pages only")
        return self.build.page.token(link_html(text, url)) if self.build.page else link_html(text, url)


def _check_options(macro: str, draw: Callable[..., object], given: Mapping[str, Any]) -> None:
    """Refuse an option that neither the picture `draw` (its keyword-only parameters: a function's, or its options'
    class's) nor a figure's display takes, naming both lists, and an option `draw` needs that is not given.

    Without it, a misspelt layout option would be answered by the display options alone, which do not have it, and
    a missing one by Python's TypeError, which names the function and not the call's option.
    """
    signature = inspect.signature(draw).parameters.values()
    own = [p.name for p in signature if p.kind is inspect.Parameter.KEYWORD_ONLY]
    needed = [p.name for p in signature if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is p.empty]
    missing = [name for name in needed if name not in given]
    for name in given:
        if name not in own and name not in DISPLAY_OPTIONS:
            close = difflib.get_close_matches(name, [*own, *DISPLAY_OPTIONS], n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise CallError(
                f"{macro}() has no option {name!r}{hint}; its own are {', '.join(own)},"
                f" and a figure's display options {', '.join(DISPLAY_OPTIONS)}"
            )
    if missing:
        raise CallError(
            f"{macro}() needs {' and '.join(f'{name}=' for name in missing)}, which the call does not give; its"
            f' options {", ".join(needed)} are needed, the rest optional (README, "Figures" and "Pictures")'
        )
