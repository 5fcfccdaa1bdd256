"""Mixtures of experts and expert parallelism, against independent arithmetic and the numbers the sources print.

Expected values are typed from the sources named beside them, or from the arithmetic written out beside them,
never from the code's output.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from macros.figures.kinds import KINDS
from macros.model import experts
from macros.pictures.diagrams import DIAGRAMS
from tests.conftest import catalog

# Mixtral 8x7B's config.json: 32 layers, hidden 4096, 32 heads, 8 key-value heads of 128, 8 experts of 14336,
# top-2, vocabulary 32000, untied, RMSNorm, no biases.
H, F, L, V, KV = 4096, 14336, 32, 32000, 8 * 128
ATTENTION = 2 * H * H + 2 * H * KV
EXPERT = 3 * H * F
ROUTER = H * 8
NORMS = 2 * H
EMBEDDINGS = 2 * V * H + H  # input and output embeddings, and the final norm
MIXTRAL_TOTAL = L * (ATTENTION + 8 * EXPERT + ROUTER + NORMS) + EMBEDDINGS
MIXTRAL_ACTIVE = L * (ATTENTION + 2 * EXPERT + ROUTER + NORMS) + EMBEDDINGS


def figure(kind: str, *arguments: object) -> Fraction:
    return Fraction(KINDS[kind].figure(catalog(), *arguments).computed.value)


def test_mixtral_counts_are_the_arithmetic_of_its_configuration() -> None:
    assert MIXTRAL_TOTAL == 46_702_792_704
    assert MIXTRAL_ACTIVE == 12_879_925_248
    assert figure("moe_parameters", "mixtral-8x7b") == MIXTRAL_TOTAL
    assert figure("moe_parameters", "mixtral-8x7b", "active") == MIXTRAL_ACTIVE
    assert figure("moe_parameters", "mixtral-8x7b", "experts") == L * 8 * EXPERT
    # The catalog's parameter count is the same as the shape's.
    assert catalog().model("mixtral-8x7b").parameters == MIXTRAL_TOTAL


@pytest.mark.parametrize(("part", "printed"), [("total", 47_000_000_000), ("active", 13_000_000_000)])
def test_mixtral_counts_round_to_the_abstracts(part: str, printed: int) -> None:
    # Jiang et al. 2024, abstract: "each token has access to 47B parameters, but only uses 13B active parameters".
    assert abs(figure("moe_parameters", "mixtral-8x7b", part) - printed) <= 500_000_000


def test_flops_per_token_are_six_times_the_active_parameters() -> None:
    assert figure("moe_flops_per_token", "mixtral-8x7b") == 6 * MIXTRAL_ACTIVE
    assert figure("moe_flops_per_token", "mixtral-8x7b", "total") == 6 * MIXTRAL_TOTAL
    # DeepSeek-V3 §4.2: "671B total parameters, of which 37B are activated for each token".
    assert figure("moe_flops_per_token", "deepseek-v3") == 6 * 37_000_000_000
    assert figure("moe_flops_per_token", "deepseek-v3", "total") == 6 * 671_000_000_000


def test_deepseek_v3s_routed_experts_leave_an_active_count_near_the_papers() -> None:
    # §4.2: 61 layers, the first three dense, 256 routed experts of width 2048 at hidden 7168, 8 per token.
    routed = 58 * 256 * 3 * 7168 * 2048
    used = 58 * 8 * 3 * 7168 * 2048
    assert figure("routed_expert_parameters", "deepseek-v3") == routed == 653_908_770_816
    assert figure("routed_expert_parameters", "deepseek-v3", "active") == used
    implied = figure("routed_expert_parameters", "deepseek-v3", "implied-active")
    assert implied == 671_000_000_000 - routed + used
    # Within the paper's rounding of 671B (half a billion) and of 37B (half a billion) together.
    assert abs(implied - 37_000_000_000) <= 1_000_000_000


def test_expert_capacity_is_switch_transformers_eq_3() -> None:
    # Switch §2.2, Eq. (3): (tokens per batch / number of experts) × capacity factor.
    assert experts.expert_capacity(6, 3, Fraction(1)) == 2
    assert figure("expert_capacity", 4096, 8) == 512
    assert figure("expert_capacity", 4096, 8, "1.25") == 640
    assert figure("expert_capacity", 65536, 128, "1.25") == 640
    with pytest.raises(ValueError, match="capacity factor"):
        experts.expert_capacity(6, 3, Fraction(0))


def test_an_unknown_format_is_named_with_the_known_ones() -> None:
    # Attack round 6, finding 11: the build said only "fp7." (a bare KeyError of the format table).
    with pytest.raises(KeyError, match="unknown format 'fp7'; known: fp16, bf16, fp32"):
        figure("alltoall_bytes", "mixtral-8x7b", 4096, 8, "alltoall", "fp7")


@pytest.mark.parametrize("factor", ["1e99999999", "1/0", "1_000", " 1.25", "1.25\n", "-1", "1.2.3"])
def test_a_capacity_factor_is_read_as_a_decimal_or_refused(factor: str) -> None:
    # Attack round 6: Fraction() built 10 to the 99,999,999th for minutes, raised ZeroDivisionError, took "1_000".
    with pytest.raises(ValueError, match="factor= is a decimal capacity factor in quotes"):
        figure("expert_capacity", 4096, 8, factor)
    with pytest.raises(ValueError, match="at most 64"):
        figure("expert_capacity", 4096, 8, "100")


def test_dropped_tokens_are_what_overflows_each_expert() -> None:
    assert experts.dropped_tokens((5, 1, 0), 2) == 3
    assert experts.dropped_tokens((2, 2, 2), 2) == 0


def test_alltoall_bytes_are_tokens_k_h_bytes_times_the_share_sent_away() -> None:
    # 4,096 tokens × 2 experts × 4,096 values × 2 bytes × 7/8.
    assert figure("alltoall_bytes", "mixtral-8x7b", 4096, 8) == 4096 * 2 * 4096 * 2 * 7 // 8 == 58_720_256
    assert figure("alltoall_bytes", "mixtral-8x7b", 4096, 8, "layer") == 4 * 58_720_256
    assert figure("alltoall_bytes", "deepseek-v3", 4096, 64) == Fraction(4096 * 8 * 7168 * 2 * 63, 64)
    # One device alone sends nothing.
    assert experts.alltoall_bytes(4096, 2, 4096, 2, 1) == 0


def test_alltoall_seconds_are_the_bytes_over_the_link() -> None:
    # nvlink-h100: 450 GB/s in each direction; connectx7-400g: 50 GB/s.
    assert figure("alltoall_seconds", "mixtral-8x7b", 4096, 8, "nvlink-h100") == Fraction(58_720_256, 450 * 10**9)
    assert figure("alltoall_seconds", "mixtral-8x7b", 4096, 8, "connectx7-400g") == Fraction(58_720_256, 50 * 10**9)


def test_a_degree_that_does_not_split_the_experts_is_refused() -> None:
    with pytest.raises(ValueError, match="do not split evenly"):
        figure("alltoall_bytes", "mixtral-8x7b", 4096, 3)
    with pytest.raises(ValueError, match="do not split evenly"):
        figure("expert_device_states", "mixtral-8x7b", 16)


def test_device_states_split_the_experts_and_copy_the_rest() -> None:
    outside = MIXTRAL_TOTAL - L * 8 * EXPERT
    for e in (1, 2, 4, 8):
        assert figure("expert_device_states", "mixtral-8x7b", e) == 16 * (outside + Fraction(L * 8 * EXPERT, e))
    assert figure("expert_device_states", "mixtral-8x7b", 1) == 16 * MIXTRAL_TOTAL


def test_expert_data_parallel_is_megatron_cores_world_over_etp_ep_pp() -> None:
    # parallel_state.py: expert_data_parallel_size = world_size // (ETP × EP × PP). DeepSeek-V3 §3.1-3.2: 2048 GPUs,
    # 16-way PP, 64-way EP, no TP: 2048 / (64 × 16) = 2, the "2-way ZeRO-1 Data Parallelism" of the scaling book.
    assert figure("expert_data_parallel", 2048, 64, 16) == 2
    assert experts.expert_data_parallel(64, 8, 2, 2) == 2
    with pytest.raises(ValueError, match="do not divide"):
        experts.expert_data_parallel(100, 8, 4)


def test_balanced_routing_sends_each_device_one_token_of_every_other() -> None:
    for n in range(2, 7):
        routing = experts.balanced_routing(n)
        for g in range(n):
            assert sorted(routing[s].count(g) for s in range(n)) == [1] * n
        assert sum(target != d for d, row in enumerate(routing) for target in row) == n * (n - 1)


def test_the_alltoall_diagram_returns_every_token_home() -> None:
    frames = DIAGRAMS["alltoall_dispatch"](devices=4).frames
    assert [frame.title for frame in frames][1:] == [
        "Dispatch all-to-all.",
        "The experts compute.",
        "Combine all-to-all.",
    ]
    last = frames[-1].devices
    assert [cell.text for cell in last[0].cells] == ["a₀′", "a₁′", "a₂′", "a₃′"]
