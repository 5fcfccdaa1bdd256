"""Quizzes in a lesson's Markdown, as pymdownx blocks.

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
`tolerance` says how close counts; a `//// mistake` names a wrong answer readers
reach, and why), and `free` (the answer is a model answer to compare with).
`/// checklist` lists real-world reps, with one id per item.

Everything renders as plain HTML forms that read well without JavaScript: each
answer sits in a native `<details>`. `docs/assets/javascripts/course.js` makes
them answer back, with `answers.js` on a page that asks a numeric question.
The modules: `options` (what a header may say), `blocks` (the blocks),
`choices` and `numeric` (the two checked kinds), `reports` (each
question's issue link), `units` and `answers` (the table of units a numeric
answer may be written in, written into the page once, and the page's reading of
an answer, in Python), `verdicts` (a digest of each checked question's key, under
which a stored verdict counts). Problems go to the host the extension is given; the
course's build (`macros.build.state`) reports them with the file and line and fails;
alone, as in tests, the extension raises `QuizError`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from markdown import Markdown
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor
from pymdownx.blocks import BlocksExtension, BlocksProcessor

from ..pages.issues import query
from .blocks import (
    AnswerBlock,
    ChecklistBlock,
    CourseBlock,
    MistakeBlock,
    OptionBlock,
    QuizBlock,
    QuizHost,
    StrictBlocks,
)
from .errors import QuizError, ReportedAlready
from .numeric import LEADING_FIGURE, KeyFigure
from .units import page_json, unit_table

__all__ = ["KeyFigure", "QuizError", "QuizExtension", "QuizHost", "ReportedAlready", "StandaloneHost", "makeExtension"]

#: A block header that pymdownx left as text (its options were not valid YAML).
_LEFTOVER = re.compile(r"(?m)(?:^|>)\s*/{3,}\s*(quiz|checklist|option|answer|mistake)\b[^<\n]*")
#: Code, and the boxes of problems reported already, which may quote a header.
_NOT_LEFTOVERS = re.compile(r"<(pre|code)\b.*?</\1>|<(div|span) class=\"sbn-build-error\".*?</\2>", re.DOTALL)


class StandaloneHost:
    """A host for the extension outside the course's build: problems raise, figures come from a mapping."""

    def __init__(self, figures: Mapping[str, KeyFigure] | None = None, issue_base: str | None = None) -> None:
        self.figures = dict(figures or {})
        self.issue_base = issue_base

    def find_figure(self, text: str) -> KeyFigure | None:
        match = LEADING_FIGURE.match(text)
        return self.figures.get(match.group(1)) if match else None

    def issue_url(self, form: str, fields: dict[str, str]) -> str | None:
        return None if self.issue_base is None else f"{self.issue_base}?{query({'template': form, **fields})}"

    def report(self, message: str, near: Sequence[re.Pattern[str]]) -> None:
        raise QuizError(message)

    def add_question(self, question_id: str) -> str | None:
        return None  # one page alone has no site to keep ids unique in

    def script(self, name: str) -> str | None:
        return f"assets/javascripts/{name}"


class _Unclosed(Treeprocessor):
    """Reports a block still open at the end of the page: pymdownx never ends it, so none of its checks ran."""

    def __init__(self, md: Markdown, blocks: BlocksProcessor, host: QuizHost) -> None:
        super().__init__(md)
        self.blocks = blocks
        self.host = host

    def run(self, root: etree.Element) -> None:
        for entry in self.blocks.stack:
            block = entry.block
            if not isinstance(block, CourseBlock):
                continue
            if block.problem is None:
                block.fail(f"is not closed: end it with a line {'/' * block.length}")
            if block.problem:  # told not closed before a block inside it (`not_closed_before`), its end never ran
                block.show_problem(entry.el)


class _UnitTable(Treeprocessor):
    """Gives a page that asks a numeric question, once, the table of units and the script (answers.js) that
    read its answers; only such pages load that script, from their content, as pictures load theirs."""

    def __init__(self, md: Markdown, host: QuizHost) -> None:
        super().__init__(md)
        self.host = host

    def run(self, root: etree.Element) -> None:
        if any(form.get("data-quiz-kind") == "numeric" for form in root.iter("form")):
            # In an attribute, not a <script type="application/json">: Material's instant navigation
            # re-creates a page's scripts without their type, which would run the JSON as code.
            etree.SubElement(root, "div", {"id": "sbn-units", "hidden": "hidden", "data-json": page_json(unit_table())})
            script = self.host.script("answers.js")
            if script is not None:
                etree.SubElement(root, "script", {"src": script, "defer": ""}).text = ""


class _Leftovers(Postprocessor):
    """Reports a block header that pymdownx could not parse (invalid YAML options leave it as text)."""

    def __init__(self, md: Markdown, host: QuizHost) -> None:
        super().__init__(md)
        self.host = host

    def run(self, text: str) -> str:
        match = _LEFTOVER.search(_NOT_LEFTOVERS.sub("", text))
        if match:
            header = match.group(0).strip(" >")
            self.host.report(
                f"`{header}` was left as text: check that its options are valid YAML, indented by 4 spaces right"
                " under the header line, and that it is closed by as many slashes",
                # The header as it stands in the output, which is all this stage has of it: its first line of the
                # source that holds it.
                (re.compile(re.escape(header)),),
            )
        return text


class QuizExtension(BlocksExtension):
    """Registers the quiz, option, answer and checklist blocks, and the checks that need the whole page."""

    def __init__(self, host: QuizHost | None = None, **kwargs: Any) -> None:
        # An object, not a Markdown config value: Markdown would read a config value as text or a boolean.
        self.host: QuizHost = host or StandaloneHost()
        #: How many times each question and rep id has been given on the page so far (`CourseBlock.claim_id`).
        self.page_ids: Counter[str] = Counter()
        #: How many blocks of each header the page has started so far (`CourseBlock.claim_header`).
        self.page_headers: Counter[str] = Counter()
        super().__init__(**kwargs)

    def reset(self) -> None:
        """A new page: no id given yet (Markdown calls it from `Markdown.reset`)."""
        self.page_ids.clear()
        self.page_headers.clear()

    def register_block_mgr(self, md: Markdown) -> BlocksProcessor:
        manager = super().register_block_mgr(md)
        # pymdownx makes the page's one block manager itself (`BlocksMgrExtension`), of its own class: made ours in
        # place, the same manager with its options read strictly. A private API (tests/unit/test_private_apis.py).
        manager.__class__ = StrictBlocks
        return manager

    def extendMarkdownBlocks(self, md: Markdown, block_mgr: BlocksProcessor) -> None:
        host = self.host
        md.registerExtension(self)
        self.reset()
        for block in (QuizBlock, OptionBlock, AnswerBlock, MistakeBlock, ChecklistBlock):
            block_mgr.register(block, {"host": host, "ids": self.page_ids, "headers": self.page_headers})
        md.treeprocessors.register(_Unclosed(md, block_mgr, host), "sbn-quiz-unclosed", 30)
        md.treeprocessors.register(_UnitTable(md, host), "sbn-quiz-units", 1)
        md.postprocessors.register(_Leftovers(md, host), "sbn-quiz-leftovers", 0)


def makeExtension(**kwargs: Any) -> QuizExtension:
    """The entry point Markdown calls for `macros.quiz`."""
    return QuizExtension(**kwargs)
