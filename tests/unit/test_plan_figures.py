"""The planner's figure kinds (kinds/planner.py, kinds/conditions.py) and the conditions (model/conditions.py).

A figure is held to the planner evaluated here from the catalog's own numbers, by hand, not through the kind; a
condition is held to the scaling book's C/W and F·W/C where their terms meet, and to the planner itself: on one
side of each bound the planner's exposed traffic is nothing, on the other it is not.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from macros.data.catalog import transformer_shape
from macros.figures.kinds import KINDS, FigureKindError
from macros.figures.kinds.planner import fixed_fields
from macros.model import conditions, planner
from macros.model.shape import parameter_count
from macros.model.sharding import role_bytes_per_parameter
from tests.conftest import catalog

WORKLOAD = "llama3-8b-h100-2-nodes"


def _by_hand(workload: str, share: Fraction = Fraction(1, 2)) -> tuple[planner.Hardware, planner.Run]:
    """The cluster and run of a planner workload, read off the catalog field by field."""
    c = catalog()
    entry = c.workload(workload)
    assert entry.gpu and entry.gpu.nvlink and entry.gpu.network and entry.devices and entry.per_host
    assert entry.sequence and entry.batch and entry.gpu.memory
    hardware = planner.Hardware(
        peak_flops=989 * 10**12,
        memory=entry.gpu.memory,
        nvlink_bandwidth=450 * 10**9,
        network_bandwidth=50 * 10**9,
        per_node=entry.per_host,
        nodes=entry.devices // entry.per_host,
    )
    run = planner.Run(entry.sequence, entry.batch * entry.sequence, share=share, training_tokens=15 * 10**12)
    return hardware, run


def test_the_worked_example_is_llama_3_on_h100_nodes_as_the_catalog_has_them() -> None:
    c = catalog()
    gpu = c.gpu("h100-sxm5")
    assert gpu.peak_bf16_flops == 989 * 10**12
    assert gpu.nvlink is not None and gpu.nvlink.bandwidth_per_direction == 450 * 10**9
    assert gpu.network is not None and gpu.network.bandwidth_per_direction == 50 * 10**9
    assert c.workload(WORKLOAD).batch == 512 and c.workload(WORKLOAD).sequence == 8192


@pytest.mark.parametrize(
    "layout", ["tp1-pp1-dp16-z3-mb1-none", "tp8-pp1-dp2-z1-mb1-none-sp", "tp2-pp2-dp4-z1-mb2-full-nosp"]
)
def test_every_plan_figure_is_the_planners_own_number(layout: str) -> None:
    hardware, run = _by_hand(WORKLOAD)
    shape = transformer_shape(catalog().model("llama-3-8b"))
    fixed = fixed_fields(layout)
    lay = planner.Layout(**{"sequence_parallel": False, **fixed})  # type: ignore[arg-type]
    plan = planner.evaluate(shape, hardware, run, lay)
    assert isinstance(plan, planner.Plan)
    figure = KINDS["plan_memory"].figure
    for role, value in plan.memory.by_role().items():
        assert figure(catalog(), WORKLOAD, layout, role).value == value
    assert KINDS["plan_fill"].figure(catalog(), WORKLOAD, layout).value == plan.memory.total / plan.capacity
    for part, seconds in plan.time.by_part().items():
        assert KINDS["plan_time"].figure(catalog(), WORKLOAD, layout, part).value == seconds
    assert KINDS["plan_time"].figure(catalog(), WORKLOAD, layout).value == plan.step_seconds
    rate = KINDS["plan_rate"].figure
    assert rate(catalog(), WORKLOAD, layout).value == plan.tokens_per_second
    assert rate(catalog(), WORKLOAD, layout, "mfu").value == plan.share_of_peak
    assert plan.gpu_hours is not None
    assert rate(catalog(), WORKLOAD, layout, "gpu_seconds").value == plan.gpu_hours * 3600
    assert rate(catalog(), WORKLOAD, layout, "run_seconds").value == plan.gpu_hours * 3600 / hardware.gpus


def test_a_searched_layout_is_the_planners_first_that_fits_and_its_degrees_are_shown() -> None:
    hardware, run = _by_hand(WORKLOAD)
    shape = transformer_shape(catalog().model("llama-3-8b"))
    best = next(p for p in planner.plan(shape, hardware, run).plans if p.fits)
    degree = KINDS["plan_degree"].figure
    for field in ("tp", "pp", "dp", "zero", "micro_batch", "chunks"):
        assert degree(catalog(), WORKLOAD, "best", field).value == getattr(best.layout, field)
    assert degree(catalog(), WORKLOAD, "best", "microbatches").value == 512 // (
        best.layout.dp * best.layout.micro_batch
    )
    assert KINDS["plan_time"].figure(catalog(), WORKLOAD, "best").id == f"plan-time/{WORKLOAD}/best"


def test_the_share_of_peak_is_an_argument_and_the_planners_default_is_the_figures() -> None:
    slow = KINDS["plan_time"].figure(catalog(), WORKLOAD, "tp1-pp1-dp16-z3-mb1-none", "compute", 25).value
    fast = KINDS["plan_time"].figure(catalog(), WORKLOAD, "tp1-pp1-dp16-z3-mb1-none", "compute").value
    assert slow == 2 * fast


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ("tp3", "breaks a rule"),
        ("zz3", "unknown layout field"),
        ("tp2-tp4", "twice"),
        ("", "a layout is"),
        # Attack round 7: '²' crashed int(), '٢' and '𝟖' read as 2 and 8, a 0 degree divided by zero.
        ("tp²-cp2", "unknown layout field 'tp²'"),
        ("tp٢-cp2", "unknown layout field 'tp٢'"),
        ("tp𝟖", "unknown layout field 'tp𝟖'"),
        ("cp0-hsdp", "a degree or size is at least 1"),
        ("pp0", "a degree or size is at least 1"),
        # Hybrid sharding fixed searches ZeRO-3 alone: the rule named is the one that stops it, not ZeRO-0's.
        ("tp8-hsdp", "nothing to shard within one"),
    ],
)
def test_a_bad_layout_is_refused_with_the_rule_or_the_grammar(layout: str, message: str) -> None:
    with pytest.raises((ValueError, FigureKindError), match=message):
        KINDS["plan_memory"].figure(catalog(), WORKLOAD, layout)


def test_a_workload_that_fits_nowhere_says_so() -> None:
    with pytest.raises(ValueError, match="fits in the GPU's memory"):
        KINDS["plan_time"].figure(catalog(), "llama3-70b-h100-2-nodes", "best")


def test_the_scaling_books_data_parallel_condition_is_c_over_w() -> None:
    # 16-bit gradients all-reduced behind the backward pass's 4 FLOPs per parameter, many replicas: C·s/W.
    value = conditions.hiding_tokens(2, 10**12, 4, 989 * 10**12, Fraction(1, 2), 50 * 10**9, allreduce=True)
    assert abs(value - Fraction(989 * 10**12, 2 * 50 * 10**9)) < Fraction(1, 10**6)


def test_the_scaling_books_tensor_condition_is_f_w_over_c_for_its_mlp() -> None:
    # A layer of two blocks the size of its MLP (two h × F matrices, 2hF parameters), each waiting for one
    # all-reduce, the bytes of the book's all-gather and reduce-scatter: 1 + F·W/C, the book's Y < F/(C/W) plus one.
    hidden, ffn, peak, bandwidth = 4096, 14336, 989 * 10**12, 450 * 10**9
    limit = conditions.tensor_degree_limit(2 * (2 * hidden * ffn), hidden, peak, Fraction(1), bandwidth)
    assert limit == 1 + Fraction(ffn * bandwidth, peak)


def test_on_either_side_of_the_zero3_bound_the_planner_hides_or_exposes_its_traffic() -> None:
    # ZeRO-3 over 16 GPUs on two nodes: at a share of peak where a micro-batch of one sequence holds more tokens
    # than the bound, nothing is exposed; at a higher bound (a faster GPU's compute, here a share of peak twenty
    # times as high relative to the network, via a slower port), its traffic shows.
    layout = "tp1-pp1-dp16-z3-mb1-none"
    below = KINDS["hiding_tokens"].figure(catalog(), WORKLOAD, layout, "zero3").value
    assert below < 8192
    assert KINDS["plan_time"].figure(catalog(), WORKLOAD, layout, "data").value == 0
    hardware, run = _by_hand(WORKLOAD)
    shape = transformer_shape(catalog().model("llama-3-8b"))
    slow_port = planner.Hardware(**{**hardware.__dict__, "network_bandwidth": hardware.network_bandwidth // 20})
    plan = planner.evaluate(shape, slow_port, run, planner.Layout(**fixed_fields(layout)))  # type: ignore[arg-type]
    assert isinstance(plan, planner.Plan) and plan.time.data > 0
    assert below * 20 > 8192  # the bound on the slow port is above the micro-batch's tokens


@pytest.mark.parametrize("recompute", ["none", "full"])
def test_zero3s_backward_traffic_hides_only_behind_the_backward_pass(recompute: str) -> None:
    # ZeRO-3 over 16 GPUs on two nodes, through ports slowed until the backward pass's gather and reduce-scatter
    # take `scale` times the backward's compute (by hand: (d − 1)/d of k_p + k_g bytes per parameter, each GPU's
    # share of its node's eight ports). Just past it, traffic shows, though without recomputation the two passes'
    # compute pooled would still outlast both passes' traffic; just short of it, none shows. The bound turns
    # over where the planner does.
    layout = f"tp1-pp1-dp16-z3-mb1-{recompute}"
    hardware, run = _by_hand(WORKLOAD)
    shape = transformer_shape(catalog().model("llama-3-8b"))
    fixed = planner.Layout(**fixed_fields(layout))  # type: ignore[arg-type]
    plan = planner.evaluate(shape, hardware, run, fixed)
    assert isinstance(plan, planner.Plan)
    microbatches = run.global_batch // run.sequence // 16
    forward_share = Fraction(2, 8 if recompute == "full" else 6)
    backward = plan.time.compute / microbatches * (1 - forward_share)
    roles = role_bytes_per_parameter(run.recipe)
    sent = Fraction(15, 16) * (roles["parameters"] + roles["gradients"]) * parameter_count(shape).total
    margin = Fraction(KINDS["hiding_margin"].figure(catalog(), WORKLOAD, layout, "zero3").value)
    for scale, exposed in ((Fraction(105, 100), True), (Fraction(95, 100), False)):
        port = sent / 8 / (scale * backward)
        slowed = planner.Hardware(**{**hardware.__dict__, "network_bandwidth": port})
        slow = planner.evaluate(shape, slowed, run, fixed)
        assert isinstance(slow, planner.Plan), slow
        assert (slow.time.data > 0) is exposed, (scale, slow.time.data)
        # The bound scales as 1/W: on this port the micro-batch holds 1/scale of it.
        assert abs(margin * port / hardware.network_bandwidth - 1 / scale) < Fraction(1, 10**6)


def test_the_hiding_margin_is_the_micro_batchs_tokens_over_the_unrounded_bound() -> None:
    # Table 2's ZeRO-3 runs of GPT-3 (Megatron-style, fp32 gradients, at the A100's full peak): one sequence per GPU
    # on 1,536 GPUs is about 1.35 times the bound, four on 384 about 5.4 times; the margin is 1 at the bound.
    cases = {
        ("gpt3-ptd", "tp1-pp1-dp1536-z3-mb1-full"): (2048, Fraction(135, 100)),
        ("gpt3-384", "tp1-pp1-dp384-z3-mb4-full"): (4 * 2048, Fraction(541, 100)),
    }
    for (workload, layout), (tokens, about) in cases.items():
        margin = Fraction(KINDS["hiding_margin"].figure(catalog(), workload, layout, "zero3", 100).value)
        bound = Fraction(KINDS["hiding_tokens"].figure(catalog(), workload, layout, "zero3", 100).value)
        assert abs(margin - about) < Fraction(1, 100)
        assert bound - 1 < tokens / margin <= bound  # the bound is shown rounded up to whole tokens


def test_a_context_parallel_layouts_margin_counts_its_cp_th_of_the_micro_batch_over_dp_times_cp() -> None:
    """Each of a context group's GPUs holds a cp-th of the micro-batch's tokens, and the gradients are reduced over
    dp × cp: the figure is the margin the planner ranks with (`Plan.hiding`), not the whole micro-batch's."""
    layout = "tp1-pp1-dp32-cp4-z3-mb1-none"
    shape = transformer_shape(catalog().model("llama-3-8b"))
    hardware, run = _by_hand("llama3-8b-h100-16-nodes")
    found = planner.evaluate(shape, hardware, run, planner.Layout(1, 1, 32, zero=3, cp=4))
    assert isinstance(found, planner.Plan) and found.hiding is not None
    margin = Fraction(KINDS["hiding_margin"].figure(catalog(), "llama3-8b-h100-16-nodes", layout, "zero3").value)
    assert margin == found.hiding.margin
    assert margin * found.hiding.tokens == 8192 // 4


def test_a_hybrid_layouts_margin_is_the_planners_for_each_of_its_two_traffics() -> None:
    """Hybrid sharding's ZeRO-3 within a node over NVLink and its shards' all-reduce across nodes: each figure is
    the bound the planner hides by (`planner.hiding_bound` with the layout), its binding one the plan's margin."""
    layout = "tp1-pp1-dp16-z3-mb1-none-hsdp"
    shape = transformer_shape(catalog().model("llama-3-8b"))
    hardware, run = _by_hand("llama3-8b-h100-2-nodes")
    found = planner.evaluate(shape, hardware, run, planner.Layout(1, 1, 16, zero=3, hybrid=True))
    assert isinstance(found, planner.Plan) and found.hiding is not None
    count = parameter_count(shape)
    margins = {}
    for traffic in ("zero3", "allreduce"):
        figure = KINDS["hiding_margin"].figure(catalog(), "llama3-8b-h100-2-nodes", layout, traffic)
        bound = planner.hiding_bound(shape, count, hardware, run, found.layout, traffic)
        assert Fraction(figure.value) == 8192 / bound
        margins[traffic] = Fraction(figure.value)
    assert found.hiding.margin == min(margins.values())
    assert (
        "within a node's F = 8 ranks"
        in KINDS["hiding_margin"].figure(catalog(), "llama3-8b-h100-2-nodes", layout, "zero3").explanation
    )


def test_beyond_the_tensor_degree_limit_the_forward_all_reduces_outlast_the_forward_compute() -> None:
    count = parameter_count(transformer_shape(catalog().model("llama-3-8b")))
    limit = KINDS["tensor_degree_limit"].figure(catalog(), WORKLOAD).value
    hidden, peak, bandwidth = 4096, Fraction(989 * 10**12, 2), 450 * 10**9
    for t in (2, 4, 8, 16, 32):
        compute = Fraction(2 * count.layer.total, t) / peak  # per token, a layer's forward pass on one GPU
        waits = 2 * Fraction(2 * (t - 1), t) * 2 * hidden / bandwidth  # two all-reduces of h 16-bit values
        assert (waits > compute) == (t > limit), t


def test_the_model_cards_gpu_hours_stand_for_a_share_of_peak_by_the_planners_count() -> None:
    shape = transformer_shape(catalog().model("llama-3-8b"))
    per_token = planner.flops_per_token(shape, parameter_count(shape), 8192, "none")
    value = KINDS["plan_implied_share"].figure(catalog(), WORKLOAD, "llama3-8b-gpu-hours").value
    assert value == Fraction(per_token * 15 * 10**12, 1_300_000 * 3600 * 989 * 10**12)
