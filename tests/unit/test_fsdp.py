"""FSDP's arithmetic against Zhao et al. 2023 (arXiv 2304.11277), PyTorch's documentation and NCCL's rings.

Expected values are typed from the sources or worked by hand beside them.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from macros import model
from macros.figures.kinds import KINDS
from tests.conftest import catalog


@pytest.mark.parametrize(
    ("strategy", "factor"),
    [  # §3.2: F = 1 "fully replicates the model"; F = W "fully shards the model"; hybrid between.
        ("no-shard", 1),
        ("full-shard", 16),
        ("shard-grad-op", 16),
        ("hybrid-shard", 8),
    ],
)
def test_sharding_factor(strategy: str, factor: int) -> None:
    assert model.sharding_factor(strategy, world=16, per_host=8) == factor


def test_hybrid_sharding_matches_figure_4() -> None:
    # Figure 4: "Hybrid Sharding on 16 GPUs: GPUs are configured into 2 sharding groups and 8
    # replication groups". §3.2.2 numbers the sharding groups S_1..S_{W/F} and the replication
    # groups R_1..R_F, so W/F = 2 and F = 8: the GPUs of one host, not the printed F = W/G = 2.
    factor = model.sharding_factor("hybrid-shard", world=16, per_host=8)
    assert (16 // factor, factor) == (2, 8)


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("no-shard", Fraction(2 * 15, 16)),  # full replication: 2M(W − 1)/W
        ("full-shard", Fraction(3 * 15, 16)),  # full sharding: 3M(W − 1)/W
        ("hybrid-shard", Fraction(2 * 15, 8 * 16)),  # hybrid: 2M(W − 1)/(GW), as printed
    ],
)
def test_cross_host_traffic_as_printed(strategy: str, expected: Fraction) -> None:
    assert model.cross_host_traffic(1, strategy, world=16, per_host=8) == expected


def test_full_sharding_sends_one_and_a_half_times_full_replication() -> None:
    # §3.2.1: "full sharding has 1.5x communication overhead and volume over DDP".
    ratio = model.cross_host_traffic(7, "full-shard", 64, 8) / model.cross_host_traffic(7, "no-shard", 64, 8)
    assert ratio == Fraction(3, 2)


def test_printed_full_sharding_is_each_gpus_whole_ring_traffic() -> None:
    # 3M(W − 1)/W: two all-gathers and a reduce-scatter, each sending (W − 1)/W of M from every GPU, as a ring
    # all-reduce (a reduce-scatter and an all-gather) sends 2M(W − 1)/W, counted hop by hop.
    assert model.cross_host_traffic(16, "full-shard", 16, 8) == Fraction(3, 2) * model.ring_allreduce_bytes_sent(16, 16)


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [  # With P = R = 1 byte, W = 16 GPUs in hosts of G = 8: the printed formulas of full replication and
        # full sharding divided by G, and 2R(W − G)/(GW) for hybrid sharding.
        ("no-shard", Fraction(2 * 15, 8 * 16)),
        ("full-shard", Fraction(3 * 15, 8 * 16)),
        ("shard-grad-op", Fraction(2 * 15, 8 * 16)),
        ("hybrid-shard", Fraction(2 * 8, 8 * 16)),
    ],
)
def test_traffic_per_port_of_rings_laid_out_host_by_host(strategy: str, expected: Fraction) -> None:
    assert model.cross_host_traffic_per_port(1, 1, strategy, world=16, per_host=8) == expected


def test_each_port_carries_a_gs_share_of_each_gpus_ring_traffic() -> None:
    # NVIDIA measures 192 GB/s all-reduce bus bandwidth (each GPU's ring traffic per second) on a DGX A100
    # with 8 × 200 Gbit/s ports (NVIDIA/nccl#812): G ports each carry 1/G of what each GPU sends round the ring.
    per_port = model.cross_host_traffic_per_port(640, 640, "no-shard", world=32, per_host=8)
    assert 8 * per_port == model.ring_allreduce_bytes_sent(640, 32)


def test_full_replication_per_port_is_what_the_paper_prints_for_hybrid_sharding() -> None:
    # §3.2.2 prints 2M(W − 1)/(GW) for hybrid sharding; rings laid out host by host give it to full replication.
    assert model.cross_host_traffic_per_port(96, 96, "no-shard", 24, 8) == model.cross_host_traffic(
        96, "hybrid-shard", 24, 8
    )


def test_hybrid_traffic_counted_from_the_scheme() -> None:
    # Each GPU all-reduces an M/8 shard over the 2 hosts: a ring of 2 sends the data once, M/8.
    assert model.cross_host_traffic_per_port(800, 800, "hybrid-shard", world=16, per_host=8) == 100


def test_printed_hybrid_formula_exceeds_the_count_by_w_minus_1_over_w_minus_g() -> None:
    printed = model.cross_host_traffic(1, "hybrid-shard", 64, 8)
    counted = model.cross_host_traffic_per_port(1, 1, "hybrid-shard", 64, 8)
    assert printed / counted == Fraction(64 - 1, 64 - 8)


@pytest.mark.parametrize(("baseline", "limit"), [("no-shard", 1), ("full-shard", Fraction(3, 2))])
def test_hybrid_sharding_saves_less_and_less_per_port_as_hosts_are_added(baseline: str, limit: Fraction) -> None:
    # (W − 1)/(W − G) against full replication, 3(W − 1)/(2(W − G)) against full sharding.
    savings = [
        model.cross_host_traffic_per_port(8, 8, baseline, 8 * hosts, 8)
        / model.cross_host_traffic_per_port(8, 8, "hybrid-shard", 8 * hosts, 8)
        for hosts in (2, 4, 16, 1024)
    ]
    assert savings == sorted(savings, reverse=True)
    assert savings[0] == limit * Fraction(15, 8)
    assert limit < savings[-1] < limit * Fraction(1001, 1000)


def test_reducing_in_fp32_doubles_the_gradients_traffic() -> None:
    # P = 2 bytes (bf16), R = 4 bytes (fp32): an all-reduce of R, and (2P + R) for full sharding.
    assert model.cross_host_traffic_per_port(2, 4, "no-shard", 16, 8) == 2 * model.cross_host_traffic_per_port(
        2, 2, "no-shard", 16, 8
    )
    assert model.cross_host_traffic_per_port(2, 4, "full-shard", 16, 8) == Fraction((2 * 2 + 4) * 15, 8 * 16)


@pytest.mark.parametrize("strategy", ["no-shard", "full-shard", "shard-grad-op", "hybrid-shard"])
def test_nothing_crosses_hosts_on_one_host(strategy: str) -> None:
    assert model.cross_host_traffic_per_port(64, 64, strategy, world=8, per_host=8) == 0


def test_the_printed_hybrid_formula_is_not_nothing_on_one_host() -> None:
    # One host: nothing crosses hosts; the printed 2M(W − 1)/(GW) still gives 2M·7/64.
    assert model.cross_host_traffic(64, "hybrid-shard", world=8, per_host=8) == 14


@pytest.mark.parametrize(
    ("strategy", "turn", "end"),
    [  # At the turn from forward to backward: fp32 parameter 4 and Adam 8, ÷ F, no gradients yet
        # (zero_grad(set_to_none=True)), plus the whole 2-byte model where every unit is still gathered
        # (SHARD_GRAD_OP). At the end of the backward: the fp32 gradient 4 too, and no unit gathered
        # (FSDP1's _should_free_in_backward frees each one after its backward; NO_SHARD's post_reshard
        # frees its cast copy after each forward and backward).
        ("full-shard", Fraction(12, 8), Fraction(16, 8)),
        ("shard-grad-op", Fraction(12, 8) + 2, Fraction(16, 8)),
        ("hybrid-shard", Fraction(12, 8), Fraction(16, 8)),
        ("no-shard", Fraction(12), Fraction(16)),
    ],
)
def test_state_bytes_per_parameter_on_one_host(strategy: str, turn: Fraction, end: Fraction) -> None:
    assert model.fsdp_state_bytes(1000, strategy, 8, 8, "turn") == 1000 * turn
    assert model.fsdp_state_bytes(1000, strategy, 8, 8, "end-of-backward") == 1000 * end
    assert model.fsdp_state_bytes(1000, strategy, 8, 8) == 1000 * end  # the end of the backward by default


def test_no_strategy_holds_the_low_precision_model_at_the_end_of_a_backward_that_reduces() -> None:
    # Every strategy's end-of-backward states are the sharded 16 bytes, whatever it kept at the turn, for the
    # step's only micro-batch and for a later one of a step that reduces every micro-batch.
    for strategy in model.STRATEGIES:
        factor = model.sharding_factor(strategy, 16, 8)
        for accumulation in ("none", "synced"):
            assert model.fsdp_state_bytes(1600, strategy, 16, 8, "end-of-backward", accumulation) == Fraction(
                16 * 1600, factor
            )


@pytest.mark.parametrize(
    ("strategy", "synced", "no_sync"),
    [  # At the turn of a later micro-batch, F = 8. Reduced every micro-batch: the sharded fp32 gradients are
        # there (FSDP1's _accumulate_sharded_grad, FSDP2's sharded .grad), 16/8, plus SHARD_GRAD_OP's 2 gathered.
        # Inside FSDP1's no_sync(): "the full model gradients (instead of gradient shards)", unsharded and in
        # bf16, 2, beside 12/8; SHARD_GRAD_OP's units stay gathered (_should_free_in_backward), 2 more.
        ("full-shard", Fraction(16, 8), Fraction(12, 8) + 2),
        ("shard-grad-op", Fraction(16, 8) + 2, Fraction(12, 8) + 2 + 2),
        ("hybrid-shard", Fraction(16, 8), Fraction(12, 8) + 2),
        ("no-shard", Fraction(16), Fraction(12) + 2),
    ],
)
def test_a_later_micro_batch_meets_its_turn_with_the_gradients_accumulated_so_far(
    strategy: str, synced: Fraction, no_sync: Fraction
) -> None:
    assert model.fsdp_state_bytes(1000, strategy, 8, 8, "turn", "synced") == 1000 * synced
    assert model.fsdp_state_bytes(1000, strategy, 8, 8, "turn", "no-sync") == 1000 * no_sync
    # A backward inside no_sync() reduces nothing and, under FSDP1, frees nothing that the turn held.
    assert model.fsdp_state_bytes(1000, strategy, 8, 8, "end-of-backward", "no-sync") == 1000 * no_sync


def test_accumulating_gradients_inside_no_sync_costs_more_than_reducing_them_beyond_two_gpus() -> None:
    # The whole model's 2-byte gradients against a 4-byte shard of them: the same at F = 2, more beyond.
    for world in (2, 8, 64):
        synced = model.fsdp_state_bytes(64, "full-shard", world, 2, "turn", "synced")
        no_sync = model.fsdp_state_bytes(64, "full-shard", world, 2, "turn", "no-sync")
        assert no_sync >= synced and (no_sync > synced) == (world > 2)


def test_the_parts_held_are_named() -> None:
    held = model.fsdp_held_states("shard-grad-op", "turn", "no-sync")
    assert [name for name, _ in held.sharded] == ["fp32 parameters", "Adam's two states"]
    assert [name for name, _ in held.whole] == [
        "low-precision parameters, every unit still gathered",
        "the whole model's unsharded low-precision gradients",
    ]


def test_an_unknown_moment_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown moment 'peak'; known: turn, end-of-backward"):
        model.fsdp_state_bytes(1000, "full-shard", 8, 8, "peak")


def test_an_unknown_accumulation_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown accumulation 'ddp'; known: none, synced, no-sync"):
        model.fsdp_state_bytes(1000, "full-shard", 8, 8, "turn", "ddp")


def test_the_largest_micro_batch_fits_beside_the_states_at_the_turn() -> None:
    # FULL_SHARD on 8 GPUs, Ψ = 1,000: 1,500 bytes at the turn, 2,000 at the end of the backward. In 10,000
    # bytes, sequences of 2,000 bytes: ⌊8,500 / 2,000⌋ = 4 (counted beside the end's 2,000, only 4).
    assert model.fsdp_largest_micro_batch(10_000, 1000, "full-shard", 8, 8, Fraction(2000)) == 4
    # SHARD_GRAD_OP keeps 2,000 more at the turn: ⌊6,500 / 2,000⌋ = 3.
    assert model.fsdp_largest_micro_batch(10_000, 1000, "shard-grad-op", 8, 8, Fraction(2000)) == 3


def test_no_micro_batch_fits_where_the_end_of_the_backward_does_not() -> None:
    # NO_SHARD, Ψ = 1,000: 12,000 bytes at the turn would leave room in 13,000, but the 16,000 at the end do not fit.
    assert model.fsdp_largest_micro_batch(13_000, 1000, "no-shard", 8, 8, Fraction(100)) == 0


def test_accumulating_micro_batches_fit_fewer_sequences_beside_the_gradients_held() -> None:
    # FULL_SHARD on 8 GPUs, Ψ = 1,000, 9,900 bytes, sequences of 2,000: a step's first turn holds 1,500,
    # ⌊8,400 / 2,000⌋ = 4; a later one 2,000 when every micro-batch reduces, ⌊7,900 / 2,000⌋ = 3; inside
    # no_sync() 1,500 + 2,000 of unsharded gradients, ⌊6,400 / 2,000⌋ = 3.
    fits = [
        model.fsdp_largest_micro_batch(9_900, 1000, "full-shard", 8, 8, Fraction(2000), accumulation)
        for accumulation in model.ACCUMULATIONS
    ]
    assert fits == [4, 3, 3]


def test_no_sync_still_needs_room_for_the_last_micro_batchs_reduced_gradients() -> None:
    # NO_SHARD, Ψ = 1,000, inside no_sync(): 14,000 bytes at the turn fit in 15,000, but the step's last
    # micro-batch reduces the gradients into fp32, 16,000 at the end of its backward, which do not.
    assert model.fsdp_largest_micro_batch(15_000, 1000, "no-shard", 8, 8, Fraction(100), "no-sync") == 0


def test_the_kinds_name_the_micro_batchs_place_in_its_step() -> None:
    states = KINDS["fsdp_states"]
    first = states.figure(catalog(), "llama2-7b-one-host", "full-shard", "turn")
    later = states.figure(catalog(), "llama2-7b-one-host", "full-shard", "turn", "synced")
    assert first.id == "fsdp-states/llama2-7b-one-host/full-shard/turn"
    assert later.id == "fsdp-states/llama2-7b-one-host/full-shard/turn/synced"
    assert (first.computed.formula, later.computed.formula) == ("12Ψ/F", "16Ψ/F")
    assert "later micro-batch, gradients reduced every micro-batch" in later.computed.words
    no_sync = states.figure(catalog(), "llama2-7b-one-host", "shard-grad-op", "turn", "no-sync")
    assert no_sync.computed.formula == "12Ψ/F + 2Ψ + 2Ψ"
    assert "inside FSDP1's no_sync()" in no_sync.computed.words


def test_the_batch_kind_counts_beside_the_turn_of_the_micro_batchs_place() -> None:
    # Llama 2 7B, FULL_SHARD on one host of 8 H100s (81,559 MiB), 34sbhL = 18.25 GB a sequence: 10.1 GB at a
    # step's first turn leaves room for 4; the 13.5 GB of a later turn, with the sharded gradients, for 3.
    batch = KINDS["fsdp_batch"]
    fits = [
        batch.figure(catalog(), "llama2-7b-one-host", "full-shard", "h100-sxm5", "selective", accumulation).value
        for accumulation in model.ACCUMULATIONS
    ]
    assert fits == [4, 3, 3]


#: The engine tier's record of transformers' LlamaDecoderLayer under PyTorch's fused attention, in bf16.
LLAMA_SDPA = "activations-by-tensor/llama2-7b-one-host/selective/llama-sdpa/bf16"


def test_the_batch_kind_takes_a_measured_layers_activations() -> None:
    # The measured layer keeps more than 34sbh: each sequence takes the record's ratio times as many bytes.
    batch = KINDS["fsdp_batch"]
    counted = batch.figure(catalog(), "llama2-7b-two-hosts", "full-shard", "h100-sxm5", "selective")
    measured = batch.figure(
        catalog(), "llama2-7b-two-hosts", "full-shard", "h100-sxm5", "selective", "none", LLAMA_SDPA
    )
    memory = catalog().quantity("h100-sxm5", "memory").value
    states = KINDS["fsdp_states"].figure(catalog(), "llama2-7b-two-hosts", "full-shard", "turn").value
    hidden, heads, layers = (catalog().quantity("llama-2-7b", name).count for name in ("hidden", "heads", "layers"))
    sequence = catalog().quantity("llama2-7b-two-hosts", "sequence").count
    counted_bytes = model.activation_bytes_total(sequence, 1, hidden, heads, layers, "selective")
    per_sequence = counted_bytes * catalog().engine[LLAMA_SDPA].ratio
    assert measured.value == model.sequences_that_fit(Fraction(memory) - states, per_sequence) < counted.value
    assert measured.id == f"{counted.id}/none/{LLAMA_SDPA}"
    assert catalog().engine[LLAMA_SDPA].test in {quantity.where for quantity in measured.computed.inputs}


@pytest.mark.parametrize(
    ("recompute", "layer"), [("none", LLAMA_SDPA), ("selective", "zero-communication/ddp-default/world-4")]
)
def test_the_batch_kind_refuses_a_record_of_another_case(recompute: str, layer: str) -> None:
    with pytest.raises(ValueError, match="is not a layer measured at"):
        KINDS["fsdp_batch"].figure(catalog(), "llama2-7b-one-host", "full-shard", "h100-sxm5", recompute, "none", layer)


def test_fsdp_and_zero_3_shard_the_same_sixteen_bytes_differently() -> None:
    # ZeRO: 2 + 2 + 12 (fp16 parameters and gradients, K = 12); FSDP: 4 + 4 + 8, no lasting 16-bit copy.
    assert model.fsdp_state_bytes(64, "full-shard", 64, 8) == model.zero_state_bytes(64, "os-g-p", 64)


def test_sequences_that_fit_round_down() -> None:
    assert model.sequences_that_fit(100, 30) == 3


def test_no_sequence_fits_in_memory_already_full() -> None:
    assert model.sequences_that_fit(-5, 30) == 0


def test_hosts_must_divide_the_gpus() -> None:
    with pytest.raises(ValueError, match="12 GPUs do not make whole hosts of 8"):
        model.sharding_factor("hybrid-shard", 12, 8)
    with pytest.raises(ValueError, match="12 GPUs do not make whole hosts of 8"):
        model.cross_host_traffic_per_port(1, 1, "no-shard", 12, 8)


def test_the_paper_gives_no_traffic_for_shard_grad_op() -> None:
    with pytest.raises(KeyError, match="gives no traffic for 'shard-grad-op'"):
        model.cross_host_traffic(1, "shard-grad-op", 16, 8)


def test_an_unknown_strategy_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: full-shard, shard-grad-op, hybrid-shard, no-shard"):
        model.fsdp_strategy("FULL_SHARD")


def test_llama_2_7b_count_follows_from_its_config() -> None:
    # meta-llama/Llama-2-7b-hf config.json: hidden_size 4096, intermediate_size 11008, num_hidden_layers 32,
    # vocab_size 32000, tie_word_embeddings false. Untied embedding and output layer, then per layer the
    # four attention projections, the three SwiGLU matrices and two RMSNorm weights, then the final norm.
    hidden, intermediate, layers, vocab = 4096, 11008, 32, 32000
    count = 2 * vocab * hidden + layers * (4 * hidden**2 + 3 * hidden * intermediate + 2 * hidden) + hidden
    assert count == 6_738_415_616
    assert catalog().quantity("llama-2-7b", "parameters").value == count


# ------------------------------------------------------------------ one unit through a step


def test_every_strategy_takes_a_unit_through_the_same_moments() -> None:
    for strategy in model.STRATEGIES:
        assert tuple(m.moment for m in model.fsdp_unit_schedule(strategy)) == (
            "start",
            "forward",
            "after-forward",
            "backward",
            "after-backward",
            "step",
        )


@pytest.mark.parametrize(
    ("strategy", "forward", "backward"),
    [  # ShardingStrategy: FULL_SHARD "unshards (via all-gather) before the forward, ... unshards before the
        # backward computation"; SHARD_GRAD_OP "unshards before the forward, does not reshard them after the
        # forward"; NO_SHARD shards nothing, so it gathers nothing.
        ("full-shard", ("all-gather",), ("all-gather",)),
        ("shard-grad-op", ("all-gather",), ()),
        ("hybrid-shard", ("all-gather",), ("all-gather",)),
        ("no-shard", (), ()),
    ],
)
def test_the_unit_is_all_gathered_before_the_passes_that_find_it_sharded(
    strategy: str, forward: tuple[str, ...], backward: tuple[str, ...]
) -> None:
    moments = {m.moment: m for m in model.fsdp_unit_schedule(strategy)}
    assert moments["forward"].collectives == forward
    assert moments["backward"].collectives == backward
    assert len(forward + backward) == model.fsdp_strategy(strategy).all_gathers


def test_both_passes_compute_with_the_whole_unit() -> None:
    for strategy in model.STRATEGIES:
        moments = {m.moment: m for m in model.fsdp_unit_schedule(strategy)}
        assert moments["forward"].parameters == moments["backward"].parameters == "unsharded"
        assert moments["backward"].gradients == "unsharded"  # the backward pass writes the whole unit's gradients


def test_full_shard_frees_the_unit_after_the_forward_and_shard_grad_op_keeps_it() -> None:
    full = {m.moment: m for m in model.fsdp_unit_schedule("full-shard")}
    grad_op = {m.moment: m for m in model.fsdp_unit_schedule("shard-grad-op")}
    assert (full["after-forward"].parameters, full["after-forward"].frees) == ("sharded", True)
    assert (grad_op["after-forward"].parameters, grad_op["after-forward"].frees) == ("unsharded", False)
    # Both reshard after the backward computation, and rest sharded between steps.
    for moments in (full, grad_op):
        assert moments["after-backward"].frees
        assert moments["start"].parameters == moments["step"].parameters == "sharded"


@pytest.mark.parametrize(
    ("strategy", "reduction", "gradients"),
    [  # FULL_SHARD "synchronizes and shards them (via reduce-scatter)"; NO_SHARD "synchronizes them (via
        # all-reduce)"; HYBRID_SHARD reduce-scatters within the host, then all-reduces across hosts (_reduce_grad).
        ("full-shard", ("reduce-scatter",), "sharded"),
        ("shard-grad-op", ("reduce-scatter",), "sharded"),
        ("hybrid-shard", ("reduce-scatter", "all-reduce"), "sharded"),
        ("no-shard", ("all-reduce",), "unsharded"),
    ],
)
def test_after_the_backward_the_gradients_are_reduced(
    strategy: str, reduction: tuple[str, ...], gradients: str
) -> None:
    after = {m.moment: m for m in model.fsdp_unit_schedule(strategy)}["after-backward"]
    assert after.collectives == reduction
    assert after.gradients == gradients


@pytest.mark.parametrize("strategy", ["full-shard", "shard-grad-op", "no-shard"])
def test_the_schedules_collectives_are_what_each_port_sends(strategy: str) -> None:
    # An all-gather or a reduce-scatter is one pass of the unit over the ring, an all-reduce two: with
    # M = 16 bytes, W = 16 and G = 8, each pass sends M(W − 1)/(GW) per port (cross_host_traffic_per_port).
    passes = sum(
        {"all-gather": 1, "reduce-scatter": 1, "all-reduce": 2}[collective]
        for moment in model.fsdp_unit_schedule(strategy)
        for collective in moment.collectives
    )
    assert passes * Fraction(16 * 15, 8 * 16) == model.cross_host_traffic_per_port(16, 16, strategy, 16, 8)


def test_full_sharding_sends_the_unit_one_and_a_half_times_as_often_as_ddp() -> None:
    # §3.2.1: "full sharding has 1.5x communication overhead and volume over DDP": two all-gathers and a
    # reduce-scatter, against an all-reduce's reduce-scatter and all-gather.
    def passes(strategy: str) -> int:
        collectives = [c for m in model.fsdp_unit_schedule(strategy) for c in m.collectives]
        return len(collectives) + collectives.count("all-reduce")

    assert Fraction(passes("full-shard"), passes("no-shard")) == Fraction(3, 2)


def test_a_schedule_for_an_unknown_strategy_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: full-shard, shard-grad-op"):
        model.fsdp_unit_schedule("zero-3")
