"""Reading a numeric answer as a person writes it, and judging it against the key: the page's rules, in Python.

`course.js` checks answers in the reader's browser with the same steps and the
same table (`units.yml`); this module is those steps in Python, so that the
build can prove every key reads back from the way the page shows it, and the
tests can hold both sides to one list of answers.

An answer is an optional hedge ("about", "~"), a number (digits, thousands
grouped by three with commas or spaces, a decimal point, an exponent, or
"× 10^n"), then an optional unit: a word of the key's base unit, a multiplier
("billion"), or a multiplier or unit word before a word of size 1 ("112 billion
bytes", "1.5B parameters"). A bare number counts in the unit the key is shown
in. The number's pattern (`NUMBER`, the page's own) is anchored and never
backtracks far, and an answer is at most `MAX_ANSWER` characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from .units import UnitTable, UnitWords, Word

#: Longer answers are not read at all: the page's field takes no more.
MAX_ANSWER = 100
#: The number: digits (thousands grouped by three, with commas or spaces), a decimal part, an exponent, and
#: "× 10^n". Anchored, and each part follows from the one before: no answer can make it backtrack for long.
NUMBER = re.compile(
    r"([0-9]{1,3}(?:,[0-9]{3})+(?![0-9,])|[0-9]+(?:[ \u00a0\u2009\u202f][0-9]{3}(?![0-9]))*|)(\.[0-9]+)?"
    r"(?:[eE]([+-]?[0-9]+))?(?:\s*[×xX*·]\s*10(?:(?:\^|\*\*)([-−]?[0-9]+)|(⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)))?"
)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


@dataclass(frozen=True)
class Reading:
    """What an answer says: its value in the key's base unit, or the problem that stops reading it."""

    value: Fraction | None = None
    #: unreadable, negative, ambiguous (a decimal comma), wrong-unit or unknown-unit; None when read.
    problem: str | None = None
    #: The number as typed (with its power of ten), and the unit as typed ("" for a bare number).
    number: str = ""
    word: str = ""
    #: The unit written counts bits.
    bits: bool = False
    #: For a wrong unit, the base unit the word belongs to.
    other: str | None = None
    #: The number before its unit: a bare number is read in the key's display unit.
    amount: Fraction | None = None


@dataclass(frozen=True)
class Verdict:
    """How an answer compares with the key: right, too-high, too-low, bare-other (a bare number right in
    another unit, named in `unit_name`), or the reading's problem."""

    kind: str
    reading: Reading
    #: How far off, as a share of the key.
    off: Fraction | None = None
    unit_name: str | None = None


def _strip_hedges(text: str, hedges: tuple[str, ...]) -> str:
    for _ in range(3):
        hedge = next((h for h in hedges if text.lower().startswith(h)), None)
        if hedge is None or (hedge[-1].isalpha() and text[len(hedge) : len(hedge) + 1].isalpha()):
            return text
        text = text[len(hedge) :].lstrip()
    return text


def _unit_word(written: str, unit: UnitWords, table: UnitTable) -> Word | None:
    """The size a unit as written stands for: a word, a multiplier, or either before a word of size 1."""
    found = unit.lookup(written) or (
        Word(table.multipliers[written.lower()]) if written.lower() in table.multipliers else None
    )
    if found is not None or " " not in written:
        return found
    head, tail = written.rsplit(" ", 1)
    noun = unit.lookup(tail)
    first = unit.lookup(head)
    scale = table.multipliers.get(head.lower())
    if noun is None or (scale is None and (first is None or noun.size != 1)):
        return None
    return Word((scale if scale is not None else first.size if first else 1) * noun.size, noun.bits)


def _normalized(rest: str) -> str:
    joined = " ".join(rest.replace("-", " ").split()).replace(" /", "/").replace("/ ", "/")
    return re.sub(r" per (second|sec|s)$", "/s", joined, flags=re.IGNORECASE)


def read_answer(text: str, unit: str, scale: Fraction, table: UnitTable) -> Reading:
    """Read `text` as an amount in `unit`; a bare number counts in the display unit of size `scale`."""
    text = text.strip()
    if len(text) > MAX_ANSWER:
        return Reading(problem="unreadable")
    text = re.sub(r"[\s.!]+$", "", _strip_hedges(text, table.hedges))
    negative = text.startswith(("-", "−", "–"))
    text = re.sub(r"^[-−–+]\s*", "", text)
    match = NUMBER.match(text)
    assert match is not None  # every part of the pattern may be empty
    whole, fraction, exponent, power, superscript = match.groups()
    rest = text[match.end() :].lstrip()
    if not whole and not fraction:
        return Reading(problem="unreadable")
    if re.match(r",[0-9]", rest):
        return Reading(problem="ambiguous", number=re.sub(r"[^0-9,.].*", "", text, flags=re.DOTALL))
    ten = power if power is not None else (superscript or "0").translate(_SUPERSCRIPTS)
    amount = Fraction(f"{re.sub('[^0-9]', '', whole) or 0}{fraction or ''}e{exponent or 0}")
    amount *= Fraction(10) ** int(ten.replace("−", "-"))
    if negative and amount:
        return Reading(problem="negative")
    number, written = match.group(0).strip(), _normalized(rest)
    if not written:
        return Reading(value=amount * scale, number=number, amount=amount)
    word = _unit_word(written, table.units[unit], table)
    if word is not None:
        return Reading(value=amount * word.size, number=number, word=written, bits=word.bits, amount=amount)
    other = next((name for name, o in table.units.items() if name != unit and _unit_word(written, o, table)), None)
    return Reading(problem="wrong-unit" if other else "unknown-unit", word=written, other=other)


def judge(text: str, key: Fraction, unit: str, scale: Fraction, tolerance: Fraction, table: UnitTable) -> Verdict:
    """Compare an answer with the key (exact, in `unit`) within `tolerance`, a share of the key.

    A bare number that misses in the display unit but is right in another unit of
    the key's base unit (bytes for a key shown in GB) gets that unit's name, not a verdict.
    """
    reading = read_answer(text, unit, scale, table)
    if reading.problem or reading.value is None:
        return Verdict(reading.problem or "unreadable", reading)
    off = abs(reading.value - key) / key if key else Fraction(int(reading.value != 0))
    if off <= tolerance:
        return Verdict("right", reading, off)
    if not reading.word and reading.amount is not None:
        for size, name in table.units[unit].names:
            if size != scale and key and abs(reading.amount * size - key) / key <= tolerance:
                return Verdict("bare-other", reading, off, name)
    return Verdict("too-high" if reading.value > key else "too-low", reading, off)
