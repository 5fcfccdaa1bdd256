"""Floating-point formats from their bit layout: the range and precision each one gives, exactly.

A format is data: its exponent and mantissa widths, its exponent bias, and how
it spends the all-ones exponent on special values. Every value below is
computed from those, as an exact `Fraction`:

- fp32 (IEEE 754 binary32: 8 exponent bits, 23 mantissa bits, bias 127) and
  fp16 (binary16: 5, 10, bias 15) follow IEEE 754: the all-ones exponent holds
  infinities and NaNs. Mixed Precision Training (Micikevicius et al. 2018,
  https://arxiv.org/abs/1710.03740) §3.1: "FP16 has 10 bits of mantissa".
- bf16 keeps fp32's 8-bit exponent and bias with 7 mantissa bits ("1 bit of
  sign, 8 bits of exponent, and 7 bits of mantissa", TensorFlow Lite's
  TfLiteBFloat16, after https://cloud.google.com/tpu/docs/bfloat16), "IEEE single
  precision with fewer bits" as the FP8 paper puts it (§3), with IEEE's special
  values (NVIDIA's cuda_bf16.h: CUDART_INF_BF16 is 0x7F80).
- E4M3 and E5M2: Micikevicius et al. 2022, "FP8 Formats for Deep Learning"
  (https://arxiv.org/abs/2209.05433), Table 1. E5M2 follows IEEE; E4M3 has no
  infinities and keeps one NaN mantissa pattern (S.1111.111), so its all-ones
  exponent also holds normal values, up to 1.75 × 2⁸ = 448 (§3.1). "e4m3-ieee"
  is the same layout under IEEE's rules, the format §3.1 compares against:
  "The maximum representable magnitude without this modification would be 240."

Rounding to nearest, ties to even (IEEE 754's default, and the conversion
Google's TPUs and NVIDIA's GPUs use), a value overflows to infinity only from
half a step above the largest finite value: (2 − 2^−(m+1)) × 2^(emax − bias),
65,520 for fp16, whose largest value is 65,504.

A normal value is 1.m × 2^(e − bias) for an exponent field e from 1 up; a
subnormal, with e = 0, is 0.m × 2^(1 − bias).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Literal

from .checks import lookup


@dataclass(frozen=True)
class Format:
    """A binary floating-point format: one sign bit, then its exponent and mantissa fields."""

    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int
    #: "ieee": the all-ones exponent is infinities and NaNs only; "e4m3": it holds
    #: normal values too, all but the one NaN pattern whose mantissa is all ones.
    specials: Literal["ieee", "e4m3"]
    #: Where the layout is defined.
    defined: str

    @property
    def bits(self) -> int:
        """All the format's bits: sign, exponent and mantissa."""
        return 1 + self.exponent_bits + self.mantissa_bits


FORMATS: Mapping[str, Format] = MappingProxyType(
    {
        "fp32": Format("fp32", 8, 23, 127, "ieee", "IEEE 754 binary32"),
        "fp16": Format("fp16", 5, 10, 15, "ieee", "IEEE 754 binary16"),
        "bf16": Format("bf16", 8, 7, 127, "ieee", "fp32's exponent with 7 mantissa bits"),
        "e5m2": Format("e5m2", 5, 2, 15, "ieee", "FP8 Formats for Deep Learning, Table 1"),
        "e4m3": Format("e4m3", 4, 3, 7, "e4m3", "FP8 Formats for Deep Learning, Table 1"),
        "e4m3-ieee": Format("e4m3-ieee", 4, 3, 7, "ieee", "E4M3's layout under IEEE's rules, FP8 Formats §3.1"),
    }
)


def number_format(name: str) -> Format:
    """The format `name`.

    Raises:
        KeyError: no such format; the message lists the known ones.
    """
    return lookup(FORMATS, name, "number format")


def _largest_exponent_field(layout: Format) -> int:
    """The largest exponent field a normal value uses: all ones minus one under IEEE, all ones for E4M3."""
    all_ones = (1 << layout.exponent_bits) - 1
    return all_ones - 1 if layout.specials == "ieee" else all_ones


def max_normal(name: str) -> Fraction:
    """The largest finite value: (2 − 2^−m) × 2^(emax − bias), or one mantissa step less for E4M3's NaN."""
    layout = number_format(name)
    step = Fraction(1, 1 << layout.mantissa_bits)
    # E4M3's all-ones mantissa under the all-ones exponent is its NaN: the largest mantissa is one step lower.
    largest_mantissa = 2 - step if layout.specials == "ieee" else 2 - 2 * step
    return largest_mantissa * Fraction(2) ** (_largest_exponent_field(layout) - layout.bias)


def min_normal(name: str) -> Fraction:
    """The smallest positive normal value: 2^(1 − bias)."""
    return Fraction(2) ** (1 - number_format(name).bias)


def max_subnormal(name: str) -> Fraction:
    """The largest subnormal value: (1 − 2^−m) × 2^(1 − bias)."""
    layout = number_format(name)
    return (1 - Fraction(1, 1 << layout.mantissa_bits)) * min_normal(name)


def min_subnormal(name: str) -> Fraction:
    """The smallest positive value: 2^(1 − bias − m); anything smaller in magnitude rounds to zero or to it."""
    layout = number_format(name)
    return min_normal(name) / (1 << layout.mantissa_bits)


def overflow_threshold(name: str) -> Fraction:
    """The smallest magnitude that rounds to infinity, to nearest with ties to even: half a step above max_normal.

    Raises:
        ValueError: the format has no infinities (E4M3, whose conversions saturate or give NaN).
    """
    layout = number_format(name)
    if layout.specials != "ieee":
        raise ValueError(f"{name} has no infinities, so nothing overflows to one; known: IEEE-style formats")
    half_step = Fraction(1, 1 << (layout.mantissa_bits + 1))
    return (2 - half_step) * Fraction(2) ** (_largest_exponent_field(layout) - layout.bias)


def machine_epsilon(name: str) -> Fraction:
    """The gap between 1 and the next value up: 2^−m, the format's relative precision."""
    return Fraction(1, 2 ** number_format(name).mantissa_bits)


#: What the course computes of a format, by the name a figure asks for.
QUANTITIES: Mapping[str, str] = MappingProxyType(
    {
        "bits": "bits in all",
        "exponent_bits": "exponent bits",
        "mantissa_bits": "mantissa bits",
        "bias": "exponent bias",
        "max_normal": "largest finite value",
        "min_normal": "smallest normal value",
        "max_subnormal": "largest subnormal value",
        "min_subnormal": "smallest subnormal value",
        "epsilon": "machine epsilon, the gap above 1",
        "overflow": "smallest magnitude that rounds to infinity",
    }
)


def format_quantity_value(name: str, quantity: str) -> int | Fraction:
    """One of `QUANTITIES` of the format `name`.

    Raises:
        KeyError: an unknown format or quantity; the message lists the known ones.
    """
    layout = number_format(name)
    computed: Mapping[str, int | Fraction] = {
        "bits": layout.bits,
        "exponent_bits": layout.exponent_bits,
        "mantissa_bits": layout.mantissa_bits,
        "bias": layout.bias,
    }
    if quantity in computed:
        return computed[quantity]
    functions = {
        "max_normal": max_normal,
        "min_normal": min_normal,
        "max_subnormal": max_subnormal,
        "min_subnormal": min_subnormal,
        "epsilon": machine_epsilon,
        "overflow": overflow_threshold,
    }
    if quantity not in functions:
        raise KeyError(f"unknown quantity {quantity!r} of a number format; known: {', '.join(QUANTITIES)}")
    return functions[quantity](name)
