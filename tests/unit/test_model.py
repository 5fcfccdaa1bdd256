"""The memory model against the numbers its sources print.

Expected values are typed from the sources named beside them, never from the
code's output.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from macros import model

GPT2_PARAMETERS = 1_500_000_000  # ZeRO §3.1: "GPT-2 with 1.5 Billion parameters"


def test_mixed_precision_adam_costs_sixteen_bytes_per_parameter() -> None:
    # ZeRO §3.1: "2Ψ + 2Ψ + KΨ = 16Ψ bytes", with "Mixed-precision Adam has K = 12".
    assert model.RECIPES["mixed-adam"].bytes_per_parameter == 16
    optimizer = sum(model.state_bytes_per_parameter(s) for s in ("fp32_parameters", "fp32_momentum", "fp32_variance"))
    assert optimizer == 12


@pytest.mark.parametrize(
    ("state", "printed"),
    [  # ZeRO §3.1: "memory requirements of 2Ψ and 2Ψ bytes" ... "4Ψ, 4Ψ, and 4Ψ bytes"
        ("fp16_parameters", 2),
        ("fp16_gradients", 2),
        ("fp32_parameters", 4),
        ("fp32_momentum", 4),
        ("fp32_variance", 4),
    ],
)
def test_each_model_state_costs_what_zero_counts(state: str, printed: int) -> None:
    assert model.state_bytes_per_parameter(state) == printed


def test_gpt2_model_states_are_the_papers_24_gb() -> None:
    # ZeRO §3.1: "a memory requirement of at least 24 GB"
    assert model.model_state_bytes(GPT2_PARAMETERS) == 24 * 10**9


def test_gpt2_fp16_parameters_are_the_papers_3_gb() -> None:
    # ZeRO §3.1: "the meager 3 GB of memory required to hold the fp16 parameters alone"
    assert model.model_state_bytes(GPT2_PARAMETERS, "fp16_parameters") == 3 * 10**9


def test_gpt2_activations_are_about_the_papers_60_gb() -> None:
    # ZeRO §3.2: "trained with sequence length of 1K and batch size of 32 requires about 60 GB";
    # shape from ZeRO Table 4 and GPT-2 Table 2: 48 layers, hidden 1600.
    activations = model.activation_bytes(hidden=1600, batch=32, sequence=1024, layers=48)
    assert 55 * 10**9 <= activations < 65 * 10**9


def test_seven_billion_parameters_need_112_gb_of_model_states() -> None:
    # 16 bytes × 7 × 10^9, the key the quiz issue gives for Lesson 8's Practice 1.
    assert model.model_state_bytes(7 * 10**9) == 112 * 10**9


def test_ring_allreduce_on_two_devices_sends_the_data_once() -> None:
    # nccl-tests PERFORMANCE.md: t = (S*2*(n-1)) / (n*B); with n = 2, each rank sends S.
    assert model.ring_allreduce_bytes_sent(1000, 2) == 1000


def test_ring_allreduce_sends_just_under_twice_the_data() -> None:
    # Gibiansky (Baidu): for 1.2 GB of gradients "each GPU must send and receive about 2.4 gigabytes".
    sent = model.ring_allreduce_bytes_sent(1_200_000_000, 1000)
    assert 2_390_000_000 < sent < 2_400_000_000


def test_ring_allreduce_is_exact() -> None:
    assert model.ring_allreduce_bytes_sent(3, 8) == Fraction(21, 4)


def test_transfer_time_is_bytes_over_bandwidth() -> None:
    assert model.transfer_seconds(64, 32) == 2


@pytest.mark.parametrize("bad", [0, -1, -1.5])
def test_a_count_must_be_positive(bad: float) -> None:
    with pytest.raises(ValueError, match="parameters must be positive"):
        model.model_state_bytes(bad)  # type: ignore[arg-type]  # -1.5 on purpose: a count is checked at run time


@pytest.mark.parametrize("bad", ["7e9", None, True])
def test_a_count_must_be_a_number(bad: object) -> None:
    with pytest.raises(TypeError, match="parameters must be a number"):
        model.model_state_bytes(bad)  # type: ignore[arg-type]


def test_an_allreduce_needs_two_devices() -> None:
    with pytest.raises(ValueError, match="at least 2 devices"):
        model.ring_allreduce_bytes_sent(1000, 1)


def test_an_unknown_model_state_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="fp16_parameters, fp16_gradients"):
        model.state_bytes_per_parameter("bf16_parameters")


@pytest.mark.parametrize(
    ("recipe", "per_parameter"),
    [
        # Megatron-LM's docs: bf16 with fp32 gradients, 2 + 4 + 4 + 4 + 4 = 18 bytes per parameter.
        ("bf16-adam", 18),
        # Megatron-LM's docs: fp16 parameters with fp16 gradients, 20 bytes per parameter; its optimizer
        # casts the gradients to an fp32 copy (main_param.grad = model_param.main_grad.float()).
        ("fp16-adam-fp32-grads", 20),
        # Kingma and Ba's Adam keeps a first and a second moment beside each fp32 parameter and its gradient.
        ("fp32-adam", 16),
        # SGD with momentum keeps one momentum value.
        ("fp32-sgd-momentum", 12),
    ],
)
def test_each_recipe_counts_its_states(recipe: str, per_parameter: int) -> None:
    assert model.RECIPES[recipe].bytes_per_parameter == per_parameter


def test_an_unknown_recipe_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown recipe 'adamw'; known: mixed-adam, bf16-adam"):
        model.model_state_bytes(10, recipe_id="adamw")


def test_a_fused_fp32_buffer_of_gpt2_is_the_papers_6_gb() -> None:
    # ZeRO §3.2: "for a model with 1.5B parameters, a flattened fp32 buffer would required 6 GB of memory"
    assert model.copy_bytes(GPT2_PARAMETERS, "fp32") == 6 * 10**9


def test_an_unknown_precision_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown precision 'fp4'; known: fp16, bf16, fp32, fp8"):
        model.copy_bytes(GPT2_PARAMETERS, "fp4")


def test_fp32_recipes_count_state_by_optimizer() -> None:
    # Plain SGD keeps nothing beyond the parameter and its gradient; momentum keeps one more value;
    # Adam two (Kingma and Ba, Algorithm 1: "Initialize 1st moment vector", "Initialize 2nd moment vector").
    assert model.RECIPES["fp32-sgd"].bytes_per_parameter == 8
    assert model.RECIPES["fp32-sgd-momentum"].bytes_per_parameter == 12
    assert model.RECIPES["fp32-adam"].bytes_per_parameter == 16


def test_activations_in_fp32_take_twice_zeros_fp16() -> None:
    fp16 = model.activation_bytes(hidden=1600, batch=32, sequence=1024, layers=48)
    assert model.activation_bytes(hidden=1600, batch=32, sequence=1024, layers=48, precision="fp32") == 2 * fp16
    with pytest.raises(KeyError, match="unknown precision 'fp4'; known: fp16, bf16, fp32, fp8"):
        model.activation_bytes(hidden=1600, batch=32, sequence=1024, layers=48, precision="fp4")
