"""The `/// quiz` and `/// checklist` blocks and the parts of a quiz, as pymdownx blocks.

Every block checks its header and its content and never leaves bad input as
literal text, which is pymdownx's default: a problem goes to the host
(`QuizHost.report`), which fails the build and names the file and line, and the
block shows the problem in its place.
"""

from __future__ import annotations

import re
import textwrap
import xml.etree.ElementTree as etree
from collections import Counter
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol

from markdown.util import HTML_PLACEHOLDER_RE, AtomicString
from pymdownx.blocks import BlocksProcessor
from pymdownx.blocks.block import Block

from ..data.schema import SchemaError, check_record, load_yaml
from .choices import ApartError, choices, values_apart, visible_text
from .errors import QuizError, ReportedAlready
from .numeric import KeyFigure, numeric
from .options import CHECKLIST_OPTIONS, QUIZ_OPTIONS
from .reports import report_link


class QuizHost(Protocol):
    """What a page gives its quizzes: the figures it rendered, its issue links, and where problems go."""

    def find_figure(self, text: str) -> KeyFigure | None:
        """The figure the text of an answer's first paragraph starts with (see `numeric.FindFigure`).

        Raises:
            ReportedAlready: the text starts with a problem the host reported (a figure macro that failed).
        """

    def issue_url(self, form: str, fields: dict[str, str]) -> str | None:
        """A new-issue address with the page's context and `fields`, or None where the page has none."""

    def report(self, message: str, near: Sequence[re.Pattern[str]]) -> None:
        """Take a problem with a block; `near` is what finds its line (`find_line`): patterns, each of a line after
        the one before it (a quiz's header, its id line, then the header of each of its parts up to this one, or
        the option refused); where one is not found, the line of the one before."""

    def add_question(self, question_id: str) -> str | None:
        """Note a question or rep id the page asks, so that the site can check ids are unique; what is wrong with
        the id (another page's, off the lesson's prefix), for the block to tell at its line, or None."""

    def script(self, name: str) -> str | None:
        """The address of our script `name` (such as answers.js) from the page, or None where the page has it."""


def find_line(lines: Sequence[str], near: Sequence[re.Pattern[str]]) -> int | None:
    """The line (from 1) of `lines` that the last of `near` finds, each searched on the lines after the one before
    it; where one finds nothing, the line of the one before; None when the first finds nothing.

    >>> find_line(["/// quiz | A", "    id: a", "/// quiz | A", "    id: 'a'"], [header_line("///", "quiz", "A")] * 2
    ...           + [option_line("id")])
    4
    """
    line = 0
    for pattern in near:
        found = next((n for n in range(line + 1, len(lines) + 1) if pattern.search(lines[n - 1])), 0)
        if not found:
            break
        line = found
    return line or None


def header_line(slashes: str, name: str, argument: str | None) -> re.Pattern[str]:
    """What finds a block's header line: the whole line, as pymdownx reads one (any spaces around the name and the
    |), never a line that only mentions it (in prose, or a longer title that starts the same: "Practice 10")."""
    title = rf" *\| *{re.escape(argument)}" if argument else ""
    return re.compile(rf"^ *{re.escape(slashes)} *{re.escape(name)}{title} *$")


def option_line(option: str) -> re.Pattern[str]:
    """What finds the line of a block's option: its key, indented under the header or in a flow mapping, quoted or
    not, with any spaces before its colon (`id: x`, `"id" : x`, `{kind: free, id: x}`); never the option's value."""
    return re.compile(rf"""(?:^\s+|[{{,]\s*)(["']?){re.escape(option)}\1\s*:""")


#: What finds a line that starts an item of a Markdown list (as Python-Markdown reads one: a nested list is indented
#: by four spaces), for `find_line` to count a checklist's items from its header.
LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def problem_box(parent: etree.Element, message: str) -> etree.Element:
    """An element that shows a build problem where it happened (the build fails on it anyway)."""
    box = etree.SubElement(parent, "div", {"class": "sbn-build-error", "role": "alert"})
    box.text = as_written(message)
    return box


def as_written(message: str) -> AtomicString:
    """A problem's text for its box, shown as written: never read as Markdown, and each "&" escaped, which
    Python-Markdown writes as it is where a character reference follows (a message that names "&nbsp;")."""
    return AtomicString(message.replace("&", "&amp;"))


class StrictBlocks(BlocksProcessor):
    """pymdownx's block manager, reading a block's options as the course reads a data file's YAML
    (`schema.load_yaml`): pymdownx reads them with PyYAML's safe_load, which takes a key given twice in silence,
    the last one winning (a quiz's second `id:` would move its readers' progress to another id)."""

    #: What is wrong with the options of the block whose header was read last, for that block to tell.
    options_problem: SchemaError | None = None

    def split_header(self, block: str, length: int) -> tuple[dict[str, Any] | None, str]:
        options, rest = super().split_header(block, length)
        self.options_problem = None
        # The options' text as pymdownx finds it: the indented lines right under the header (a closing line,
        # indented by 3 spaces at most, is never one of them).
        written = self.yaml_line.match(block)
        if options and written is not None:
            try:
                load_yaml(textwrap.dedent(written.group(0)), "", data_file=False)
            except SchemaError as error:
                self.options_problem = error
        return options, rest


class CourseBlock(Block):
    """A block whose problems go to the host instead of leaving its text as it was written."""

    #: Its options, each a field of `macros.data.schema`.
    FIELDS: Mapping[str, Any] = MappingProxyType({})

    def on_init(self) -> None:
        self.host: QuizHost = self.config["host"]
        self.page_ids: Counter[str] = self.config["ids"]
        self.page_headers: Counter[str] = self.config["headers"]
        self.problem: str | None = None
        #: Whether it was told not closed, once a block started inside it (`not_closed_before`).
        self.told_unclosed = False
        #: What finds the header lines of the blocks started inside it so far, in order, after its own.
        self.part_headers: list[re.Pattern[str]] = []

    def claim_id(self, question_id: str) -> int:
        """Note that this block gives `question_id` on the page; how many times the page has given it so far."""
        self.page_ids[question_id] += 1
        return self.page_ids[question_id]

    def claim_header(self) -> int:
        """Note that a block with this header starts here; how many the page has started so far, this one included."""
        self.page_headers[self.header] += 1
        return self.page_headers[self.header]

    @property
    def header(self) -> str:
        return f"{'/' * self.length} {self.NAME}" + (f" | {self.argument}" if self.argument else "")

    def start(self) -> tuple[re.Pattern[str], ...]:
        """What finds the block's header line in the source (`find_line`): the n-th line that is its header, n being
        how many blocks of the page so far have that header (another quiz may read "/// quiz | Practice 1" too)."""
        return (header_line("/" * self.length, self.NAME, self.argument),) * self.header_occurrence

    def near(self) -> tuple[re.Pattern[str], ...]:
        """What finds the line a problem with the block as a whole is told at: its header's."""
        return self.start()

    def fail(self, message: str, option: str | None = None, near: Sequence[re.Pattern[str]] | None = None) -> None:
        """Report a problem with this block (with its `option`, at that option's line; or at the line `near` finds);
        the block shows it instead of its content."""
        if self.problem is None:
            self.problem = f"{self.header}: {message}"
            if near is None:
                near = (*self.start(), option_line(option)) if option else self.near()
            self.host.report(self.problem, near)

    # A private API of pymdownx (checked against pymdown-extensions 13.1.2; tests/unit/test_private_apis.py):
    # its BlocksProcessor calls `_validate(parent, arg, **options)`, which returns False on an unknown option or
    # argument, and the block is then left as literal text without a word. Overriding it is the only way to
    # take every option and say what is wrong with one; the public `on_validate` runs after that refusal.
    def _validate(self, parent: etree.Element, arg: Any, **options: Any) -> bool:
        self.argument = arg
        self.header_occurrence = self.claim_header()
        self.options: dict[str, Any] = {"attrs": {}, **self.checked_options(options)}
        if self.ARGUMENT is not None and bool(arg) != self.ARGUMENT:
            self.fail(f"the title after | is {'required' if self.ARGUMENT else 'not allowed'}")
        self.check_place(parent)
        return True

    def checked_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Its options, checked (`FIELDS`); once a problem with them is told, the unknown ones, the rest None."""
        strict = self._block_mgr.options_problem if isinstance(self._block_mgr, StrictBlocks) else None
        if strict is not None and strict.field is not None:  # a key given twice: at the second's line
            twice = (*self.start(), option_line(strict.field), option_line(strict.field))
            self.fail(f"the key {strict.field!r} is given twice in its options: keep one", near=twice)
        elif strict is not None:
            self.fail(f"its options are {str(strict).partition(': ')[2]}")
        else:
            try:
                return check_record(self.header, options, self.FIELDS, noun="option")
            except SchemaError as error:
                detail = str(error).removeprefix(self.header).lstrip(".: ")
                self.fail(f"{detail} (options are indented by 4 spaces under the header)", error.field)
        return {**options, **{name: None for name in self.FIELDS}}

    def check_place(self, parent: etree.Element) -> None:
        """Check where the block sits; the default: anywhere but inside another quiz or checklist."""
        # Private too (pymdown-extensions 13.1.2, the same test): the open blocks, outermost first. A block
        # sees only its parent element, which does not say that a quiz encloses it.
        holder = self.holder()
        if holder is not None:
            holder.not_closed_before(self)

    def holder(self) -> QuizBlock | ChecklistBlock | None:
        """The innermost quiz or checklist still open where this block starts, if any."""
        open_blocks = (entry.block for entry in reversed(self._block_mgr.stack))
        return next((block for block in open_blocks if isinstance(block, QuizBlock | ChecklistBlock)), None)

    def not_closed_before(self, block: CourseBlock) -> None:
        """`block` starts inside this quiz or checklist, which holds none: this one is not closed before it (its
        closing line left out, or the other written inside it). Told once, at this block's line: every later block
        of the page starts inside it too, one missing line, and each of them is checked as if it were closed."""
        if self.told_unclosed:
            return
        self.told_unclosed = True
        told = f"{self.header}: is not closed: end it with a line {'/' * self.length} before {block.header}, inside it"
        if self.problem is None:  # its content is not checked: it holds the blocks after it
            self.problem = told
        self.host.report(told, self.near())

    def on_create(self, parent: etree.Element) -> etree.Element:
        if self.problem is not None:
            return problem_box(parent, self.problem)
        return self.create(parent)

    def create(self, parent: etree.Element) -> etree.Element:
        raise NotImplementedError

    def on_end(self, block: etree.Element) -> None:
        if self.problem is None:
            try:
                self.end(block)
            except ReportedAlready as error:
                # Its header left out: the box repeats no block syntax that the page checks would take as typed.
                self.problem = f"this question is not shown: {error}"
            except QuizError as error:
                self.fail(str(error))
        if self.problem:
            self.show_problem(block)

    def show_problem(self, block: etree.Element) -> None:
        """Replace the block's element by the box that shows its problem."""
        assert self.problem is not None, "only a block with a problem shows one"
        block.clear()
        block.tag = "div"
        block.attrib.update({"class": "sbn-build-error", "role": "alert"})
        block.text = as_written(self.problem)

    def end(self, block: etree.Element) -> None:
        """Check and lay out the block's content once it is all there."""

    def _unstash(self, text: str) -> str:
        """`text` with the HTML its stash placeholders stand for (a figure's element) in their place."""
        stash = self.md.htmlStash.rawHtmlBlocks

        def html(match: re.Match[str]) -> str:
            index = int(match.group(1))
            return str(stash[index]) if index < len(stash) else ""

        return HTML_PLACEHOLDER_RE.sub(html, text)


class QuizBlock(CourseBlock):
    """`/// quiz | Title`: one question of any kind."""

    NAME = "quiz"
    ARGUMENT = True
    FIELDS = QUIZ_OPTIONS

    def _validate(self, parent: etree.Element, arg: Any, **options: Any) -> bool:
        valid = super()._validate(parent, arg, **options)
        quiz_id = self.options.get("id")
        if quiz_id and self.claim_id(quiz_id) > 1:
            # Told here, once, at this quiz's own id line: past this point the page would hold two forms of
            # one id (and the site, `add_question`, would tell it again).
            self.fail(f"the id {quiz_id} is already a question of this page: give this one its own id")
        return valid

    def near(self) -> tuple[re.Pattern[str], ...]:
        # At its own `id:` line, the first after its own header: a search for the id's text found the first line
        # anywhere that read "id: <the id>" (in prose, another block), and no line for `id: "l8-q"`.
        if self.options.get("id"):
            return (*self.start(), option_line("id"))
        return self.start()

    def create(self, parent: etree.Element) -> etree.Element:
        quiz_id, kind = self.options["id"], self.options["kind"]
        problem = self.host.add_question(quiz_id)
        if problem:  # at the quiz's id line; the box then stands for the quiz (`on_end`)
            self.fail(problem)
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
        return block if self.problem is not None else block[0]  # the fieldset, until the end sorts the content

    def end(self, block: etree.Element) -> None:
        quiz_id, kind = self.options["id"], self.options["kind"]
        fieldset = block[0]
        parts = list(fieldset)[1:]
        options = [part for part in parts if part.get("data-sbn") == "option"]
        answers = [part for part in parts if part.get("data-sbn") == "answer"]
        mistakes = [part for part in parts if part.get("data-sbn") == "mistake"]
        question = [part for part in parts if part.get("data-sbn") is None]
        if any(part.get("class") == "sbn-build-error" for part in parts):
            # A part that failed is reported at its line; counting the parts left would report a second,
            # wrong problem ("needs at least two options").
            raise ReportedAlready("one of its parts has a problem, reported at its line")
        if not any(_has_text(part) for part in question):
            raise QuizError("the question is empty; write it as the block's first paragraph")
        for part in parts:
            fieldset.remove(part)
        body = etree.SubElement(fieldset, "div", {"class": "sbn-quiz__question"})
        body.extend(question)

        if mistakes and kind != "numeric":
            raise QuizError("only a numeric quiz takes `//// mistake` blocks: a choice explains itself in its feedback")
        for mistake in mistakes:
            mistake.attrib.pop("data-sbn")
        if kind in ("single", "multiple"):
            if answers:
                raise QuizError(f"a {kind}-choice quiz takes `//// option` blocks, not `//// answer`")
            answer = choices(quiz_id, kind, fieldset, options, self._unstash, self.md.ESCAPED_CHARS)
        else:
            if options:
                raise QuizError("only single and multiple choice take `//// option` blocks")
            if len(answers) != 1:
                words = "key figure and its working" if kind == "numeric" else "model answer"
                raise QuizError(f"add one `//// answer` block with the {words}")
            answer = answers[0]
            answer.attrib.pop("data-sbn")
            answer.set("class", "sbn-quiz__model")
            if kind == "numeric":
                tolerance = self.options["tolerance"]
                mistakes = numeric(quiz_id, block, fieldset, answer, tolerance, self.host.find_figure, mistakes)
            else:
                _free_field(quiz_id, fieldset)
        if kind != "numeric" and self.options["tolerance"] is not None:
            raise QuizError("only a numeric quiz takes a tolerance")

        if kind != "free":
            # Hidden until the script mounts the quiz: without it, the button could do nothing.
            actions = etree.SubElement(fieldset, "div", {"class": "sbn-quiz__actions", "hidden": "hidden"})
            check = etree.SubElement(actions, "button", {"type": "submit", "class": "md-button md-button--primary"})
            check.text = "Check"
        result = etree.SubElement(fieldset, "div", {"class": "sbn-quiz__result", "role": "status"})
        result.text = ""
        details = etree.SubElement(fieldset, "details", {"class": "sbn-quiz__answer"})
        summary = etree.SubElement(details, "summary")
        summary.text = "Show model answer" if kind == "free" else "Show answer"
        details.append(answer)
        details.extend(mistakes)
        if kind == "free":
            _self_marks(fieldset)
        report_link(fieldset, quiz_id, kind, self.host.issue_url)


#: The longest free answer the page keeps (course.js caps it again, on saving and on loading).
MAX_FREE_ANSWER = 4000


def _free_field(quiz_id: str, fieldset: etree.Element) -> None:
    input_id = f"quiz-{quiz_id}-answer"
    field = etree.SubElement(fieldset, "p", {"class": "sbn-quiz__field"})
    label = etree.SubElement(field, "label", {"for": input_id})
    label.text = "Your answer, kept in this browser"
    textarea = etree.SubElement(
        field, "textarea", {"id": input_id, "name": "answer", "rows": "3", "maxlength": str(MAX_FREE_ANSWER)}
    )
    textarea.text = ""


def _self_marks(parent: etree.Element) -> None:
    """The "got it" / "not yet" buttons a reader marks a free answer with, after reading the model."""
    marks = etree.SubElement(parent, "div", {"class": "sbn-quiz__marks", "hidden": "hidden"})
    prompt = etree.SubElement(marks, "span")
    prompt.text = "Compared with yours:"
    for mark, text in (("got-it", "Got it"), ("not-yet", "Not yet")):
        button = etree.SubElement(marks, "button", {"type": "button", "data-mark": mark, "aria-pressed": "false"})
        button.text = text


def _has_text(element: etree.Element) -> bool:
    return bool("".join(element.itertext()).strip())


class PartBlock(CourseBlock):
    """A part of a quiz (`//// option`, `//// answer`), which must sit directly inside one."""

    def _validate(self, parent: etree.Element, arg: Any, **options: Any) -> bool:
        self.argument = arg
        # Found after the line of the quiz or checklist it is in, by the headers of that block's parts up to it:
        # every option's header may read "//// option", the first of them the page's first quiz's (and a part
        # misplaced in a checklist is told at its own line, not at the page's first part of its name).
        holder = self.holder()
        #: Whether the quiz it is in failed already (its id taken, say): its parts then sit in its form, not its
        #: body, and were each told they belong inside a quiz, two wrong problems after the one.
        self.in_failed_quiz = isinstance(holder, QuizBlock) and holder.problem is not None
        self.place: tuple[re.Pattern[str], ...] = ()
        if holder is not None:
            holder.part_headers.append(header_line("/" * self.length, self.NAME, arg))
            self.place = (*holder.near(), *holder.part_headers)
        return super()._validate(parent, arg, **options)

    def start(self) -> tuple[re.Pattern[str], ...]:
        # In no quiz or checklist: the n-th line of its header on the page, as a quiz is found.
        return self.place or super().start()

    def check_place(self, parent: etree.Element) -> None:
        if parent.get("class") == "sbn-build-error" or self.in_failed_quiz:
            self.problem = ""  # inside a quiz that failed already: one report is enough
        elif parent.get("data-sbn") is not None:
            self.fail(f"the `//// {parent.get('data-sbn')}` before it is not closed: end that one with ////")
        elif parent.get("class") != "sbn-quiz__body":
            self.fail("it belongs directly inside a /// quiz block, one level deeper (four slashes)")

    def create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"data-sbn": self.NAME})


class OptionBlock(PartBlock):
    """`//// option` or `//// option | correct`: the option's text, then its feedback."""

    NAME = "option"
    ARGUMENT = None

    def _validate(self, parent: etree.Element, arg: Any, **options: Any) -> bool:
        super()._validate(parent, arg, **options)
        if arg not in (None, "correct"):
            self.fail("the only word allowed after | is `correct`")
        return True

    def create(self, parent: etree.Element) -> etree.Element:
        element = super().create(parent)
        element.set("data-correct", "true" if self.argument == "correct" else "false")
        return element

    def end(self, block: etree.Element) -> None:
        if len(block) < 2 or block[0].tag != "p":
            raise QuizError(
                "write the option's text as its first paragraph, then its feedback (why it is right or wrong) below"
            )


class MistakeBlock(PartBlock):
    """`//// mistake`: a wrong answer a numeric quiz knows readers reach (its value, a figure macro), and why."""

    NAME = "mistake"
    ARGUMENT = False

    def end(self, block: etree.Element) -> None:
        if not len(block) or block[0].tag != "p":
            raise QuizError("write the wrong answer's figure first, then why a reader reaches it, as a paragraph")


class AnswerBlock(PartBlock):
    """`//// answer`: a numeric quiz's key and working, or a free quiz's model answer."""

    NAME = "answer"
    ARGUMENT = False

    def end(self, block: etree.Element) -> None:
        if not _has_text(block):
            raise QuizError("the answer is empty")


class ChecklistBlock(CourseBlock):
    """`/// checklist | Title`: a Markdown list of real-world reps, one id per item in `items`."""

    NAME = "checklist"
    ARGUMENT = True
    FIELDS = CHECKLIST_OPTIONS

    def _validate(self, parent: etree.Element, arg: Any, **options: Any) -> bool:
        valid = super()._validate(parent, arg, **options)
        # Told here, at the `items` line, once: past this point the id would give the page two checkboxes of one
        # id (and the site, `add_question`, would tell it again).
        items = self.options.get("items") or []
        twice = sorted({item for item in items if items.count(item) > 1})
        if twice:
            self.fail(f"`items` lists {', '.join(twice)} more than once: give each rep its own id", "items")
        taken = [item for item in dict.fromkeys(items) if self.claim_id(item) > 1]
        if taken and not twice:
            already = ", ".join(taken)
            self.fail(f"`items` gives {already}, already a question of this page: give each its own id", "items")
        return valid

    def create(self, parent: etree.Element) -> etree.Element:
        for item_id in self.options["items"]:
            problem = self.host.add_question(item_id)
            if problem:
                self.fail(problem, "items")
        fieldset = etree.SubElement(parent, "fieldset", {"class": "sbn-checklist"})
        legend = etree.SubElement(fieldset, "legend")
        legend.text = self.argument
        return fieldset

    def end(self, block: etree.Element) -> None:
        ids = self.options["items"]
        lists = [child for child in block if child.tag == "ul"]
        items = [item for listing in lists for item in listing if item.tag == "li"]
        if len(lists) != 1 or len(items) != len(ids):
            raise QuizError(
                f"write one Markdown list with {len(ids)} items, one for each id in `items` (found {len(items)})"
            )
        holders = []
        for item in items:
            paragraph = item.find("p")
            holders.append(paragraph if paragraph is not None else item)
        # Read as the quiz's options are (`choices.values_apart`): a label that shows nothing, or reads as another,
        # is told at its own item's line, the n-th list item after the checklist's header.
        shown = [visible_text(holder.text or "", self._unstash, self.md.ESCAPED_CHARS) for holder in holders]
        try:
            values_apart(shown, [f"{n} ({item_id})" for n, item_id in enumerate(ids, start=1)], "item", "the rep")
        except ApartError as error:
            self.fail(str(error), near=(*self.start(), *(LIST_ITEM,) * (error.index + 1)))
            return
        for item, holder, item_id in zip(items, holders, ids, strict=True):
            input_id = f"check-{item_id}"
            label = etree.Element("label", {"for": input_id})
            label.text, holder.text = holder.text, None
            label.extend(list(holder))
            for child in list(holder):
                holder.remove(child)
            box = etree.Element("input", {"type": "checkbox", "id": input_id, "data-rep-id": item_id})
            holder.insert(0, box)
            holder.insert(1, label)
            item.set("class", "sbn-checklist__item")
