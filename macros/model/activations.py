"""Activation memory counted tensor by tensor, as Korthikanti et al. count it.

Korthikanti et al., "Reducing Activation Recomputation in Large Transformer
Models" (2022, https://arxiv.org/abs/2205.05198), §4: the bytes a transformer
layer keeps for its backward pass with no model parallelism, counting 16-bit
values as 2 bytes and dropout masks as 1 byte. With s the sequence length, b
the micro-batch, h the hidden size and a the attention heads, Equation 1 gives
sbh(34 + 5as/h) bytes per layer: 11sbh + 5as²b for the attention block, 19sbh
for the MLP and 4sbh for the two layer norms (§4.1). Keeping only each layer's
input and recomputing the rest ("full activation recomputation", §5) keeps
2sbh bytes per layer (Table 2). While the backward pass recomputes a layer, that
layer's activations are rebuilt beside the stored inputs: the peak Chen et al.,
"Training Deep Nets with Sublinear Memory Cost" (2016,
https://arxiv.org/abs/1604.06174), count in their §4.3, Equation 1. Recomputing only the attention scores
("selective activation recomputation", §5) drops the 5as/h term and keeps
34sbh bytes per layer (Table 2 with t = 1); an attention kernel that never
stores the scores, such as FlashAttention, keeps about the same.

ZeRO's rougher estimate, 12 values of 2 bytes per token, hidden unit and layer,
is `memory.activation_bytes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

from .checks import check_count as _check_count

#: §4.1: bytes per s·b·h of each part of a layer that grows linearly with the sequence.
LINEAR_BYTES_PER_TOKEN_HIDDEN: Mapping[str, int] = MappingProxyType({"attention": 11, "mlp": 19, "layer_norms": 4})
#: §4.1: bytes per a·s²·b of the attention scores: the softmax output (2), its dropout mask (1) and output (2).
ATTENTION_SCORE_BYTES = 5
#: Table 2, "full activation recomputation": only each layer's 16-bit input is kept, sbh(2).
CHECKPOINT_BYTES_PER_TOKEN_HIDDEN = 2
#: What a layer keeps: everything (Equation 1), all but the attention scores (selective
#: recomputation, Table 2: sbh(10 + 24/t) with t = 1), or only its input (full recomputation).
RECOMPUTE = ("none", "selective", "full")


def attention_score_term(heads: int, sequence: int, hidden: int) -> Fraction:
    """The attention scores' bytes per s·b·h, 5as/h (§4.1); for GPT-3, §5 prints 80."""
    for name, value in (("heads", heads), ("sequence", sequence), ("hidden", hidden)):
        _check_count(name, value)
    return Fraction(ATTENTION_SCORE_BYTES * heads * sequence, hidden)


def activation_bytes_per_layer(sequence: int, batch: int, hidden: int, heads: int, recompute: str = "none") -> Fraction:
    """Bytes of activations one transformer layer keeps, without model parallelism.

    sbh(34 + 5as/h) when nothing is recomputed (Equation 1); sbh(34) when
    the attention scores are recomputed, not stored (selective recomputation,
    Table 2); sbh(2) with full activation recomputation (Table 2).

    Raises:
        ValueError: `recompute` is not one of `RECOMPUTE`.
    """
    _check_count("batch", batch)
    scores = attention_score_term(heads, sequence, hidden)
    tokens_hidden = sequence * batch * hidden
    if recompute == "none":
        return tokens_hidden * (sum(LINEAR_BYTES_PER_TOKEN_HIDDEN.values()) + scores)
    if recompute == "selective":
        return Fraction(sum(LINEAR_BYTES_PER_TOKEN_HIDDEN.values()) * tokens_hidden)
    if recompute == "full":
        return Fraction(CHECKPOINT_BYTES_PER_TOKEN_HIDDEN * tokens_hidden)
    raise ValueError(f"unknown recompute {recompute!r}; known: {', '.join(RECOMPUTE)}")


def activation_bytes_total(
    sequence: int, batch: int, hidden: int, heads: int, layers: int, recompute: str = "none"
) -> Fraction:
    """Bytes of activations of all `layers` layers: L × the bytes per layer.

    Equation 5 with no tensor parallelism (t = 1), sbhL(34 + 5as/h); with
    selective recomputation, 34sbhL (Equation 6 with t = 1); with full
    recomputation, 2sbhL (§5).
    """
    _check_count("layers", layers)
    return layers * activation_bytes_per_layer(sequence, batch, hidden, heads, recompute)


def checkpointed_peak_bytes(sequence: int, batch: int, hidden: int, heads: int, layers: int) -> Fraction:
    """Activation bytes at the peak of full recomputation: the stored inputs and one layer rebuilt.

    Every layer's input, 2sbhL (§5), plus the activations of the one layer the
    backward pass is recomputing, sbh(34 + 5as/h) (Equation 1). Chen et al. 2016,
    §4.3, Equation 1, count checkpointing's memory so: "the cost to store the
    intermediate outputs between segments" plus "the memory cost to run
    back-propagation on each of the segment", a segment here being one layer.
    The count is rough both ways: the recomputed layer's own input (2sbh) is in
    both terms, and the gradients passed between layers are in neither.
    """
    stored = activation_bytes_total(sequence, batch, hidden, heads, layers, "full")
    return stored + activation_bytes_per_layer(sequence, batch, hidden, heads)
