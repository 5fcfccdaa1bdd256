"""Figures: computed values with their formula, inputs and provenance.

Each public function here turns catalog entries into one `Figure` with the
model's arithmetic (`macros.model`); `render_html` shows it as the one
`<span class="fig">` element that DESIGN.md specifies, and `FigureLog` gathers
what a build showed into `figures.json`. Nothing here imports MkDocs.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path
from typing import Any

from . import model
from .catalog import Catalog, Printed, Quantity
from .quantities import Number, format_quantity


@dataclass(frozen=True)
class Figure:
    """A value in a base unit, how it was computed, and what a source printed for it."""

    id: str
    value: Number
    unit: str
    formula: str
    explanation: str
    inputs: tuple[Quantity, ...]
    printed: Printed | None = None


def _cite(quantity: Quantity) -> str:
    return f"{quantity.label}: {quantity.source.cite}"


def _shown(quantity: Quantity) -> str:
    return format_quantity(quantity.value, quantity.unit)


def _figure(
    catalog: Catalog, figure_id: str, value: Number, unit: str, formula: str, words: str, *inputs: Quantity
) -> Figure:
    sources = "; ".join(dict.fromkeys(_cite(q) for q in inputs))
    explanation = f"{words} — {sources}" if sources else words
    return Figure(
        id=figure_id,
        value=value,
        unit=unit,
        formula=formula,
        explanation=explanation,
        inputs=inputs,
        printed=catalog.printed.get(figure_id),
    )


def catalog_value(catalog: Catalog, entry: str, field: str) -> Figure:
    """A catalog value shown as it is, such as a model's parameter count."""
    quantity = catalog.quantity(entry, field)
    return _figure(
        catalog, f"catalog/{entry}/{field}", quantity.value, quantity.unit, field, _shown(quantity), quantity
    )


def bytes_per_parameter(catalog: Catalog, state: str = "all") -> Figure:
    """Bytes per parameter of one model state of mixed-precision Adam, or of all of them ("all")."""
    counted = "as Rajbhandari et al. 2019 count them (§3.1)"
    if state == "all":
        value = model.model_state_bytes_per_parameter()
        terms = " + ".join(f"{b} ({name.replace('_', ' ')})" for name, b in model.MIXED_PRECISION_ADAM.items())
        words = f"{terms} = {value} bytes per parameter, {counted}"
    else:
        value = model.state_bytes_per_parameter(state)
        words = f"{value} bytes per parameter for the {state.replace('_', ' ')}, {counted}"
    return _figure(catalog, f"bytes-per-parameter/{state}", value, "B", "bytes per parameter (ZeRO §3.1)", words)


def model_states(catalog: Catalog, entry: str, state: str = "all") -> Figure:
    """Model-state bytes on every data-parallel device: 16 bytes × the entry's parameters.

    With `state`, one model state alone: "fp16_parameters" gives 2 bytes × parameters.
    """
    parameters = catalog.quantity(entry, "parameters")
    value = model.model_state_bytes(parameters.value, state)
    per_parameter = value // parameters.value
    suffix = "" if state == "all" else f"/{state}"
    what = "model states" if state == "all" else state.replace("_", " ")
    return _figure(
        catalog,
        f"model-states/{entry}{suffix}",
        value,
        "B",
        f"{per_parameter} B × parameters ({what})",
        f"{per_parameter} bytes × {_shown(parameters)}" + ("" if state == "all" else f", {what} only"),
        parameters,
    )


def one_copy(catalog: Catalog, entry: str, precision: str) -> Figure:
    """Bytes of one value per parameter in `precision` (fp16, bf16, fp32), such as a fused fp32 gradient buffer."""
    parameters = catalog.quantity(entry, "parameters")
    value = model.copy_bytes(parameters.value, precision)
    per_parameter = value // parameters.value
    return _figure(
        catalog,
        f"one-copy/{entry}/{precision}",
        value,
        "B",
        f"{per_parameter} B ({precision}) × parameters",
        f"{per_parameter} bytes ({precision}) × {_shown(parameters)}",
        parameters,
    )


def memory_left(catalog: Catalog, entry: str) -> Figure:
    """Device memory left after the model states: memory − 16 bytes × parameters, of one entry."""
    parameters = catalog.quantity(entry, "parameters")
    memory = catalog.quantity(entry, "memory")
    states = model.model_state_bytes(parameters.value)
    if states > memory.value:
        raise ValueError(f"the model states ({format_quantity(states, 'B')}) do not fit in {_shown(memory)}")
    return _figure(
        catalog,
        f"memory-left/{entry}",
        memory.value - states,
        "B",
        "memory − 16 B × parameters",
        f"{_shown(memory)} − 16 bytes × {_shown(parameters)}",
        memory,
        parameters,
    )


def activations(catalog: Catalog, workload: str) -> Figure:
    """Activation bytes of a workload without checkpointing (ZeRO §3.2): 12·h·b·s·l fp16 values."""
    setting = catalog.entry(workload, "workloads")
    hidden = catalog.quantity(setting["model"], "hidden")
    layers = catalog.quantity(setting["model"], "layers")
    batch = catalog.quantity(workload, "batch")
    sequence = catalog.quantity(workload, "sequence")
    value = model.activation_bytes(hidden.value, batch.value, sequence.value, layers.value)
    words = (
        f"12 × hidden size {_shown(hidden)} × batch {_shown(batch)} × sequence {_shown(sequence)}"
        f" × {_shown(layers)} layers activation values (ZeRO §3.2), at 2 bytes each in fp16 (this course's assumption)"
    )
    return _figure(
        catalog,
        f"activations/{workload}",
        value,
        "B",
        "2 B × 12 × hidden × batch × sequence × layers",
        words,
        hidden,
        layers,
        batch,
        sequence,
    )


def _ring(catalog: Catalog, workload: str) -> tuple[Fraction, Quantity, Quantity]:
    setting = catalog.entry(workload, "workloads")
    parameters = catalog.quantity(setting["model"], "parameters")
    devices = catalog.quantity(workload, "devices")
    gradients = model.model_state_bytes(parameters.value, "fp16_gradients")
    return model.ring_allreduce_bytes_sent(gradients, devices.value), parameters, devices


def allreduce_bytes(catalog: Catalog, workload: str) -> Figure:
    """Bytes each device sends to all-reduce a workload's fp16 gradients over a ring."""
    sent, parameters, devices = _ring(catalog, workload)
    n = devices.value
    return _figure(
        catalog,
        f"allreduce-bytes/{workload}",
        sent,
        "B",
        "2(N − 1)/N × 2 B × parameters",
        f"2 × ({n} − 1)/{n} × 2 bytes × {_shown(parameters)}",
        parameters,
        devices,
    )


def allreduce_seconds(catalog: Catalog, workload: str) -> Figure:
    """Least time for that all-reduce: bytes sent ÷ the link's bandwidth in one direction."""
    sent, parameters, devices = _ring(catalog, workload)
    setting = catalog.entry(workload, "workloads")
    bandwidth = catalog.quantity(setting["interconnect"], "bandwidth_per_direction")
    return _figure(
        catalog,
        f"allreduce-seconds/{workload}",
        model.transfer_seconds(sent, bandwidth.value),
        "s",
        "2(N − 1)/N × 2 B × parameters ÷ bandwidth per direction",
        f"{format_quantity(sent, 'B')} sent ÷ {_shown(bandwidth)}, ignoring latency",
        parameters,
        devices,
        bandwidth,
    )


def value_text(value: Number) -> str:
    """The exact value for `data-value`: a whole number as digits, else a decimal."""
    exact = Fraction(value)
    if exact.denominator == 1:
        return str(exact.numerator)
    with localcontext() as context:
        context.prec = 30
        text = format(Decimal(exact.numerator) / Decimal(exact.denominator), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text


def render_html(figure: Figure, display: str) -> str:
    """The one element a figure renders as, with its exact value, unit and explanation."""
    element = ET.Element(
        "span",
        {
            "class": "fig",
            "data-fig-id": figure.id,
            "data-value": value_text(figure.value),
            "data-unit": figure.unit,
            "title": figure.explanation,
            # Focusable, so that the explanation shows on keyboard focus and on a tap too.
            "tabindex": "0",
        },
    )
    element.text = display
    return ET.tostring(element, encoding="unicode")


class FigureLog:
    """The figures one build showed, page by page, for `figures.json`."""

    def __init__(self) -> None:
        self._records: dict[tuple[str, str, str], dict[str, Any]] = {}

    def add(self, page: str, url: str, figure: Figure, display: str) -> None:
        """Record that `page` (its source path) showed `figure` as `display`."""
        record: dict[str, Any] = {
            "page": page,
            "url": url,
            "id": figure.id,
            "value": json.loads(value_text(figure.value)),
            "unit": figure.unit,
            "display": display,
            "formula": figure.formula,
            "explanation": figure.explanation,
            "inputs": [
                {
                    "entry": q.entry,
                    "field": q.field,
                    "value": q.value,
                    "unit": q.unit,
                    "source": q.source.id,
                    "where": q.where,
                }
                for q in figure.inputs
            ],
        }
        if figure.printed:
            printed = figure.printed
            record["printed"] = {
                "value": printed.value,
                "unit": printed.unit,
                "text": printed.text,
                "source": printed.source.id,
                "url": printed.source.url,
                "where": printed.where,
                "rounding": printed.rounding,
            }
        self._records[(page, figure.id, display)] = record

    def records(self) -> list[dict[str, Any]]:
        """Every record, ordered by page, then figure id."""
        return [self._records[key] for key in sorted(self._records)]

    def write(self, path: Path) -> None:
        """Write the records as JSON to `path`."""
        path.write_text(json.dumps(self.records(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
