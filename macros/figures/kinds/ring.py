"""The ring all-reduce of a model's gradients at any number of devices, for charts over N."""

from __future__ import annotations

from ... import model
from ...data.catalog import Catalog
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind


@figure_kind("ring-bytes")
def ring_bytes(catalog: Catalog, entry: str, devices: int, precision: str = "fp16") -> Computed:
    """Bytes each of `devices` devices sends to all-reduce a model's gradients (fp16 unless `precision` says).

    2(N − 1)/N × the gradients' bytes (Patarasuk and Yuan 2009; nccl-tests' bus bandwidth).
    """
    parameters = catalog.quantity(entry, "parameters")
    gradients = model.copy_bytes(parameters.count, precision)
    per_value = model.BYTES_PER_VALUE[precision]
    words = f"2 × ({devices} − 1)/{devices} × {per_value} bytes ({precision} gradients) × {shown(parameters)}"
    return Computed(
        model.ring_allreduce_bytes_sent(gradients, devices),
        "B",
        f"2(N − 1)/N × {per_value} B ({precision} gradients) × parameters",
        words,
        (parameters,),
    )


@figure_kind("ring-bytes-limit")
def ring_bytes_limit(catalog: Catalog, entry: str, precision: str = "fp16") -> Computed:
    """What those bytes approach as the number of devices grows: twice the gradients' bytes."""
    parameters = catalog.quantity(entry, "parameters")
    per_value = model.BYTES_PER_VALUE[precision]
    return Computed(
        2 * model.copy_bytes(parameters.count, precision),
        "B",
        f"2 × {per_value} B ({precision} gradients) × parameters",
        f"2 × {per_value} bytes ({precision} gradients) × {shown(parameters)}, the limit of 2(N − 1)/N × the gradients",
        (parameters,),
    )


@figure_kind("ring-seconds")
def ring_seconds(catalog: Catalog, entry: str, devices: int, interconnect: str, precision: str = "fp16") -> Computed:
    """Least time for that all-reduce over `interconnect`: bytes each device sends ÷ bandwidth in one direction."""
    sent = ring_bytes(catalog, entry, devices, precision)
    bandwidth = catalog.quantity(interconnect, "bandwidth_per_direction")
    return Computed(
        model.transfer_seconds(sent.value, bandwidth.value),
        "s",
        f"{sent.formula} ÷ bandwidth per direction",
        f"{format_quantity(sent.value, 'B')} sent by each of {devices} devices ÷ {shown(bandwidth)}, ignoring latency",
        (*sent.inputs, bandwidth),
    )
