"""Display text for a quantity in one of the course's base units.

Byte counts are decimal, as in the ZeRO paper: 1 GB = 10**9 bytes. Memory
capacities are binary, as the hardware has them: `binary=True` shows a value in
GiB. A GPU's memory is two numbers, the capacity it is sold with and the memory
CUDA gives programs, a little less (catalog/gpus.yml): `nominal=True`
shows both, "80 GB (79.2 GiB to programs)". A figure's exact value is kept
elsewhere; this module only decides how a reader sees it, and says in which
display unit, so that a quiz can read a bare answer in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

Number = int | float | Fraction

#: The base units a figure may carry (ARCHITECTURE.md, "Figures"): bytes, parameters, floating-point
#: operations and their rate, seconds, bytes per second, and 1 for a count or ratio.
UNITS = ("B", "param", "FLOP", "FLOP/s", "s", "B/s", "1")

#: What each base unit measures, in words a reader's error message can use.
UNIT_WORDS: Mapping[str, str] = {
    "B": "an amount of memory",
    "param": "a parameter count",
    "FLOP": "an amount of computation",
    "FLOP/s": "a rate of computation",
    "s": "a time",
    "B/s": "a rate of transfer",
    "1": "a plain number",
}


def _si(symbol: str) -> tuple[tuple[int, str], ...]:
    """The decimal multiples of `symbol`, largest first, down to the symbol itself."""
    prefixes = ((15, "P"), (12, "T"), (9, "G"), (6, "M"), (3, "k"), (0, ""))
    return tuple((10**power, f"{prefix}{symbol}") for power, prefix in prefixes)


#: The display units of each scaled base unit, largest first, with their size in the base unit.
SCALES: Mapping[str, tuple[tuple[Number, str], ...]] = {
    "B": _si("B"),
    "B/s": _si("B/s"),
    "FLOP": _si("FLOP"),
    "FLOP/s": _si("FLOP/s"),
    "s": (
        (86_400, "days"),
        (3_600, "hours"),
        (60, "min"),
        (1, "s"),
        (Fraction(1, 10**3), "ms"),
        (Fraction(1, 10**6), "µs"),
        (Fraction(1, 10**9), "ns"),
    ),
}
#: Binary multiples of bytes, for capacities.
BINARY_SCALES: tuple[tuple[int, str], ...] = ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))
_WORD_SCALES = ((10**12, "trillion", "T"), (10**9, "billion", "B"), (10**6, "million", "M"))

#: The display options every figure macro takes, with what each does.
DISPLAY_OPTIONS: Mapping[str, str] = {
    "digits": "significant digits, 1 to 6 (default 3)",
    "short": "1.4B parameters rather than 1.4 billion parameters",
    "adjective": "1.5-billion-parameter, 2-byte: to stand before a noun",
    "bare": "the number alone, unscaled, as the 16 in 16Ψ",
    "scale": 'a fixed display unit, such as "MB" or "ms"',
    "binary": "bytes in binary units: 32 GiB",
    "nominal": "a GPU's memory as sold and as programs get it: 80 GB (79.2 GiB to programs); false shows the second",
    "sold": "the capacity a GPU is sold with, in bytes, that nominal= names first (a GPU's memory carries it)",
    "percent": "a ratio as a percentage: 76%",
    "scientific": "a power of ten, as papers print compute: 3.14 × 10²³ FLOP",
    "power_of_two": "a power of two, as number formats are defined: 1.75 × 2⁸, 2⁻²⁴",
    "words": "a large plain number in words: 300 billion",
}
#: The options that choose a notation; a figure takes at most one of them.
_NOTATIONS = ("bare", "percent", "scientific", "power_of_two", "words")
#: What a number in a notation of its own is followed by, for each base unit.
_UNIT_NAMES: Mapping[str, str] = {
    "B": "bytes",
    "param": "parameters",
    "FLOP": "FLOP",
    "FLOP/s": "FLOP/s",
    "s": "s",
    "B/s": "B/s",
    "1": "",
}
_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


@dataclass(frozen=True)
class Display:
    """What a reader sees of a quantity, and the display unit it is shown in.

    `factor` is that unit's size in the base unit (10**9 for GB, 1 for a bare
    number) and `symbol` its name ("GB", "bytes", "billion", "" for none): a
    quiz reads a bare answer in this unit.
    """

    text: str
    factor: Fraction
    symbol: str


def check_unit(unit: str) -> str:
    """Return `unit` if it is one of `UNITS`, else raise ValueError naming the allowed ones."""
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; use one of: {', '.join(UNITS)}")
    return unit


def check_display_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The display options, checked: known names, `digits` 1 to 6, `scale` text, the rest true or false.

    >>> check_display_options({"digit": 2})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown display option 'digit'; the options are digits, short, adjective, ...
    """
    for name, value in options.items():
        if name not in DISPLAY_OPTIONS:
            raise ValueError(f"unknown display option {name!r}; the options are {', '.join(DISPLAY_OPTIONS)}")
        if name == "digits":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
                raise ValueError(f"digits must be a whole number from 1 to 6, got {value!r}")
        elif name == "scale":
            if not isinstance(value, str):
                raise ValueError(f'scale names a display unit in quotes, such as "MB", got {value!r}')
        elif name == "sold":
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"sold is a capacity in bytes, a positive whole number, got {value!r}")
        elif not isinstance(value, bool):
            raise ValueError(f"{name} is true or false, got {value!r}")
    return dict(options)


def with_defaults(defaults: Mapping[str, Any], chosen: Mapping[str, Any]) -> dict[str, Any]:
    """A figure's display options: its kind's defaults, overridden by the author's; a notation the author
    chooses replaces the default one rather than clashing with it.

    >>> with_defaults({"scientific": True}, {"power_of_two": True})
    {'power_of_two': True}
    """
    if any(chosen.get(name) for name in _NOTATIONS):
        defaults = {name: value for name, value in defaults.items() if name not in _NOTATIONS}
    return {**defaults, **chosen}


def round_significant(value: Number, digits: int) -> str:
    """`value` rounded to `digits` significant digits, without trailing zeros or exponent.

    A tie rounds away from zero, as readers round and as answers.js reads an answer back:
    the course's exact fractions make ties (31.25%), and half to even would show 31.2% beside 18.8%.

    >>> round_significant(60.3979776, 2)
    '60'
    >>> round_significant(1234567, 3)
    '1,230,000'
    """
    exact = _decimal(value)
    if exact == 0:
        return "0"
    quantum = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    rounded = exact.quantize(quantum, rounding=ROUND_HALF_UP) if quantum < 1 else _round_to_integer(exact, quantum)
    text = f"{rounded:,f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _decimal(value: Number) -> Decimal:
    if isinstance(value, Fraction):
        return Decimal(value.numerator) / Decimal(value.denominator)
    return Decimal(value)


def _round_to_integer(exact: Decimal, quantum: Decimal) -> Decimal:
    return (exact / quantum).quantize(Decimal(1), rounding=ROUND_HALF_UP) * quantum


def _scaled(value: Number, scales: tuple[tuple[Number, str], ...], digits: int, scale: str | None) -> Display:
    """`value` in the display unit `scale` if given, else the largest that keeps the number at least 1."""
    symbols = [symbol for _, symbol in scales]
    if scale is not None:
        if scale not in symbols:
            raise ValueError(f"unknown display unit {scale!r}; use one of: {', '.join(symbols)}")
        index = symbols.index(scale)
    else:
        index = next((i for i, (factor, _) in enumerate(scales) if value >= factor), len(scales) - 1)
    scaled = Fraction(value) / Fraction(scales[index][0])
    # In a unit the author fixed, a whole number shows whole: 1 GiB is 1,073,741,824 B.
    text = f"{int(scaled):,}" if scale is not None and scaled.denominator == 1 else round_significant(scaled, digits)
    # 999.7 GB rounds to "1,000"; show it as 1 TB instead.
    next_up = Fraction(scales[index - 1][0]) / Fraction(scales[index][0]) if index > 0 else None
    if scale is None and next_up is not None and Fraction(Decimal(text.replace(",", ""))) >= next_up:
        index -= 1
        text = round_significant(Fraction(value) / Fraction(scales[index][0]), digits)
    return Display(text, Fraction(scales[index][0]), symbols[index])


def display_quantity(
    value: Number,
    unit: str,
    *,
    digits: int = 3,
    short: bool = False,
    adjective: bool = False,
    bare: bool = False,
    scale: str | None = None,
    binary: bool = False,
    nominal: bool = False,
    sold: int | None = None,
    percent: bool = False,
    scientific: bool = False,
    power_of_two: bool = False,
    words: bool = False,
) -> Display:
    """What a reader sees for `value` in `unit`, and in which display unit (see `DISPLAY_OPTIONS`).

    Raises:
        ValueError: an unknown unit or display unit, bad digits, a negative value,
            or an option that does not apply to the unit.
    """
    check_unit(unit)
    check_display_options({"digits": digits})
    if value < 0:
        raise ValueError(f"a quantity cannot be negative, got {value!r}")
    if (binary or nominal) and unit != "B":
        raise ValueError(f"binary= and nominal= show bytes; a figure in {unit!r} takes neither")
    if percent and unit != "1":
        raise ValueError(f"percent= shows a ratio; a figure in {unit!r} is not one")
    if scale is not None and unit not in SCALES:
        raise ValueError(f"{unit!r} has no display units to choose from; leave out scale={scale!r}")
    chosen = [name for name, on in zip(_NOTATIONS, (bare, percent, scientific, power_of_two, words), strict=True) if on]
    if len(chosen) > 1:
        raise ValueError(f"choose one notation; {' and '.join(chosen)} exclude each other")
    if words and unit != "1":
        raise ValueError(f"words= shows a plain number; a figure in {unit!r} has its own units")
    if (scientific or power_of_two) and value == 0:
        raise ValueError("zero has no power of ten or of two; leave out scientific= and power_of_two=")
    if scientific:
        return _in_powers(value, 10, digits, unit)
    if power_of_two:
        return _in_powers(value, 2, digits, unit)
    if words:
        return _in_words(value, digits)
    if bare:
        return Display(_plain(value, digits), Fraction(1), "")
    if percent:
        return Display(f"{round_significant(Fraction(value) * 100, digits)}%", Fraction(1, 100), "%")
    if unit == "param":
        return _parameters(value, digits, short=short, adjective=adjective)
    if unit == "1":
        return Display(_plain(value, digits), Fraction(1), "")
    if nominal:
        return _nominal(value, sold, digits, scale)
    if unit == "B" and value < 1000 and scale in (None, "B") and not binary:
        number = _plain(value, digits)
        text = f"{number}-byte" if adjective else f"{number} {'byte' if number == '1' else 'bytes'}"
        return Display(text, Fraction(1), "bytes")
    scales = (*BINARY_SCALES, (1, "B")) if binary else SCALES[unit]
    shown = _scaled(value, scales, digits, scale)
    joiner = "-" if adjective else " "
    return Display(f"{shown.text}{joiner}{shown.symbol}", shown.factor, shown.symbol)


def format_quantity(value: Number, unit: str, **options: Any) -> str:
    """The text a reader sees for `value` in `unit`: `display_quantity(...).text`.

    >>> format_quantity(85_028_896_768, "B", nominal=True, sold=80 * 10**9)
    '80 GB (79.2 GiB to programs)'
    """
    return display_quantity(value, unit, **options).text


def _nominal(value: Number, sold: int | None, digits: int, scale: str | None = None) -> Display:
    """A GPU's memory as its vendor sells it and as CUDA gives it to programs: "80 GB (79.2 GiB to programs)".

    `sold` is the capacity the vendor names, in bytes of its decimal GB (an "80 GB" card is
    80 × 10**9 here: a name, which the card's physical memory exceeds); `value` is what CUDA
    reports as the device's total, the physical memory less what the driver and firmware
    reserve (catalog/gpus.yml). The second part is in GiB, the display unit a quiz
    reads a bare answer in. In a decimal `scale`, such as a chart's GB axis, what programs get
    is given in it, where the line it labels is drawn, and in GiB beside it; the name is left
    out there, since a card sold as "80 GB" has 80 GiB, more than the 85 GB would suggest:

    >>> _nominal(85_028_896_768, 80 * 10**9, 3, "GB").text
    '85 GB to programs (79.2 GiB)'

    Raises:
        ValueError: no `sold`; only a GPU's memory carries the capacity it is sold with.
    """
    if sold is None:
        raise ValueError(
            "nominal= shows a GPU's memory as sold and as programs get it; only a GPU's memory carries"
            " the capacity it is sold with (sold=)"
        )
    decimal = scale is not None and scale not in {symbol for _, symbol in BINARY_SCALES}
    binary = _scaled(value, (*BINARY_SCALES, (1, "B")), digits, None if decimal else scale)
    if decimal:
        shown = _scaled(value, SCALES["B"], digits, scale)
        text = f"{shown.text} {shown.symbol} to programs ({binary.text} {binary.symbol})"
        return Display(text, shown.factor, shown.symbol)
    name = _plain(Fraction(sold, 10**9), digits)
    return Display(f"{name} GB ({binary.text} {binary.symbol} to programs)", binary.factor, binary.symbol)


def _in_powers(value: Number, base: int, digits: int, unit: str) -> Display:
    """`value` as a mantissa times a power of `base`: "3.14 × 10²³ FLOP", or "2⁻²⁴" for exactly that power.

    The mantissa lies in [1, base) and shows `digits` significant digits; the
    display unit is the base unit, so a bare answer counts in it.
    """
    exact = Fraction(value)
    exponent = _floor_log(exact, base)
    mantissa = round_significant(exact / Fraction(base) ** exponent, digits)
    if Fraction(Decimal(mantissa.replace(",", ""))) >= base:  # 9.996 × 10² rounds to 10 × 10²
        exponent += 1
        mantissa = round_significant(exact / Fraction(base) ** exponent, digits)
    power = power_text(base, exponent)
    # The power alone means exactly that power; a rounded mantissa of 1 still shows: 1 × 10⁴ for 9,996.
    number = power if exact == Fraction(base) ** exponent else f"{mantissa} × {power}"
    name = _UNIT_NAMES[unit]
    return Display(f"{number} {name}" if name else number, Fraction(1), name)


def power_text(base: int, exponent: int) -> str:
    """A power as the course writes it, its exponent in superscript digits.

    >>> power_text(10, 23), power_text(2, -24)
    ('10²³', '2⁻²⁴')
    """
    return f"{base}{str(exponent).translate(_SUPERSCRIPTS)}"


def _floor_log(exact: Fraction, base: int) -> int:
    """The largest n with base**n ≤ exact, for exact > 0, computed without floating point."""
    exponent = (
        len(str(exact.numerator)) - len(str(exact.denominator))
        if base == 10
        else (exact.numerator.bit_length() - exact.denominator.bit_length())
    )
    while Fraction(base) ** exponent > exact:
        exponent -= 1
    while Fraction(base) ** (exponent + 1) <= exact:
        exponent += 1
    return exponent


def _in_words(value: Number, digits: int) -> Display:
    """A large plain number in words, "300 billion"; below a million, its digits."""
    for factor, word, _ in _WORD_SCALES:
        if value >= factor:
            return Display(f"{round_significant(Fraction(value) / factor, digits)} {word}", Fraction(factor), word)
    return Display(_plain(value, digits), Fraction(1), "")


def _plain(value: Number, digits: int) -> str:
    """A count shown whole ("1,024") when it is whole, else to `digits` significant digits."""
    if value == int(value):
        return f"{int(value):,}"
    return round_significant(value, digits)


def _parameters(value: Number, digits: int, *, short: bool, adjective: bool) -> Display:
    """ "1.5 billion parameters", "1.5B parameters", "1.5-billion-parameter" or "1.4B-parameter"."""
    noun = "parameter" if adjective else "parameters"
    joiner = "-" if adjective else " "
    for factor, word, letter in _WORD_SCALES:
        if value >= factor:
            number = round_significant(Fraction(value) / factor, digits)
            scale = letter if short else joiner + word
            return Display(f"{number}{scale}{joiner}{noun}", Fraction(factor), word)
    return Display(f"{_plain(value, digits)}{joiner}{noun}", Fraction(1), "parameters")
