"""Lesson 15: DeepSeek-V3's FP8 recipe counted by hand from its §3.3.3, its figures' values and ids, and one FP8 linear
layer's iteration (Figure 6, §3.3) with its diagram."""

from __future__ import annotations

import pytest

from macros import model
from macros.data.typed_figures import typed_figures
from macros.figures.figure import Figure
from macros.figures.kinds import KINDS
from macros.model.fp8 import fp8_linear_iteration
from macros.model.mixed_precision import Kept
from macros.pictures.diagrams.fp8_linear import fp8_linear_frames
from macros.pictures.diagrams.frames import Cell, frames_html
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


# The iteration of one FP8 linear layer, after DeepSeek-V3's Figure 6 and §3.3, and its diagram.

STEPS = fp8_linear_iteration()


def test_the_iterations_model_states_are_the_recipes() -> None:
    # §3.3.3: fp32 master weights and gradients, bf16 moments; the fp8 copy of the weights is counted nowhere.
    states = {f"{k.precision}_{k.tensor}" for step in STEPS for k in step.held if k.model_state}
    assert states == set(model.recipe("deepseek-v3-fp8").states)


def test_all_three_gemms_read_fp8_and_write_bf16_or_fp32() -> None:
    """§3.3.1: Fprop, Dgrad and Wgrad "accept FP8 tensors as inputs and produce outputs in BF16 or FP32"."""
    by_name = {step.name: step for step in STEPS}
    forward, backward = by_name["forward"], by_name["backward"]
    # Fprop: the fp8 input (kept for Wgrad) and the bf16 output.
    assert {(k.tensor, k.precision) for k in forward.made} == {("activations", "fp8"), ("outputs", "bf16")}
    # Dgrad writes ∂X in bf16, Wgrad ∂W in fp32, both from the output gradient quantized to fp8.
    assert {(k.tensor, k.precision) for k in backward.made} == {
        ("output_gradients", "fp8"),
        ("activation_gradients", "bf16"),
        ("gradients", "fp32"),
    }
    # The fp8 weights both passes multiply by are held through both.
    assert all(Kept("parameters", "fp8", scaled=True) in step.held for step in (forward, backward))


def test_the_cached_input_lives_from_fprop_to_wgrad_in_fp8() -> None:
    holding = [step.name for step in STEPS if any(k.tensor == "activations" for k in step.held)]
    assert holding == ["forward"]
    assert {k.precision for step in STEPS for k in step.held if k.tensor == "activations"} == {"fp8"}


def test_every_fp8_tensor_carries_scaling_factors_and_nothing_wider_does() -> None:
    assert {k.precision for step in STEPS for k in step.held if k.scaled} == {"fp8"}
    assert all(k.scaled for step in STEPS for k in step.held if k.precision == "fp8")


def test_the_diagram_has_a_row_per_precision_and_shows_what_each_holds() -> None:
    frames = fp8_linear_frames()
    assert len(frames.frames) == len(STEPS) == 5
    assert all([d.name for d in frame.devices] == ["fp32", "bf16", "fp8"] for frame in frames.frames)
    start, quantize, forward, backward, update = frames.frames
    assert [c.text for c in start.devices[0].cells] == ["W", "", "", ""]
    assert [c.text for c in start.devices[1].cells] == ["", "", "", "m, v"]
    # The master weights cast to fp8: an arrow from the fp32 row (0) to the fp8 row (2).
    assert quantize.devices[2].cells[0] == Cell("W", "made scaled") and quantize.arrows == ((0, 2),)
    assert forward.devices[2].cells[1] == Cell("X", "made scaled") and forward.devices[1].cells[1] == Cell("Y", "made")
    assert [c.text for c in backward.devices[0].cells] == ["W", "", "∂W", ""]
    assert backward.devices[1].cells[2] == Cell("∂X", "made") and backward.devices[2].cells[2].text == "∂Y"
    # The update writes the fp32 master weights and the bf16 moments; the fp8 copy is left as it was.
    assert update.devices[0].cells[0] == Cell("W", "made") and update.devices[1].cells[3] == Cell("m, v", "made")
    assert update.devices[2].cells[0] == Cell("W", "scaled") and update.arrows == ()


def test_the_diagrams_words_type_no_figure() -> None:
    html = frames_html(fp8_linear_frames(), "f", "One FP8 linear layer", None)
    assert typed_figures(html) == []
