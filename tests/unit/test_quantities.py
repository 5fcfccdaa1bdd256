"""How a quantity reads: decimal and binary units, significant digits, the display options."""

from __future__ import annotations

from fractions import Fraction

import pytest

from macros.data.quantities import (
    check_display_options,
    display_quantity,
    format_quantity,
    round_significant,
    with_defaults,
)


@pytest.mark.parametrize(
    ("value", "unit", "options", "expected"),
    [
        (24_000_000_000, "B", {}, "24 GB"),
        (22_400_000_000, "B", {}, "22.4 GB"),
        (60_397_977_600, "B", {"digits": 2}, "60 GB"),
        (2, "B", {}, "2 bytes"),
        (1, "B", {}, "1 byte"),
        (2, "B", {"adjective": True}, "2-byte"),
        (16, "B", {"bare": True}, "16"),
        (999_900_000_000, "B", {}, "1 TB"),
        (5_250_000_000, "B", {"scale": "MB"}, "5,250 MB"),
        (2**30, "B", {"scale": "B"}, "1,073,741,824 B"),
        (32 * 2**30, "B", {}, "34.4 GB"),
        (32 * 2**30, "B", {"binary": True}, "32 GiB"),
        # What CUDA gives programs of an H100 80GB (deviceQuery, driver 570) and of an RTX 4090 (driver 550),
        # in GiB, after the capacity each is sold with.
        (85_028_896_768, "B", {"nominal": True, "sold": 80 * 10**9}, "80 GB (79.2 GiB to programs)"),
        (25_386_352_640, "B", {"nominal": True, "sold": 24 * 10**9}, "24 GB (23.6 GiB to programs)"),
        (85_028_896_768, "B", {"nominal": True, "sold": 80 * 10**9, "digits": 4}, "80 GB (79.19 GiB to programs)"),
        (85_028_896_768, "B", {"nominal": False, "sold": 80 * 10**9}, "85 GB"),
        (32_000_000_000, "B/s", {}, "32 GB/s"),
        (Fraction(21, 128), "s", {}, "164 ms"),
        (Fraction(21, 128), "s", {"scale": "s"}, "0.164 s"),
        (Fraction(5999, 100), "s", {}, "1 min"),
        (34 * 86_400, "s", {}, "34 days"),
        (15_100_000_000_000_000, "FLOP/s", {}, "15.1 PFLOP/s"),
        (3_120_000_000_000_000, "FLOP", {}, "3.12 PFLOP"),
        (Fraction(3, 4), "1", {"percent": True}, "75%"),
        (1_500_000_000, "param", {}, "1.5 billion parameters"),
        (1_500_000_000, "param", {"adjective": True}, "1.5-billion-parameter"),
        (1_400_000_000, "param", {"short": True}, "1.4B parameters"),
        (1_400_000_000, "param", {"short": True, "adjective": True}, "1.4B-parameter"),
        (125_000, "param", {}, "125,000 parameters"),
        (1024, "1", {}, "1,024"),
        (Fraction(3, 2), "1", {}, "1.5"),
        # GPT-3's Table D.1 prints its compute as 3.14E+23 flops.
        (314_260_018_790_400_000_000_000, "FLOP", {"scientific": True}, "3.14 × 10²³ FLOP"),
        (Fraction(1, 2**24), "1", {"scientific": True}, "5.96 × 10⁻⁸"),
        (9_996, "1", {"scientific": True}, "1 × 10⁴"),
        (10_000, "1", {"scientific": True}, "10⁴"),
        (175_000_000_000, "param", {"scientific": True, "digits": 2}, "1.8 × 10¹¹ parameters"),
        # The FP8 paper's Table 1: "1.75 ∗ 2^8 = 448", "2^-6".
        (448, "1", {"power_of_two": True}, "1.75 × 2⁸"),
        (Fraction(1, 64), "1", {"power_of_two": True}, "2⁻⁶"),
        (Fraction(7, 8) / 64, "1", {"power_of_two": True}, "1.75 × 2⁻⁷"),
        (300_000_000_000, "1", {"words": True}, "300 billion"),
        (1_400_000_000_000, "1", {"words": True}, "1.4 trillion"),
        (65_430, "1", {"words": True}, "65,430"),
    ],
)
def test_format_quantity(value: object, unit: str, options: dict[str, object], expected: str) -> None:
    assert format_quantity(value, unit, **options) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "unit", "options", "factor", "symbol"),
    [
        (112 * 10**9, "B", {}, 10**9, "GB"),
        (112 * 10**9, "B", {"scale": "MB"}, 10**6, "MB"),
        (Fraction(21, 128), "s", {}, Fraction(1, 1000), "ms"),
        (7 * 10**9, "param", {}, 10**9, "billion"),
        (16, "B", {}, 1, "bytes"),
        (1024, "1", {}, 1, ""),
        (3 * 10**23, "FLOP", {"scientific": True}, 1, "FLOP"),
        (300 * 10**9, "1", {"words": True}, 10**9, "billion"),
    ],
)
def test_a_display_says_its_unit(
    value: object, unit: str, options: dict[str, object], factor: object, symbol: str
) -> None:
    shown = display_quantity(value, unit, **options)  # type: ignore[arg-type]
    assert (shown.factor, shown.symbol) == (factor, symbol)


@pytest.mark.parametrize(
    ("value", "digits", "expected"), [(1234567, 3, "1,230,000"), (0.0175, 3, "0.0175"), (95, 1, "100")]
)
def test_round_significant(value: float, digits: int, expected: str) -> None:
    assert round_significant(value, digits) == expected


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    # Exact ties, as the course's fractions make them (31.25%, 5.625 GB, 15.625 GB, 0.0078125): a reader
    # rounds them up, and so does answers.js when it reads an answer, so a key never shows one way and
    # reads the other. Half to even showed 31.2%, 5.62 and 15.62 beside 18.8%.
    [
        (Fraction(3125, 100), 3, "31.3"),
        (Fraction(5625, 1000), 3, "5.63"),
        (Fraction(15625, 1000), 4, "15.63"),
        (Fraction(1875, 100), 3, "18.8"),
        (Fraction(1, 128), 4, "0.007813"),
        (125, 2, "130"),
    ],
)
def test_a_tie_rounds_up_as_readers_round(value: Fraction, digits: int, expected: str) -> None:
    assert round_significant(value, digits) == expected


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"unit": "GB"}, "unknown unit 'GB'; use one of: B, param"),
        ({"unit": "B", "digits": 0}, "digits must be a whole number from 1 to 6"),
        ({"unit": "B", "digits": "2"}, "digits must be a whole number from 1 to 6"),
        ({"unit": "B", "scale": "GiB"}, "unknown display unit 'GiB'; use one of: PB, TB, GB"),
        ({"unit": "param", "scale": "GB"}, "'param' has no display units"),
        ({"unit": "param", "binary": True}, "a figure in 'param' takes neither"),
        ({"unit": "B", "percent": True}, "a figure in 'B' is not one"),
        ({"unit": "1", "percent": True, "scientific": True}, "percent and scientific exclude each other"),
        ({"unit": "param", "words": True}, "words= shows a plain number"),
    ],
)
def test_bad_options_say_what_is_allowed(call: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        format_quantity(10, **call)  # type: ignore[arg-type]


def test_only_a_gpus_memory_shows_as_sold() -> None:
    with pytest.raises(ValueError, match="only a GPU's memory carries the capacity it is sold with"):
        format_quantity(32 * 10**9, "B", nominal=True)


@pytest.mark.parametrize("sold", [0, -1, 80.5, "80 GB", True])
def test_the_capacity_sold_is_a_whole_number_of_bytes(sold: object) -> None:
    with pytest.raises(ValueError, match="sold is a capacity in bytes, a positive whole number"):
        check_display_options({"sold": sold})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"digit": 2}, "unknown display option 'digit'; the options are digits, short"),
        ({"short": "yes"}, "short is true or false, got 'yes'"),
        ({"scale": 3}, 'scale names a display unit in quotes, such as "MB", got 3'),
    ],
)
def test_display_options_are_checked_by_name_and_type(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_display_options(options)


def test_a_negative_quantity_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be negative"):
        format_quantity(-1, "B")


def test_zero_has_no_power_to_show() -> None:
    with pytest.raises(ValueError, match="zero has no power of ten or of two"):
        format_quantity(0, "1", scientific=True)


def test_an_authors_notation_replaces_the_kinds_default() -> None:
    assert with_defaults({"scientific": True, "digits": 2}, {"power_of_two": True}) == {
        "digits": 2,
        "power_of_two": True,
    }
    assert with_defaults({"scientific": True}, {"digits": 4}) == {"scientific": True, "digits": 4}
