"""Number formats (fp32, fp16, bf16, and FP8's E4M3 and E5M2): bits, range and precision, from the bit layout."""

from __future__ import annotations

from fractions import Fraction

from ... import model
from ...data.catalog import Catalog
from ..figure import Computed
from .registry import figure_kind

#: Values this far from 1 read best as powers of ten: 3.4 × 10³⁸, 5.96 × 10⁻⁸.
_LARGE, _SMALL = 10**6, Fraction(1, 1000)


@figure_kind("format")
def format_value(catalog: Catalog, fmt: str, quantity: str) -> Computed:
    """One quantity of a number format, computed exactly from its bit layout: max_normal, epsilon, bias…"""
    layout = model.number_format(fmt)
    value = model.format_quantity_value(fmt, quantity)
    what = model.QUANTITIES[quantity]
    fields = f"{layout.exponent_bits} exponent bits, {layout.mantissa_bits} mantissa bits, bias {layout.bias}"
    specials = "IEEE special values" if layout.specials == "ieee" else "no infinities and one NaN pattern"
    formulas = {
        "max_normal": "(2 − 2^−m) × 2^(e_max − bias)",
        "min_normal": "2^(1 − bias)",
        "max_subnormal": "(1 − 2^−m) × 2^(1 − bias)",
        "min_subnormal": "2^(1 − bias − m)",
        "epsilon": "2^−m",
        "overflow": "(2 − 2^−(m+1)) × 2^(e_max − bias), rounding to nearest",
    }
    formula = formulas.get(quantity, what)
    display = {"scientific": True} if value >= _LARGE or value < _SMALL else {}
    # A layout the course names itself ("e4m3-ieee") is called by its description, never by its id.
    name, defined = (fmt, layout.defined) if "-" not in fmt else layout.defined.split(", ", 1)
    words = f"{what} of {name} ({defined}: {fields}, {specials}), {formula}"
    return Computed(value, "1", formula, words, (), display)
