"""How long a lesson takes to read: its words, counted in its HTML, at the catalog's reading rate.

A lesson is read straight through: its prose, its questions, its tables and its
captions, not the labels inside its drawings, nor what waits behind a closed
disclosure (an answer, a chart's data, an aside). Its words are counted in the
HTML the build makes of it, so that a figure counts as the words it shows. The
time is a figure like any other: words ÷ the silent reading rate of English
non-fiction that Brysbaert's meta-analysis of 190 studies found (2019), a catalog
value (`claims.yml`, `silent-reading-rate`), shown to the minute. Nothing here
imports MkDocs.
"""

from __future__ import annotations

import re
from fractions import Fraction

from selectolax.lexbor import LexborHTMLParser

from ..data.catalog import Catalog
from ..data.quantities import Display, display_quantity
from ..figures.figure import Computed, Figure, shown

#: The catalog's reading rate: its entry and field.
RATE = ("silent-reading-rate", "ratio")
#: What a reader does not read on the way through: a drawing's labels, a closed disclosure, code of the page.
_SKIPPED = ["svg", "details", "script", "style", "template"]
#: A word: letters or digits, with the hyphens and apostrophes inside it ("all-reduce", "ZeRO's", "1,024").
_WORD = re.compile(r"[^\W_]+(?:[-'’.,][^\W_]+)*")


def count_words(html: str) -> int:
    """The words a reader reads in `html` going straight through (see the module's docstring).

    Read with Lexbor, the parser the page check uses (`data.scripts`): a lesson's
    HTML in a few milliseconds, where Python's `html.parser` took a tenth of a
    second of every rebuild.

    >>> count_words("<p>An <b>all-reduce</b> of 1,024 GPUs.</p><svg><text>GPU 0</text></svg><details>no</details>")
    5
    >>> count_words("<details><input><br>answer</details><p>read on</p>")
    2
    """
    tree = LexborHTMLParser(f"<!DOCTYPE html><body>{html}")
    tree.strip_tags(_SKIPPED)
    body = tree.body
    return 0 if body is None else len(_WORD.findall(body.text(separator=" ")))


def reading_time(catalog: Catalog, lesson: int, words: int) -> Figure:
    """The figure `reading-time/<lesson>`: `words` ÷ the catalog's reading rate, in seconds."""
    rate = catalog.quantity(*RATE)
    value = Fraction(words * 60) / Fraction(rate.value)
    computed = Computed(
        value,
        "s",
        "words ÷ reading rate",
        f"{words:,} words read straight through ÷ {shown(rate)} words a minute",
        (rate,),
    )
    return Figure(f"reading-time/{lesson}", computed)


def display(figure: Figure) -> Display:
    """How a reading time shows: in whole minutes ("21 min"), as precise as an estimate is."""
    minutes = max(1, round(figure.value / 60))
    return display_quantity(figure.value, figure.unit, scale="min", digits=len(str(minutes)))
