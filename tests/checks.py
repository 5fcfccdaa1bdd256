"""Checks of built HTML, written independently of the figure engine's formatter.

The parser here reads a figure's display text back into a number on its own
terms, so a formatting bug in `macros.data.quantities` cannot hide itself. What
counts as a typed figure is the build's own rule (`macros.data.typed_figures`),
applied here again to every page the build wrote.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, localcontext
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from bs4 import BeautifulSoup, Tag

from macros.data.typed_figures import typed_figures

_SCALE = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_LETTERS = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}
_TIMES = {
    "days": Decimal(86400),
    "hours": Decimal(3600),
    "min": Decimal(60),
    "s": Decimal(1),
    "ms": Decimal("1e-3"),
    "µs": Decimal("1e-6"),
    "ns": Decimal("1e-9"),
}
_DISPLAY = re.compile(r"^(?P<number>\d[\d,]*(?:\.\d+)?)(?P<rest>.*)$")
#: A mantissa times a power of ten or two, "3.14 × 10²³ FLOP" or "2⁻²⁴", then its unit.
_POWER = re.compile(r"^(?:(?P<mantissa>\d+(?:\.\d+)?) × )?(?P<base>10|2)(?P<exponent>⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)(?P<rest>.*)$")
_FROM_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
#: A GPU's memory as sold and as programs get it: "80 GB (79.2 GiB to programs)".
_NOMINAL = re.compile(r"^(?P<sold>\d[\d,]*) GB \((?P<number>\d[\d,]*(?:\.\d+)?) (?P<unit>[KMGT])iB to programs\)$")
#: What programs get on a chart's decimal axis, in the axis's units and in binary ones: "85 GB to programs (79.2 GiB)".
_NOMINAL_DECIMAL = re.compile(
    r"^(?P<number>\d[\d,]*(?:\.\d+)?) (?P<unit>[kMGT])B to programs"
    r" \((?P<binary>\d[\d,]*(?:\.\d+)?) (?P<binary_unit>[KMGT])iB\)$"
)


class FigureInput(TypedDict):
    """One input of a figure in figures.json: a catalog value, and where its source says it."""

    entry: str
    field: str
    value: str
    unit: str
    source: str
    where: str


class FigurePrinted(TypedDict):
    """What a source prints for a figure, in figures.json."""

    value: str
    unit: str
    text: str
    source: str
    url: str | None
    where: str
    rounding: str


class FigureRecord(TypedDict):
    """One figure a page shows, as figures.json has it (`macros.figures.figure.FigureLog`); values are exact text."""

    page: str
    url: str
    id: str
    value: str
    unit: str
    display: str
    display_unit: str
    display_factor: str
    formula: str
    explanation: str
    inputs: list[FigureInput]
    printed: NotRequired[FigurePrinted]
    engine: NotRequired[dict[str, Any]]


class Tooltip(TypedDict):
    """A figure's tooltip data in its page's #sbn-figures (`macros.figures.figure`), which course.js shows."""

    words: str
    #: Each input's source: [label, citation, where, address or None].
    sources: list[list[str | None]]
    formula: NotRequired[str]
    #: [the software, and why it differs from the course's formula or None], for each measurement.
    measured: NotRequired[list[list[str | None]]]


def tooltip_data(site_dir: Path, page: str, html: BeautifulSoup) -> dict[str, Any] | None:
    """The tooltip data of the built page `page` (its path in `site_dir`, `html` as parsed), from the file its
    #sbn-figures names (`macros.build.tooltips`), or None where it has none."""
    element = html.select_one("#sbn-figures")
    if element is None:
        return None
    data: dict[str, Any] = json.loads((site_dir / page).parent.joinpath(attribute(element, "data-src")).read_text())
    return data


def lesson_body(page: BeautifulSoup) -> Tag:
    """The article of a built page, where the page's own text is."""
    article = page.select_one("article.md-content__inner")
    assert article is not None, "no article in the page"
    return article


def one(root: Tag, selector: str) -> Tag:
    """The first element in `root` that the CSS `selector` matches, failing the test if none does."""
    found = root.select_one(selector)
    assert found is not None, f"nothing matches {selector!r}"
    return found


def attribute(tag: Tag, name: str) -> str:
    """The value of `tag`'s attribute `name`, as written: one that BeautifulSoup splits into a list (`class`) fails."""
    value = tag[name]
    assert isinstance(value, str), f"{name} has several values: {value}"
    return value


def bare_figures(article: Tag) -> list[str]:
    """Numbers with a unit in `article` (its text, and the titles and alts readers see) that no figure carries."""
    return [found.text for found in typed_figures(str(article))]


def parse_display(display: str, unit: str) -> tuple[Decimal, Decimal]:
    """The value a display text stands for, in the base unit, and half its last shown digit.

    Raises:
        ValueError: the text does not read as a quantity in `unit`.
    """
    decimal = _NOMINAL_DECIMAL.match(display.strip())
    if decimal and unit == "B":
        # Both readings of what programs get must hold the same bytes, each within its last digit.
        shown, half_step = parse_display(f"{decimal.group('number')} {decimal.group('unit')}B", unit)
        binary, binary_half = parse_display(f"{decimal.group('binary')} {decimal.group('binary_unit')}iB", unit)
        if abs(shown - binary) > half_step + binary_half:
            raise ValueError(f"{display!r} gives programs two different amounts")
        return shown, half_step
    nominal = _NOMINAL.match(display.strip())
    if nominal and unit == "B":
        digits = nominal.group("number").replace(",", "")
        factor = Decimal(_BINARY[nominal.group("unit") + "i"])
        last_place = Decimal(1).scaleb(-len(digits.split(".")[1])) if "." in digits else Decimal(1)
        # A card sold as N GB has at most N GiB, of which programs get less: never more than it is sold as.
        if Decimal(digits) * factor > Decimal(nominal.group("sold").replace(",", "")) * _BINARY["Gi"]:
            raise ValueError(f"{display!r} gives programs more than the card is sold with")
        return Decimal(digits) * factor, last_place * factor / 2
    power = _POWER.match(display.strip())
    if power:
        # A power shown alone is exactly that power; a mantissa is rounded to its last digit.
        mantissa = power.group("mantissa") or "1"
        scale = Decimal(power.group("base")) ** int(power.group("exponent").translate(_FROM_SUPERSCRIPT))
        last_place = Decimal(1).scaleb(-len(mantissa.split(".")[1])) if "." in mantissa else Decimal(1)
        if power.group("mantissa") is None:
            last_place = Decimal(0)
        factor = _factor(power.group("rest").strip(), unit, display)
        return Decimal(mantissa) * scale * factor, last_place * scale * factor / 2
    match = _DISPLAY.match(display.strip())
    if not match:
        raise ValueError(f"{display!r} does not start with a number")
    digits = match.group("number").replace(",", "")
    number = Decimal(digits)
    # A whole number's trailing zeros are where its significant digits stop ("935,000" is 935 thousand to three
    # digits), as the figures round them; a decimal's last digit is its last place.
    whole_zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
    last_place = Decimal(1).scaleb(-len(digits.split(".")[1])) if "." in digits else Decimal(1).scaleb(whole_zeros)
    rest = match.group("rest").strip().lstrip("-").strip()
    factor = _factor(rest, unit, display)
    return number * factor, last_place * factor / 2


def _factor(rest: str, unit: str, display: str) -> Decimal:
    if rest == "":
        return Decimal(1)  # a bare number is shown unscaled
    if unit == "1" and rest == "%":
        return Decimal("0.01")
    if unit == "1" and rest in _WORDS:
        return Decimal(_WORDS[rest])
    if unit == "B" and re.fullmatch(r"bytes?|byte", rest):
        return Decimal(1)
    if unit == "B" and (m := re.fullmatch(r"([KMGT]i)B", rest)):
        return Decimal(_BINARY[m.group(1)])
    if unit in ("B", "B/s", "FLOP", "FLOP/s") and (m := re.fullmatch(rf"([kMGTP]?){re.escape(unit)}", rest)):
        return Decimal(_SCALE[m.group(1)])
    if unit == "s" and rest in _TIMES:
        return _TIMES[rest]
    parameters = r"(?:(thousand|million|billion|trillion)|([KMBT]))?[\s-]*parameters?"
    if unit == "param" and (m := re.fullmatch(parameters, rest)):
        word, letter = m.groups()
        return Decimal(_WORDS[word] if word else _LETTERS[letter] if letter else 1)
    raise ValueError(f"{display!r} is not a display of a quantity in {unit!r}")


def rederives(display: str, value: str, unit: str) -> bool:
    """Whether `display` is `value` (exact, in `unit`) rounded to the digits it shows.

    In enough digits for any exact value a page carries (2⁻¹³³ has 93 significant digits), not `Decimal`'s 28:
    a power shown alone is compared with the value exactly.
    """
    with localcontext() as context:
        context.prec = 1000
        shown, half_step = parse_display(display, unit)
        return abs(shown - Decimal(value)) <= half_step


def heading_text(heading: Tag) -> str:
    """A heading's text without its permalink sign."""
    return "".join(t for t in heading.find_all(string=True) if not t.find_parent(class_="headerlink")).strip()
