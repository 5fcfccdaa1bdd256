"""Training compute, time and utilization, against what GPT-3, Narayanan et al. and PaLM print.

Every expected value is typed from the paper named beside it.
"""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from macros import model
from macros.data.catalog import load_catalog
from macros.figures.kinds import KINDS
from tests.conftest import catalog, course

DAY = 86_400


def test_six_flops_per_parameter_per_token_are_two_forward_and_four_backward() -> None:
    # PaLM App. B: "6N matmul FLOPs per token seen (2N for forward and 4N for backward)".
    assert (model.FORWARD_FLOPS_PER_PARAMETER, model.BACKWARD_FLOPS_PER_PARAMETER) == (2, 4)
    assert model.recomputation("none") == 6
    # Narayanan et al. eq. (4) counts the extra forward pass of recomputation: 8TP/(nX).
    assert model.recomputation("full") == 8


def test_gpt3_compute_is_table_d1s() -> None:
    # Table D.1, GPT-3 175B: Params (M) 174,600; 300 billion tokens; "3.14E+23" flops; "3.64E+03" PF-days.
    flops = model.training_flops(174_600_000_000, 300_000_000_000)
    assert round(flops, -21) == 314 * 10**21
    assert round(model.petaflop_s_days(flops), -1) == 3640


def test_a_petaflop_s_day_is_what_table_d1_says() -> None:
    # Table D.1 caption: "petaflop/s-day (each of which are 8.64e+19 flops)".
    assert model.FLOPS_PER_PETAFLOP_S_DAY == 864 * 10**17


@pytest.mark.parametrize(
    ("parameters", "tokens", "zettaflops"),
    [(70_000_000_000, 1_400_000_000_000, Fraction("588.0")), (280_000_000_000, 300_000_000_000, Fraction("504.0"))],
)
def test_chinchilla_and_gopher_are_palms_table_21(parameters: int, tokens: int, zettaflops: Fraction) -> None:
    # PaLM Table 21, "Training FLOP Count (Zettaflops)": Chinchilla 588.0, Gopher 504.0 (2 × 3 × m × t).
    assert model.training_flops(parameters, tokens) == zettaflops * 10**21


@pytest.mark.parametrize(
    ("tokens", "parameters", "devices", "teraflops", "days"),
    [  # Narayanan et al. §5.1: "34 days" for GPT-3; "84 days" for the 1T model (1008.0 billion, Table 1).
        (300_000_000_000, 175_000_000_000, 1024, 140, 34),
        (450_000_000_000, 1_008_000_000_000, 3072, 163, 84),
    ],
)
def test_narayanans_training_times(tokens: int, parameters: int, devices: int, teraflops: int, days: int) -> None:
    seconds = model.training_seconds(tokens, parameters, devices, teraflops * 10**12)
    assert round(seconds / DAY) == days


def test_a_flat_trillion_misses_the_printed_84_days() -> None:
    # With exactly 10^12 parameters the same formula gives 83 days: the paper computed with Table 1's 1008.0 billion.
    seconds = model.training_seconds(450_000_000_000, 10**12, 3072, 163 * 10**12)
    assert round(seconds / DAY) == 83


def test_without_recomputation_the_time_is_three_quarters() -> None:
    full = model.training_seconds(300_000_000_000, 175_000_000_000, 1024, 140 * 10**12)
    none = model.training_seconds(300_000_000_000, 175_000_000_000, 1024, 140 * 10**12, "none")
    assert none / full == Fraction(6, 8)


def test_palms_mfu_is_its_appendix_bs() -> None:
    # PaLM App. B: "45.7% without self-attention ((238.3 × 6 × 540)/(275 × 6144))".
    mfu = model.model_flops_utilization(238_300, 540_000_000_000, 6144, 275 * 10**12)
    assert round(mfu, 3) == Fraction(457, 1000)


def test_mt_nlgs_mfu_rounds_above_what_palm_prints() -> None:
    # PaLM App. B prints 29.7% for ((65.43 × 6 × 530)/(312 × 2240)); the quotient is 0.29772, which rounds to 29.8%.
    mfu = model.model_flops_utilization(65_430, 530_000_000_000, 2240, 312 * 10**12)
    assert round(mfu, 3) == Fraction(298, 1000)


def test_the_compute_optimal_model_spends_the_budget_at_the_ratio() -> None:
    # C = 6ND with D = 20N: N = √(C/120). 6 × 70e9 × 1.4e12 at Chinchilla's own 20 tokens per parameter gives 70e9 back.
    assert model.compute_optimal_parameters(6 * 70 * 10**9 * 1_400 * 10**9, 20) == 70 * 10**9


def test_gophers_budget_at_chinchillas_ratio_buys_a_little_less_than_chinchilla() -> None:
    # 6 × 280e9 × 300e9 = 5.04e23 at r = 20: N = √(5.04e23 / 120) = √(4.2e21), about 64.8 billion, under Chinchilla's
    # 70 billion only because Gopher's 6ND budget is smaller than Chinchilla's 5.88e23.
    figure = KINDS["optimal_parameters"].figure(catalog(), "gopher-run", "chinchilla-run")
    assert round(figure.value, -8) == 64_800_000_000
    assert model.compute_optimal_parameters(6 * 70 * 10**9 * 1_400 * 10**9, 20) == 70 * 10**9 > figure.value


def test_chinchilla_trains_twenty_tokens_per_parameter() -> None:
    # Hoffmann et al. §1: 70B parameters, 1.4 trillion tokens.
    assert model.tokens_per_parameter(1_400_000_000_000, 70_000_000_000) == 20


def test_a_utilization_above_one_is_refused() -> None:
    with pytest.raises(ValueError, match="a utilization is at most 1"):
        model.seconds_at_utilization(10**20, 8, 312 * 10**12, Fraction(3, 2))


def test_an_unknown_recomputation_says_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: none, full"):
        model.training_flops(10, 10, "half")


def test_the_kinds_read_the_runs_from_the_catalog() -> None:
    time = KINDS["training_time"].figure(catalog(), "narayanan-gpt3")
    assert time.id == "training-time/narayanan-gpt3" and round(time.value / DAY) == 34
    assert KINDS["training_time"].figure(catalog(), "narayanan-gpt3", "none").id == "training-time/narayanan-gpt3/none"
    flops = KINDS["training_flops"].figure(catalog(), "gpt3-175b-run")
    assert flops.value == 6 * 175 * 10**9 * 300 * 10**9


def test_time_at_a_utilization_takes_whole_numbers() -> None:
    kind = KINDS["time_at_utilization"]
    figure = kind.figure(catalog(), "gpt3-on-a100s", 1024, 40)
    assert figure.id == "time-at-utilization/gpt3-on-a100s/1024/40"
    assert kind.arguments(figure.id) == ("gpt3-on-a100s", 1024, 40)
    with pytest.raises(ValueError, match="utilization is a whole percentage"):
        kind.figure(catalog(), "gpt3-on-a100s", 1024, 140)


def test_a_run_without_a_gpu_has_no_mfu() -> None:
    with pytest.raises(ValueError, match="names no gpu"):
        KINDS["mfu"].figure(catalog(), "gpt3-175b-run")


def test_narayanans_largest_run_reaches_the_printed_share_of_peak() -> None:
    # Narayanan et al. §5.1: "We achieve 52% of peak device throughput for the largest model" (163 of 312 TFLOP/s).
    share = KINDS["throughput_share"].figure(catalog(), "narayanan-1t-training").value
    assert round(share, 2) == Fraction(52, 100)
    model_share = KINDS["throughput_share"].figure(catalog(), "narayanan-1t-training", "model").value
    assert model_share == share * Fraction(6, 8)


def test_narayanans_runs_are_on_selenes_80_gb_a100s() -> None:
    # Narayanan et al. §5: "8 NVIDIA 80-GB A100 GPUs" per server; "The peak device throughput of an A100 GPU with
    # 16-bit precision is 312 teraFLOP/s." The share of peak reads that 16-bit peak, whatever the entry calls it.
    share = KINDS["throughput_share"].figure(catalog(), "narayanan-gpt3")
    assert [q.entry for q in share.computed.inputs][-1] == "a100-selene"
    assert share.value == Fraction(140, 312)
    # Sold as 80 GB; what CUDA gives programs of an A100-SXM4-80GB is deviceQuery's 85,100,068,864 bytes (driver 555).
    assert catalog().quantity("a100-selene", "sold").value == 80 * 10**9
    assert catalog().quantity("a100-selene", "memory").value == 85_100_068_864


def test_a_gpu_without_a_16_bit_peak_has_no_share_of_it(tmp_path: Path) -> None:
    shutil.copytree(course().catalog_dir, tmp_path, dirs_exist_ok=True)
    run = (
        "v100-run:\n  name: x\n  model: gpt2-1.5b\n  tokens: 1000\n  throughput: 100\n  gpu: v100-32gb\n"
        "  source: course\n  where: x\n"
    )
    (tmp_path / "workloads.yml").write_text((tmp_path / "workloads.yml").read_text() + run)
    with pytest.raises(ValueError, match="gives no 16-bit peak"):
        KINDS["throughput_share"].figure(load_catalog(tmp_path), "v100-run")
