"""Activation memory counted tensor by tensor, against what Korthikanti et al. 2022 print.

Expected values are typed from the paper (arXiv 2205.05198) or from arithmetic
shown beside them, never from the code's output.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from macros import model

# §5: "For GPT-3, a = 96, s = 2048, and h = 12288 and as a result 5as/h = 80."
GPT3 = {"heads": 96, "sequence": 2048, "hidden": 12288}
# §5: "For MT-NLG, a = 128, s = 2048, and h = 20480 so 5as/h = 64."
MT_NLG = {"heads": 128, "sequence": 2048, "hidden": 20480}


def test_a_layers_linear_part_is_the_papers_34_sbh() -> None:
    # §4.1: attention "11sbh + 5as²b", MLP "19sbh", layer norms "4sbh"; Equation 1: sbh(34 + 5as/h).
    assert dict(model.LINEAR_BYTES_PER_TOKEN_HIDDEN) == {"attention": 11, "mlp": 19, "layer_norms": 4}
    assert sum(model.LINEAR_BYTES_PER_TOKEN_HIDDEN.values()) == 34


@pytest.mark.parametrize(("shape", "printed"), [(GPT3, 80), (MT_NLG, 64)])
def test_the_attention_score_term_is_what_the_paper_prints(shape: dict[str, int], printed: int) -> None:
    assert model.attention_score_term(**shape) == printed


def test_a_layer_keeps_equation_1s_bytes() -> None:
    # GPT-3's shape at micro-batch 1: 2048 × 1 × 12288 × (34 + 80) bytes.
    assert model.activation_bytes_per_layer(2048, 1, 12288, 96) == 2048 * 12288 * 114


def test_full_recomputation_keeps_only_each_layers_input() -> None:
    # Table 2, "full activation recomputation": sbh(2); §5: "reduces the total ... to 2sbhL".
    assert model.activation_bytes_per_layer(2048, 4, 12288, 96, "full") == 2 * 2048 * 4 * 12288
    assert model.activation_bytes_total(2048, 4, 12288, 96, 96, "full") == 2 * 2048 * 4 * 12288 * 96


def test_all_layers_keep_l_times_one_layer() -> None:
    # Equation 5 with t = 1: sbhL(34 + 5as/h); GPT-2 XL's shape, 5 × 25 × 1024 / 1600 = 80.
    assert model.activation_bytes_total(1024, 32, 1600, 25, 48) == 1024 * 32 * 1600 * (34 + 80) * 48


def test_the_checkpointed_peak_is_the_stored_inputs_and_one_whole_layer() -> None:
    # Chen et al. 2016, §4.3, Equation 1: storing the segments' inputs, plus back-propagating one segment.
    # GPT-3's shape, micro-batch 1, 96 layers: 2 × 2048 × 12288 × 96 stored, 2048 × 12288 × (34 + 80) rebuilt.
    stored = 2 * 2048 * 12288 * 96
    assert model.checkpointed_peak_bytes(2048, 1, 12288, 96, 96) == stored + 2048 * 12288 * 114


def test_selective_recomputation_keeps_34_sbh_per_layer() -> None:
    # Table 2, "tensor parallel + selective activation recomputation": sbh(10 + 24/t), so 34sbh with t = 1.
    assert model.activation_bytes_per_layer(2048, 2, 12288, 96, "selective") == 34 * 2048 * 2 * 12288
    assert model.activation_bytes_total(2048, 2, 12288, 96, 96, "selective") == 34 * 2048 * 2 * 12288 * 96


@pytest.mark.parametrize(("shape", "printed_percent"), [(GPT3, 70), (MT_NLG, 65)])
def test_selective_recomputation_saves_what_section_5_says(shape: dict[str, int], printed_percent: int) -> None:
    # §5: "by using selective activation recomputation we can save 70% and 65% of the required memory
    # for activations for the GPT-3 and MT-NLG models": the 5as/h term's share of sbh(34 + 5as/h).
    everything = model.activation_bytes_per_layer(shape["sequence"], 1, shape["hidden"], shape["heads"])
    selective = model.activation_bytes_per_layer(shape["sequence"], 1, shape["hidden"], shape["heads"], "selective")
    assert round(100 * (1 - selective / everything)) == printed_percent


def test_a_term_that_does_not_divide_evenly_stays_exact() -> None:
    # 5 × 12 × 100 / 768 = 7.8125, kept as a fraction, not rounded.
    assert model.attention_score_term(12, 100, 768) == Fraction(6000, 768)


def test_an_unknown_recompute_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown recompute 'partial'; known: none, selective, full"):
        model.activation_bytes_per_layer(2048, 1, 12288, 96, "partial")


@pytest.mark.parametrize("name", ["sequence", "batch", "hidden", "heads"])
def test_every_dimension_must_be_positive(name: str) -> None:
    shape = {"sequence": 2048, "batch": 1, "hidden": 12288, "heads": 96, name: 0}
    with pytest.raises(ValueError, match=f"{name} must be positive"):
        model.activation_bytes_per_layer(
            sequence=shape["sequence"], batch=shape["batch"], hidden=shape["hidden"], heads=shape["heads"]
        )


def test_the_layer_count_must_be_positive() -> None:
    with pytest.raises(ValueError, match="layers must be positive"):
        model.activation_bytes_total(2048, 1, 12288, 96, 0)


@pytest.mark.parametrize(
    ("count", "per_token_hidden"),
    [
        # ZeRO §3.2, footnote 3: "about 12 × hidden_dim × batch × seq_length × transformer_layers" values, at the
        # 2 bytes of its own GPT-2 figure ("about 60 GB" for batch 32): 24 bytes.
        ("zero", 24),
        # Korthikanti §5: "For GPT-3, a = 96, s = 2048, and h = 12288 and as a result 5as/h = 80"; Equation 1: 34 + 80.
        ("stored-scores", 34 + 80),
        # §4.1 without the attention block's 5as²b (softmax output, its dropout mask, dropout output): 11 + 19 + 4.
        ("fused-attention", 34),
    ],
)
def test_each_count_keeps_its_bytes_per_token_and_hidden_unit(count: str, per_token_hidden: int) -> None:
    assert model.bytes_per_token_hidden(**{k: GPT3[k] for k in ("sequence", "hidden", "heads")}, count=count) == (
        per_token_hidden
    )


def test_zeros_count_of_gpt2_at_batch_32_is_its_60_gb() -> None:
    # ZeRO §3.2: GPT-2 "with sequence length of 1K and batch size of 32 requires about 60 GB of memory":
    # 24 × 1024 × 32 × 1600 × 48 = 60.4 × 10⁹ bytes.
    assert model.activation_bytes_counted(1024, 32, 1600, 25, 48, "zero") == 24 * 1024 * 32 * 1600 * 48
    assert round(model.activation_bytes_counted(1024, 32, 1600, 25, 48, "zero") / 10**10) == 6


def test_korthikantis_count_of_gpt2_is_four_and_three_quarter_times_zeros() -> None:
    # GPT-2 XL: 5 × 25 × 1024 / 1600 = 80, so (34 + 80)/24 = 4.75; with a fused kernel 34/24 = 17/12.
    stored = model.bytes_per_token_hidden(1024, 1600, 25, "stored-scores")
    fused = model.bytes_per_token_hidden(1024, 1600, 25, "fused-attention")
    assert (stored / model.ZERO_BYTES_PER_TOKEN_HIDDEN, fused / model.ZERO_BYTES_PER_TOKEN_HIDDEN) == (
        Fraction(19, 4),
        Fraction(17, 12),
    )


def test_an_unknown_count_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown count 'flash'; known: zero, stored-scores, fused-attention"):
        model.bytes_per_token_hidden(1024, 1600, 25, "flash")
