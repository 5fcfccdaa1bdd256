"""The table of units a numeric answer may be written in (`units.yml`), checked, and as the page reads it.

One table serves the build and the page: `answers.read_answer` reads a reader's
answer with it in Python, and `page_json` writes it into every page that asks a
numeric question, where `course.js` reads answers the same way. What each base
unit measures comes from `macros.data.quantities.UNIT_WORDS`, so the words of an
error message are the figures' own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from ..data.invisible import INVISIBLE_RANGES
from ..data.markup import script_json
from ..data.quantities import UNIT_WORDS, UNITS
from ..data.schema import (
    Fields,
    SchemaError,
    check_record,
    list_of,
    load_yaml,
    optional,
    positive_count,
    read_text,
    text,
)
from ..figures.figure import value_text

TABLE_FILE = Path(__file__).with_name("units.yml")
#: The table's sections of words, and whether each matches in any case and counts bits.
SECTIONS = {"words": (False, False), "exact": (True, False), "bits": (False, True), "exact_bits": (True, True)}


class UnitTableError(ValueError):
    """The units table is malformed; the message names the unit, the section and the word."""


@dataclass(frozen=True)
class Word:
    """What a unit word is worth in its base unit, and whether it counts bits."""

    size: Fraction
    bits: bool = False


@dataclass(frozen=True)
class UnitWords:
    """The words of one base unit: matched in any case (`words`, keyed lower-case) or only as written (`exact`)."""

    unit: str
    measures: str
    example: str
    words: Mapping[str, Word]
    exact: Mapping[str, Word]
    #: Each size a bare number could have been meant in (bits aside), with the word to suggest, in table order.
    names: tuple[tuple[Fraction, str], ...]

    def lookup(self, written: str) -> Word | None:
        """The word as written, or in any case unless only its exact spelling is a unit (Gb is not GB)."""
        return self.exact.get(written) or self.words.get(written.lower())


@dataclass(frozen=True)
class UnitTable:
    """Hedges a reader may write before a number, words after the unit that change nothing, multipliers, how wide
    a range may be, and the words of every base unit."""

    hedges: tuple[str, ...]
    #: Lower-case, hyphens as spaces, longest first.
    after: tuple[str, ...]
    range_spread: int
    multipliers: Mapping[str, Fraction]
    bits_note: str
    units: Mapping[str, UnitWords]


def size(value: Any) -> Fraction:
    """A size: a number, a power written like 10^9 or 2^-3, or a fraction like 1/8.

    >>> size("10^-3"), size("2^10"), size("1/100"), size("60")
    (Fraction(1, 1000), Fraction(1024, 1), Fraction(1, 100), Fraction(60, 1))
    """
    written = str(value).strip()
    try:
        if "^" in written:
            base, power = written.split("^")
            return Fraction(int(base)) ** int(power)
        return Fraction(written)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"got {value!r}; expected a size such as 1000, 10^9, 2^30 or 1/8") from None


def _mapping(value: Any) -> dict[Any, Any]:
    """A mapping (of sizes to words, or of units to their sections)."""
    if not isinstance(value, dict):
        raise ValueError(f"got {value!r}; expected a mapping")
    return value


def _section(where: str, data: dict[Any, Any], case_matters: bool, bits: bool) -> dict[str, Word]:
    words: dict[str, Word] = {}
    for written_size, names in data.items():
        try:
            amount = size(written_size) / (8 if bits else 1)
            clean = list_of(text, empty=False)(names)
        except ValueError as error:
            raise UnitTableError(f"{where}: {written_size}: {error}") from None
        for name in clean:
            key = name if case_matters else name.lower()
            if key in words and words[key].size != amount:
                raise UnitTableError(f"{where}: {name!r} is given two sizes")
            words[key] = Word(amount, bits)
    return words


def _unit(name: str, data: Any) -> UnitWords:
    where = f"{TABLE_FILE.name}: units.{name}"
    fields: Fields = {"example": text, **{section: optional(_mapping, {}) for section in SECTIONS}}
    try:
        clean = check_record(where, data, fields)
    except SchemaError as error:
        raise UnitTableError(str(error)) from None
    sections = {section: _section(f"{where}.{section}", clean[section], *SECTIONS[section]) for section in SECTIONS}
    words = {**sections["words"], **sections["bits"]}
    exact = {**sections["exact"], **sections["exact_bits"]}
    if len(words) != len(sections["words"]) + len(sections["bits"]):
        raise UnitTableError(f"{where}: a word is both bytes and bits")
    names = tuple((size(written), str(listed[0])) for written, listed in clean["words"].items())
    return UnitWords(name, UNIT_WORDS[name], clean["example"], words, exact, names)


def unit_table(path: Path = TABLE_FILE) -> UnitTable:
    """The units table, checked: known base units, sizes that parse, no word with two sizes.

    Read again when the file changes (`mkdocs serve` re-imports this package only for a changed module).

    Raises:
        UnitTableError: what is wrong, and where in the file.
    """
    return _load(path, path.stat().st_mtime_ns)


@cache
def _load(path: Path, stamp: int) -> UnitTable:
    """The table in `path`, read once for each modification time `stamp`."""
    try:
        raw = load_yaml(read_text(path, path.name), path.name)
        clean = check_record(
            path.name,
            raw,
            {
                "hedges": list_of(text),
                "after": list_of(text),
                "range_spread": positive_count,
                "bits_note": text,
                "multipliers": _mapping,
                "units": _mapping,
            },
        )
    except SchemaError as error:
        raise UnitTableError(str(error)) from None
    unknown = sorted(set(clean["units"]) - set(UNITS))
    if unknown:
        raise UnitTableError(f"{path.name}: units: unknown base unit(s) {unknown}; use some of {', '.join(UNITS)}")
    multipliers = _section(f"{path.name}: multipliers", clean["multipliers"], False, False)
    return UnitTable(
        hedges=tuple(sorted(clean["hedges"], key=len, reverse=True)),
        after=tuple(sorted({spaced(words).lower() for words in clean["after"]}, key=lambda w: (-len(w), w))),
        range_spread=clean["range_spread"],
        multipliers={word: entry.size for word, entry in multipliers.items()},
        bits_note=clean["bits_note"],
        units={name: _unit(name, data) for name, data in clean["units"].items()},
    )


def spaced(written: str) -> str:
    """Words as an answer is compared: hyphens read as spaces, runs of spaces as one ("micro-batch", "micro batch")."""
    return " ".join(written.replace("-", " ").split())


def page_json(table: UnitTable) -> str:
    """The table as `course.js` reads it, as JSON safe inside a `<script>` element.

    Each word is `[size]`, or `[size, 1]` when it counts bits; a size is its exact value in the base unit as text
    (`figures.value_text`: "1000000000", "0.001", "1/3"), which the page reads exactly, as Python does.
    """

    def words(entries: Mapping[str, Word]) -> dict[str, list[str | int]]:
        return {
            word: [value_text(entry.size), 1] if entry.bits else [value_text(entry.size)]
            for word, entry in entries.items()
        }

    data = {
        "hedges": list(table.hedges),
        "after": list(table.after),
        "rangeSpread": table.range_spread,
        "multipliers": {word: value_text(value) for word, value in table.multipliers.items()},
        "bits": table.bits_note,
        # What the page drops before reading an answer, as Python does (`answers.read_answer`).
        "invisible": [list(run) for run in INVISIBLE_RANGES],
        "units": {
            name: {
                "measures": unit.measures,
                "example": unit.example,
                "words": words(unit.words),
                "exact": words(unit.exact),
                "names": [[value_text(amount), word] for amount, word in unit.names],
            }
            for name, unit in table.units.items()
        },
    }
    return script_json(data)
