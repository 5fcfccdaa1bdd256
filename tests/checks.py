"""Checks of built HTML, written independently of the figure engine.

The parser here reads a figure's display text back into a number on its own
terms, so a formatting bug in `macros.quantities` cannot hide itself.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from bs4 import BeautifulSoup, Tag

#: Words and symbols that make a number a size, memory, count, time or rate.
_UNIT_WORDS = (
    r"[kMGTP]?B(?:/s)?|[KMGT]iB|[kMGT]b/s|bytes?|bits?|"
    r"[kMGTP]?FLOPS?|FLOPs|"
    r"(?:thousand|million|billion|trillion)|[KMBT](?=[\s-]|$)|"
    r"params?|parameters?|layers?|tokens?|samples?|GPUs?|devices?|nodes?|"
    r"(?:milli|micro|nano)?seconds?|ms|µs|ns|s(?=\W|$)|minutes?|hours?|days?|%"
)
#: A number (not part of a word such as fp16 or GPT-2) followed by such a unit.
BARE_FIGURE = re.compile(rf"(?<![\w.\-/])\d[\d,]*(?:\.\d+)?\s*-?\s*(?:{_UNIT_WORDS})(?![\w])")

_SCALE = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_LETTERS = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}
_SUBSECOND = {"s": Decimal(1), "ms": Decimal("1e-3"), "µs": Decimal("1e-6"), "ns": Decimal("1e-9")}
_DISPLAY = re.compile(r"^(?P<number>\d[\d,]*(?:\.\d+)?)(?P<rest>.*)$")


def soup(path: Path) -> BeautifulSoup:
    """The parsed HTML of a built file."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def lesson_body(page: BeautifulSoup) -> Tag:
    """The article of a built page, where the lesson's own text is."""
    article = page.select_one("article.md-content__inner")
    assert article is not None, "no article in the page"
    return article


def bare_figures(article: Tag) -> list[str]:
    """Numbers with a unit in `article`'s text that no `.fig` element carries."""
    article = BeautifulSoup(str(article), "html.parser")
    # A quiz's hint states its tolerance ("within 5% counts"): quiz settings, not prose.
    for element in article.select(".fig, code, pre, .headerlink, script, style, .sbn-quiz__hint"):
        element.decompose()
    text = article.get_text(" ")
    return [match.group(0).strip() for match in BARE_FIGURE.finditer(text)]


def parse_display(display: str, unit: str) -> tuple[Decimal, Decimal]:
    """The value a display text stands for, in the base unit, and half its last shown digit.

    Raises:
        ValueError: the text does not read as a quantity in `unit`.
    """
    match = _DISPLAY.match(display.strip())
    if not match:
        raise ValueError(f"{display!r} does not start with a number")
    digits = match.group("number").replace(",", "")
    number = Decimal(digits)
    last_place = Decimal(1).scaleb(-len(digits.split(".")[1])) if "." in digits else Decimal(1)
    rest = match.group("rest").strip().lstrip("-").strip()
    factor = _factor(rest, unit, display)
    return number * factor, last_place * factor / 2


def _factor(rest: str, unit: str, display: str) -> Decimal:
    if rest == "":
        return Decimal(1)  # a bare number is shown unscaled
    if unit == "B" and re.fullmatch(r"bytes?", rest):
        return Decimal(1)
    if unit in ("B", "B/s", "FLOP") and (m := re.fullmatch(rf"([kMGTP]?){re.escape(unit)}", rest)):
        return Decimal(_SCALE[m.group(1)])
    if unit == "s" and rest in _SUBSECOND:
        return _SUBSECOND[rest]
    parameters = r"(?:(thousand|million|billion|trillion)|([KMBT]))?[\s-]*parameters?"
    if unit == "param" and (m := re.fullmatch(parameters, rest)):
        word, letter = m.groups()
        return Decimal(_WORDS[word] if word else _LETTERS[letter] if letter else 1)
    raise ValueError(f"{display!r} is not a display of a quantity in {unit!r}")


def rederives(display: str, value: str, unit: str) -> bool:
    """Whether `display` is `value` (exact, in `unit`) rounded to the digits it shows."""
    shown, half_step = parse_display(display, unit)
    return abs(shown - Decimal(value)) <= half_step


def heading_text(heading: Tag) -> str:
    """A heading's text without its permalink sign."""
    return "".join(t for t in heading.find_all(string=True) if not t.find_parent(class_="headerlink")).strip()
