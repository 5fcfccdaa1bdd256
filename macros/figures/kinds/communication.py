"""What data parallelism sends: the ring all-reduce of the gradients, in bytes and in time."""

from __future__ import annotations

from fractions import Fraction

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind


def _ring(catalog: Catalog, workload: str, precision: str) -> tuple[Fraction, Quantity, Quantity, str]:
    """Bytes each device sends to all-reduce a workload's gradients in `precision`, with the inputs and formula."""
    setting = catalog.workload(workload)
    parameters = catalog.quantity(setting.id, "parameters")
    devices = catalog.quantity(workload, "devices")
    gradients = model.copy_bytes(parameters.count, precision)
    sent = model.ring_allreduce_bytes_sent(gradients, devices.count)
    per_value = model.value_bytes(precision)
    formula = f"2(N − 1)/N × {per_value} B ({precision} gradients) × parameters"
    return sent, parameters, devices, formula


@figure_kind("allreduce-bytes")
def allreduce_bytes(catalog: Catalog, workload: str, precision: str = "fp16") -> Computed:
    """Bytes each device sends to all-reduce a workload's gradients (fp16 unless `precision` says) over a ring."""
    sent, parameters, devices, formula = _ring(catalog, workload, precision)
    n = devices.value
    per_value = model.value_bytes(precision)
    words = f"2 × ({n} − 1)/{n} × {per_value} bytes ({precision} gradients) × {shown(parameters)}"
    return Computed(sent, "B", formula, words, (parameters, devices))


@figure_kind("allreduce-seconds")
def allreduce_seconds(catalog: Catalog, workload: str, precision: str = "fp16") -> Computed:
    """Least time for that all-reduce: bytes sent ÷ the link's bandwidth in one direction."""
    sent, parameters, devices, formula = _ring(catalog, workload, precision)
    setting = catalog.workload(workload)
    if setting.interconnect is None:
        raise ValueError(f"workload {workload!r} names no interconnect; add `interconnect:` to it in workloads.yml")
    bandwidth = catalog.quantity(setting.interconnect.id, "bandwidth_per_direction")
    return Computed(
        model.transfer_seconds(sent, bandwidth.value),
        "s",
        f"{formula} ÷ bandwidth per direction",
        f"{format_quantity(sent, 'B')} sent ÷ {shown(bandwidth)}, ignoring latency",
        (parameters, devices, bandwidth),
    )


@figure_kind("ring-bytes")
def ring_bytes(catalog: Catalog, entry: str, devices: int, precision: str = "fp16") -> Computed:
    """Bytes each of `devices` devices sends to all-reduce a model's gradients (fp16 unless `precision` says).

    2(N − 1)/N × the gradients' bytes (Patarasuk and Yuan 2009; nccl-tests' bus bandwidth).
    """
    parameters = catalog.quantity(entry, "parameters")
    gradients = model.copy_bytes(parameters.count, precision)
    per_value = model.value_bytes(precision)
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
    per_value = model.value_bytes(precision)
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
