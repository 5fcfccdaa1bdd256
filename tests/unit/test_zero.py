"""ZeRO-DP's arithmetic against the numbers Rajbhandari et al. print (arXiv 1910.02054v3).

Expected values are typed from the paper, never from the code's output. Where the
paper rounds, the test says how: Table 1's decimal cells are rounded half up,
eight of its integer cells are truncated, and Table 2 multiplies a rounded value.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest

from macros import model

GB = 10**9
SIZES = {"7.5B": 7_500_000_000, "128B": 128_000_000_000, "1T": 1_000_000_000_000}
STAGES = ("os", "os-g", "os-g-p")

# Table 1, as printed (GB), by model, then DP degree: P_os, P_os+g, P_os+g+p.
TABLE_1 = {
    "7.5B": {
        1: ("120", "120", "120"),
        4: ("52.5", "41.3", "30"),
        16: ("35.6", "21.6", "7.5"),
        64: ("31.4", "16.6", "1.88"),
        256: ("30.4", "15.4", "0.47"),
        1024: ("30.1", "15.1", "0.12"),
    },
    "128B": {
        1: ("2048", "2048", "2048"),
        4: ("896", "704", "512"),
        16: ("608", "368", "128"),
        64: ("536", "284", "32"),
        256: ("518", "263", "8"),
        1024: ("513", "257", "2"),
    },
    "1T": {
        1: ("16000", "16000", "16000"),
        4: ("7000", "5500", "4000"),
        16: ("4750", "2875", "1000"),
        64: ("4187", "2218", "250"),
        256: ("4046", "2054", "62.5"),
        1024: ("4011", "2013", "15.6"),
    },
}
# The cells the paper truncates: their exact values have a fraction the printed number drops.
TRUNCATED = {
    ("128B", "os", 1024),
    ("128B", "os-g", 1024),
    ("1T", "os", 64),
    ("1T", "os", 256),
    ("1T", "os", 1024),
    ("1T", "os-g", 64),
    ("1T", "os-g", 256),
    ("1T", "os-g", 1024),
}
TABLE_1_CELLS = [
    (size, dp, stage, printed)
    for size, rows in TABLE_1.items()
    for dp, cells in rows.items()
    for stage, printed in zip(STAGES, cells, strict=True)
]


def _exponent(number: Decimal) -> int:
    """The power of ten of a number's last digit: -2 for 41.25."""
    exponent = number.as_tuple().exponent
    assert isinstance(exponent, int), number  # "n", "N" or "F": not a number, or infinite
    return exponent


def _as_printed(value: Fraction, printed: str) -> str:
    """`value` in GB to the printed number's decimals, rounded half up as the paper does (41.25 → 41.3)."""
    places = _exponent(Decimal(printed))
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return str(exact.quantize(Decimal(1).scaleb(places), rounding=ROUND_HALF_UP))


def test_mixed_precision_adam_has_k_twelve() -> None:
    # §3.1: "Mixed-precision Adam has K = 12" and "2Ψ + 2Ψ + KΨ = 16Ψ bytes".
    assert model.MIXED_ADAM_K == 12
    assert model.zero_bytes_per_parameter("dp", 64) == 16


@pytest.mark.parametrize(
    ("stage", "expected"),
    [  # §5.1: "4Ψ + KΨ/N_d"; §5.2: "2Ψ + 14Ψ/N_d"; §5.3: "16Ψ/N_d"; all with N_d = 8 here.
        ("dp", Fraction(16)),
        ("os", 4 + Fraction(12, 8)),
        ("os-g", 2 + Fraction(14, 8)),
        ("os-g-p", Fraction(16, 8)),
    ],
)
def test_each_stage_keeps_what_section_5_writes(stage: str, expected: Fraction) -> None:
    assert model.zero_bytes_per_parameter(stage, 8) == expected


@pytest.mark.parametrize(("stage", "limit"), [("os", 4), ("os-g", 8)])
def test_the_4x_and_8x_reductions_are_approached_never_reached(stage: str, limit: int) -> None:
    # §1: "4x memory reduction", "8x memory reduction"; 16/(4 + 12/N_d) and 16/(2 + 14/N_d) stay below them.
    for dp in (1, 64, 1024, 2**20):
        assert model.zero_memory_reduction(stage, dp) < limit
    assert limit - model.zero_memory_reduction(stage, 2**20) < Fraction(1, 10**4)


def test_optimizer_state_partitioning_at_1024_way_saves_just_under_4x() -> None:
    # 16 / (4 + 12/1024) = 16,384 / 4,108, about 3.99.
    assert model.zero_memory_reduction("os", 1024) == Fraction(16 * 1024, 4 * 1024 + 12)


def test_parameter_partitioning_saves_the_dp_degree() -> None:
    # §1: "splitting across 64 GPUs (N_d = 64) will yield a 64x memory reduction".
    assert model.zero_memory_reduction("os-g-p", 64) == 64


@pytest.mark.parametrize(
    ("stage", "printed_gb"),
    [  # Figure 1's example, Ψ = 7.5B and N_d = 64, as §5.1-§5.3 state it.
        ("dp", "120"),  # "while requiring 120 GB with standard DP"
        ("os", "31.4"),  # "requires 31.4GB of memory using P_os"
        ("os-g", "16.6"),  # "requires only 16.6 GB of memory using P_os+g"
        ("os-g-p", "1.9"),  # "requires 1.9 GB of model-state memory" (Table 1: 1.88)
    ],
)
def test_figure_1_example_matches_the_text(stage: str, printed_gb: str) -> None:
    value = model.zero_state_bytes(7_500_000_000, stage, 64) / GB
    assert _as_printed(value, printed_gb) == printed_gb


def test_figure_1_parameter_partitioning_is_exactly_1_875_gb() -> None:
    # 16 × 7.5e9 / 64: what §5.3 rounds to 1.9 GB and Table 1 to 1.88.
    assert model.zero_state_bytes(7_500_000_000, "os-g-p", 64) == 1_875_000_000


@pytest.mark.parametrize(("size", "dp", "stage", "printed"), TABLE_1_CELLS)
def test_table_1_cell(size: str, dp: int, stage: str, printed: str) -> None:
    value = model.zero_state_bytes(SIZES[size], stage, dp) / GB
    if (size, stage, dp) in TRUNCATED:
        assert value != int(value), "a truncated cell has a fraction to drop"
        assert math.floor(value) == int(printed)
    else:
        assert _as_printed(value, printed) == printed


def test_table_1_has_every_cell() -> None:
    # Three models × three stages × six DP degrees.
    assert len(TABLE_1_CELLS) == 54


@pytest.mark.parametrize(
    ("stage", "most"),
    [  # §5.4: "with N_d = 64, ZeRO can train models with up to 7.5B, 14B, and 128B parameters"
        ("os", 7_500_000_000),
        ("os-g", 14_000_000_000),
        ("os-g-p", 128_000_000_000),
    ],
)
def test_section_5_4_models_fit_32_gb_at_64_way(stage: str, most: int) -> None:
    assert model.zero_state_bytes(most, stage, 64) <= 32 * GB
    assert model.zero_max_parameters(32 * GB, stage, 64) >= most


# Table 2, theoretical columns, as printed: MP degree → Baseline, P_os, P_os+g, P_os+g+p (GPUs = 64 × MP).
TABLE_2 = {
    1: ("2B", "7.6B", "14.4B", "128B"),
    2: ("4B", "15.2B", "28.8B", "256B"),
    4: ("8B", "30.4B", "57.6B", "0.5T"),
    8: ("16B", "60.8B", "115.2B", "1T"),
    16: ("32B", "121.6B", "230.4B", "2T"),
}


@pytest.mark.parametrize("mp", list(TABLE_2))
def test_table_2_baseline_and_parameter_partitioning_are_exact(mp: int) -> None:
    baseline, _, _, partitioned = TABLE_2[mp]
    assert model.zero_max_parameters(32 * GB, "dp", 64, mp) == int(baseline[:-1]) * 10**9
    # The paper prints 512B, 1,024B and 2,048B as "0.5T", "1T" and "2T".
    exact = model.zero_max_parameters(32 * GB, "os-g-p", 64, mp)
    assert exact == 128 * mp * 10**9
    unit = 10**12 if partitioned.endswith("T") else 10**9
    printed = Decimal(partitioned[:-1])
    half_last_digit = Fraction(1, 2) * Fraction(10) ** _exponent(printed)
    assert abs(exact / unit - Fraction(printed)) <= half_last_digit


@pytest.mark.parametrize("mp", list(TABLE_2))
@pytest.mark.parametrize(("column", "stage"), [(1, "os"), (2, "os-g")])
def test_table_2_scales_mp_1s_rounded_value(mp: int, column: int, stage: str) -> None:
    # The printed cell is MP 1's value rounded to 0.1B, times MP: 7.6 × 16 = 121.6, not 122.3.
    exact_at_one = model.zero_max_parameters(32 * GB, stage, 64) / 10**9
    rounded_at_one = Fraction(_as_printed(exact_at_one, "0.1"))
    assert rounded_at_one * mp == Fraction(TABLE_2[mp][column][:-1])


def test_table_2_p_os_at_mp_16_is_not_what_the_formula_gives() -> None:
    # The formula gives 122.27B; the paper prints 121.6B (7.6B × 16).
    exact = model.zero_max_parameters(32 * GB, "os", 64, 16)
    assert 122 * 10**9 < exact < 123 * 10**9


def test_a_32_gib_card_fits_more_than_table_2_says() -> None:
    # 32 GiB = 34,359,738,368 bytes: the baseline fits 2.15B parameters, not 2B.
    assert model.zero_max_parameters(32 * 2**30, "dp", 64) == Fraction(32 * 2**30, 16)


@pytest.mark.parametrize(
    ("stage", "multiple"),
    [  # §7.1: "the standard DP incurs 2Ψ"; §7.2.1: "Ψ+Ψ=2Ψ"; §7.2.2: "The total volume is therefore 3Ψ".
        ("dp", 2),
        ("os", 2),
        ("os-g", 2),
        ("os-g-p", 3),
    ],
)
def test_section_7_communication_volume(stage: str, multiple: int) -> None:
    assert model.zero_communication_elements(1000, stage) == multiple * 1000


def test_parameter_partitioning_sends_one_and_a_half_times_dp() -> None:
    # §7.2.2: "3Ψ which is 1.5x compared to the baseline".
    ratio = Fraction(model.zero_communication_elements(10, "os-g-p"), model.zero_communication_elements(10, "dp"))
    assert ratio == Fraction(3, 2)


def test_an_unknown_stage_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown ZeRO stage 'p_os'; known: dp, os, os-g, os-g-p"):
        model.zero_bytes_per_parameter("p_os", 64)


def test_a_data_parallel_degree_must_be_positive() -> None:
    with pytest.raises(ValueError, match="dp must be positive"):
        model.zero_state_bytes(10, "os", 0)
