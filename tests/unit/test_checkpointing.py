"""Chen et al. 2016's √n checkpointing, in layers' worth of activations, and what it costs in compute."""

from __future__ import annotations

from fractions import Fraction

import pytest

from macros import model


@pytest.mark.parametrize(("layers", "segments"), [(48, 7), (42, 6), (43, 7), (96, 10), (1, 1), (100, 10)])
def test_segments_are_the_nearest_whole_square_root(layers: int, segments: int) -> None:
    # √48 = 6.93, √42 = 6.48, √43 = 6.56, √96 = 9.80.
    assert model.sqrt_segments(layers) == segments


def test_chen_eq_1_keeps_n_over_k_plus_k() -> None:
    # Chen §4.3, eq. (1): O(n/k) + O(k); "Setting k = √n, we get the cost of O(2√n)".
    assert model.layers_kept(100, 10) == 20
    assert model.checkpointed_share(100) == Fraction(1, 5)


def test_a_segment_holds_whole_layers() -> None:
    # 48 layers in 7 segments: six of 7 layers and one of 6, so 7 rebuilt + 7 stored = 14 layers' worth,
    # 14/48 = 29.17%, where the continuous 48/7 + 7 = 13.86 would give 28.87%.
    assert (model.largest_segment(48, 7), model.layers_kept(48, 7)) == (7, 14)
    assert model.checkpointed_share(48) == Fraction(14, 48)
    # GPT-3's 96 in 10: ten of at most 10 layers, 10 + 10 = 20 of 96, not 9.6 + 10.
    assert model.checkpointed_share(96) == Fraction(20, 96)


def test_the_nearest_square_root_is_a_best_split_into_whole_layers() -> None:
    not_best = [
        layers
        for layers in range(1, 2001)
        if model.layers_kept(layers, model.sqrt_segments(layers))
        != min(model.layers_kept(layers, k) for k in range(1, layers + 1))
    ]
    assert not_best == []


def test_one_more_forward_pass_costs_a_third_more_compute() -> None:
    # 2N more on 2N + 4N per token (Kaplan §2.1's split); Narayanan's 8 over 6.
    assert model.recompute_overhead() == Fraction(1, 3)
    assert Fraction(model.recomputation("full"), model.recomputation("none")) == 1 + model.recompute_overhead()


def test_more_segments_than_layers_is_refused() -> None:
    with pytest.raises(ValueError, match="at most one segment per layer"):
        model.layers_kept(4, 5)
