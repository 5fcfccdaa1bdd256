"""When a layout's traffic becomes communication-bound: the closed-form conditions, over a planner workload."""

from __future__ import annotations

import math
from fractions import Fraction

from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ...model import conditions, planner
from ...model.compute import BACKWARD_FLOPS_PER_PARAMETER, FLOPS_PER_PARAMETER, FORWARD_FLOPS_PER_PARAMETER
from ...model.layout import rank_placement
from ...model.shape import parameter_count
from ...model.sharding import role_bytes_per_parameter
from ..figure import Computed
from .planner import DEFAULT_SHARE, layout_words, plan_of, setting
from .registry import figure_kind

#: The data-parallel traffic a condition may weigh: ZeRO-0's all-reduce of the gradients behind the backward pass,
#: or ZeRO-3's all-gathers of the parameters and reduce-scatter of the gradients, each behind the pass it is issued
#: in: the forward's gather behind the forward pass, the backward's gather and the reduce-scatter behind the backward.
TRAFFIC = ("allreduce", "zero3")


def _hiding_bound(
    catalog: Catalog, workload: str, layout: str, traffic: str, share: int
) -> tuple[Fraction, str, str, int, tuple[Quantity, ...]]:
    """The bound of `hiding_tokens`, unrounded, with its words, its formula and the layout's micro-batch tokens."""
    if traffic not in TRAFFIC:
        raise KeyError(f"unknown traffic {traffic!r}; known: {', '.join(TRAFFIC)}")
    plan, found = plan_of(catalog, workload, layout, share)
    lay, hardware, run = plan.layout, found.hardware, found.run
    # The dense gradients' group is dp × cp: context parallelism's devices reduce them too.
    placed = rank_placement(lay.tp, lay.pp, lay.dp * lay.cp, hardware.per_node)
    if placed.data_spans_nodes:
        # NCCL's rings share a node's ports: each carries 1/k of what a GPU sends (`cross_host_bytes_per_port`).
        ports = f"{placed.data_per_node} network port{'s' if placed.data_per_node > 1 else ''}"
        link = f"{ports} of {format_quantity(hardware.network_bandwidth, 'B/s')}"
    else:
        link = f"NVLink at {format_quantity(hardware.nvlink_bandwidth, 'B/s')}"
    group = f"d = {lay.dp}" if lay.cp == 1 else f"d × cp = {lay.dp} × {lay.cp}"
    shard_share = Fraction(1)
    if lay.hybrid:
        # Hybrid sharding (`planner.hybrid_groups`): ZeRO-3 within a node's F ranks, over NVLink; each GPU's 1/F
        # shard of the gradients all-reduced with its R copies, one in each node, through its own port.
        shard, replicas = planner.hybrid_groups(hardware, lay)
        if traffic == "zero3":
            group, link = (
                f"hybrid sharding within a node's F = {shard} ranks",
                f"NVLink at {format_quantity(hardware.nvlink_bandwidth, 'B/s')}",
            )
        else:
            group = f"hybrid sharding's 1/{shard} shards across R = {replicas} nodes"
            link = f"a network port of {format_quantity(hardware.network_bandwidth, 'B/s')}"
            shard_share = Fraction(1, shard)
    roles = role_bytes_per_parameter(run.recipe)
    count = parameter_count(found.shape)
    # The planner's FLOPs per token (6N + attention, 8N with full recomputation), per parameter of the model: the
    # traffic is k bytes per parameter of the whole model, whatever share of them a GPU holds.
    per_token = planner.flops_per_token(found.shape, count, run.sequence, "full" if lay.recompute == "full" else "none")
    per_parameter = Fraction(per_token, count.total)
    at = (
        f"{group}, over {link}, at {format_quantity(run.share, '1', percent=True)} of"
        f" {format_quantity(hardware.peak_flops, 'FLOP/s')} ({layout_words(plan)})"
    )
    if traffic == "allreduce":
        # Behind the backward pass: its 4 of the 6 FLOPs per parameter, as the planner hides it.
        sent = roles["gradients"] * shard_share
        flops = per_parameter * Fraction(BACKWARD_FLOPS_PER_PARAMETER, FLOPS_PER_PARAMETER["none"])
        words = (
            f"an all-reduce of {roles['gradients']}-byte gradients behind the backward pass,"
            f" k = {format_quantity(sent, '1')} bytes per parameter of the model,"
            f" at {format_quantity(flops, '1', digits=3)} FLOPs per parameter per token, {at}"
        )
        formula = "2k·(d − 1)/d × C·s ÷ (f·W)"
    else:
        # Pass by pass, as the planner hides it: the forward's share of the FLOPs is 2 of 6, or 2 of 8 with the
        # recomputed forward in the backward pass.
        kind = "full" if lay.recompute == "full" else "none"
        forward = per_parameter * Fraction(FORWARD_FLOPS_PER_PARAMETER, FLOPS_PER_PARAMETER[kind])
        backward = per_parameter - forward
        k_p, k_g = roles["parameters"], roles["gradients"]
        words = (
            f"an all-gather of {k_p}-byte parameters behind each micro-batch's forward pass"
            f" ({format_quantity(forward, '1', digits=3)} FLOPs per parameter per token) and a second one with a"
            f" reduce-scatter of {k_g}-byte gradients behind its backward pass"
            f" ({format_quantity(backward, '1', digits=3)}), {at}"
        )
        formula = "max(k_p ÷ f_F, (k_p + k_g) ÷ f_B) × (d − 1)/d × C·s ÷ W"
    # The bound itself is the planner's, which tools.plan prints for every layout.
    bound = planner.hiding_bound(found.shape, count, hardware, run, lay, traffic)
    return bound, words, formula, planner.micro_batch_tokens(run, lay), tuple(found.inputs)


@figure_kind("hiding-tokens")
def hiding_tokens(catalog: Catalog, workload: str, layout: str, traffic: str, share: int = DEFAULT_SHARE) -> Computed:
    """Tokens a replica's micro-batch must hold for its data-parallel traffic to hide behind its compute.

    On the layout's links: max(k_p/f_F, (k_p + k_g)/f_B)·(d − 1)/d·C·s/W for ZeRO-3 (the forward's gather behind
    the forward's FLOPs, the backward's gather and reduce-scatter behind the backward's), 2k·(d − 1)/d·C·s/(f·W)
    for an all-reduce of k-byte gradients behind the backward pass (f its FLOPs): the scaling book's B/X > C/W for
    GPUs."""
    bound, words, formula, _, inputs = _hiding_bound(catalog, workload, layout, traffic, share)
    # Whole tokens, the least that hide it, every digit shown.
    return Computed(math.ceil(bound), "1", formula, f"tokens per micro-batch above which {words} hide", inputs)


@figure_kind("hiding-margin")
def hiding_margin(catalog: Catalog, workload: str, layout: str, traffic: str, share: int = DEFAULT_SHARE) -> Computed:
    """How many times the tokens of `hiding_tokens`' bound a layout's micro-batch holds (1 at the bound).

    The bound is at line rate and a stated share of peak; Lesson 16 reads it as a margin, since GPT-3's ZeRO-3 at
    about 1.35 times it measured far behind PTD-P, and at about 5.4 times held its own (Narayanan et al., Table 2).
    """
    bound, words, formula, tokens, inputs = _hiding_bound(catalog, workload, layout, traffic, share)
    explanation = f"{tokens:,} tokens per micro-batch ÷ the tokens above which {words} hide"
    return Computed(Fraction(tokens) / bound, "1", f"b·s ÷ ({formula})", explanation, inputs)


@figure_kind("tensor-degree-limit")
def tensor_degree_limit(catalog: Catalog, workload: str, share: int = DEFAULT_SHARE) -> Computed:
    """The tensor degree beyond which a layer's forward all-reduces outlast its forward compute over NVLink:
    1 + P_layer·W/(4h·C·s), the scaling book's F·W/C for a whole GPU layer."""
    found = setting(catalog, workload, share)
    layer = parameter_count(found.shape).layer.total
    hardware, hidden = found.hardware, found.shape.hidden
    value = conditions.tensor_degree_limit(
        layer, hidden, hardware.peak_flops, found.run.share, hardware.nvlink_bandwidth
    )
    words = (
        f"1 + {format_quantity(layer, 'param')} per layer × NVLink's"
        f" {format_quantity(hardware.nvlink_bandwidth, 'B/s')}"
        f" ÷ (4 × hidden {hidden} × {format_quantity(found.run.share, '1', percent=True)} of"
        f" {format_quantity(hardware.peak_flops, 'FLOP/s')})"
    )
    return Computed(value, "1", "1 + P_layer·W/(4h·C·s)", words, found.inputs)
