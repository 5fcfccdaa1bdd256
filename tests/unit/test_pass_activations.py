"""Korthikanti et al.'s activation count at any bytes per value (macros/model/pass_activations.py)."""

from __future__ import annotations

import pytest

from macros.model import activations, pass_activations

SHAPES = [(1024, 8, 1600, 25), (2048, 1, 12288, 96), (4096, 1, 4096, 32)]


@pytest.mark.parametrize("recompute", activations.RECOMPUTE)
@pytest.mark.parametrize("shape", SHAPES)
def test_at_two_bytes_a_value_it_is_the_papers_count(shape: tuple[int, int, int, int], recompute: str) -> None:
    ours = pass_activations.layer_bytes(*shape, recompute, 2)
    assert ours == activations.activation_bytes_per_layer(*shape, recompute)


def test_in_fp32_the_values_double_and_the_masks_do_not() -> None:
    # §4.1's masks: sbh after the attention's projection and after the MLP, as²b after the softmax.
    s, b, h, a = 1024, 8, 1600, 25
    assert pass_activations.layer_bytes(s, b, h, a, "none", 4) == 66 * s * b * h + 9 * a * s * s * b
    assert pass_activations.layer_bytes(s, b, h, a, "selective", 4) == 66 * s * b * h
    assert pass_activations.layer_bytes(s, b, h, a, "full", 4) == 4 * s * b * h


@pytest.mark.parametrize(("recipe", "size"), [("mixed-adam", 2), ("bf16-adam", 2), ("fp32-adam", 4), ("fp32-sgd", 4)])
def test_a_recipes_passes_run_in_its_first_states_precision(recipe: str, size: int) -> None:
    assert pass_activations.passes_bytes_per_value(recipe) == size


def test_an_unknown_choice_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown recompute 'some'; known: none, selective, full"):
        pass_activations.coefficients("some")
