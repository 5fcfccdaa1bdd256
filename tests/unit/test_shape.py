"""Parameters from a model's shape (Kaplan et al. 2020, eq. 2.1), against the counts the papers print.

Shapes are typed from GPT-2's Table 2 and §2.3 and GPT-3's Table 2.1 and §2.1;
the expected counts from the papers' own tables, or from arithmetic done by hand.
"""

from __future__ import annotations

import pytest

from macros import model
from macros.kinds import KINDS
from tests.conftest import catalog


def test_kaplans_n_is_twelve_layers_times_hidden_squared() -> None:
    # Kaplan eq. (2.1): N ≈ 2·d_model·n_layer·(2·d_attn + d_ff),
    # which with d_attn = d_ff/4 = d_model is 12·n_layer·d_model².
    layers, hidden = 96, 12288
    general = 2 * hidden * layers * (2 * hidden + 4 * hidden)
    assert model.block_parameters(layers, hidden) == general


def test_gpt3_by_its_shape_is_what_table_d1_computes_with() -> None:
    # GPT-3 Table 2.1: 96 layers, d_model 12288; §2.1: n_ctx = 2048; GPT-2 §2.3: vocabulary 50,257.
    # Table D.1 prints "Params (M) 174,600", four significant figures.
    count = model.shape_parameters(96, 12288, 50_257, 2048)
    assert round(count, -8) == 174_600_000_000


def test_gpt2_by_its_shape_is_above_the_printed_1542m() -> None:
    # GPT-2 Table 2: 48 layers, d_model 1600, "1542M"; §2.3: vocabulary 50,257, context 1024.
    # By hand: 12 × 48 × 1600² = 1,474,560,000, plus (50,257 + 1,024) × 1,600 = 82,049,600.
    assert model.block_parameters(48, 1600) == 1_474_560_000
    assert model.embedding_parameters(50_257, 1024, 1600) == 82_049_600
    assert model.shape_parameters(48, 1600, 50_257, 1024) > 1_542_000_000


def test_the_gap_is_said_either_way() -> None:
    gap = KINDS["shape_gap"].figure(catalog(), "gpt2-xl")
    assert gap.value == 1_556_609_600 - 1_542_000_000
    assert "above the published" in gap.computed.words
    below = KINDS["shape_gap"].figure(catalog(), "gpt3-175b", "blocks")
    assert below.value == 175_000_000_000 - 173_946_175_488 and "below" in below.computed.words


def test_the_embeddings_share_shrinks_as_models_grow() -> None:
    small = KINDS["shape_share"].figure(catalog(), "gpt2-xl", "embeddings").value
    large = KINDS["shape_share"].figure(catalog(), "gpt3-175b", "embeddings").value
    assert large < small < 1


@pytest.mark.parametrize(("call", "message"), [((0, 1600), "layers must be positive"), ((48, 0), "hidden must be")])
def test_a_shape_must_be_positive(call: tuple[int, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        model.block_parameters(*call)


def test_an_unknown_part_says_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: blocks, embeddings, total"):
        KINDS["shape_share"].figure(catalog(), "gpt2-xl", "biases")
