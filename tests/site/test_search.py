"""The search index as built: a page's text is in it, its pictures' drawings are not.

A picture is read through what stands for it in words (a chart's caption and data table, a
diagram's caption and the description of each frame): those are in the index. What is drawn
(a chart's ticks and labels, a diagram's cells, the buttons that step through it, the
calculator's form) would reach readers as a string of glued letters, such as "part 0part 1".
Pictures are found by what they are, on every page the build writes.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path

from bs4 import BeautifulSoup
from bs4.element import NavigableString, Tag

from macros.build.search import DOCS
from tests.checks import lesson_body
from tests.conftest import soup

#: What is drawn: a chart's or a frame's SVG, a diagram's controls, the calculator's form.
DRAWN = "figure.sbn-chart > svg, .sbn-frames__svg, .sbn-frames__controls, form[data-sbn-calculator]"
#: What stands for a picture in words.
WORDS = "figure.sbn-chart figcaption, .sbn-chart__data th, figure.sbn-frames figcaption, .sbn-frames__frame > p"


def _plain(text: str) -> str:
    """Text as the index holds it, for comparing: its markup's tags dropped, references read, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())


@cache
def _index_text(site_dir: Path, url: str) -> str:
    """Every section of the page at `url` in the search index, as one plain text."""
    docs = json.loads((site_dir / DOCS).read_text(encoding="utf-8"))
    return " ".join(_plain(doc["text"]) for doc in docs if doc["location"].split("#")[0] == url)


def _glued(element: Tag) -> str:
    """An element's text as Material's index writes it: its text nodes glued together, with nothing between."""
    return "".join(str(node) for node in element.descendants if isinstance(node, NavigableString) and node.strip())


def _pictures(page: BeautifulSoup, selector: str) -> list[Tag]:
    return lesson_body(page).select(selector)


def test_the_index_holds_no_drawing(site_dir: Path, page: str) -> None:
    index = _index_text(site_dir, page.removesuffix("index.html"))
    for drawn in _pictures(soup(site_dir / page), DRAWN):
        texts = [node.strip() for node in drawn.find_all(string=True) if node.strip()]
        if len(texts) < 2:
            continue
        # Two of its labels glued together are text no page writes: found, they came from the drawing.
        glued = _plain(_glued(drawn))[:60]
        assert glued not in index, f"{page}: the index holds the drawing of {drawn.name}.{drawn.get('class')}"


def test_the_index_holds_what_stands_for_a_picture_in_words(site_dir: Path, page: str) -> None:
    index = _index_text(site_dir, page.removesuffix("index.html"))
    for words in _pictures(soup(site_dir / page), WORDS):
        text = _plain(words.get_text())
        assert text and text in index, f"{page}: the index lacks {text[:80]!r}"
