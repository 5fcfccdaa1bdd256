"""Parameters from a model's shape (Kaplan et al. 2020, eq. 2.1), against the counts the papers print.

Shapes are typed from GPT-2's Table 2 and §2.3 and GPT-3's Table 2.1 and §2.1;
the expected counts from the papers' own tables, or from arithmetic done by hand.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from macros import model
from macros.figures.kinds import KINDS
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


@pytest.mark.parametrize(
    ("layers", "hidden", "printed_millions", "to_nearest"),
    [  # Table 2.1's shapes (context 2048, GPT-2's vocabulary) against Table D.1's "Params (M)" column.
        (12, 768, 125, 1),
        (24, 1024, 356, 1),  # Table 2.1 prints 350M; D.1 prints 356, the shape's count
        (24, 1536, 760, 1),
        (24, 2048, 1_320, 10),
        (32, 2560, 2_650, 10),
        (32, 4096, 6_660, 10),
        (40, 5120, 12_850, 10),  # d_model as 40 heads × 128; Table 2.1's printed 5140 would give 12,950
    ],
)
def test_table_d1_counts_gpt3s_smaller_models_by_their_shape(
    layers: int, hidden: int, printed_millions: int, to_nearest: int
) -> None:
    millions = Fraction(model.shape_parameters(layers, hidden, 50_257, 2048), 10**6)
    assert round(millions / to_nearest) * to_nearest == printed_millions


def test_gpt2s_biases_and_layer_norms_make_up_the_released_count() -> None:
    # nanoGPT's model.py, GPT.from_pretrained: "'gpt2': dict(n_layer=12, n_head=12, n_embd=768),  # 124M params" and
    # "'gpt2-xl': dict(n_layer=48, n_head=25, n_embd=1600), # 1558M params"; vocabulary 50257, block size 1024.
    # By hand, per layer: biases 3d + d + 4d + d, two layer norms 2d each: 13d; the final layer norm 2d.
    assert model.vector_parameters(48, 1600) == (13 * 48 + 2) * 1600 == 1_001_600
    small = model.shape_parameters(12, 768, 50_257, 1024) + model.vector_parameters(12, 768)
    largest = model.shape_parameters(48, 1600, 50_257, 1024) + model.vector_parameters(48, 1600)
    assert round(small, -6) == 124_000_000 and round(largest, -6) == 1_558_000_000


def test_the_whole_count_adds_the_vectors_to_the_shapes() -> None:
    kind = KINDS["shape_parameters"]
    assert kind.figure(catalog(), "gpt2-xl-released", "all").id == "shape-parameters/gpt2-xl-released/all"
    whole = kind.figure(catalog(), "gpt2-xl-released", "all").value
    assert whole - kind.figure(catalog(), "gpt2-xl-released").value == 1_001_600
    with pytest.raises(KeyError, match="counts a whole model"):
        kind.figure(catalog(), "gpt2-xl", "blocks")


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
    with pytest.raises(KeyError, match="known: blocks, embeddings, total, vectors, all"):
        KINDS["shape_share"].figure(catalog(), "gpt2-xl", "biases")
