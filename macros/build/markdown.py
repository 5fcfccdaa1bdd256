"""The course's Markdown extension: what a page needs of Markdown beyond the host's own extensions.

The quiz blocks (`quiz`), the macros' HTML stashed for Markdown to put back as it
is, a lesson's question ids collected, the typed-figure check, and the figures'
tooltip data, each a processor that asks the build (`build.state.Build`) about
the page being converted. Any host that runs Python-Markdown runs them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections.abc import Sequence

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from ..pages import issues
from ..quiz import KeyFigure, QuizExtension
from ..quiz.blocks import find_line
from .calls import fences_blanked
from .state import TOKEN, TOKEN_OPEN, Build, problem_box, typed_stash


def course_extensions(build: Build) -> list[Extension]:
    """The Markdown extensions of the course for `build`: its quizzes, and the page checks."""
    return [QuizExtension(host=_QuizHost(build)), _ChecksExtension(build)]


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

    def add_question(self, question_id: str) -> str | None:
        """Note a question id the page asks; what is wrong with it, if anything."""
        return self.build.add_question(question_id)

    def script(self, name: str) -> str | None:
        """Our script `name` from this page, the first time the page asks for it."""
        return self.build.script(name)

    def report(self, message: str, near: Sequence[re.Pattern[str]]) -> None:
        """A problem with a quiz block, reported at the line `near` finds (`QuizHost.report`)."""
        page = self.build.page
        self.build.report(message, find_line(fences_blanked(page.source).splitlines() if page else [], near))


class _PagePreprocessor(Preprocessor):
    """A preprocessor that asks the build about the page being converted."""

    def __init__(self, md: Markdown, build: Build) -> None:
        super().__init__(md)
        self.build = build


class _PageTreeprocessor(Treeprocessor):
    """A tree processor that asks the build about the page being converted."""

    def __init__(self, md: Markdown, build: Build) -> None:
        super().__init__(md)
        self.build = build


class _StashHtml(_PagePreprocessor):
    """Stashes the HTML the page's macros returned, for Markdown to put back as it is after parsing."""

    def run(self, lines: list[str]) -> list[str]:
        page = self.build.page
        # The course's own problems open every page, until they are fixed.
        boxes = [self.md.htmlStash.store(problem_box(problem, "div")) for problem in self.build.site_problems]
        if page is not None:
            page.ours.update(boxes)
        lines = [*boxes, "", *lines] if boxes else lines
        if page is None or not page.html:
            return lines

        def stash(match: re.Match[str]) -> str:
            index = int(match.group(1))
            html, key = page.html[index]
            placeholder = self.md.htmlStash.store(html)
            page.ours.add(placeholder)
            if key is not None:
                page.placeholders[placeholder] = key
            if index in page.problem_tokens:
                page.problem_placeholders.add(placeholder)
            return placeholder

        return [TOKEN.sub(stash, line) if TOKEN_OPEN in line else line for line in lines]


class _NoteCode(_PagePreprocessor):
    """Tells the build which of the stash's pieces are fenced code as the highlighter wrote it, not HTML the
    author typed: its words are escaped, and only its wrapper takes attributes (a fence's `{#id .class}`)."""

    def run(self, lines: list[str]) -> list[str]:
        page = self.build.page
        if page is not None:
            stash = self.md.htmlStash
            page.code = {stash.get_placeholder(index) for index in range(len(stash.rawHtmlBlocks))} - page.ours
        return lines


class _KeepTypedBlocks(_PagePreprocessor):
    """Keeps the HTML blocks the author typed as Markdown stashed them, before md_in_html takes the ones
    marked `markdown` into the page's tree (`Build.check_page` holds them to the course's list of elements)."""

    def run(self, lines: list[str]) -> list[str]:
        page = self.build.page
        if page is not None:
            page.typed_blocks = typed_stash(self.md, page.ours | page.code)
        return lines


class _PageCheck(_PageTreeprocessor):
    """Runs the build's checks of a page once its tree is whole (`Build.check_page`).

    A tree processor, not a postprocessor: the toc extension runs postprocessors on every heading's text too.
    """

    def run(self, root: etree.Element) -> None:
        self.build.check_page(self.md, root)


class _NoteAttributes(_PageTreeprocessor):
    """Hands the build each element's attributes before attribute lists are read (`Build.note_attributes`)."""

    def run(self, root: etree.Element) -> None:
        self.build.note_attributes(root)


class _CollectItems(_PageTreeprocessor):
    """Hands the build a lesson's question and rep ids, once its quizzes are elements."""

    def run(self, root: etree.Element) -> None:
        self.build.collect_items(root)


class _FigureData(_PageTreeprocessor):
    """Appends what the page's script shows in its figures' tooltips, and where a figure is reported.

    A tree processor, not a postprocessor: the toc extension runs postprocessors on every heading's text too.
    """

    def run(self, root: etree.Element) -> None:
        page = self.build.page
        if page is None or not (page.tooltips or page.lesson):
            return
        data = {"report": self.build.issue_url(issues.FIGURE_FORM, {}, any_page=True), "figures": page.tooltips}
        # Its data is written beside the page after the last page (`Build.finish`), when the reading times,
        # which follow the conversion of every lesson, have joined the page's figures; the page holds its
        # address (`build.tooltips`), which course.js fetches when a reader first opens a figure's tooltip.
        address = self.build.keep_tooltip_data(page, data)
        etree.SubElement(root, "div", {"id": "sbn-figures", "hidden": "hidden", "data-src": address})


class _ChecksExtension(Extension):
    """What a page needs of Markdown beyond the quizzes: its macros' HTML stashed, its question ids collected,
    the typed-figure check, and its figures' tooltips."""

    def __init__(self, build: Build) -> None:
        super().__init__()
        self.build = build

    def extendMarkdown(self, md: Markdown) -> None:
        # After whitespace is normalized (30), which would strip a placeholder's control characters.
        md.preprocessors.register(_StashHtml(md, self.build), "sbn-stash-html", 29)
        # Once fenced code is highlighted and stashed (25), before the author's HTML blocks are (20).
        md.preprocessors.register(_NoteCode(md, self.build), "sbn-note-code", 21)
        # Once the raw HTML blocks are stashed (20), before md_in_html parses any of them as Markdown.
        md.preprocessors.register(_KeepTypedBlocks(md, self.build), "sbn-keep-typed-blocks", 19)
        # Once the blocks are parsed into elements; no later processor adds or removes a quiz.
        md.treeprocessors.register(_CollectItems(md, self.build), "sbn-collect-items", 1)
        # Once inline Markdown is read (20), before attr_list (8) and toc (5) give elements attributes.
        md.treeprocessors.register(_NoteAttributes(md, self.build), "sbn-note-attributes", 9)
        # Once every other tree processor (inline, toc, attr_list) has run, before our own at 1.
        md.treeprocessors.register(_PageCheck(md, self.build), "sbn-page-check", 2)
        md.treeprocessors.register(_FigureData(md, self.build), "sbn-figure-data", 1)
