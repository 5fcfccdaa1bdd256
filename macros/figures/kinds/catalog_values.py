"""Catalog values shown as they are: a model's parameter count, a GPU's memory, a batch size."""

from __future__ import annotations

from ...data.catalog import Catalog
from ..figure import Computed, shown
from .registry import figure_kind


@figure_kind("catalog")
def value(catalog: Catalog, entry: str, field: str) -> Computed:
    """A catalog value shown as it is, such as a model's parameter count."""
    quantity = catalog.quantity(entry, field)
    return Computed(quantity.value, quantity.unit, field, shown(quantity), (quantity,), quantity.display)
