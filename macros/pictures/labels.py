"""The words a picture shows for one of its arguments' values, in a table's headers or a chart's keys and legends."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..data.catalog import Catalog


def label(value: Any, catalog: Catalog, labels: Mapping[Any, str]) -> str:
    """The author's text for `value` in `labels`, else a catalog entry's name, a whole number with its thousands
    separated ("1,024"), or the value with its underscores as spaces ("fp16_parameters" reads "fp16 parameters").

    Tables and charts name their values alike, so that a chart's key reads as a table of the same figures.
    """
    if isinstance(value, str | int) and value in labels:
        return labels[value]
    if isinstance(value, str) and value in catalog.records:
        return catalog.records[value].name
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value).replace("_", " ")
