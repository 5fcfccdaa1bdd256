"""Tensor parallelism: its all-reduces and bytes per layer, a layer's compute, and scaling claims."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ...model.communication import cross_host_bytes_per_port
from ..figure import Computed, shown
from .registry import figure_kind

#: What a per-layer figure is multiplied by to cover the model: nothing, or its layers.
PER = ("layer", "model")


def microbatch(catalog: Catalog, workload: str) -> Quantity:
    """A workload's microbatch size: its `microbatch`, or its whole `batch` when it names none."""
    setting = catalog.workload(workload)
    return catalog.quantity(workload, "microbatch" if setting.microbatch is not None else "batch")


def for_all_layers(
    catalog: Catalog, workload: str, value: Any, formula: str, words: str, inputs: tuple[Quantity, ...]
) -> tuple[Any, str, str, tuple[Quantity, ...]]:
    """A per-layer figure's value, formula, words and inputs made the whole model's: times the model's layers."""
    layers = catalog.quantity(workload, "layers")
    return value * layers.count, f"{formula} × layers", f"{words} × {shown(layers)} layers", (*inputs, layers)


def check_per(per: str) -> None:
    """Refuse a `per=` other than a layer or the whole model."""
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


def _tensor_bytes(
    catalog: Catalog, workload: str, per: str, passes: str = "no-recompute"
) -> tuple[Fraction, tuple[Quantity, ...], str, str]:
    check_per(per)
    setting = catalog.workload(workload)
    b = microbatch(catalog, workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.id, "hidden")
    t = catalog.quantity(workload, "tensor")
    if setting.model.heads is not None:
        model.tensor.check_heads(catalog.quantity(setting.id, "heads").count, t.count)
    per_value = model.BYTES_PER_VALUE["fp16"]
    value = model.tensor.tensor_bytes_per_layer(b.count, s.count, h.count, t.count, per_value, passes)
    count = 2 * model.tensor.allreduces_per_layer(passes)
    recomputed = ", the forward pass recomputed" if passes == "recompute" else ""
    formula = f"{count}bsh(t − 1)/t × {per_value} B"
    words = (
        f"{count} × microbatch {shown(b)} × sequence {shown(s)} × hidden {shown(h)} × ({shown(t)} − 1)/{shown(t)}"
        f" values × {per_value} bytes (16-bit), per layer per microbatch{recomputed}"
    )
    inputs: tuple[Quantity, ...] = (b, s, h, t)
    if per == "model":
        value, formula, words, inputs = for_all_layers(catalog, workload, value, formula, words, inputs)
    return value, inputs, formula, words


@figure_kind("tensor-bytes")
def tensor_bytes(catalog: Catalog, workload: str, per: str = "layer", passes: str = "no-recompute") -> Computed:
    """Bytes each device sends for tensor parallelism per microbatch, per layer or all layers (Narayanan §3.2).

    `passes="recompute"` counts the recomputed forward pass's two all-reduces too: six per layer, not four.
    """
    value, inputs, formula, words = _tensor_bytes(catalog, workload, per, passes)
    return Computed(value, "B", formula, words, inputs)


#: What `tensor_seconds` counts: every all-reduce one after another, the forward ones the GPU waits for whatever it
#: computes at, or what they all keep it waiting at its peak.
COUNTS = ("all", "forward", "exposed")


@figure_kind("tensor-seconds")
def tensor_seconds(
    catalog: Catalog, workload: str, link: str, per: str = "layer", per_server: int = 1, count: str = "all"
) -> Computed:
    """Time for those bytes over `link` (an interconnect), at its bandwidth in one direction.

    Over a network link, `per_server` is how many GPUs of the group share each
    server: 1 puts each GPU in a different server, all its bytes through its own
    port; with more, the group's rings share the server's ports, and each port
    carries that share of them (`cross_host_bytes_per_port`). `count="all"` runs
    the four all-reduces one after another, the worst case for overlap; `count="forward"`
    counts the forward two, which the GPU waits for whatever it computes at, the
    least it waits (`model.tensor.forward_allreduce_seconds`); `count="exposed"`
    lets each backward one run during its matrix's weight-gradient GEMM at the
    workload's GPU's peak, and counts what is left, the most it waits at this
    bandwidth (`model.tensor.exposed_allreduce_seconds`).
    """
    if count not in COUNTS:
        raise KeyError(f"unknown count {count!r}; known: {', '.join(COUNTS)}")
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
    serial = model.transfer_seconds(sent, bandwidth.value)
    if count == "all":
        return Computed(serial, "s", f"{formula} ÷ bandwidth per direction", words, (*inputs, bandwidth))
    layers = inputs[4].count if per == "model" else 1
    one = serial / (layers * model.tensor.tensor_allreduces())
    if count == "forward":
        forward = layers * model.tensor.forward_allreduce_seconds(one)
        words = (
            f"the forward pass's {model.tensor.tensor_allreduces('forward')} all-reduces per layer of"
            f" {format_quantity(serial, 's')} of all-reduces one after another ({words}), which each block waits for"
            " whatever the GPU computes at"
        )
        return Computed(forward, "s", "forward all-reduces ÷ bandwidth per direction", words, (*inputs, bandwidth))
    setting = catalog.workload(workload)
    if setting.gpu is None:
        raise ValueError(f"workload {workload!r} names no GPU, which the weight-gradient GEMMs need; add `gpu:`")
    peak = catalog.quantity(setting.gpu.id, "peak_fp16_flops")
    b, s, h, t = (q.count for q in inputs[:4])
    exposed = layers * model.tensor.exposed_allreduce_seconds(one, b, s, h, t, peak.value)
    words = (
        f"what keeps the GPU waiting at its peak of {format_quantity(serial, 's')} of all-reduces one after another"
        f" ({words}): the forward pass's two per layer in full, and what each backward one takes beyond the"
        f" weight-gradient GEMM of its matrix, which it runs beside, at {shown(peak)} ({peak.label}); below its"
        " peak the GEMMs hide more"
    )
    formula = "forward all-reduces + what the backward ones take beyond the weight-gradient GEMMs"
    return Computed(exposed, "s", formula, words, (*inputs, bandwidth, peak))


@figure_kind("link-ratio")
def link_ratio(catalog: Catalog, link: str, other: str) -> Computed:
    """How many times `other`'s bandwidth in one direction `link`'s is: NVLink's against a network adapter's, say."""
    fast = catalog.quantity(link, "bandwidth_per_direction")
    slow = catalog.quantity(other, "bandwidth_per_direction")
    value = Fraction(fast.value) / Fraction(slow.value)
    words = f"{shown(fast)} ({fast.label}) ÷ {shown(slow)} ({slow.label}), each in one direction"
    return Computed(value, "1", "bandwidth ÷ bandwidth", words, (fast, slow))


@figure_kind("sequence-parallel-bytes")
def sequence_parallel_bytes(catalog: Catalog, workload: str) -> Computed:
    """Bytes each device sends per layer per microbatch with sequence parallelism, as Megatron-Core runs it.

    The all-gathers and reduce-scatters of `model.tensor.SEQUENCE_PARALLEL_COLLECTIVES`, each (t − 1)/t of b·s·h
    values: those that replace the four all-reduces, and the extra all-gathers of the backward pass (Korthikanti et
    al. §4.2.2).
    """
    setting = catalog.workload(workload)
    b = microbatch(catalog, workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.id, "hidden")
    t = catalog.quantity(workload, "tensor")
    per_value = model.BYTES_PER_VALUE["fp16"]
    value = model.tensor.sequence_parallel_bytes_per_layer(b.count, s.count, h.count, t.count, per_value)
    collectives = model.tensor.SEQUENCE_PARALLEL_COLLECTIVES
    total, forward = sum(collectives.values()), collectives["forward"]
    words = (
        f"{total} all-gathers and reduce-scatters × microbatch {shown(b)} × sequence {shown(s)} × hidden {shown(h)}"
        f" × ({shown(t)} − 1)/{shown(t)} values × {per_value} bytes (16-bit), per layer per microbatch: {forward}"
        f" going forward, their {forward} conjugates going back, and {collectives['backward'] - forward} all-gathers"
        " of the blocks' inputs again for their weight gradients (Korthikanti et al. §4.2.2; Megatron-Core)"
    )
    return Computed(value, "B", f"{total}bsh(t − 1)/t × {per_value} B", words, (b, s, h, t))


@figure_kind("layer-seconds")
def layer_seconds(catalog: Catalog, workload: str, passes: str = "no-recompute") -> Computed:
    """Least time one device computes its share of one layer for one microbatch, at its GPU's peak."""
    setting = catalog.workload(workload)
    if setting.gpu is None:
        raise ValueError(f"workload {workload!r} names no GPU; add `gpu:` to it in workloads.yml")
    b = microbatch(catalog, workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.id, "hidden")
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


def _printed_rounding(catalog: Catalog, claim: str, field: str) -> Fraction:
    """How finely the source printed a claim's value: its printed.yml entry's rounding."""
    key = f"catalog/{claim}/{field}"
    if key not in catalog.printed:
        raise KeyError(f"printed.yml has no {key!r}, which says how finely the source printed {field}")
    return Fraction(catalog.printed[key].rounding)


@figure_kind("implied-peak")
def implied_peak(catalog: Catalog, claim: str, bound: str = "central") -> Computed:
    """The peak a claim's rate is the stated share of: rate ÷ share, or the lowest or highest their rounding allows.

    `bound="low"` or `"high"` reads how finely the source printed the rate and the share from printed.yml
    (`catalog/<claim>/flops_per_second` and `catalog/<claim>/efficiency`).
    """
    rate = catalog.quantity(claim, "flops_per_second")
    share = catalog.quantity(claim, "efficiency")
    percent = format_quantity(share.value, "1", percent=True)
    if bound == "central":
        value = model.tensor.implied_peak(rate.value, share.value)
        return Computed(value, "FLOP/s", "rate ÷ share of peak", f"{shown(rate)} ÷ {percent}", (rate, share))
    rate_rounding, share_rounding = (
        _printed_rounding(catalog, claim, field) for field in ("flops_per_second", "efficiency")
    )
    value = model.tensor.implied_peak_bound(rate.value, share.value, rate_rounding, share_rounding, bound)
    rate_step = format_quantity(Fraction(rate_rounding) / 2, "FLOP/s")
    share_step = format_quantity(Fraction(share_rounding) / 2, "1", percent=True)
    faster, larger = ("−", "+") if bound == "low" else ("+", "−")
    words = (
        f"({shown(rate)} {faster} {rate_step}) ÷ ({percent} {larger} {share_step}): the {bound}est peak the two"
        " printed numbers allow, each rounded to half a unit of its last digit"
    )
    return Computed(value, "FLOP/s", f"{bound} end of (rate ± r/2) ÷ (share ∓ f/2)", words, (rate, share))


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
    """Bytes one value takes in `precision` (fp16, bf16, fp32, fp8): what an activation or gradient costs to send."""
    try:
        value = model.BYTES_PER_VALUE[precision]
    except (KeyError, TypeError):
        raise KeyError(f"unknown precision {precision!r}; known: {', '.join(model.BYTES_PER_VALUE)}") from None
    unit = "byte" if value == 1 else "bytes"
    return Computed(value, "B", f"bytes per {precision} value", f"{value} {unit} per value in {precision}")
