"""Five layouts of one step, and the trillion-parameter run, against Narayanan et al. and ZeRO.

Expected values are typed from the sources named beside them, or from the
arithmetic written out beside them, never from the code's output.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from macros.kinds import KINDS
from macros.model import layout
from tests.conftest import catalog

# GPT-3 as Narayanan et al. run it in Table 2 (PTD-P, 1536 GPUs), on Selene's A100s and links.
GPT3 = layout.Cluster(
    parameters=175 * 10**9,
    layers=96,
    hidden=12288,
    sequence=2048,
    batch=1536,
    microbatch=1,
    devices=1536,
    tensor=8,
    pipeline=12,
    peak_flops=312 * 10**12,
    nvlink_bandwidth=300 * 10**9,
    network_bandwidth=25 * 10**9,
)


@pytest.mark.parametrize("scheme", layout.SCHEMES)
def test_every_layout_uses_every_gpu(scheme: str) -> None:
    # Narayanan et al. §3.1: "We require p·t·d = n."
    t, p, d = layout.degrees(scheme, 8, 12, 1536)
    assert t * p * d == 1536


def test_the_trillion_parameter_run_has_six_data_parallel_replicas() -> None:
    # Table 1: tensor 8, pipeline 64, 3072 GPUs; 3072 / (8 × 64) = 6.
    assert layout.degrees("ptd", 8, 64, 3072) == (8, 64, 6)
    assert KINDS["layout_degree"].figure(catalog(), "narayanan-1t-run", "ptd", "data").value == 6


def test_zero3_sends_one_and_a_half_times_what_data_parallelism_sends() -> None:
    # ZeRO §7.2.2: "The total volume is therefore 3Ψ which is 1.5x compared to the baseline."
    dp, zero3 = layout.step("dp", GPT3), layout.step("zero3", GPT3)
    assert zero3.network_bytes == Fraction(3, 2) * dp.network_bytes


def test_zero3_divides_the_model_states_over_every_gpu_and_ptd_over_the_model_parallel_group() -> None:
    # ZeRO §3.1: 16Ψ bytes; Table 1 of ZeRO: P_os+g+p holds 16Ψ/N_d.
    assert layout.step("zero3", GPT3).states == Fraction(16 * 175 * 10**9, 1536)
    assert layout.step("ptd", GPT3).states == Fraction(16 * 175 * 10**9, 8 * 12)
    assert layout.step("dp", GPT3).states == 16 * 175 * 10**9


def test_a_step_computes_eight_flops_per_token_per_parameter() -> None:
    # Narayanan et al. §5.1, Eq. 4: training time ≈ 8TP/(nX); per step, T = B·s tokens.
    assert layout.step("ptd", GPT3).compute == Fraction(8 * 1536 * 2048 * 175 * 10**9, 1536 * 312 * 10**12)


def test_the_ptd_bubble_is_p_minus_1_over_m_of_the_compute() -> None:
    # m = 1536 / (16 replicas × 1) = 96; (12 − 1)/96.
    step = layout.step("ptd", GPT3)
    assert step.microbatches == 96
    assert step.bubble == Fraction(11, 96) * step.compute


def test_tensor_parallel_bytes_stay_on_nvlink() -> None:
    # Narayanan et al. §3.2: l_stage × 8bsh(t−1)/t per microbatch: 96 microbatches × 8 layers × 8 × 2048 × 12288
    # × 7/8 values × 2 bytes.
    step = layout.step("ptd", GPT3)
    assert step.nvlink_bytes == 96 * 8 * 8 * 2048 * 12288 * Fraction(7, 8) * 2
    assert step.nvlink == step.nvlink_bytes / (300 * 10**9)


def test_a_pipeline_sends_b_s_h_each_way_per_microbatch() -> None:
    # Narayanan et al. §3.2: bsh per microbatch per direction; no data parallelism left to all-reduce with d = 1.
    alone = replace(GPT3, devices=96)
    step = layout.step("pipeline", alone)
    assert (step.pipeline, step.data, step.microbatches) == (96, 1, 1536)
    assert step.network_bytes == 1536 * 2 * 2048 * 12288 * 2


def test_a_layout_that_does_not_divide_is_refused() -> None:
    with pytest.raises(ValueError, match="do not divide"):
        layout.degrees("ptd", 8, 12, 1000)
    with pytest.raises(ValueError, match="layers"):
        layout.step("pipeline", replace(GPT3, pipeline=16))


@pytest.mark.parametrize(
    ("layers", "hidden", "printed"),
    [  # Narayanan et al., Table 1 (V = 51,200, s = 2048), number of parameters in billions
        (24, 2304, Fraction("1.7")),
        (80, 12288, Fraction("145.6")),
        (105, 20480, Fraction("529.6")),
        (128, 25600, Fraction("1008.0")),
    ],
)
def test_equation_2_gives_table_1s_parameter_counts(layers: int, hidden: int, printed: Fraction) -> None:
    count = layout.transformer_parameters(layers, hidden, 51_200, 2048)
    assert abs(Fraction(count, 10**9) - printed) <= Fraction(1, 20)


def test_the_trillion_parameter_run_reaches_52_percent_of_the_a100s_peak() -> None:
    # Table 1: 163 teraFLOP/s per GPU, 52% of peak, 502.0 petaFLOP/s on 3072 GPUs; §5: peak 312 teraFLOP/s.
    share = KINDS["peak_share"].figure(catalog(), "narayanan-1t-throughput", "a100-selene").value
    assert round(share, 2) == Fraction(52, 100)
    aggregate = KINDS["aggregate_flops"].figure(catalog(), "narayanan-1t-throughput").value
    assert aggregate == 163 * 3072 * 10**12
    assert abs(aggregate - 502 * 10**15) < 3072 * 10**12 // 2


def test_the_layout_kind_names_its_part() -> None:
    figure = KINDS["layout"].figure(catalog(), "gpt3-ptd", "zero3", "states")
    assert (figure.id, figure.unit) == ("layout/gpt3-ptd/zero3/states", "B")
    assert figure.value == Fraction(16 * 175 * 10**9, 1536)
    with pytest.raises(KeyError, match="states, compute"):
        KINDS["layout"].figure(catalog(), "gpt3-ptd", "zero3", "memory")


def test_overlap_hides_the_network_behind_the_compute_but_not_the_tensor_all_reduces() -> None:
    step = layout.step("ptd", GPT3)
    assert step.total == step.compute + step.bubble + step.network + step.nvlink
    assert step.overlapped == step.compute + step.bubble + step.nvlink
    zero3 = layout.step("zero3", GPT3)
    # ZeRO-3's 3Ψ × 2 bytes over 25 GB/s outlasts its compute: the step is the network's.
    assert zero3.overlapped == zero3.network > zero3.compute
