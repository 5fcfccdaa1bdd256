"""One mixed-precision iteration for a layer (macros/model/mixed_precision.py), against Micikevicius et al. 2018
and against the bytes the course counts for the same recipe (ZeRO §3.1, memory.RECIPES["mixed-adam"])."""

from __future__ import annotations

from macros import model
from macros.model.mixed_precision import MASTER, PASSES, Kept, mixed_precision_iteration

STEPS = mixed_precision_iteration()


def _step(name: str) -> tuple[Kept, ...]:
    return next(step.held for step in STEPS if step.name == name)


def test_the_iteration_goes_round_forward_backward_update() -> None:
    assert [step.name for step in STEPS] == ["start", "round", "forward", "backward", "update"]


def test_its_model_states_are_the_bytes_the_course_counts_for_mixed_precision_adam() -> None:
    states = {f"{k.precision}_{k.tensor}" for step in STEPS for k in step.held if k.model_state}
    recipe = model.RECIPES["mixed-adam"]
    assert states == set(recipe.states)
    assert sum(model.BYTES_PER_VALUE[state.split("_")[0]] for state in states) == recipe.bytes_per_parameter == 16


def test_the_passes_run_on_an_fp16_copy_and_the_update_on_the_fp32_master() -> None:
    # §3.1: "an FP32 master copy of weights is maintained and updated with the weight gradient during the
    # optimizer step. In each iteration an FP16 copy of the master weights is used in the forward and backward pass".
    by_name = {step.name: step for step in STEPS}
    assert {(k.tensor, k.precision) for k in by_name["start"].held} == {
        ("parameters", MASTER),
        ("momentum", MASTER),
        ("variance", MASTER),
    }
    assert by_name["round"].made == (Kept("parameters", PASSES, model_state=True),)
    assert by_name["round"].converts == (MASTER, PASSES) and by_name["update"].converts == (PASSES, MASTER)
    for name in ("forward", "backward"):
        assert {k.precision for k in by_name[name].made} == {PASSES}
    assert {k.precision for k in by_name["update"].made} == {MASTER}
    assert Kept("parameters", MASTER, model_state=True) in by_name["update"].made


def test_gradients_are_scaled_in_fp16_and_unscaled_before_the_update() -> None:
    scaled = {(k.tensor, k.precision) for step in STEPS for k in step.held if k.scaled}
    assert scaled == {("activation_gradients", PASSES), ("gradients", PASSES)}
    assert not any(k.scaled for step in STEPS for k in step.made if k.precision == MASTER)
    assert Kept("gradients", MASTER) in next(step.made for step in STEPS if step.name == "update")


def test_activations_live_from_the_forward_pass_to_the_backward_pass() -> None:
    holding = [step.name for step in STEPS if any(k.tensor == "activations" for k in step.held)]
    assert holding == ["forward"]
    assert all(k.precision == PASSES for k in _step("forward") if k.tensor == "activations")


def test_what_a_step_makes_it_holds() -> None:
    assert all(set(step.made) <= set(step.held) for step in STEPS)
