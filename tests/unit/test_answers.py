"""Numeric answers read as people write them: the units table and the Python twin of the page's checker.

The cases are tests/answers.yml, which the browser tests hold the page's own
checker to as well; each key is typed there from its arithmetic.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, TypedDict

import pytest
import yaml

from macros.data.invisible import INVISIBLE_RANGES
from macros.data.quantities import BINARY_SCALES, SCALES, UNITS, display_quantity
from macros.data.schema import percentage
from macros.quiz.answers import judge, read_answer
from macros.quiz.units import TABLE_FILE, UnitTableError, page_json, size, unit_table

QUESTIONS = yaml.safe_load((Path(__file__).parents[1] / "answers.yml").read_text(encoding="utf-8"))["questions"]
CASES = [(question, case) for question in QUESTIONS for case in question["cases"]]
TABLE = unit_table()


def test_the_first_key_is_the_arithmetic_of_its_question() -> None:
    first = QUESTIONS[0]
    assert first["question"] == "l8-practice-1"
    assert size(first["key"]["value"]) == 16 * 7 * 10**9 and size(first["key"]["scale"]) == 10**9


@pytest.mark.parametrize(
    ("question", "case"), CASES, ids=[f"{question['question']}: {case['typed']}" for question, case in CASES]
)
def test_an_answer_is_read_and_judged_as_the_page_does(question: dict[str, Any], case: dict[str, Any]) -> None:
    key = question["key"]
    verdict = judge(
        case["typed"],
        size(key["value"]),
        key["unit"],
        size(key["scale"]),
        percentage(key["tolerance"]),
        TABLE,
        [size(mistake) for mistake in key["mistakes"]],
    )
    assert verdict.kind == case["verdict"]
    if "value" in case:
        assert verdict.reading.value is not None
        expected = size(case["value"])
        assert abs(verdict.reading.value - expected) <= expected / 10**9, float(verdict.reading.value)
    assert verdict.unit_name == case.get("unit")


class _Wording(TypedDict, total=False):
    """`display_quantity`'s wordings of a count of parameters: "7B parameters", "7-billion-parameter"."""

    short: bool
    adjective: bool


WORDINGS: tuple[_Wording, ...] = ({}, {"short": True}, {"adjective": True})


def _displays() -> list[tuple[str, str, Fraction]]:
    """Every unit a figure can be shown in, as text a reader may copy, with its value."""
    shown = []
    for unit in UNITS:
        for value in (7, 1_500, 2_500_000, 7_000_000_000, 3 * 10**12, 4 * 10**15):
            for options in WORDINGS:
                if options and unit != "param":
                    continue
                shown.append((display_quantity(value, unit, **options).text, unit, Fraction(value)))
    for unit, scales in SCALES.items():
        shown += [
            (display_quantity(factor, unit, scale=symbol).text, unit, Fraction(factor)) for factor, symbol in scales
        ]
    shown += [(display_quantity(factor, "B", binary=True).text, "B", Fraction(factor)) for factor, _ in BINARY_SCALES]
    shown.append((display_quantity(Fraction(76, 100), "1", percent=True).text, "1", Fraction(76, 100)))
    return shown


@pytest.mark.parametrize(("text", "unit", "value"), _displays())
def test_every_way_a_figure_is_shown_reads_back_as_its_value(text: str, unit: str, value: Fraction) -> None:
    read = read_answer(text, unit, Fraction(1), TABLE)
    assert read.value is not None, f"{text!r}: {read.problem}"
    assert abs(read.value - value) <= value / 100  # the display rounds to 3 digits


def test_reading_is_linear_however_long_or_strange_the_text() -> None:
    for text in ("1x" + " " * 300_000 + "y", "1," * 50 + "0", "1" + "e" * 99, "about " * 20 + "1 GB"):
        started = time.perf_counter()
        read_answer(text, "B", Fraction(10**9), TABLE)
        assert time.perf_counter() - started < 0.05, text[:20]


def test_a_lower_case_b_after_a_capital_is_a_bit_and_every_other_spelling_of_gb_a_byte() -> None:
    words = TABLE.units["B"]
    bit = words.lookup("Gb")
    assert bit is not None and bit.bits
    found = [words.lookup(spelling) for spelling in ("GB", "gb", "gB", "Gigabytes")]
    assert [word.bits if word else None for word in found] == [False] * 4


def test_the_page_gets_the_same_table_as_json_that_cannot_end_its_script() -> None:
    text = page_json(TABLE)
    assert "<" not in text and "&" not in text
    data = json.loads(text)
    assert data["hedges"] == list(TABLE.hedges)
    assert data["units"]["B"]["exact"]["Gb"] == ["125000000", 1]
    assert data["units"]["B"]["words"]["gib"] == [str(2**30)]
    assert data["units"]["s"]["words"]["ms"] == ["0.001"]
    assert data["units"]["B"]["measures"] == "an amount of memory"
    assert set(data["units"]) == set(UNITS)
    assert data["invisible"] == [list(run) for run in INVISIBLE_RANGES]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("  B/s:\n", "  bytes/s:\n", r"unknown base unit\(s\) \['bytes/s'\]"),
        ('"2^10": [KiB,', '"2^^10": [KiB,', "expected a size such as 1000"),
        ('"10^12": [TB, T,', '"10^12": [TB, G,', "'G' is given two sizes"),
        ('"1": [bits, bit]', '"1": [bits, bit, gigabyte]', "a word is both bytes and bits"),
        ("  param:\n    example: billion\n", "  param:\n", r"missing field\(s\) example"),
    ],
)
def test_a_malformed_table_is_refused(tmp_path: Path, old: str, new: str, message: str) -> None:
    source = TABLE_FILE.read_text(encoding="utf-8")
    assert old in source
    path = tmp_path / "units.yml"
    path.write_text(source.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(UnitTableError, match=message):
        unit_table(path)


def test_a_table_that_is_not_utf_8_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "units.yml"
    path.write_bytes(TABLE_FILE.read_bytes() + b"# caf\xe9\n")
    line = TABLE_FILE.read_bytes().count(b"\n") + 1
    with pytest.raises(UnitTableError, match=rf"^units\.yml:{line}: not UTF-8 \(the byte 0xE9 at column 6\)"):
        unit_table(path)
