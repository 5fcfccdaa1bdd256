"""Display text for a quantity in one of the course's base units.

Units are decimal, as in the ZeRO paper: 1 GB = 10**9 bytes. A figure's exact
value is kept elsewhere; this module only decides how a reader sees it.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

Number = int | float | Fraction

#: The base units a figure may carry (DESIGN.md): bytes, parameters,
#: floating-point operations, seconds, bytes per second, and 1 for a plain
#: count or ratio.
UNITS = ("B", "param", "FLOP", "s", "B/s", "1")


def _si(symbol: str) -> tuple[tuple[Number, str], ...]:
    """The decimal multiples of `symbol`, largest first, down to the symbol itself."""
    prefixes = ((15, "P"), (12, "T"), (9, "G"), (6, "M"), (3, "k"), (0, ""))
    return tuple((10**power, f"{prefix}{symbol}") for power, prefix in prefixes)


#: The display units of each scaled base unit, largest first.
_SCALES: dict[str, tuple[tuple[Number, str], ...]] = {
    "B": _si("B"),
    "B/s": _si("B/s"),
    "FLOP": _si("FLOP"),
    "s": ((1, "s"), (Fraction(1, 10**3), "ms"), (Fraction(1, 10**6), "µs"), (Fraction(1, 10**9), "ns")),
}
_WORD_SCALES = ((10**12, "trillion", "T"), (10**9, "billion", "B"), (10**6, "million", "M"))


def check_unit(unit: str) -> str:
    """Return `unit` if it is one of `UNITS`, else raise ValueError naming the allowed ones."""
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; use one of: {', '.join(UNITS)}")
    return unit


def check_digits(digits: int) -> int:
    """Return `digits` if it is a sensible count of significant digits (1 to 6)."""
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 6:
        raise ValueError(f"digits must be a whole number from 1 to 6, got {digits!r}")
    return digits


def round_significant(value: Number, digits: int) -> str:
    """`value` rounded to `digits` significant digits, without trailing zeros or exponent.

    >>> round_significant(60.3979776, 2)
    '60'
    >>> round_significant(1234567, 3)
    '1,230,000'
    """
    exact = Decimal(value.numerator) / Decimal(value.denominator) if isinstance(value, Fraction) else Decimal(value)
    if exact == 0:
        return "0"
    quantum = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    rounded = exact.quantize(quantum, rounding=ROUND_HALF_EVEN) if quantum < 1 else _round_to_integer(exact, quantum)
    text = f"{rounded:,f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _round_to_integer(exact: Decimal, quantum: Decimal) -> Decimal:
    return (exact / quantum).quantize(Decimal(1), rounding=ROUND_HALF_EVEN) * quantum


def _scaled(value: Number, unit: str, digits: int, scale: str | None) -> tuple[str, str]:
    """Mantissa text and display unit: `scale` if given, else the largest that keeps the mantissa at least 1."""
    scales = _SCALES[unit]
    symbols = [symbol for _, symbol in scales]
    if scale is not None:
        if scale not in symbols:
            raise ValueError(f"unknown display unit {scale!r} for {unit}; use one of: {', '.join(symbols)}")
        index = symbols.index(scale)
    else:
        index = next((i for i, (factor, _) in enumerate(scales) if value >= factor), len(scales) - 1)
    text = round_significant(Fraction(value) / scales[index][0], digits)
    # 999.7 GB rounds to "1,000"; show it as 1 TB instead.
    if scale is None and index > 0 and Decimal(text.replace(",", "")) >= 1000:
        index -= 1
        text = round_significant(Fraction(value) / scales[index][0], digits)
    return text, symbols[index]


def format_quantity(
    value: Number,
    unit: str,
    *,
    digits: int = 3,
    short: bool = False,
    adjective: bool = False,
    bare: bool = False,
    scale: str | None = None,
) -> str:
    """The text a reader sees for `value` in `unit`.

    - `digits`: significant digits kept (trailing zeros dropped).
    - `short`: "1.4B parameters" rather than "1.4 billion parameters".
    - `adjective`: "1.5-billion-parameter" or "2-byte", to stand before a noun.
    - `bare`: the number alone, unscaled ("16" for the 16 in 16Ψ).
    - `scale`: a fixed display unit ("MB", "ms") instead of the most readable one.

    Raises:
        ValueError: an unknown unit, display unit or digits, or a negative value.
    """
    check_unit(unit)
    check_digits(digits)
    if value < 0:
        raise ValueError(f"a quantity cannot be negative, got {value!r}")
    if scale is not None and unit not in _SCALES:
        raise ValueError(f"{unit!r} has no display units to choose from; leave out scale={scale!r}")
    if bare:
        return _plain(value, digits)
    if unit == "param":
        return _format_parameters(value, digits, short=short, adjective=adjective)
    if unit == "1":
        return _plain(value, digits)
    if unit == "B" and value < 1000 and scale in (None, "B"):
        number = _plain(value, digits)
        return f"{number}-byte" if adjective else f"{number} {'byte' if number == '1' else 'bytes'}"
    number, symbol = _scaled(value, unit, digits, scale)
    return f"{number}-{symbol}" if adjective else f"{number} {symbol}"


def _plain(value: Number, digits: int) -> str:
    """A count shown whole ("1,024") when it is whole, else to `digits` significant digits."""
    if value == int(value):
        return f"{int(value):,}"
    return round_significant(value, digits)


def _format_parameters(value: Number, digits: int, *, short: bool, adjective: bool) -> str:
    """ "1.5 billion parameters", "1.5B parameters", "1.5-billion-parameter" or "1.4B-parameter"."""
    noun = "parameter" if adjective else "parameters"
    joiner = "-" if adjective else " "
    for factor, word, letter in _WORD_SCALES:
        if value >= factor:
            number = round_significant(Fraction(value) / factor, digits)
            scale = letter if short else joiner + word
            return f"{number}{scale}{joiner}{noun}"
    return f"{_plain(value, digits)}{joiner}{noun}"


def display_scale(value: Number, unit: str) -> tuple[Number, str]:
    """The factor and name of the unit that `format_quantity` shows `value` in.

    >>> display_scale(112 * 10**9, "B")
    (1000000000, 'GB')

    A quiz reads a bare answer such as "112" in this unit.
    """
    text = format_quantity(value, unit)
    symbol = text.split(" ", 1)[1] if " " in text else ""
    if unit == "B" and symbol in ("byte", "bytes"):
        return 1, "bytes"
    for factor, name in _SCALES.get(unit, ()):
        if name == symbol:
            return factor, name
    if unit == "param":
        for factor, word, _ in _WORD_SCALES:
            if symbol.startswith(word):
                return factor, word
        return 1, "parameters"
    return 1, ""
