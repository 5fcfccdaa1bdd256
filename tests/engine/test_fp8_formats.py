"""PyTorch's two FP8 dtypes against the course's formats (macros/model/formats.py), and what a cast does at the
edges of their range, as Lesson 15 says: E4M3 (`float8_e4m3fn`, "fn": finite, with NaN) has no infinities, and
PyTorch's cast to it saturates at its largest value; E5M2 overflows to infinity, rounding to nearest even.
Checked on the CPU; a GPU's conversion kernels may differ, and Transformer Engine scales before it casts."""

from __future__ import annotations

from fractions import Fraction

import pytest
import torch

from macros import model

FORMATS = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_torch_finfo_is_the_courses_format(fmt: str) -> None:
    info = torch.finfo(FORMATS[fmt])
    assert Fraction(info.max) == model.format_quantity_value(fmt, "max_normal")
    assert Fraction(info.eps) == model.format_quantity_value(fmt, "epsilon")
    assert Fraction(info.tiny) == model.format_quantity_value(fmt, "min_normal")
    assert info.bits == model.format_quantity_value(fmt, "bits")


def _cast(values: list[float], dtype: torch.dtype) -> list[float]:
    cast: list[float] = torch.tensor(values, dtype=torch.float32).to(dtype).to(torch.float32).tolist()
    return cast


def test_a_cast_to_e4m3_saturates_at_448_and_keeps_nan() -> None:
    largest = float(model.format_quantity_value("e4m3", "max_normal"))
    cast = _cast([largest, largest + 16, 10_000.0, float("inf"), -float("inf")], torch.float8_e4m3fn)
    assert cast == [largest, largest, largest, largest, -largest]
    assert torch.isnan(torch.tensor([float("nan")]).to(torch.float8_e4m3fn).to(torch.float32)).all()


def test_a_cast_to_e5m2_overflows_to_infinity_from_half_a_step_above_its_largest() -> None:
    largest = model.format_quantity_value("e5m2", "max_normal")
    threshold = model.format_quantity_value("e5m2", "overflow")
    # 57,344 and its next step up, 65,536 (2^16, which E5M2's all-ones exponent spends on infinity): half-way,
    # 61,440, is a tie, and rounds to the even pattern, infinity.
    assert (largest, threshold) == (57_344, 61_440)
    cast = _cast([float(largest), float(threshold) - 1, float(threshold)], torch.float8_e5m2)
    assert cast == [float(largest), float(largest), float("inf")]
