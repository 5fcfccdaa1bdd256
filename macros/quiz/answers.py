"""Reading a numeric answer as a person writes it, and judging it against the key: the page's rules, in Python.

`course.js` checks answers in the reader's browser with the same steps, the
same table (`units.yml`) and the same exact arithmetic (fractions there too);
this module is those steps in Python, so that the build can prove every key
reads back from the way the page shows it, and the tests can hold both sides
to one list of answers (`tests/answers.yml`).

An answer is read in these steps:

0. The characters a reader does not see are dropped (`data.invisible`).
1. Working is set aside: text in parentheses ("112 GB (16 bytes x 7B)") and
   everything up to the last "=" or "≈" ("16*7 = 112 GB").
2. An optional hedge ("about", "~"), then a number: digits (thousands grouped
   by three with commas or spaces), a decimal part, an exponent, "× 10^n" or
   "× 2^n", or a power alone ("2^-133", "2⁻¹³³"), over an optional divisor
   ("1/4", "3/2").
3. Then a unit, optional: a word of the key's base unit, a multiplier
   ("billion", "tera"), or a multiplier before a word of size 1, apart or
   joined ("112 billion bytes", "2.53 zettaFLOPs"), followed by words that
   change nothing ("per GPU"). A bare number counts in the unit the key is
   shown in.
4. Or two amounts make a range ("100-120 GB", "100 to 120 GB"), judged by
   whether it holds the key.

The number's pattern (`NUMBER`, the page's own) is anchored and never
backtracks far, an answer is at most `MAX_ANSWER` characters, and an exponent
has at most `MAX_EXPONENT_DIGITS` digits, so no answer costs more than a few
thousand digits of arithmetic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from ..data.invisible import visible
from .units import UnitTable, UnitWords, Word, spaced

#: Longer answers are not read at all: the page's field takes no more.
MAX_ANSWER = 100
#: An exponent of more digits than this is refused as out of range (1e999 is read, 1e1000 is not).
MAX_EXPONENT_DIGITS = 3
_SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_POWER = rf"(?:\^|\*\*)([-−+]?[0-9]+)|(⁻?[{_SUPERSCRIPT_DIGITS}]+)"
#: The number, in three forms: a power of 2 or 10 alone ("2^-133", "10⁹"); or digits (thousands grouped by three,
#: with commas or spaces), a decimal part, an exponent, and "× 10^n" or "× 2^n". Anchored, and each part follows
#: from the one before: no answer can make it backtrack for long. The groups: 1-3 the power alone (base, written
#: power, superscript power); 4-6 digits, decimals, exponent; 7-9 the power that multiplies them.
NUMBER = re.compile(
    rf"(2|10)(?:{_POWER})"
    r"|([0-9]{1,3}(?:,[0-9]{3})+(?![0-9,])|[0-9]+(?:[ \u00a0\u2009\u202f][0-9]{3}(?![0-9]))*|)(\.[0-9]+)?"
    rf"(?:[eE]([+-]?[0-9]+))?(?:\s*[×xX*·]\s*(2|10)(?:{_POWER}))?"
)
#: A divisor right after the number: "1/4", "3/2".
DIVISOR = re.compile(r"/\s*([0-9]+(?:\.[0-9]+)?)")
#: What joins the two ends of a range, after the first end's number and its unit (if it has one).
RANGE = re.compile(r"([^0-9]*?)\s*(?:-|–|—|to(?=[\s.0-9]))\s*(?=\.?[0-9])")
_SUPERSCRIPTS = str.maketrans(_SUPERSCRIPT_DIGITS + "⁻", "0123456789-")


@dataclass(frozen=True)
class Reading:
    """What an answer says: its value in the key's base unit, or the problem that stops reading it."""

    value: Fraction | None = None
    #: unreadable, out-of-range, negative, ambiguous (a decimal comma), wrong-unit or unknown-unit; None when read.
    problem: str | None = None
    #: The number as typed (with its power and divisor), and the unit as typed ("" for a bare number).
    number: str = ""
    word: str = ""
    #: The unit written counts bits.
    bits: bool = False
    #: For a wrong unit, the base unit the word belongs to.
    other: str | None = None
    #: The number before its unit: a bare number is read in the key's display unit.
    amount: Fraction | None = None
    #: For a range, its upper end (`value` is its lower end).
    high: Fraction | None = None


@dataclass(frozen=True)
class Verdict:
    """How an answer compares with the key.

    right, too-high, too-low, mistake (near the known wrong answer `mistake`), and three that ask rather than
    mark: bare-other (a bare number right in another unit, named in `unit_name`), unit-meant (a unit spelled
    like one of the key's, in which the answer is right: `unit_name`), range-wide (a range that holds the key
    but is too wide to count); or the reading's problem.
    """

    kind: str
    reading: Reading
    #: How far off, as a share of the key (for a range, its farther end; for a range that misses, its nearer).
    off: Fraction | None = None
    unit_name: str | None = None
    mistake: int | None = None


def _strip_hedges(text: str, hedges: tuple[str, ...]) -> str:
    for _ in range(3):
        hedge = next((h for h in hedges if text.lower().startswith(h)), None)
        if hedge is None or (hedge[-1].isalpha() and text[len(hedge) : len(hedge) + 1].isalpha()):
            return text
        text = text[len(hedge) :].lstrip()
    return text


def _without_working(text: str) -> str:
    """The answer without its working: asides in parentheses, and everything up to the last "=" or "≈"."""
    bare = re.sub(r"\s*\([^()]*\)", "", text)
    statements = [part for part in re.split("[=≈]", bare if bare.strip() else text) if part.strip()]
    return statements[-1].strip() if statements else ""


def _joined(written: str, unit: UnitWords, table: UnitTable) -> Word | None:
    """A multiplier joined to a word of size 1: "zettaFLOPs", "exabytes"."""
    lower = written.lower()
    for prefix, scale in sorted(table.multipliers.items(), key=lambda item: (-len(item[0]), item[0])):
        noun = unit.lookup(written[len(prefix) :]) if lower.startswith(prefix) and len(written) > len(prefix) else None
        if noun is not None and noun.size * (8 if noun.bits else 1) == 1:
            return Word(scale * noun.size, noun.bits)
    return None


def _unit_word(written: str, unit: UnitWords, table: UnitTable) -> Word | None:
    """The size a unit as written stands for: a word, a multiplier, or either before a word of size 1."""
    found = unit.lookup(written) or (
        Word(table.multipliers[written.lower()]) if written.lower() in table.multipliers else None
    )
    if found is not None:
        return found
    if " " not in written:
        return _joined(written, unit, table)
    head, tail = written.rsplit(" ", 1)
    noun = unit.lookup(tail)
    first = unit.lookup(head)
    scale = table.multipliers.get(head.lower())
    if noun is None or (scale is None and (first is None or noun.size != 1)):
        return None
    return Word((scale if scale is not None else first.size if first else 1) * noun.size, noun.bits)


def _after(words: str) -> tuple[str, ...]:
    """How words that change nothing end a unit: " per gpu", and "/gpu" for a "per" word."""
    return (f" {words}", f"/{words.removeprefix('per ')}") if words.startswith("per ") else (f" {words}",)


def _normalized(rest: str, table: UnitTable) -> str:
    """The unit as written, compared as words: hyphens and spaces tidied, words that change nothing left out
    ("112 GB per GPU"), "per second" as "/s"."""
    joined = spaced(rest).replace(" /", "/").replace("/ ", "/")
    for _ in range(2):
        padded = f" {joined}"
        tail = next((tail for words in table.after for tail in _after(words) if padded.lower().endswith(tail)), None)
        if tail is None:
            break
        joined = padded[: -len(tail)].strip()
    return re.sub(r" per (second|sec|s)$", "/s", joined, flags=re.IGNORECASE)


def _power(written: str | None, superscript: str | None) -> str:
    return (written if written is not None else (superscript or "0").translate(_SUPERSCRIPTS)).replace("−", "-")


def _amount(text: str) -> Reading:
    """The number at the start of `text`: `amount` and `number` set, the rest of the text in `word`; or a problem."""
    match = NUMBER.match(text)
    assert match is not None  # every part of the last form may be empty
    alone, power, superscript, whole, fraction, exponent, base, times_power, times_superscript = match.groups()
    if alone is None and not whole and not fraction:
        return Reading(problem="unreadable")
    rest = text[match.end() :].lstrip()
    if alone is None and re.match(r",[0-9]", rest):
        return Reading(problem="ambiguous", number=re.sub(r"[^0-9,.].*", "", text, flags=re.DOTALL))
    number = match.group(0).strip()
    ten = _power(power, superscript) if alone is not None else _power(times_power, times_superscript)
    if max(len(ten.lstrip("+-")), len((exponent or "").lstrip("+-"))) > MAX_EXPONENT_DIGITS:
        return Reading(problem="out-of-range", number=number)
    digits = f"{re.sub('[^0-9]', '', whole or '') or 0}{fraction or ''}e{exponent or 0}"
    mantissa = Fraction(1) if alone is not None else Fraction(digits)
    amount = mantissa * Fraction(int(alone or base or 10)) ** int(ten)
    divisor = DIVISOR.match(rest)
    if divisor:
        if Fraction(divisor.group(1)) == 0:
            return Reading(problem="unreadable")
        amount /= Fraction(divisor.group(1))
        number = f"{number}/{divisor.group(1)}"
        rest = rest[divisor.end() :].lstrip()
    return Reading(amount=amount, number=number, word=rest)


def _in_unit(amount: Reading, written: str, unit: str, scale: Fraction, table: UnitTable) -> Reading:
    """`amount` (read by `_amount`) in the key's base unit, with `written` as its unit."""
    assert amount.amount is not None
    word_text = _normalized(written, table)
    read = replace(amount, word=word_text)
    if not word_text:
        return replace(read, value=amount.amount * scale)
    word = _unit_word(word_text, table.units[unit], table)
    if word is not None:
        return replace(read, value=amount.amount * word.size, bits=word.bits)
    other = next((name for name, o in table.units.items() if name != unit and _unit_word(word_text, o, table)), None)
    return replace(read, problem="wrong-unit" if other else "unknown-unit", other=other)


def read_answer(text: str, unit: str, scale: Fraction, table: UnitTable) -> Reading:
    """Read `text` as an amount in `unit`; a bare number counts in the display unit of size `scale`."""
    text = visible(text).strip()
    if len(text) > MAX_ANSWER:
        return Reading(problem="unreadable")
    text = re.sub(r"[\s.!]+$", "", _strip_hedges(_without_working(text), table.hedges))
    negative = text.startswith(("-", "−", "–"))
    text = re.sub(r"^[-−–+]\s*", "", text)
    first = _amount(text)
    if first.problem or first.amount is None:
        return first
    if negative and first.amount:
        return Reading(problem="negative")
    span = RANGE.match(first.word)
    if span is None:
        return _in_unit(first, first.word, unit, scale, table)
    end = _amount(first.word[span.end() :])
    if end.problem or end.amount is None:
        return end
    high = _in_unit(end, end.word, unit, scale, table)
    low = _in_unit(first, span.group(1) or end.word, unit, scale, table)
    for side in (low, high):
        if side.problem or side.value is None:
            return side
    assert low.value is not None and high.value is not None
    return replace(
        high,
        value=min(low.value, high.value),
        high=max(low.value, high.value),
        number=f"{first.number}–{end.number}",
        bits=low.bits or high.bits,
        amount=None,
    )


def _off(value: Fraction, key: Fraction) -> Fraction:
    return abs(value - key) / key if key else Fraction(int(value != 0))


def meant_unit(reading: Reading, unit: UnitWords) -> tuple[Fraction, str] | None:
    """For an answer whose unit counts bits or is another base unit's, the key's unit it is spelled like, in any
    case ("Gb" like GB, "FLOPS" like FLOPs): the answer's value in that unit, and the unit's name to suggest."""
    if not (reading.bits or reading.problem == "wrong-unit") or reading.amount is None:
        return None
    lower = reading.word.lower()
    entries = [(written, word) for written, word in unit.exact.items() if not word.bits]
    entries += [(written, word) for written, word in unit.words.items() if not word.bits]
    found = next((word for written, word in entries if written.lower() == lower), None)
    if found is None:
        return None
    return reading.amount * found.size, next((name for size, name in unit.names if size == found.size), reading.word)


def judge(
    text: str,
    key: Fraction,
    unit: str,
    scale: Fraction,
    tolerance: Fraction,
    table: UnitTable,
    mistakes: Sequence[Fraction] = (),
) -> Verdict:
    """Compare an answer with the key (exact, in `unit`) within `tolerance`, a share of the key.

    A bare number that misses in the display unit but is right in another unit of
    the key's base unit (bytes for a key shown in GB) gets that unit's name, not a verdict;
    so does a unit spelled like one of the key's in which the answer is right ("112 Gb").
    A wrong answer within `tolerance` of a known mistake is that mistake.
    """
    reading = read_answer(text, unit, scale, table)
    meant = meant_unit(reading, table.units[unit])
    # Asked only where the answer as read is not right already: "896 Gb" is 112 GB, right in bits.
    unread = reading.problem or (reading.value is not None and _off(reading.value, key) > tolerance)
    if meant is not None and unread and _off(meant[0], key) <= tolerance:
        return Verdict("unit-meant", reading, None, meant[1])
    if reading.problem or reading.value is None:
        return Verdict(reading.problem or "unreadable", reading)
    if reading.high is not None:
        low, high = reading.value, reading.high
        farther = max(_off(low, key), _off(high, key))
        if farther <= tolerance or (low <= key <= high and farther <= tolerance * table.range_spread):
            return Verdict("right", reading, farther)
        if low <= key <= high:
            return Verdict("range-wide", reading, farther)
        nearer = low if low > key else high
        return Verdict("too-high" if low > key else "too-low", reading, _off(nearer, key))
    off = _off(reading.value, key)
    if off <= tolerance:
        return Verdict("right", reading, off)
    if not reading.word and reading.amount is not None:
        for size, name in table.units[unit].names:
            if size != scale and key and _off(reading.amount * size, key) <= tolerance:
                return Verdict("bare-other", reading, off, name)
    for index, mistake in enumerate(mistakes):
        if _off(reading.value, mistake) <= tolerance:
            return Verdict("mistake", reading, off, mistake=index)
    return Verdict("too-high" if reading.value > key else "too-low", reading, off)
