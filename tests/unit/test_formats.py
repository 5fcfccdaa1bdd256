"""Number formats from their bit layout, against the FP8 paper's Table 1 and IEEE 754 as the machine has it.

The oracle for fp32 and fp16 is Python's own IEEE 754 conversion (`struct`,
formats "f" and "e"); bf16 is the upper half of an fp32 (NVIDIA cuda_bf16.h:
CUDART_MAX_NORMAL_BF16 is 0x7F7F, CUDART_MIN_DENORM_BF16 is 0x0001); E4M3 and
E5M2 are typed from Micikevicius et al. 2022, Table 1.
"""

from __future__ import annotations

import struct
from fractions import Fraction

import pytest

from macros import model
from macros.figures.kinds import KINDS
from tests.conftest import catalog


def _fp32(bits: int) -> Fraction:
    return Fraction(struct.unpack("<f", bits.to_bytes(4, "little"))[0])


def _fp16(bits: int) -> Fraction:
    return Fraction(struct.unpack("<e", bits.to_bytes(2, "little"))[0])


def _bf16(bits: int) -> Fraction:
    return _fp32(bits << 16)


@pytest.mark.parametrize(
    ("fmt", "decode", "max_bits", "min_normal_bits", "min_subnormal_bits", "one_bits", "next_after_one_bits"),
    [
        ("fp32", _fp32, 0x7F7FFFFF, 0x00800000, 0x00000001, 0x3F800000, 0x3F800001),
        ("fp16", _fp16, 0x7BFF, 0x0400, 0x0001, 0x3C00, 0x3C01),
        ("bf16", _bf16, 0x7F7F, 0x0080, 0x0001, 0x3F80, 0x3F81),
    ],
)
def test_ieee_formats_match_the_machines_bits(
    fmt: str,
    decode: object,
    max_bits: int,
    min_normal_bits: int,
    min_subnormal_bits: int,
    one_bits: int,
    next_after_one_bits: int,
) -> None:
    assert callable(decode)
    assert model.format_quantity_value(fmt, "max_normal") == decode(max_bits)
    assert model.format_quantity_value(fmt, "min_normal") == decode(min_normal_bits)
    assert model.format_quantity_value(fmt, "min_subnormal") == decode(min_subnormal_bits)
    assert model.format_quantity_value(fmt, "epsilon") == decode(next_after_one_bits) - decode(one_bits)


@pytest.mark.parametrize(
    ("fmt", "quantity", "printed"),
    [  # FP8 Formats for Deep Learning, Table 1.
        ("e4m3", "bias", 7),
        ("e5m2", "bias", 15),
        ("e4m3", "max_normal", Fraction(175, 100) * 2**8),  # "1.75 ∗ 2^8 = 448"
        ("e5m2", "max_normal", Fraction(175, 100) * 2**15),  # "1.75 ∗ 2^15 = 57, 344"
        ("e4m3", "min_normal", Fraction(1, 2**6)),
        ("e5m2", "min_normal", Fraction(1, 2**14)),
        ("e4m3", "max_subnormal", Fraction(875, 1000) / 2**6),
        ("e5m2", "max_subnormal", Fraction(75, 100) / 2**14),
        ("e4m3", "min_subnormal", Fraction(1, 2**9)),
        ("e5m2", "min_subnormal", Fraction(1, 2**16)),
    ],
)
def test_fp8_formats_are_the_papers_table_1(fmt: str, quantity: str, printed: Fraction) -> None:
    assert model.format_quantity_value(fmt, quantity) == printed


def test_e4m3_without_its_special_encoding_would_stop_at_240() -> None:
    # FP8 paper §3.1: "The maximum representable magnitude without this modification would be 240."
    assert model.format_quantity_value("e4m3-ieee", "max_normal") == 240
    assert model.format_quantity_value("e4m3", "max_normal") > model.format_quantity_value("e4m3-ieee", "max_normal")


@pytest.mark.parametrize(("fmt", "pack"), [("fp16", "<e"), ("fp32", "<f")])
def test_a_value_overflows_only_from_half_a_step_above_the_largest(fmt: str, pack: str) -> None:
    # Python's struct rounds to nearest, ties to even, and refuses a value that would round to infinity.
    threshold = model.format_quantity_value(fmt, "overflow")
    largest = model.format_quantity_value(fmt, "max_normal")
    just_below = float(threshold) * (1 - 2**-40)
    assert Fraction(struct.unpack(pack, struct.pack(pack, just_below))[0]) == largest
    with pytest.raises(OverflowError):
        struct.pack(pack, float(threshold))


def test_fp16_overflows_from_65520() -> None:
    # By hand: fp16's top binade steps by 2^(15 − 10) = 32, so half a step above 65,504 is 65,520.
    assert model.format_quantity_value("fp16", "overflow") == 65_520


def test_e4m3_has_no_infinity_to_overflow_to() -> None:
    with pytest.raises(ValueError, match="has no infinities"):
        model.format_quantity_value("e4m3", "overflow")


def test_fp16_has_ten_mantissa_bits_and_loses_values_below_two_to_the_minus_24() -> None:
    # Mixed Precision Training §3.1: "FP16 has 10 bits of mantissa"; "any value whose magnitude is smaller
    # than 2^−24 becomes zero in FP16".
    assert model.number_format("fp16").mantissa_bits == 10
    assert model.format_quantity_value("fp16", "min_subnormal") == Fraction(1, 2**24)


def test_every_format_has_one_sign_bit() -> None:
    assert {name: layout.bits for name, layout in model.FORMATS.items()} == {
        "fp32": 32,
        "fp16": 16,
        "bf16": 16,
        "e5m2": 8,
        "e4m3": 8,
        "e4m3-ieee": 8,
    }


def test_the_kind_reads_far_values_in_powers_of_ten() -> None:
    figure = KINDS["format_value"].figure(catalog(), "fp32", "max_normal")
    assert figure.id == "format/fp32/max_normal" and figure.computed.display == {"scientific": True}
    assert KINDS["format_value"].figure(catalog(), "e4m3", "max_normal").computed.display == {}


@pytest.mark.parametrize(
    ("fmt", "quantity", "message"), [("fp64", "bias", "known: fp32"), ("fp16", "range", "known: bits")]
)
def test_unknown_names_say_the_known_ones(fmt: str, quantity: str, message: str) -> None:
    with pytest.raises(KeyError, match=message):
        model.format_quantity_value(fmt, quantity)
