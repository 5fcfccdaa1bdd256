"""ZeRO-DP's stages (ZeRO §5): bytes per device by role, against the numbers the paper prints."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

from macros import model

GB = 10**9
# ZeRO, Figure 1's caption: "we assume a model size of Ψ=7.5B and DP of N_d=64 with K=12".
PSI, ND = 7_500_000_000, 64


@pytest.mark.parametrize(
    ("stage", "printed", "rounding", "where"),
    [
        (0, 120, 1, "§5.1: 'while requiring 120 GB with standard DP'"),
        (1, Fraction("31.4"), Fraction("0.1"), "§5.1: 'requires 31.4GB of memory using P_os with 64-way DP'"),
        (2, Fraction("16.6"), Fraction("0.1"), "§5.2: 'requires only 16.6 GB of memory using P_os+g'"),
        (3, Fraction("1.88"), Fraction("0.01"), "Table 1, 7.5B model, P_os+g+p, DP 64: '1.88'"),
        (3, Fraction("1.9"), Fraction("0.1"), "§5.3: 'requires 1.9 GB of model-state memory using P_os+p+g'"),
    ],
)
def test_zero_figure_1_per_device_bytes(stage: int, printed: Fraction, rounding: Fraction, where: str) -> None:
    computed = model.device_state_bytes(PSI, ND, stage) / GB
    assert abs(computed - printed) <= rounding / 2, where


@pytest.mark.parametrize(
    ("stage", "formula"),
    [
        (0, lambda k: (2 + 2 + k) * PSI),  # §3.1: 2Ψ + 2Ψ + KΨ
        (1, lambda k: 2 * PSI + 2 * PSI + Fraction(k * PSI, ND)),  # §5.1: 4Ψ + KΨ/Nd
        (2, lambda k: 2 * PSI + Fraction((2 + k) * PSI, ND)),  # §5.2: 2Ψ + 14Ψ/Nd with K = 12
        (3, lambda k: Fraction((2 + 2 + k) * PSI, ND)),  # §5.3: 16Ψ/Nd with K = 12
    ],
)
def test_each_stage_follows_zeros_formula_for_k_12(stage: int, formula: Callable[[int], int | Fraction]) -> None:
    assert model.device_state_bytes(PSI, ND, stage, "mixed-adam") == formula(12)


@pytest.mark.parametrize(
    ("recipe", "roles"),
    [
        # ZeRO §3.1: fp16 parameters 2Ψ, fp16 gradients 2Ψ, K = 12 (fp32 parameters, momentum, variance).
        ("mixed-adam", (2, 2, 12)),
        # bf16 parameters, fp32 gradients, the same fp32 optimizer states.
        ("bf16-adam", (2, 4, 12)),
        # Megatron-LM's fp16 recipe: its fp32 copy of the gradients is the optimizer's.
        ("fp16-adam-fp32-grads", (2, 2, 16)),
        # fp32 Adam: the fp32 parameters are the ones the passes use; momentum and variance are the states.
        ("fp32-adam", (4, 4, 8)),
        ("fp32-sgd-momentum", (4, 4, 4)),
    ],
)
def test_each_recipes_states_take_a_role(recipe: str, roles: tuple[int, int, int]) -> None:
    by_role = model.role_bytes_per_parameter(recipe)
    assert tuple(by_role[role] for role in model.ROLES) == roles
    assert sum(by_role.values()) == model.recipe(recipe).bytes_per_parameter


def test_plain_data_parallelism_holds_everything_whatever_the_devices() -> None:
    assert model.device_state_bytes(PSI, 1, 0) == model.device_state_bytes(PSI, 1024, 0) == 16 * PSI


def test_a_sharded_role_is_split_evenly_and_the_others_stay_whole() -> None:
    by_role = model.device_bytes_by_role(PSI, ND, 2, "bf16-adam")
    assert by_role == {
        "parameters": 2 * PSI,
        "gradients": Fraction(4 * PSI, ND),
        "optimizer_states": Fraction(12 * PSI, ND),
    }


@pytest.mark.parametrize(("stage", "error"), [(4, KeyError), (-1, KeyError), (True, KeyError), ("1", KeyError)])
def test_an_unknown_stage_is_refused(stage: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="unknown ZeRO stage"):
        model.device_state_bytes(PSI, ND, stage)  # type: ignore[arg-type]


@pytest.mark.parametrize("devices", [0, -8, 2.5])
def test_devices_must_be_a_positive_whole_number(devices: object) -> None:
    with pytest.raises(ValueError, match="devices"):
        model.device_state_bytes(PSI, devices, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize(("number", "zero_id"), list(enumerate(["dp", "os", "os-g", "os-g-p"])))
@pytest.mark.parametrize("devices", [1, 4, 64, 1000])
def test_for_zeros_own_recipe_it_agrees_with_the_zero_module(number: int, zero_id: str, devices: int) -> None:
    assert model.device_state_bytes(PSI, devices, number) == model.zero_state_bytes(PSI, zero_id, devices)


@pytest.mark.parametrize(
    ("recipe", "whole", "sharded"),
    [
        # Megatron-LM's distributed-optimizer guide: "| `fp16` parameters, `fp16` gradients | 20 | 4 + 16/d |"
        ("fp16-adam-fp32-grads", 4, 16),
        # and "| `bf16` parameters, `fp32` gradients | 18 | 6 + 12/d |".
        ("bf16-adam", 6, 12),
    ],
)
def test_sharding_the_optimizer_states_gives_megatrons_distributed_optimizer(
    recipe: str, whole: int, sharded: int
) -> None:
    for d in (1, 8, 64):
        assert model.device_state_bytes(PSI, d, 1, recipe) == whole * PSI + Fraction(sharded * PSI, d)
