"""Tensor parallelism: its all-reduces and bytes per layer, a layer's compute, activations, and scaling claims."""

from __future__ import annotations

from fractions import Fraction

from .. import model
from ..catalog import Catalog, Quantity
from ..figures import Computed, shown
from ..model.communication import cross_host_bytes_per_port
from ..quantities import format_quantity
from .registry import figure_kind

#: What a per-layer figure is multiplied by to cover the model: nothing, or its layers.
PER = ("layer", "model")


def microbatch(catalog: Catalog, workload: str) -> Quantity:
    """A workload's microbatch size: its `microbatch`, or its whole `batch` when it names none."""
    setting = catalog.workload(workload)
    return catalog.quantity(workload, "microbatch" if setting.microbatch is not None else "batch")


def _per(per: str) -> None:
    if per not in PER:
        raise KeyError(f"unknown per {per!r}; known: {', '.join(PER)}")


@figure_kind("tensor-allreduces")
def tensor_allreduces(catalog: Catalog, direction: str = "both") -> Computed:
    """All-reduces per transformer layer under tensor parallelism (Megatron-LM §3, Figure 4)."""
    value = model.tensor.tensor_allreduces(direction)
    passes = "forward and backward passes" if direction == "both" else f"{direction} pass"
    words = (
        f"{value} all-reduces per layer in the {passes}: g after attention and after the MLP going forward,"
        " f before each going backward (Megatron-LM §3)"
    )
    return Computed(value, "1", f"all-reduces per layer ({direction})", words)


def _tensor_bytes(catalog: Catalog, workload: str, per: str) -> tuple[Fraction, tuple[Quantity, ...], str, str]:
    _per(per)
    setting = catalog.workload(workload)
    b = microbatch(catalog, workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.model.id, "hidden")
    t = catalog.quantity(workload, "tensor")
    if setting.model.heads is not None:
        model.tensor.check_heads(catalog.quantity(setting.model.id, "heads").count, t.count)
    per_value = model.BYTES_PER_VALUE["fp16"]
    value = model.tensor.tensor_bytes_per_layer(b.count, s.count, h.count, t.count, per_value)
    formula = f"8bsh(t − 1)/t × {per_value} B"
    words = (
        f"8 × microbatch {shown(b)} × sequence {shown(s)} × hidden {shown(h)} × ({shown(t)} − 1)/{shown(t)}"
        f" values × {per_value} bytes (16-bit), per layer per microbatch"
    )
    inputs: tuple[Quantity, ...] = (b, s, h, t)
    if per == "model":
        layers = catalog.quantity(setting.model.id, "layers")
        value *= layers.count
        formula += " × layers"
        words += f" × {shown(layers)} layers"
        inputs += (layers,)
    return value, inputs, formula, words


@figure_kind("tensor-bytes")
def tensor_bytes(catalog: Catalog, workload: str, per: str = "layer") -> Computed:
    """Bytes each device sends for tensor parallelism per microbatch, per layer or all layers (Narayanan §3.2)."""
    value, inputs, formula, words = _tensor_bytes(catalog, workload, per)
    return Computed(value, "B", formula, words, inputs)


@figure_kind("tensor-seconds")
def tensor_seconds(catalog: Catalog, workload: str, link: str, per: str = "layer", per_server: int = 1) -> Computed:
    """Least time for those bytes over `link` (an interconnect), at its bandwidth in one direction.

    Over a network link, `per_server` is how many GPUs of the group share each
    server: 1 puts each GPU in a different server, all its bytes through its own
    port; with more, the group's rings share the server's ports, and each port
    carries that share of them (`cross_host_bytes_per_port`).
    """
    sent, inputs, formula, _ = _tensor_bytes(catalog, workload, per)
    bandwidth = catalog.quantity(link, "bandwidth_per_direction")
    words = f"{format_quantity(sent, 'B')} sent ÷ {shown(bandwidth)} ({bandwidth.label}), ignoring latency"
    if per_server > 1:
        sent = cross_host_bytes_per_port(sent, per_server)
        formula = f"({formula}) ÷ {per_server} GPUs of the group per server"
        words = (
            f"{format_quantity(sent, 'B')} per port (each GPU's bytes ÷ {per_server} GPUs of the group per"
            f" server, whose rings share its ports) ÷ {shown(bandwidth)} ({bandwidth.label}), ignoring latency"
        )
    return Computed(
        model.transfer_seconds(sent, bandwidth.value),
        "s",
        f"{formula} ÷ bandwidth per direction",
        words,
        (*inputs, bandwidth),
    )


@figure_kind("layer-seconds")
def layer_seconds(catalog: Catalog, workload: str, passes: str = "no-recompute") -> Computed:
    """Least time one device computes its share of one layer for one microbatch, at its GPU's peak."""
    setting = catalog.workload(workload)
    if setting.gpu is None:
        raise ValueError(f"workload {workload!r} names no GPU; add `gpu:` to it in workloads.yml")
    b = microbatch(catalog, workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.model.id, "hidden")
    t = catalog.quantity(workload, "tensor")
    peak = catalog.quantity(setting.gpu.id, "peak_fp16_flops")
    flops = model.tensor.layer_flops(b.count, s.count, h.count, passes)
    factor = model.tensor.PASSES[passes]
    words = (
        f"{factor} × (24bsh² + 4bs²h) FLOPs with microbatch {shown(b)}, sequence {shown(s)}, hidden {shown(h)}"
        f" = {format_quantity(flops, 'FLOP')}, ÷ {shown(t)} devices ÷ {shown(peak)} peak"
    )
    return Computed(
        Fraction(flops, t.count) / Fraction(peak.value),
        "s",
        f"{factor}(24bsh² + 4bs²h) / t / peak",
        words,
        (b, s, h, t, peak),
    )


@figure_kind("layer-activations")
def layer_activations(catalog: Catalog, workload: str, technique: str = "none", per: str = "layer") -> Computed:
    """Activation bytes one device keeps per layer (or for all layers) by technique (Korthikanti et al., Table 2)."""
    _per(per)
    setting = catalog.workload(workload)
    b = microbatch(catalog, workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.model.id, "hidden")
    a = catalog.quantity(setting.model.id, "heads")
    inputs: tuple[Quantity, ...] = (b, s, h, a)
    tensor = 1
    if setting.tensor is not None:
        t = catalog.quantity(workload, "tensor")
        tensor = t.count
        inputs += (t,)
    value = model.parallel_activations.layer_activation_bytes(s.count, b.count, h.count, a.count, tensor, technique)
    formula = model.parallel_activations.TECHNIQUE_FORMULAS[technique] + " B"
    words = (
        f"{formula} with sequence {shown(s)}, microbatch {shown(b)}, hidden {shown(h)}, {shown(a)} heads"
        f"{f', t = {tensor}' if tensor > 1 else ''} (Korthikanti et al., Table 2), per layer"
    )
    if per == "model":
        layers = catalog.quantity(setting.model.id, "layers")
        value *= layers.count
        formula += " × layers"
        words += f" × {shown(layers)} layers"
        inputs += (layers,)
    return Computed(value, "B", formula, words, inputs)


@figure_kind("attention-ratio")
def attention_ratio(catalog: Catalog, workload: str) -> Computed:
    """5as/h: the attention scores' activations against the rest's, in units of sbh (Korthikanti et al. §5)."""
    setting = catalog.workload(workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.model.id, "hidden")
    a = catalog.quantity(setting.model.id, "heads")
    value = model.attention_score_term(a.count, s.count, h.count)
    return Computed(value, "1", "5as/h", f"5 × {shown(a)} heads × sequence {shown(s)} ÷ hidden {shown(h)}", (a, s, h))


@figure_kind("selective-saving")
def selective_saving(catalog: Catalog, workload: str) -> Computed:
    """The share of a layer's activations that selective recomputation drops: (5as/h)/(34 + 5as/h)."""
    setting = catalog.workload(workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.model.id, "hidden")
    a = catalog.quantity(setting.model.id, "heads")
    ratio = model.attention_score_term(a.count, s.count, h.count)
    value = model.parallel_activations.selective_saving(s.count, h.count, a.count)
    words = f"5as/h = {format_quantity(ratio, '1')} of 34 + {format_quantity(ratio, '1')} (Korthikanti et al. §5)"
    return Computed(value, "1", "(5as/h) / (34 + 5as/h)", words, (a, s, h))


@figure_kind("scaling-efficiency")
def scaling_efficiency(catalog: Catalog, claim: str) -> Computed:
    """A run's aggregate throughput as a share of linear scaling: aggregate ÷ (devices × one device's rate)."""
    aggregate = catalog.quantity(claim, "aggregate_flops")
    devices = catalog.quantity(claim, "devices")
    rate = catalog.quantity(claim, "flops_per_second")
    value = model.tensor.scaling_efficiency(aggregate.value, devices.count, rate.value)
    words = f"{shown(aggregate)} ÷ ({shown(devices)} GPUs × {shown(rate)} each)"
    return Computed(value, "1", "aggregate ÷ (devices × per-device rate)", words, (aggregate, devices, rate))


@figure_kind("aggregate-flops")
def aggregate_flops(catalog: Catalog, claim: str) -> Computed:
    """A run's aggregate throughput: devices × one device's rate, × the claim's scaling efficiency when it gives one."""
    devices = catalog.quantity(claim, "devices")
    rate = catalog.quantity(claim, "flops_per_second")
    record = catalog.entry(claim)
    if getattr(record, "efficiency", None) is None:
        value = model.tensor.sustained_flops(1, devices.count, rate.value)
        words = f"{shown(devices)} GPUs × {shown(rate)}"
        return Computed(value, "FLOP/s", "devices × per-device rate", words, (devices, rate))
    efficiency = catalog.quantity(claim, "efficiency")
    value = model.tensor.sustained_flops(efficiency.value, devices.count, rate.value)
    words = f"{format_quantity(efficiency.value, '1', percent=True)} × {shown(devices)} GPUs × {shown(rate)}"
    return Computed(value, "FLOP/s", "efficiency × devices × per-device rate", words, (efficiency, devices, rate))


@figure_kind("per-device-flops")
def per_device_flops(catalog: Catalog, claim: str) -> Computed:
    """One device's share of a claim's aggregate throughput: aggregate ÷ devices."""
    aggregate = catalog.quantity(claim, "aggregate_flops")
    devices = catalog.quantity(claim, "devices")
    value = model.tensor.per_device_rate(aggregate.value, devices.count)
    words = f"{shown(aggregate)} ÷ {shown(devices)} devices"
    return Computed(value, "FLOP/s", "aggregate ÷ devices", words, (aggregate, devices))


@figure_kind("implied-peak")
def implied_peak(catalog: Catalog, claim: str) -> Computed:
    """The peak a claim's rate is the stated share of: rate ÷ share."""
    rate = catalog.quantity(claim, "flops_per_second")
    share = catalog.quantity(claim, "efficiency")
    value = model.tensor.implied_peak(rate.value, share.value)
    words = f"{shown(rate)} ÷ {format_quantity(share.value, '1', percent=True)}"
    return Computed(value, "FLOP/s", "rate ÷ share of peak", words, (rate, share))


@figure_kind("peak-share")
def peak_share(catalog: Catalog, claim: str, peak: str) -> Computed:
    """A claim's rate as a share of `peak`: a GPU's peak 16-bit FLOP/s, or another claim's rate."""
    rate = catalog.quantity(claim, "flops_per_second")
    field = "peak_fp16_flops" if peak in catalog.tables and catalog.tables[peak] == "gpus" else "flops_per_second"
    top = catalog.quantity(peak, field)
    value = Fraction(rate.value) / Fraction(top.value)
    return Computed(value, "1", "rate ÷ peak", f"{shown(rate)} ÷ {shown(top)} ({top.label})", (rate, top))


@figure_kind("bytes-per-value")
def bytes_per_value(catalog: Catalog, precision: str = "fp16") -> Computed:
    """Bytes one value takes in `precision` (fp16, bf16, fp32): what an activation or gradient costs on the wire."""
    try:
        value = model.BYTES_PER_VALUE[precision]
    except (KeyError, TypeError):
        raise KeyError(f"unknown precision {precision!r}; known: {', '.join(model.BYTES_PER_VALUE)}") from None
    return Computed(value, "B", f"bytes per {precision} value", f"{value} bytes per value in {precision}")
