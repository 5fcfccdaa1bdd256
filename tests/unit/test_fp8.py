"""Lesson 15's FP8 recipe, counted by hand from DeepSeek-V3's §3.3.3, and its figures' values and ids."""

from __future__ import annotations

import pytest

from macros import model
from macros.figures.figure import Figure
from macros.figures.kinds import KINDS
from tests.conftest import catalog


def figure(name: str, *arguments: object) -> Figure:
    return KINDS[name].figure(catalog(), *arguments)


def test_deepseek_v3s_recipe_is_its_fp32_master_and_gradients_and_bf16_moments() -> None:
    # §3.3.3: master weights and gradients "retained in FP32" (4 + 4 bytes), AdamW's "first and second moments"
    # in BF16 (2 + 2 bytes): 12 bytes per parameter.
    recipe = model.recipe("deepseek-v3-fp8")
    assert dict(recipe.states) == {"fp32_parameters": 4, "fp32_gradients": 4, "bf16_momentum": 2, "bf16_variance": 2}
    assert recipe.bytes_per_parameter == 12


def test_the_fp8_recipe_is_counted_but_not_offered_to_the_calculator_or_the_planner() -> None:
    """Both tools read a recipe's first state as the format of its passes; FP8's passes are no one format."""
    assert "deepseek-v3-fp8" not in model.RECIPES
    assert "deepseek-v3-fp8" in model.COUNTED_RECIPES


def test_the_fp8_recipes_figures_and_ids() -> None:
    total = figure("bytes_per_parameter", "all", "deepseek-v3-fp8")
    assert (total.id, total.value, total.unit) == ("bytes-per-parameter/all/deepseek-v3-fp8", 12, "B")
    moments = figure("bytes_per_parameter", "bf16_momentum", "deepseek-v3-fp8")
    assert (moments.id, moments.value) == ("bytes-per-parameter/bf16_momentum/deepseek-v3-fp8", 2)
    # DeepSeek-V3's 671B parameters (§4.2) at 12 bytes each: 8,052 GB of model states before sharding.
    states = figure("model_states", "deepseek-v3", "all", "deepseek-v3-fp8")
    assert (states.id, states.value) == ("model-states/deepseek-v3/all/deepseek-v3-fp8", 8_052 * 10**9)
    # Against bf16 Adam with fp32 gradients, 18 bytes (2 + 4 + 4 + 4 + 4): 6 fewer, of which the moments are 4.
    assert figure("bytes_per_parameter", "all", "bf16-adam").value - total.value == 6


def test_an_fp8_recipe_has_no_state_it_does_not_keep() -> None:
    with pytest.raises(KeyError, match="unknown model state 'fp32_momentum' of deepseek-v3-fp8"):
        model.state_bytes_per_parameter("fp32_momentum", "deepseek-v3-fp8")
