"""Typed figures: numbers with a unit that a page shows outside a computed figure.

The first check of ARCHITECTURE.md ("Figures"): a number with a unit of size, memory, count, time or
rate in a page's body must be a figure (`<span class="fig">`), never typed. The
build runs `typed_figures` on every page's HTML and fails on what it finds;
the tests run it again on every page the build wrote. Text inside a figure,
code, a permalink or a quiz's hint (its tolerance) is not prose and is skipped;
the `title` and `alt` of any other element are prose (Material shows them as
tooltips) and are checked.
"""

from __future__ import annotations

import hashlib
import html as html_module
import re
from collections import OrderedDict
from dataclasses import dataclass

#: Words and symbols that make a number a size, memory, count, time or rate.
_UNIT_WORDS = (
    r"[kMGTP]?B(?:/s|ps)?|[KMGT]iB|[kMGT]b(?:/s|ps)|"
    r"(?i:(?:kilo|mega|giga|tera|peta)?bytes?|(?:kilo|mega|giga|tera)?bits?)|"
    r"[kMGTPE]?FLOP(?:S|s|/s)?|(?i:flops?)|"
    r"(?i:thousand|million|billion|trillion)|[KMBT](?=[\s-]|$)|"
    r"(?i:params?|parameters?|layers?|tokens?|samples?|GPUs?|devices?|nodes?)|"
    r"(?i:(?:milli|micro|nano)?seconds?|minutes?|hours?|days?)|ms|µs|ns|s(?=\W|$)|%"
)
#: A number (not part of a word such as fp16 or GPT-2), in digits or scientific notation, then such a unit.
TYPED_FIGURE = re.compile(rf"(?<![\w.\-/])\d[\d,]*(?:\.\d+)?(?:[eE][+-]?\d+)?\s*-?\s*(?:{_UNIT_WORDS})(?![\w])")

_FORMAT_NAME = re.compile(r"\d+-bits?")
_DIGIT = re.compile(r"\d")

#: Elements whose text is not prose: figures, code, permalinks, a quiz's tolerance hint, a build error's box.
_SKIPPED_CLASSES = {"fig", "headerlink", "sbn-quiz__hint", "sbn-build-error"}
_SKIPPED_TAGS = {"code", "pre", "script", "style", "kbd", "samp"}
#: Elements whose start or end ends a run of text; inline elements (em, a, span) do not split one.
_BLOCKS = {
    "p",
    "li",
    "ul",
    "ol",
    "td",
    "th",
    "tr",
    "table",
    "dd",
    "dt",
    "dl",
    "div",
    "section",
    "article",
    "details",
    "summary",
    "fieldset",
    "legend",
    "label",
    "form",
    "blockquote",
    "figure",
    "figcaption",
    "br",
    "hr",
    # An SVG text is a label apart from the others: "100" on an axis and "GB" in its title are not "100GB".
    "text",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
#: Attributes a reader sees as text (Material turns `title` into a tooltip).
_PROSE_ATTRIBUTES = ("title", "alt", "aria-label")


def find_in_text(text: str) -> list[str]:
    """The typed figures in a piece of plain text, such as a glossary definition or a page title.

    >>> find_in_text("it takes 24 gigabytes, or 1e9 bytes, on 8 GPUs of fp16, a 16-bit format of 16 bits")
    ['24 gigabytes', '1e9 bytes', '8 GPUs', '16 bits']
    """
    if not _DIGIT.search(text):  # most text has no number at all
        return []
    found = (" ".join(match.group(0).split()) for match in TYPED_FIGURE.finditer(text))
    # "16-bit" names a number format, as fp16 does; "16 bits" counts bits.
    return [text for text in found if not _FORMAT_NAME.fullmatch(text)]


@dataclass(frozen=True)
class TypedFigure:
    """A typed figure found in HTML: its text, and where (the text of an element, or an attribute)."""

    text: str
    where: str


#: What a page's HTML is made of, taken in order: a comment, a declaration, or a tag with its attributes
#: and, for `<br/>`, its closing slash; the text between them is the page's words. As html.parser and
#: browsers read a tag, a quote opens a value only after "=" (a quoted value may hold ">"), and an
#: unquoted value runs to a space or ">", slashes and quotes included.
_MARKUP = re.compile(
    r"<!--.*?-->|<![^>]*>|<\?[^>]*>"
    r"|<(?P<end>/)?(?P<tag>[a-zA-Z][^\s/>]*)"
    r"(?P<attributes>(?:[^>=/]|/(?!\s*>)|=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]*))*)(?P<closed>/)?\s*>",
    re.DOTALL,
)
_ATTRIBUTE = re.compile(r"""([^\s/>=][^\s/>=]*)(?:\s*=+\s*(?:"([^"]*)"|'([^']*)'|(?!["'])([^\s>]*)))?""")
#: Elements whose content is raw text up to their end tag, as browsers read them, and that end tag.
_RAW_TEXT_END = {tag: re.compile(f"</{tag}\\s*>", re.IGNORECASE) for tag in ("script", "style")}


def _attributes(text: str) -> dict[str, str]:
    """A tag's attributes by name, their values unescaped."""
    return {
        name.lower(): html_module.unescape(double or single or bare or "")
        for name, double, single, bare in _ATTRIBUTE.findall(text)
    }


class _Finder:
    """Reads HTML in document order as a browser groups its text: runs of text parted by block elements,
    without the elements that are not prose, and the attributes readers see."""

    def __init__(self) -> None:
        self.found: list[TypedFigure] = []
        self._skipping: list[str] = []  # the tags of open skipped elements
        self._chunks: list[str] = []

    def feed(self, html: str) -> None:
        position = 0
        while (match := _MARKUP.search(html, position)) is not None:
            if not self._skipping:
                self._chunks.append(html[position : match.start()])
            position = match.end()
            tag = (match.group("tag") or "").lower()
            if not tag:  # a comment or a declaration
                continue
            if match.group("end"):
                self._end(tag)
                continue
            attributes = match.group("attributes")
            self._start(tag, attributes)
            if match.group("closed") and self._skipping and tag not in _VOID and self._skipping[-1] == tag:
                self._skipping.pop()
            if tag in _RAW_TEXT_END:  # its content is never markup, nor prose
                end = _RAW_TEXT_END[tag].search(html, position)
                position = end.start() if end else len(html)
        if not self._skipping:
            self._chunks.append(html[position:])
        self._flush()

    def _start(self, tag: str, text: str) -> None:
        if self._skipping:
            if tag not in _VOID:
                self._skipping.append(tag)
            return
        # Most tags carry neither a class nor a reader's text: their attributes need no reading.
        attributes = _attributes(text) if "=" in text else {}
        classes = set(attributes.get("class", "").split())
        skipped = tag in _SKIPPED_TAGS or bool(classes & _SKIPPED_CLASSES)
        if not skipped:
            for name in _PROSE_ATTRIBUTES:
                if name in attributes:
                    for found in find_in_text(attributes[name]):
                        self.found.append(TypedFigure(found, f"the {name} of a <{tag}>"))
        if tag in _BLOCKS:
            self._flush()
        if skipped and tag not in _VOID:
            self._skipping.append(tag)

    def _end(self, tag: str) -> None:
        if self._skipping:
            if tag in self._skipping:
                while self._skipping and self._skipping.pop() != tag:
                    pass
            return
        if tag in _BLOCKS:
            self._flush()

    def _flush(self) -> None:
        text = html_module.unescape("".join(self._chunks))
        self._chunks = []
        self.found.extend(TypedFigure(found, "the text") for found in find_in_text(text))


#: Findings by a digest of the HTML they were found in, newest last: a page's HTML is large, its digest is not.
_FOUND: OrderedDict[bytes, tuple[TypedFigure, ...]] = OrderedDict()
#: How many findings are kept: a build's pages and their headings, several builds over.
_KEPT = 4096


def typed_figures(html: str) -> list[TypedFigure]:
    """Every typed figure in an HTML fragment or page, in document order.

    What a page holds depends on its HTML alone, which is the same from one build to the next
    while the page and what it shows are: `mkdocs serve`'s rebuilds and the tests' copies of the
    course read each unchanged page once.
    """
    key = hashlib.blake2b(html.encode(), digest_size=16).digest()
    found = _FOUND.get(key)
    if found is None:
        finder = _Finder()
        finder.feed(html)
        found = _FOUND[key] = tuple(finder.found)
        if len(_FOUND) > _KEPT:
            _FOUND.popitem(last=False)
    else:
        _FOUND.move_to_end(key)
    return list(found)
