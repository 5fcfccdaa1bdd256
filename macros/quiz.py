"""Quizzes in a lesson's Markdown, as pymdown-extensions blocks.

```
/// quiz | Practice 1
    id: l8-practice-1
    kind: numeric
    tolerance: 5%

How much memory do the model states of a 7-billion-parameter model take?

//// answer
{{ model_states("example-7b") }}: 16 bytes for each parameter.
////
///
```

Kinds: `single` and `multiple` choice (each `//// option` holds the option's
text, then its feedback; `//// option | correct` marks a right one), `numeric`
(the answer starts with the key, a figure from the course's macros, and
`tolerance` says how close counts), and `free` (the answer is a model answer
to compare with). `/// checklist` lists real-world reps, with one id per item.

Everything renders as plain HTML forms that read well without JavaScript: each
answer sits in a native `<details>`. `docs/assets/javascripts/course.js` makes
them answer back. Bad input raises `QuizError`, which fails the build; it never
leaves the block as literal text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from html.parser import HTMLParser
from typing import Any

from markdown import Markdown
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from pymdownx.blocks import BlocksExtension, BlocksProcessor
from pymdownx.blocks.block import Block

from .issues import QUIZ_FORM, query
from .quantities import display_scale
from .validation import SLUG, key_problem

KINDS = ("single", "multiple", "numeric", "free")
#: Quiz and checklist ids: lower case, digits and hyphens, as in `l8-practice-1`.
_TOLERANCE = re.compile(r"^(\d+(?:\.\d+)?)\s*%$")
_LEFTOVER = re.compile(r"(?m)(?:^|>)\s*/{3,}\s*(quiz|checklist|option|answer)\b")
_CODE = re.compile(r"<(pre|code)\b.*?</\1>", re.DOTALL)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: The line through which the course's macros tell this extension how to report a question:
#: a new-issue URL of the quiz form with the page's fields filled in.
_ISSUE_LINE = re.compile(r"^<!-- sbn-question-issue: (https://\S+) -->$")


class QuizError(ValueError):
    """A quiz or checklist is malformed; the message says what and how to fix it."""


def check_id(value: Any) -> str:
    """A quiz id: lower-case words and digits joined by hyphens, such as `l8-practice-1`."""
    if not isinstance(value, str) or not SLUG.match(value):
        raise QuizError(f"id {value!r} should be lower-case words and digits joined by hyphens, like l8-practice-1")
    return value


def check_kind(value: Any) -> str:
    """A quiz kind: one of `KINDS`."""
    if value not in KINDS:
        raise QuizError(f"unknown kind {value!r}; use one of: {', '.join(KINDS)}")
    return value


def check_tolerance(value: Any) -> float:
    """A relative tolerance written as a percentage, "5%", returned as 0.05."""
    match = _TOLERANCE.match(str(value).strip())
    if not match or not 0 < float(match.group(1)) < 100:
        raise QuizError(f"tolerance {value!r} should be a percentage above 0 and below 100, like 5%")
    return float(match.group(1)) / 100


def check_item_ids(value: Any) -> list[str]:
    """A checklist's item ids, one per item, in order."""
    if not isinstance(value, list) or not value:
        raise QuizError(f"items {value!r} should list one id per item, like [l8-rep-1, l8-rep-2]")
    return [check_id(item) for item in value]


class _StrictBlock(Block):
    """A block that raises on a bad argument or option instead of staying literal text."""

    #: Options a block requires, on top of OPTIONS' defaults.
    REQUIRED: tuple[str, ...] = ()

    def _validate(self, parent: etree.Element, arg: Any, **options: Any) -> bool:
        where = f"/// {self.NAME}" + (f" | {arg}" if arg else "")
        problem = key_problem(options, self.OPTIONS, self.REQUIRED, noun="option")
        if problem:
            raise QuizError(f"{where}: {problem} (options are indented by 4 spaces under the header)")
        for name, value in options.items():
            try:
                self.OPTIONS[name][1](value)
            except QuizError as error:
                raise QuizError(f"{where}: {error}") from None
        if not super()._validate(parent, arg, **options):
            raise QuizError(f"{where}: the argument after | is {'required' if self.ARGUMENT else 'not allowed'}")
        return True


class QuizBlock(_StrictBlock):
    """`/// quiz | Title`: one question of any kind."""

    NAME = "quiz"
    ARGUMENT = True
    OPTIONS = {  # noqa: RUF012 (pymdownx's own class attribute)
        "id": ("", check_id),
        "kind": ("", check_kind),
        "tolerance": (None, check_tolerance),
    }
    REQUIRED = ("id", "kind")

    def on_create(self, parent: etree.Element) -> etree.Element:
        quiz_id, kind = self.options["id"], self.options["kind"]
        form = etree.SubElement(
            parent,
            "form",
            {
                "class": f"sbn-quiz sbn-quiz--{kind}",
                "id": f"quiz-{quiz_id}",
                "data-quiz-id": quiz_id,
                "data-quiz-kind": kind,
                "novalidate": "novalidate",
            },
        )
        fieldset = etree.SubElement(form, "fieldset", {"class": "sbn-quiz__body"})
        legend = etree.SubElement(fieldset, "legend")
        legend.text = self.argument
        return form

    def on_add(self, block: etree.Element) -> etree.Element:
        return block[0]  # the fieldset, until on_end sorts the content

    def on_end(self, block: etree.Element) -> None:
        quiz_id, kind = self.options["id"], self.options["kind"]
        where = f"/// quiz | {self.argument} (id {quiz_id})"
        fieldset = block[0]
        parts = list(fieldset)[1:]
        options = [part for part in parts if part.get("data-sbn") == "option"]
        answers = [part for part in parts if part.get("data-sbn") == "answer"]
        question = [part for part in parts if part.get("data-sbn") is None]
        for part in parts:
            fieldset.remove(part)
        if not question or not any(_has_text(part) for part in question):
            raise QuizError(f"{where}: the question is empty; write it as the block's first paragraph")
        body = etree.SubElement(fieldset, "div", {"class": "sbn-quiz__question"})
        body.extend(question)

        if kind in ("single", "multiple"):
            if answers:
                raise QuizError(f"{where}: a {kind}-choice quiz takes `//// option` blocks, not `//// answer`")
            answer = self._choices(fieldset, options, where)
        else:
            if options:
                raise QuizError(f"{where}: only single and multiple choice take `//// option` blocks")
            if len(answers) != 1:
                raise QuizError(f"{where}: add one `//// answer` block with the {_ANSWER_WORDS[kind]}")
            answer = answers[0]
            answer.attrib.pop("data-sbn")
            answer.set("class", "sbn-quiz__model")
            if kind == "numeric":
                self._numeric(block, fieldset, answer, where)
            else:
                self._free(fieldset, answer)
        if kind != "numeric" and self.options["tolerance"] is not None:
            raise QuizError(f"{where}: only a numeric quiz takes a tolerance")

        if kind != "free":
            # Hidden until the script mounts the quiz: without it, the button could do nothing.
            actions = etree.SubElement(fieldset, "div", {"class": "sbn-quiz__actions", "hidden": "hidden"})
            check = etree.SubElement(actions, "button", {"type": "submit", "class": "md-button md-button--primary"})
            check.text = "Check"
        result = etree.SubElement(fieldset, "div", {"class": "sbn-quiz__result", "role": "status"})
        result.text = ""
        details = etree.SubElement(block, "details", {"class": "sbn-quiz__answer"})
        summary = etree.SubElement(details, "summary")
        summary.text = "Show model answer" if kind == "free" else "Show answer"
        details.append(answer)
        if kind == "free":
            _self_mark(block)
        self._issue_link(block)

    def _issue_link(self, form: etree.Element) -> None:
        """A link to report this question, when the page says where (see `_IssueLine`)."""
        base = getattr(self.md, "sbn_question_issue", None)
        if base is None:
            return
        quiz_id = self.options["id"]
        if QUIZ_FORM not in base:
            raise QuizError(f"the question issue link {base!r} does not use the {QUIZ_FORM} form")
        report = etree.SubElement(form, "p", {"class": "sbn-quiz__report"})
        link = etree.SubElement(
            report, "a", {"href": f"{base}&{query({'title': f'Quiz answer: {quiz_id}', 'question-id': quiz_id})}"}
        )
        link.text = "Report a problem with this question"

    def _choices(self, fieldset: etree.Element, options: list[etree.Element], where: str) -> etree.Element:
        if len(options) < 2:
            raise QuizError(f"{where}: a choice quiz needs at least two `//// option` blocks")
        correct = [option for option in options if option.get("data-correct") == "true"]
        kind = self.options["kind"]
        if kind == "single" and len(correct) != 1:
            raise QuizError(f"{where}: a single-choice quiz needs exactly one `//// option | correct`")
        if kind == "multiple" and not correct:
            raise QuizError(f"{where}: a multiple-choice quiz needs at least one `//// option | correct`")
        listing = etree.SubElement(fieldset, "ul", {"class": "sbn-quiz__options"})
        answer = etree.Element("div", {"class": "sbn-quiz__feedback"})
        lead = etree.SubElement(answer, "p")
        lead.text = "Right: " + ", ".join(f"{_LETTERS[options.index(option)]})" for option in correct)
        feedback_list = etree.SubElement(answer, "ul")
        input_type = "radio" if kind == "single" else "checkbox"
        for index, option in enumerate(options):
            letter = _LETTERS[index]
            label_paragraph, *feedback = list(option)
            item = etree.SubElement(listing, "li")
            label = etree.SubElement(item, "label")
            etree.SubElement(
                label, "input", {"type": input_type, "name": f"{self.options['id']}-choice", "value": letter}
            )
            text = etree.SubElement(label, "span")
            text.text = f"{letter}) " + (label_paragraph.text or "")
            text.extend(list(label_paragraph))
            entry = etree.SubElement(
                feedback_list,
                "li",
                {"data-option": letter, "data-correct": option.get("data-correct", "false")},
            )
            verdict = etree.Element("strong", {"class": "sbn-quiz__verdict"})
            verdict.text = f"{letter}) {'Right' if option.get('data-correct') == 'true' else 'Not this one'}."
            entry.extend(feedback)
            # The verdict opens the feedback's first paragraph, so that they read as one.
            first = entry[0] if len(entry) and entry[0].tag == "p" else entry
            verdict.tail = " " + (first.text or "")
            first.text = None
            first.insert(0, verdict)
        return answer

    def _numeric(self, form: etree.Element, fieldset: etree.Element, answer: etree.Element, where: str) -> None:
        tolerance = self.options["tolerance"]
        if tolerance is None:
            raise QuizError(f"{where}: a numeric quiz needs `tolerance:`, how close counts, like 5%")
        key = _leading_figure(answer)
        if key is None:
            raise QuizError(
                f"{where}: the answer must start with its key, a figure macro such as"
                ' {{ model_states("example-7b") }}; a typed number is not a key'
            )
        value, unit = key["data-value"], key["data-unit"]
        factor, name = display_scale(float(value), unit)
        factor = Fraction(factor)
        percent = f"{tolerance * 100:g}"
        form.attrib.update(
            {
                "data-key-value": value,
                "data-key-unit": unit,
                # Scales are powers of ten (10**9 for GB, 1/1000 for ms), exact as decimals.
                "data-key-scale": format(Decimal(factor.numerator) / Decimal(factor.denominator), "f"),
                "data-tolerance": f"{tolerance:g}",
                "data-tolerance-percent": percent,
            }
        )
        input_id = f"quiz-{self.options['id']}-answer"
        field = etree.SubElement(fieldset, "p", {"class": "sbn-quiz__field"})
        label = etree.SubElement(field, "label", {"for": input_id})
        label.text = "Your answer"
        etree.SubElement(
            field,
            "input",
            {
                "type": "text",
                "id": input_id,
                "name": "answer",
                "autocomplete": "off",
                "spellcheck": "false",
                "aria-describedby": f"{input_id}-hint",
            },
        )
        hint = etree.SubElement(field, "span", {"class": "sbn-quiz__hint", "id": f"{input_id}-hint"})
        unit_words = f" (a bare number counts as {name})" if name else ""
        hint.text = f"A number with its unit{unit_words}; within {percent}% counts."

    def _free(self, fieldset: etree.Element, answer: etree.Element) -> None:
        input_id = f"quiz-{self.options['id']}-answer"
        field = etree.SubElement(fieldset, "p", {"class": "sbn-quiz__field"})
        label = etree.SubElement(field, "label", {"for": input_id})
        label.text = "Your answer, kept in this browser"
        textarea = etree.SubElement(field, "textarea", {"id": input_id, "name": "answer", "rows": "3"})
        textarea.text = ""


_ANSWER_WORDS = {"numeric": "key figure and its working", "free": "model answer"}


def _self_mark(form: etree.Element) -> None:
    """The "got it" / "not yet" buttons a reader marks a free answer with, after reading the model."""
    marks = etree.SubElement(form, "div", {"class": "sbn-quiz__marks", "hidden": "hidden"})
    prompt = etree.SubElement(marks, "span")
    prompt.text = "Compared with yours:"
    for mark, text in (("got-it", "Got it"), ("not-yet", "Not yet")):
        button = etree.SubElement(marks, "button", {"type": "button", "data-mark": mark, "aria-pressed": "false"})
        button.text = text


def _has_text(element: etree.Element) -> bool:
    return bool("".join(element.itertext()).strip())


class _FigureFinder(HTMLParser):
    """Finds the first `<span class="fig">` in raw HTML and keeps its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.figure: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if self.figure is None and tag == "span" and "fig" in attributes.get("class", "").split():
            self.figure = attributes


def _leading_figure(answer: etree.Element) -> dict[str, str] | None:
    """The figure an answer starts with (still raw HTML before inline parsing), if it starts with one."""
    if not len(answer) or not (answer[0].text or "").lstrip().startswith("<span"):
        return None
    finder = _FigureFinder()
    finder.feed(answer[0].text or "")
    return finder.figure


class _PartBlock(_StrictBlock):
    """A part of a quiz (`//// option`, `//// answer`), which must sit directly inside one."""

    def on_validate(self, parent: etree.Element) -> bool:
        if parent.get("class") != "sbn-quiz__body":
            raise QuizError(f"//// {self.NAME} belongs inside a /// quiz block, one level deeper (four slashes)")
        return True

    def on_create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"data-sbn": self.NAME})


class OptionBlock(_PartBlock):
    """`//// option` or `//// option | correct`: the option's text, then its feedback."""

    NAME = "option"
    ARGUMENT = None

    def on_validate(self, parent: etree.Element) -> bool:
        if self.argument not in (None, "correct"):
            raise QuizError(f"//// option | {self.argument}: the only word allowed after | is `correct`")
        return super().on_validate(parent)

    def on_create(self, parent: etree.Element) -> etree.Element:
        element = super().on_create(parent)
        element.set("data-correct", "true" if self.argument == "correct" else "false")
        return element

    def on_end(self, block: etree.Element) -> None:
        if len(block) < 2 or block[0].tag != "p":
            raise QuizError(
                "//// option: write the option's text as its first paragraph, then its feedback (why it is right"
                " or wrong) below"
            )


class AnswerBlock(_PartBlock):
    """`//// answer`: a numeric quiz's key and working, or a free quiz's model answer."""

    NAME = "answer"
    ARGUMENT = False

    def on_end(self, block: etree.Element) -> None:
        if not _has_text(block):
            raise QuizError("//// answer: the answer is empty")


class ChecklistBlock(_StrictBlock):
    """`/// checklist | Title`: a Markdown list of real-world reps, one id per item in `items`."""

    NAME = "checklist"
    ARGUMENT = True
    OPTIONS = {"items": ([], check_item_ids)}  # noqa: RUF012 (pymdownx's own class attribute)
    REQUIRED = ("items",)

    def on_create(self, parent: etree.Element) -> etree.Element:
        fieldset = etree.SubElement(parent, "fieldset", {"class": "sbn-checklist"})
        legend = etree.SubElement(fieldset, "legend")
        legend.text = self.argument
        return fieldset

    def on_end(self, block: etree.Element) -> None:
        ids = self.options["items"]
        lists = [child for child in block if child.tag == "ul"]
        items = [item for listing in lists for item in listing if item.tag == "li"]
        if len(lists) != 1 or len(items) != len(ids):
            raise QuizError(
                f"/// checklist | {self.argument}: write one Markdown list with {len(ids)} items,"
                f" one for each id in `items` (found {len(items)})"
            )
        for item, item_id in zip(items, ids, strict=True):
            input_id = f"check-{item_id}"
            paragraph = item.find("p")
            holder = paragraph if paragraph is not None else item
            label = etree.Element("label", {"for": input_id})
            label.text, holder.text = holder.text, None
            label.extend(list(holder))
            for child in list(holder):
                holder.remove(child)
            box = etree.Element("input", {"type": "checkbox", "id": input_id, "data-rep-id": item_id})
            holder.insert(0, box)
            holder.insert(1, label)
            item.set("class", "sbn-checklist__item")


_QUESTION_ID = re.compile(r'data-(?:quiz|rep)-id="([^"]+)"')


def duplicate_ids(pages: Mapping[str, str]) -> dict[str, list[str]]:
    """Question and rep ids used more than once across built pages (page path → HTML).

    Progress is stored per id, so two questions with one id would share it.
    """
    seen: dict[str, list[str]] = {}
    for page, html in sorted(pages.items()):
        for question_id in _QUESTION_ID.findall(html):
            seen.setdefault(question_id, []).append(page)
    return {question_id: where for question_id, where in seen.items() if len(where) > 1}


class _IssueLine(Preprocessor):
    """Takes the page's question-issue line out of the Markdown and keeps its URL for the quizzes."""

    def run(self, lines: list[str]) -> list[str]:
        self.md.sbn_question_issue = None  # type: ignore[attr-defined]
        kept = []
        for line in lines:
            match = _ISSUE_LINE.match(line)
            if match:
                self.md.sbn_question_issue = match.group(1)  # type: ignore[attr-defined]
            else:
                kept.append(line)
        return kept


def issue_line(url: str) -> str:
    """The line a page's Markdown carries to give its quizzes their report link."""
    line = f"<!-- sbn-question-issue: {url} -->"
    if not _ISSUE_LINE.match(line):
        raise QuizError(f"a question issue URL must be https and have no spaces, got {url!r}")
    return line


class _LeftoverCheck(Postprocessor):
    """Fails on a quiz block that pymdownx could not parse (invalid YAML options leave it as text)."""

    def run(self, text: str) -> str:
        match = _LEFTOVER.search(_CODE.sub("", text))
        if match:
            raise QuizError(
                f"a `{match.group(0).strip(' >')}` block was left as text: check that its options are valid YAML,"
                " indented by 4 spaces right under the header line, and that it is closed by as many slashes"
            )
        return text


class QuizExtension(BlocksExtension):
    """Registers the quiz, option, answer and checklist blocks."""

    def extendMarkdownBlocks(self, md: Markdown, block_mgr: BlocksProcessor) -> None:
        for block in (QuizBlock, OptionBlock, AnswerBlock, ChecklistBlock):
            block_mgr.register(block, {})
        md.postprocessors.register(_LeftoverCheck(md), "sbn-quiz-leftovers", 0)
        # Before the raw-HTML preprocessor (20) stashes the line as a comment.
        md.preprocessors.register(_IssueLine(md), "sbn-question-issue", 25)


def makeExtension(**kwargs: Any) -> QuizExtension:
    """The entry point Markdown calls for `macros.quiz` in mkdocs.yml."""
    return QuizExtension(**kwargs)
