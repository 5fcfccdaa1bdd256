"""FSDP's figures: what each GPU keeps under a sharding strategy, the batch that fits, the traffic across hosts."""

from __future__ import annotations

from fractions import Fraction

from .. import model
from ..catalog import Catalog, Quantity
from ..figures import Computed, shown
from ..quantities import format_quantity
from .registry import figure_kind


def _cluster(catalog: Catalog, workload: str) -> tuple[Quantity, Quantity, Quantity]:
    """A workload's parameters, GPUs (W) and GPUs per host (G)."""
    return (
        catalog.quantity(workload, "parameters"),
        catalog.quantity(workload, "devices"),
        catalog.quantity(workload, "per_host"),
    )


def _states(catalog: Catalog, workload: str, strategy: str) -> tuple[Fraction, str, str, tuple[Quantity, ...]]:
    """Bytes per GPU under `strategy`, with the formula, the words and the inputs."""
    parameters, world, per_host = _cluster(catalog, workload)
    chosen = model.fsdp_strategy(strategy)
    factor = model.sharding_factor(strategy, world.count, per_host.count)
    value = model.fsdp_state_bytes(parameters.count, strategy, world.count, per_host.count)
    sharded = model.FULL_PARAMETER_BYTES + model.FULL_GRADIENT_BYTES + model.ADAM_STATE_BYTES
    low = model.LOW_PRECISION_BYTES
    formula = f"{sharded}Ψ/F" + (f" + {low}Ψ" if chosen.keeps_parameters_after_forward else "")
    words = (
        f"{chosen.name} on {shown(world)} GPUs, {shown(per_host)} per host, F = {factor:,}: {sharded} bytes"
        f" (fp32 parameter and gradient, Adam's two states) × {shown(parameters)} ÷ F"
    )
    if chosen.keeps_parameters_after_forward:
        words += f", plus {low} bytes × Ψ of low-precision parameters kept from forward to backward"
    return value, formula, words, (parameters, world, per_host)


@figure_kind("fsdp-states")
def fsdp_states(catalog: Catalog, workload: str, strategy: str) -> Computed:
    """Bytes each GPU keeps under an FSDP strategy with bf16 mixed precision and Adam, at the end of forward."""
    value, formula, words, inputs = _states(catalog, workload, strategy)
    return Computed(value, "B", formula, words, inputs)


@figure_kind("fsdp-batch")
def fsdp_batch(catalog: Catalog, workload: str, strategy: str, gpu: str) -> Computed:
    """The most sequences per GPU whose activations (ZeRO §3.2's estimate) fit beside an FSDP strategy's states."""
    states, formula, _, inputs = _states(catalog, workload, strategy)
    memory = catalog.quantity(gpu, "memory")
    setting = catalog.workload(workload)
    hidden = catalog.quantity(setting.model.id, "hidden")
    layers = catalog.quantity(setting.model.id, "layers")
    sequence = catalog.quantity(workload, "sequence")
    per_sequence = model.activation_bytes(hidden.count, 1, sequence.count, layers.count)
    value = model.sequences_that_fit(memory.value - states, per_sequence)
    words = (
        f"({shown(memory)} − {format_quantity(states, 'B')} of states) ÷ {format_quantity(per_sequence, 'B')}"
        f" of activations per sequence of {shown(sequence)} tokens (ZeRO §3.2: 12 × hidden × sequence × layers"
        " values in fp16), rounded down; no checkpointing, buffers or fragmentation"
    )
    return Computed(
        value, "1", f"⌊(memory − ({formula})) ÷ activations per sequence⌋", words, (memory, *inputs, sequence)
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
    formula = {"no-shard": "2M(W − 1)/W", "full-shard": "3M(W − 1)/W", "hybrid-shard": "2M(W − 1)/(GW)"}[strategy]
    words = (
        f"{formula} as Zhao et al. §3.2.2 print it, with M = {format_quantity(size, 'B')}"
        f" ({shown(parameters)} in {precision}), W = {shown(world)}, G = {shown(per_host)}"
    )
    return Computed(value, "B", formula, words, (parameters, world, per_host))


@figure_kind("hybrid-traffic")
def hybrid_traffic(catalog: Catalog, workload: str, precision: str = "bf16") -> Computed:
    """Cross-host bytes per GPU per step of hybrid sharding, counted from §3.2.2's scheme: 2M(W − G)/(GW)."""
    size, parameters = _model_bytes(catalog, workload, precision)
    _, world, per_host = _cluster(catalog, workload)
    value = model.hybrid_cross_host_traffic(size, world.count, per_host.count)
    words = (
        f"a ring all-reduce of each GPU's M/G shard across the W/G hosts, 2M(W − G)/(GW), with"
        f" M = {format_quantity(size, 'B')} ({shown(parameters)} in {precision}), W = {shown(world)},"
        f" G = {shown(per_host)}"
    )
    return Computed(value, "B", "2M(W − G)/(GW)", words, (parameters, world, per_host))


@figure_kind("fsdp-traffic-seconds")
def fsdp_traffic_seconds(catalog: Catalog, workload: str, strategy: str, precision: str = "bf16") -> Computed:
    """Least time per step for that cross-host traffic at the workload's link bandwidth in one direction."""
    traffic = fsdp_traffic(catalog, workload, strategy, precision)
    setting = catalog.workload(workload)
    if setting.interconnect is None:
        raise ValueError(f"workload {workload!r} names no interconnect; add `interconnect:` to it in workloads.yml")
    bandwidth = catalog.quantity(setting.interconnect.id, "bandwidth_per_direction")
    return Computed(
        model.transfer_seconds(traffic.value, bandwidth.value),
        "s",
        f"{traffic.formula} ÷ bandwidth per direction",
        f"{format_quantity(traffic.value, 'B')} ÷ {shown(bandwidth)}, ignoring latency and overlap",
        (*traffic.inputs, bandwidth),
    )
