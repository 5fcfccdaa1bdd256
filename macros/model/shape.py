"""How many parameters a transformer's shape implies.

Kaplan et al., "Scaling Laws for Neural Language Models" (2020,
https://arxiv.org/abs/2001.08361), §2.1, eq. (2.1): the non-embedding
parameters are N ≈ 2·d_model·n_layer·(2·d_attn + d_ff) = 12·n_layer·d_model²
"with the standard d_attn = d_ff/4 = d_model", biases and other sub-leading
terms left out; Table 1 adds (n_vocab + n_ctx)·d_model for the token and
position embeddings. Both are counts of weight matrices' entries: exact
integers.

What eq. (2.1) leaves out, for GPT-2's own layout (Radford et al. 2019; the
released weights as nanoGPT's model.py loads them, with bias=True): each layer
has biases on its four linear layers (3·d_model for queries, keys and values,
d_model for the attention output, 4·d_model and d_model for the feed-forward
pair) and two layer norms with a gain and a bias each (4·d_model), 13·d_model in
all, and the final layer norm adds 2·d_model.
"""

from __future__ import annotations

from .checks import check_count as _check_count

#: Kaplan eq. (2.1): per layer, 4·d_model² in attention (Q, K, V and the output
#: projection, with d_attn = d_model) and 8·d_model² in the feed-forward block
#: (two matrices with d_ff = 4·d_model).
BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED = 12


#: GPT-2's vectors per layer, in units of d_model: biases 3 + 1 + 4 + 1, two layer norms 2 × 2.
GPT2_VECTORS_PER_LAYER_PER_HIDDEN = 13
#: ...and the final layer norm's gain and bias.
GPT2_FINAL_VECTORS_PER_HIDDEN = 2


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


def vector_parameters(layers: int, hidden: int) -> int:
    """GPT-2's biases and layer norms, which eq. (2.1) leaves out: (13 × layers + 2) × hidden."""
    _check_count("layers", layers)
    _check_count("hidden", hidden)
    return (GPT2_VECTORS_PER_LAYER_PER_HIDDEN * layers + GPT2_FINAL_VECTORS_PER_HIDDEN) * hidden
