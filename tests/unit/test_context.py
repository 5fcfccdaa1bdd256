"""Context parallelism's arithmetic (`model.context`) against independent arithmetic and its sources."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from macros.data.catalog import load_catalog
from macros.figures.kinds import KINDS
from macros.figures.kinds import context as kinds
from macros.model import activations, context

CATALOG = load_catalog(Path(__file__).parents[2] / "catalog")


def test_one_device_keeps_korthikantis_equation_1() -> None:
    # GPT-3 (h = 12288, a = 96) at s = 2048, b = 1: Equation 1 as activations.py computes it.
    for scores, recompute in (("stored", "none"), ("fused", "selective")):
        assert context.activation_bytes_per_device(2048, 1, 12288, 96, 1, scores=scores) == (
            activations.activation_bytes_per_layer(2048, 1, 12288, 96, recompute)
        )


def test_each_device_keeps_a_cth_of_every_tensor() -> None:
    # 34 bytes × 16384 tokens × 12288, then ÷ 8 devices; the scores 5 × 96 × 16384² ÷ 8.
    assert context.activation_bytes_per_device(16384, 1, 12288, 96, 8) == 34 * 2048 * 12288
    assert context.activation_bytes_per_device(16384, 1, 12288, 96, 8, scores="stored") == (
        34 * 2048 * 12288 + 5 * 96 * 2048 * 16384
    )
    assert context.activation_bytes_per_device(16384, 1, 12288, 96, 8, tensor=8) == Fraction(34 * 2048 * 12288, 8)


def test_a_degree_that_does_not_divide_the_sequence_is_refused() -> None:
    with pytest.raises(ValueError, match=r"context-parallel degree \(3\) must divide the sequence length \(8192\)"):
        context.tokens_per_device(8192, 3)


def test_a_block_is_the_keys_and_values_of_its_tokens() -> None:
    # Llama 3 70B: 8 key-value heads of 8192/64 = 128 values; 8192 tokens; 2 tensors × 2 bytes.
    assert context.kv_width(8192, 64, 8) == 1024
    assert context.kv_block_bytes(8192, 1, 8192, 64, 8) == 2 * 8192 * 1024 * 2 == 33_554_432
    # Without grouped-query attention the same block is 8 times larger.
    assert context.kv_block_bytes(8192, 1, 8192, 64, 64) == 8 * 33_554_432


def test_the_ring_sends_c_minus_1_blocks_forward_and_twice_that_backward() -> None:
    block = context.kv_block_bytes(8192, 1, 16384, 128, 8)
    assert context.ring_bytes_per_layer(131072, 1, 16384, 128, 8, 16, "block") == block
    assert context.ring_bytes_per_layer(131072, 1, 16384, 128, 8, 16, "forward") == 15 * block
    assert context.ring_bytes_per_layer(131072, 1, 16384, 128, 8, 16, "backward") == 30 * block
    assert context.ring_bytes_per_layer(131072, 1, 16384, 128, 8, 1) == 0


def test_the_hiding_condition_is_f_over_w_for_multi_head_attention() -> None:
    # e = 2, h_kv = h: s/c ≥ F/W.
    assert context.hiding_tokens(12288, 96, 96, 989 * 10**12, 450 * 10**9) == Fraction(989 * 10**12, 450 * 10**9)
    # Grouped-query attention divides it by heads/kv_heads; a causal mask doubles it.
    assert context.hiding_tokens(8192, 64, 8, 989 * 10**12, 450 * 10**9, "causal") == Fraction(2, 8) * Fraction(
        989 * 10**12, 450 * 10**9
    )


def test_at_the_bound_the_transfer_and_the_computation_take_as_long() -> None:
    peak, link = 989 * 10**12, 50 * 10**9
    tokens = context.hiding_tokens(8192, 64, 8, peak, link)
    # A block of `tokens` tokens: 4 × tokens² × h FLOPs against 2 × tokens × h_kv × 2 bytes.
    compute = Fraction(4) * tokens * tokens * 8192 / peak
    transfer = Fraction(2 * 2 * 1024) * tokens / link
    assert compute == transfer


def test_the_contiguous_split_loads_the_last_device_most_and_zigzag_evens_it() -> None:
    shares = [context.causal_work(r, 4, False) for r in range(4)]
    assert shares == [Fraction(1, 32), Fraction(3, 32), Fraction(5, 32), Fraction(7, 32)]
    assert sum(shares) == Fraction(1, 2)  # the causal mask keeps half of the s² pairs (and the diagonal's half)
    assert [context.causal_work(r, 4, True) for r in range(4)] == [Fraction(1, 8)] * 4


def test_ulysses_needs_a_degree_that_divides_the_heads() -> None:
    assert context.ulysses_degree_fits(8, 64, 8)
    assert not context.ulysses_degree_fits(16, 64, 8)  # Llama 3 70B's 8 key-value heads
    assert not context.ulysses_degree_fits(5, 64, 8)


def test_the_kinds_are_registered_with_their_ids() -> None:
    for name in (
        "cp_activations",
        "ring_kv_bytes",
        "ring_hiding_tokens",
        "causal_work",
        "cp_tokens",
        "cp_hiding_margin",
    ):
        assert name in KINDS


def test_llama_3s_long_context_run_holds_8192_tokens_per_device() -> None:
    # Table 4: sequence 131,072 over CP 16.
    assert kinds.cp_tokens(CATALOG, "llama3-405b-long-context").value == 131072 // 16 == 8192


def test_the_hiding_tokens_of_the_catalogs_h100_round_up() -> None:
    figure = kinds.ring_hiding_tokens(CATALOG, "llama-3-70b", "h100-sxm5", "nvlink-h100")
    # 8/64 × 989e12 / 450e9 = 274.7…, rounded up.
    assert figure.value == 275 and figure.unit == "1"
    causal = kinds.ring_hiding_tokens(CATALOG, "llama-3-405b", "h100-sxm5", "connectx7-400g", "causal")
    assert causal.value == 2473  # 2 × 8/128 × 989e12 / 50e9 = 2472.5


def test_a_workloads_figures_take_its_own_sequence_and_degree() -> None:
    # Table 4's run: 131,072 tokens over 16 devices, 8 key-value heads of 128 values over 8-way tensor parallelism,
    # so one head per GPU: 15 blocks of keys and values of 8,192 tokens, 2 bytes each.
    assert kinds.ring_kv_bytes(CATALOG, "llama3-405b-long-context").value == 15 * 2 * 8192 * (8 // 8 * 128) * 2
    with pytest.raises(KeyError, match="has its own sequence"):
        kinds.ring_kv_bytes(CATALOG, "llama3-405b-long-context", "forward", 8192, 2)


def test_the_ring_gives_every_device_every_block_once() -> None:
    schedule = context.ring_schedule(4)
    assert schedule[0] == (0, 1, 2, 3)  # each device's own block first
    assert schedule[1] == (3, 0, 1, 2)  # then the block of the device before it
    for device in range(4):
        assert sorted(step[device] for step in schedule) == [0, 1, 2, 3]
