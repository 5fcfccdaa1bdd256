"""The course's units themselves: how many bytes one GB or one GiB is."""

from __future__ import annotations

from ...data.catalog import Catalog
from ...data.quantities import BINARY_SCALES, SCALES
from ..figure import Computed
from .registry import figure_kind


@figure_kind("unit")
def unit(catalog: Catalog, symbol: str) -> Computed:
    """One of a display unit of bytes, in bytes: "GB" is 10**9 (decimal), "GiB" is 2**30 (binary)."""
    for factor, name in (*SCALES["B"], *BINARY_SCALES):
        if name == symbol:
            binary = name in dict((n, f) for f, n in BINARY_SCALES)
            power = f"2^{int(factor).bit_length() - 1}" if binary else f"10^{len(str(factor)) - 1}"
            kind = "binary, as memory capacities are" if binary else "decimal, as the papers count bytes"
            return Computed(factor, "B", f"1 {symbol} = {power} B", f"1 {symbol} = {power} bytes: {kind}")
    known = ", ".join(name for _, name in (*SCALES["B"], *BINARY_SCALES))
    raise KeyError(f"unknown unit {symbol!r}; known: {known}")
