"""FSDP's figures: what each GPU keeps under a sharding strategy, the batch that fits, the traffic across hosts."""

from __future__ import annotations

from fractions import Fraction

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .catalog_values import engine_ratio
from .registry import figure_kind

#: The precision the worked example gathers its parameters in, FSDP's param_dtype (its compute precision).
GATHER_PRECISION = "bf16"

#: §3.2.2's formulas as it prints them, by strategy.
_PRINTED_FORMULAS = {"no-shard": "2M(W − 1)/W", "full-shard": "3M(W − 1)/W", "hybrid-shard": "2M(W − 1)/(GW)"}
#: The per-port counts of `model.cross_host_traffic_per_port`, with P gathered and R reduced bytes.
_PORT_FORMULAS = {
    "no-shard": "2R(W − 1)/(GW)",
    "full-shard": "(2P + R)(W − 1)/(GW)",
    "shard-grad-op": "(P + R)(W − 1)/(GW)",
    "hybrid-shard": "2R(W − G)/(GW)",
}
#: How a layer's attention is run, in words, by what Korthikanti et al.'s count keeps of it.
_ATTENTION_WORDS = {
    "none": "attention scores kept, as eager attention keeps them",
    "selective": "attention scores not kept, as a FlashAttention-style kernel or selective recomputation does",
    "full": "only each layer's input kept (full activation recomputation)",
}


def _cluster(catalog: Catalog, workload: str) -> tuple[Quantity, Quantity, Quantity]:
    """A workload's parameters, GPUs (W) and GPUs per host (G)."""
    return (
        catalog.quantity(workload, "parameters"),
        catalog.quantity(workload, "devices"),
        catalog.quantity(workload, "per_host"),
    )


#: The moments `model.fsdp_state_bytes` counts at, in words.
_MOMENT_WORDS = {
    "turn": "at the turn from forward to backward",
    "end-of-backward": "at the end of the backward pass",
}
#: Where the micro-batch sits in its step (`model.ACCUMULATIONS`), in words.
_ACCUMULATION_WORDS = {
    "none": "of a step's only or first micro-batch (no gradient before it, with zero_grad(set_to_none=True))",
    "synced": "of a later micro-batch, gradients reduced every micro-batch",
    "no-sync": "of a later micro-batch inside FSDP1's no_sync()",
}


def _states(
    catalog: Catalog, workload: str, strategy: str, moment: str, accumulation: str
) -> tuple[Fraction, str, str, tuple[Quantity, ...]]:
    """Bytes per GPU under `strategy` at `moment` of a micro-batch placed by `accumulation`, with its wording."""
    parameters, world, per_host = _cluster(catalog, workload)
    chosen = model.fsdp_strategy(strategy)
    factor = model.sharding_factor(strategy, world.count, per_host.count)
    held = model.fsdp_held_states(strategy, moment, accumulation)
    value = held.bytes(parameters.count, factor)
    sharded = sum(size for _, size in held.sharded)
    formula = f"{sharded}Ψ/F" + "".join(f" + {size}Ψ" for _, size in held.whole)
    words = (
        f"{chosen.name} {_MOMENT_WORDS[moment]} {_ACCUMULATION_WORDS[accumulation]}, on {shown(world)} GPUs,"
        f" {shown(per_host)} per host, F = {factor:,}: {sharded} bytes"
        f" ({', '.join(name for name, _ in held.sharded)}) × {shown(parameters)} ÷ F"
    )
    for name, size in held.whole:
        words += f", plus {size} bytes × Ψ ({name})"
    return value, formula, words, (parameters, world, per_host)


@figure_kind("fsdp-states")
def fsdp_states(
    catalog: Catalog, workload: str, strategy: str, moment: str = "end-of-backward", accumulation: str = "none"
) -> Computed:
    """Model-state bytes each GPU keeps under an FSDP strategy (bf16 mixed precision, Adam) at a moment of a step.

    `moment` is "turn" (from forward to backward) or "end-of-backward"
    (`model.STATE_MOMENTS`); `accumulation` says where the micro-batch sits in
    a step with gradient accumulation (`model.ACCUMULATIONS`): "none" (the
    only or first micro-batch), "synced" or "no-sync".
    """
    value, formula, words, inputs = _states(catalog, workload, strategy, moment, accumulation)
    return Computed(value, "B", formula, words, inputs)


def _check_layer_case(catalog: Catalog, layer: str, workload: str, recompute: str) -> None:
    """Refuse a layer record measured at another shape or recomputation than `workload`'s and `recompute`.

    Raises:
        ValueError: the record is not `activations-by-tensor/<a workload of this model and sequence>/<recompute>/...`.
    """
    kind, measured_at, measured_recompute, *_ = [*layer.split("/"), "", "", ""]
    setting = catalog.workload(workload)
    same_shape = catalog.tables.get(measured_at) == "workloads" and (
        catalog.workload(measured_at).model.id == setting.model.id
        and catalog.quantity(measured_at, "sequence").count == catalog.quantity(workload, "sequence").count
    )
    if kind != "activations-by-tensor" or not same_shape or measured_recompute != recompute:
        raise ValueError(
            f"layer {layer!r} is not a layer measured at {workload}'s model and sequence with recompute"
            f" {recompute!r}: name a record activations-by-tensor/<workload>/{recompute}/... of catalog/measured.yml"
        )


@figure_kind("fsdp-batch")
def fsdp_batch(
    catalog: Catalog,
    workload: str,
    strategy: str,
    gpu: str,
    recompute: str = "none",
    accumulation: str = "none",
    layer: str = "",
) -> Computed:
    """The most sequences per GPU whose activations (Korthikanti et al.'s count) fit beside an FSDP strategy's states.

    The activations are all held at the turn from forward to backward, beside
    that moment's states for the micro-batch's place in its step
    (`accumulation`, as `fsdp_states` takes it); the end of the backward
    pass's states must fit too (`model.fsdp_largest_micro_batch`).
    `recompute` says what each layer keeps, as
    `model.activation_bytes_per_layer` takes it: "none" (the attention scores
    too), "selective" (not the scores, as with a FlashAttention-style kernel)
    or "full". `layer`, a record of catalog/measured.yml of this workload and
    recompute (`activations-by-tensor/<workload>/<recompute>/...`), is what a
    real layer keeps over that count at the workload's shape, as the engine
    tier measured it; the activations per sequence are that many times the
    count (every term of the count and of the tier's fit grows with the batch,
    so the ratio holds for any number of sequences).
    """
    parameters, world, per_host = _cluster(catalog, workload)
    turn, formula, _, inputs = _states(catalog, workload, strategy, "turn", accumulation)
    # The larger end of the backward: this micro-batch's, or the step's last one's, which reduces the gradients.
    ends = (_states(catalog, workload, strategy, "end-of-backward", place) for place in (accumulation, "none"))
    end, end_formula, _, _ = max(ends, key=lambda states: states[0])
    memory = catalog.quantity(gpu, "memory")
    setting = catalog.workload(workload)
    hidden = catalog.quantity(setting.id, "hidden")
    heads = catalog.quantity(setting.id, "heads")
    layers = catalog.quantity(setting.id, "layers")
    sequence = catalog.quantity(workload, "sequence")
    per_sequence = model.activation_bytes_total(sequence.count, 1, hidden.count, heads.count, layers.count, recompute)
    counted = f"Korthikanti et al. 2022, 16-bit values, {_ATTENTION_WORDS[recompute]}"
    measured: tuple[Quantity, ...] = ()
    if layer:
        _check_layer_case(catalog, layer, workload, recompute)
        ratio = engine_ratio(catalog, layer)
        per_sequence *= catalog.engine[layer].ratio
        counted += f", times {shown(ratio)}, what {ratio.label} measured a real layer keeping at this shape"
        measured = (ratio,)
    value = model.fsdp_largest_micro_batch(
        memory.value, parameters.count, strategy, world.count, per_host.count, per_sequence, accumulation
    )
    words = (
        f"({shown(memory)} − {format_quantity(turn, 'B')} of states at the turn from forward to backward"
        f" {_ACCUMULATION_WORDS[accumulation]}) ÷ {format_quantity(per_sequence, 'B')} of activations per"
        f" sequence of {shown(sequence)} tokens ({counted}), rounded down, provided the {format_quantity(end, 'B')}"
        " of states at the end of the backward pass fit; no buffers or fragmentation"
    )
    return Computed(
        value,
        "1",
        f"⌊(memory − ({formula})) ÷ activations per sequence⌋ if {end_formula} fits",
        words,
        (memory, *inputs, sequence, hidden, heads, layers, *measured),
    )


def _model_bytes(catalog: Catalog, workload: str, precision: str) -> tuple[int, Quantity]:
    parameters = catalog.quantity(workload, "parameters")
    return model.copy_bytes(parameters.count, precision), parameters


@figure_kind("fsdp-traffic")
def fsdp_traffic(catalog: Catalog, workload: str, strategy: str, precision: str = "bf16") -> Computed:
    """Cross-host bytes per GPU per step as FSDP §3.2.2 prints them, for a model communicated in `precision`."""
    size, parameters = _model_bytes(catalog, workload, precision)
    _, world, per_host = _cluster(catalog, workload)
    value = model.cross_host_traffic(size, strategy, world.count, per_host.count)
    formula = _PRINTED_FORMULAS[strategy]
    words = (
        f"{formula} as Zhao et al. §3.2.2 print it, with M = {format_quantity(size, 'B')}"
        f" ({shown(parameters)} in {precision}: parameters gathered and gradients reduced in {precision}),"
        f" W = {shown(world)}, G = {shown(per_host)}"
    )
    return Computed(value, "B", formula, words, (parameters, world, per_host))


@figure_kind("fsdp-port-traffic")
def fsdp_port_traffic(catalog: Catalog, workload: str, strategy: str, reduce: str = "bf16") -> Computed:
    """Bytes each network port of a host sends to other hosts per step, for NCCL's rings laid out host by host.

    The parameters are gathered in bf16 (`GATHER_PRECISION`), the gradients
    reduced in `reduce` (FSDP's reduce_dtype).
    """
    gathered, parameters = _model_bytes(catalog, workload, GATHER_PRECISION)
    reduced, _ = _model_bytes(catalog, workload, reduce)
    _, world, per_host = _cluster(catalog, workload)
    value = model.cross_host_traffic_per_port(gathered, reduced, strategy, world.count, per_host.count)
    formula = _PORT_FORMULAS[strategy]
    words = (
        f"{model.fsdp_strategy(strategy).name}: {formula} per port, rings entering and leaving each host once"
        f" and spread over its G ports, with P = {format_quantity(gathered, 'B')} ({shown(parameters)} gathered"
        f" in {GATHER_PRECISION}), R = {format_quantity(reduced, 'B')} (gradients reduced in {reduce}),"
        f" W = {shown(world)}, G = {shown(per_host)}"
    )
    return Computed(value, "B", formula, words, (parameters, world, per_host))


@figure_kind("fsdp-port-seconds")
def fsdp_port_seconds(catalog: Catalog, workload: str, strategy: str, reduce: str = "bf16") -> Computed:
    """Least time per step for a port's cross-host traffic at the workload's link rate in one direction."""
    traffic = fsdp_port_traffic(catalog, workload, strategy, reduce)
    setting = catalog.workload(workload)
    if setting.interconnect is None:
        raise ValueError(f"workload {workload!r} names no interconnect; add `interconnect:` to it in workloads.yml")
    bandwidth = catalog.quantity(setting.interconnect.id, "bandwidth_per_direction")
    return Computed(
        model.transfer_seconds(traffic.value, bandwidth.value),
        "s",
        f"{traffic.formula} ÷ port bandwidth per direction",
        f"{format_quantity(traffic.value, 'B')} per port ÷ {shown(bandwidth)}, ignoring latency and overlap",
        (*traffic.inputs, bandwidth),
    )


@figure_kind("fsdp-port-ratio")
def fsdp_port_ratio(catalog: Catalog, workload: str, strategy: str, baseline: str) -> Computed:
    """How many times a strategy's cross-host bytes per port another strategy sends (gradients reduced in bf16)."""
    ours = fsdp_port_traffic(catalog, workload, strategy)
    theirs = fsdp_port_traffic(catalog, workload, baseline)
    words = (
        f"{model.fsdp_strategy(baseline).name}'s {format_quantity(theirs.value, 'B')} per port"
        f" ÷ {model.fsdp_strategy(strategy).name}'s {format_quantity(ours.value, 'B')}"
    )
    return Computed(
        Fraction(theirs.value) / Fraction(ours.value),
        "1",
        f"({theirs.formula}) ÷ ({ours.formula})",
        words,
        ours.inputs,
    )
