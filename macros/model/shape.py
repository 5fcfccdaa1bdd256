"""How many parameters a transformer's shape implies.

Kaplan et al., "Scaling Laws for Neural Language Models" (2020,
https://arxiv.org/abs/2001.08361), §2.1, eq. (2.1): the non-embedding
parameters are N ≈ 2·d_model·n_layer·(2·d_attn + d_ff) = 12·n_layer·d_model²
"with the standard d_attn = d_ff/4 = d_model", biases and other sub-leading
terms left out; Table 1 adds (n_vocab + n_ctx)·d_model for the token and
position embeddings. Both are counts of weight matrices' entries: exact
integers.
"""

from __future__ import annotations

from .checks import check_count as _check_count

#: Kaplan eq. (2.1): per layer, 4·d_model² in attention (Q, K, V and the output
#: projection, with d_attn = d_model) and 8·d_model² in the feed-forward block
#: (two matrices with d_ff = 4·d_model).
BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED = 12


def block_parameters(layers: int, hidden: int) -> int:
    """Kaplan's N: 12 × layers × hidden², the transformer blocks' weight matrices."""
    _check_count("layers", layers)
    _check_count("hidden", hidden)
    return BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED * layers * hidden**2


def embedding_parameters(vocabulary: int, context: int, hidden: int) -> int:
    """Kaplan Table 1's "Embed" row: (n_vocab + n_ctx) × d_model, token and position embeddings."""
    for name, value in (("vocabulary", vocabulary), ("context", context), ("hidden", hidden)):
        _check_count(name, value)
    return (vocabulary + context) * hidden


def shape_parameters(layers: int, hidden: int, vocabulary: int, context: int) -> int:
    """The blocks and the embeddings together: what the shape implies, biases and layer norms left out."""
    return block_parameters(layers, hidden) + embedding_parameters(vocabulary, context, hidden)
