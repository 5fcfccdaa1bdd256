"""Catalog values shown as they are: a model's parameter count, a GPU's memory, a batch size, and what the
engine tier measured against the course's formula."""

from __future__ import annotations

from ...data.catalog import Catalog, Quantity
from ...data.schema import unknown
from ..figure import Computed, shown
from .registry import figure_kind


@figure_kind("catalog")
def value(catalog: Catalog, entry: str, field: str) -> Computed:
    """A catalog value shown as it is, such as a model's parameter count."""
    quantity = catalog.quantity(entry, field)
    return Computed(quantity.value, quantity.unit, field, shown(quantity), (quantity,), quantity.display)


#: The catalog source that a measurement of the engine tier cites.
ENGINE_SOURCE = "engine-tier"


def engine_ratio(catalog: Catalog, key: str) -> Quantity:
    """An engine record's ratio, measured ÷ the course's formula, as an input a figure cites (the tier's test).

    Raises:
        KeyError: no record of catalog/measured.yml has the key. ValueError: its course value is 0.
    """
    if key not in catalog.engine:
        raise KeyError(unknown("engine measurement (a key of catalog/measured.yml)", key, list(catalog.engine)))
    record = catalog.engine[key]
    if record.course == 0:
        raise ValueError(f"the course's formula gives 0 for {key!r}: there is no ratio to show")
    return Quantity(
        entry=key,
        field="measured",
        value=record.ratio,
        unit="1",
        label=record.software,
        source=catalog.sources[ENGINE_SOURCE],
        where=record.test,
    )


@figure_kind("measured")
def measured(catalog: Catalog, key: str) -> Computed:
    """What real software measured over what the course's formula gives, for one case the engine tier ran.

    1 where they agree; 1.34 where transformers' Llama layer keeps 1.34 times Korthikanti et al.'s count.
    """
    ratio = engine_ratio(catalog, key)
    record = catalog.engine[key]
    unit = "" if record.unit == "1" else f" {record.unit}"
    words = (
        f"{record.software} measured {float(record.measured):.4g}{unit} where the course's formula gives"
        f" {float(record.course):.4g}{unit}: {float(record.ratio):.4g} times as much"
    )
    return Computed(record.ratio, "1", "measured ÷ the course's formula", words, (ratio,))
