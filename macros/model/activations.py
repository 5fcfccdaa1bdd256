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
is `memory.activation_bytes`; `activation_bytes_counted` puts the two counts side
by side, and says which attention kernel each assumes. Equation 1's 5as²b are the
attention scores a kernel materialises (the softmax output, its dropout mask, the
dropout's output: Megatron-LM's kernels of 2022); a fused kernel that recomputes
them in its backward pass (FlashAttention, 2022) never stores them and keeps the
34sbh alone. ZeRO's footnote (2019) names no tensors; its 24sbh leave the scores
out and still count fewer bytes than the 34sbh of what any kernel keeps.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

from .checks import check_count as _check_count
from .memory import ACTIVATION_PRECISION, ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN, BYTES_PER_VALUE

#: §4.1: bytes per s·b·h of each part of a layer that grows linearly with the sequence.
LINEAR_BYTES_PER_TOKEN_HIDDEN: Mapping[str, int] = MappingProxyType({"attention": 11, "mlp": 19, "layer_norms": 4})
#: §4.1: bytes per a·s²·b of the attention scores: the softmax output (2), its dropout mask (1) and output (2).
ATTENTION_SCORE_BYTES = 5
#: Table 2, "full activation recomputation": only each layer's 16-bit input is kept, sbh(2).
CHECKPOINT_BYTES_PER_TOKEN_HIDDEN = 2
#: What a layer keeps: everything (Equation 1), all but the attention scores (selective
#: recomputation, Table 2: sbh(10 + 24/t) with t = 1), or only its input (full recomputation).
RECOMPUTE = ("none", "selective", "full")


#: ZeRO §3.2's footnote in bytes per s·b·h: 12 values, in fp16 as its own GPT-2 figure counts them.
ZERO_BYTES_PER_TOKEN_HIDDEN = ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN * BYTES_PER_VALUE[ACTIVATION_PRECISION]
#: Ways to count a layer's 16-bit activations: ZeRO's footnote; Korthikanti et al.'s Equation 1 with an
#: attention kernel that stores the scores; the same with a fused kernel that does not.
ACTIVATION_COUNTS = ("zero", "stored-scores", "fused-attention")


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


def bytes_per_token_hidden(sequence: int, hidden: int, heads: int, count: str) -> Fraction:
    """A layer's 16-bit activation bytes per s·b·h under `count` (`ACTIVATION_COUNTS`).

    ZeRO's 24, Korthikanti et al.'s 34 + 5as/h with the scores stored, or their
    34 with a fused attention kernel. For GPT-2 (a = 25, h = 1600) at s = 1024,
    24, 114 and 34.

    Raises:
        ValueError: `count` is not one of `ACTIVATION_COUNTS`.
    """
    scores = attention_score_term(heads, sequence, hidden)
    linear = sum(LINEAR_BYTES_PER_TOKEN_HIDDEN.values())
    counts = {
        "zero": Fraction(ZERO_BYTES_PER_TOKEN_HIDDEN),
        "stored-scores": linear + scores,
        "fused-attention": Fraction(linear),
    }
    if count not in counts:
        raise ValueError(f"unknown count {count!r}; known: {', '.join(ACTIVATION_COUNTS)}")
    return counts[count]


def activation_bytes_counted(sequence: int, batch: int, hidden: int, heads: int, layers: int, count: str) -> Fraction:
    """Bytes of 16-bit activations of all `layers` layers, counted as `count` says: sbhL × `bytes_per_token_hidden`.

    ZeRO's 24sbhL (its GPT-2 figure's fp16), Korthikanti et al.'s sbhL(34 + 5as/h)
    (Equation 5 with t = 1) or, with a fused attention kernel, 34sbhL.
    """
    for name, value in (("sequence", sequence), ("batch", batch), ("hidden", hidden), ("layers", layers)):
        _check_count(name, value)
    return sequence * batch * hidden * layers * bytes_per_token_hidden(sequence, hidden, heads, count)
