"""A layer's activations under tensor and sequence parallelism and selective recomputation.

Korthikanti et al., "Reducing Activation Recomputation in Large Transformer
Models" (2022, https://arxiv.org/abs/2205.05198), Table 2, building on their
count without parallelism (`activations`, Eq. 1: sbh(34 + 5as/h) bytes). With
t-way tensor parallelism all but 10sbh of it, "due to these replicated
operations" (the layer norms and dropouts), is divided by t (Eq. 2); sequence
parallelism divides the rest too (Eq. 4, "Equation 1 divided by the tensor
parallel size"). Selective recomputation drops the attention scores' 5as/h;
full recomputation keeps each layer's input, sbh(2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from types import MappingProxyType

from .activations import CHECKPOINT_BYTES_PER_TOKEN_HIDDEN, LINEAR_BYTES_PER_TOKEN_HIDDEN, attention_score_term
from .checks import check_count as _check_count

#: Bytes per s·b·h that the whole layer keeps apart from the attention scores: 11 + 19 + 4 (§4.1).
LINEAR = sum(LINEAR_BYTES_PER_TOKEN_HIDDEN.values())
#: Bytes per s·b·h of what tensor parallelism leaves replicated on every device: layer norms, dropouts (§4.2.2).
REPLICATED = 10

#: Bytes per layer in units of sbh, as a function of t and 5as/h, by technique (Table 2).
TECHNIQUES: Mapping[str, Callable[[int, Fraction], Fraction]] = MappingProxyType(
    {
        "none": lambda t, scores: LINEAR + scores,
        "tensor": lambda t, scores: REPLICATED + Fraction(LINEAR - REPLICATED, t) + scores / t,
        "tensor-sequence": lambda t, scores: Fraction(LINEAR, t) + scores / t,
        "tensor-selective": lambda t, scores: REPLICATED + Fraction(LINEAR - REPLICATED, t),
        "tensor-sequence-selective": lambda t, scores: Fraction(LINEAR, t),
        "full-recompute": lambda t, scores: Fraction(CHECKPOINT_BYTES_PER_TOKEN_HIDDEN),
    }
)

#: How each technique's row reads in Table 2.
TECHNIQUE_FORMULAS: Mapping[str, str] = MappingProxyType(
    {
        "none": "sbh(34 + 5as/h)",
        "tensor": "sbh(10 + 24/t + 5as/(ht))",
        "tensor-sequence": "sbh(34/t + 5as/(ht))",
        "tensor-selective": "sbh(10 + 24/t)",
        "tensor-sequence-selective": "sbh(34/t)",
        "full-recompute": "sbh(2)",
    }
)


def layer_activation_bytes(
    sequence: int, microbatch: int, hidden: int, heads: int, tensor: int = 1, technique: str = "none"
) -> Fraction:
    """Bytes of activations one transformer layer keeps on each device, by `technique` (Table 2).

    Raises:
        KeyError: an unknown technique.
    """
    _check_count("microbatch", microbatch)
    _check_count("tensor", tensor)
    scores = attention_score_term(heads, sequence, hidden)
    try:
        coefficient = TECHNIQUES[technique](tensor, scores)
    except (KeyError, TypeError):
        raise KeyError(f"unknown technique {technique!r}; known: {', '.join(TECHNIQUES)}") from None
    return sequence * microbatch * hidden * coefficient


#: Each technique that keeps the attention scores, and the same with selective recomputation (Table 2's rows).
SELECTIVE: Mapping[str, str] = MappingProxyType(
    {"tensor": "tensor-selective", "tensor-sequence": "tensor-sequence-selective"}
)


def selective_saving(sequence: int, hidden: int, heads: int, tensor: int = 1, technique: str = "tensor") -> Fraction:
    """The share of a layer's activations under `technique` that selective recomputation drops.

    The attention scores' 5as/h against the whole: (5as/h) / (34 + 5as/h) without
    parallelism (t = 1) or with tensor and sequence parallelism, which divide both
    by t (§5); with tensor parallelism alone, whose 10sbh stays undivided, it is
    (5as/(ht)) / (10 + 24/t + 5as/(ht)).

    Raises:
        KeyError: a technique without a selective row in `SELECTIVE`.
    """
    if technique not in SELECTIVE:
        raise KeyError(f"unknown technique {technique!r} for selective recomputation; known: {', '.join(SELECTIVE)}")
    kept = layer_activation_bytes(sequence, 1, hidden, heads, tensor, SELECTIVE[technique])
    return 1 - kept / layer_activation_bytes(sequence, 1, hidden, heads, tensor, technique)


#: Bytes per s·b of a layer that tensor parallelism leaves whole on every GPU (§4.2.1: "the layernorms, dropouts,
#: and the inputs of attention and MLP"), in units of h: two norms' inputs (2 + 2), the attention's and the MLP's
#: inputs (2 + 2), the two dropout masks after them (1 + 1). `REPLICATED`, whatever the shape.
REPLICATED_PER_HIDDEN = 10
#: Bytes per token of the tensors t-way tensor parallelism splits, per value of their width
#: (`shape_layer_activation_bytes`): the queries and the output projection's input, 2 + 2 per query value; the
#: keys and the values, 2 + 2 per key value; the MLP's intermediates, 2 + 2 per value of its width, or 2 + 2 + 2
#: when gated.
SPLIT_BYTES_PER_WIDTH: Mapping[str, int] = MappingProxyType({"query": 4, "kv": 4, "mlp": 4, "gated_mlp": 6})


def shape_layer_activation_bytes(
    sequence: int,
    microbatch: int,
    hidden: int,
    heads: int,
    kv_width: int,
    query_width: int,
    ffn: int,
    gated: bool,
    tensor: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    scores_stored: bool = True,
) -> Fraction:
    """Bytes of activations one layer of any shape keeps on each GPU: Korthikanti et al.'s count, tensor by tensor.

    §4.1 counts a GPT layer's 16-bit tensors (and 1-byte dropout masks) per s·b: 11h in attention (its input
    2h, the queries and keys 4h, the values 2h, the output projection's input 2h, a dropout mask h), 19h in
    the MLP (its input 2h, the GeLU's input and output 8h + 8h for f = 4h, a mask h), 4h for two norms, and
    5as for the scores. The same tensors for grouped-query attention and any MLP: queries 2·heads·d, keys and
    values 2·kv_heads·d each, the projection's input 2·heads·d; the MLP's intermediates 4f, or 6f when gated
    (SwiGLU keeps the gate's and the up projection's outputs and their product). So a layer keeps

        sb·(10h + 4·heads·d + 4·kv_heads·d + (4 or 6)·f + 5as),

    of which the 10h of `REPLICATED_PER_HIDDEN` stays whole under t-way tensor parallelism and the rest is
    divided by t (Eq. 2); sequence parallelism divides the 10h too (Eq. 4). With `scores_stored=False` (a
    fused attention kernel such as FlashAttention, which never stores the scores) or selective recomputation,
    the 5as term goes. Full recomputation keeps each layer's input, 2sbh, a t-th of it under sequence
    parallelism, where Megatron-LM keeps the input sharded as it arrives. For a GPT shape (kv = heads,
    d = h/a, f = 4h, not gated) this is `layer_activation_bytes` for each technique of Table 2.

    Raises:
        ValueError: an unknown `recompute`, or sequence parallelism without tensor parallelism.
    """
    for name, value in (
        ("sequence", sequence),
        ("microbatch", microbatch),
        ("hidden", hidden),
        ("kv_width", kv_width),
        ("query_width", query_width),
        ("ffn", ffn),
        ("tensor", tensor),
    ):
        _check_count(name, value)
    if sequence_parallel and tensor < 2:
        raise ValueError(
            "sequence parallelism splits a layer's whole activations over a tensor-parallel group of 2 or more"
        )
    tokens = sequence * microbatch
    copied = Fraction(REPLICATED_PER_HIDDEN * hidden, tensor if sequence_parallel else 1)
    if recompute == "full":
        return tokens * Fraction(CHECKPOINT_BYTES_PER_TOKEN_HIDDEN * hidden, tensor if sequence_parallel else 1)
    if recompute not in ("none", "selective"):
        raise ValueError(f"unknown recompute {recompute!r}; known: none, selective, full")
    per = SPLIT_BYTES_PER_WIDTH
    split = per["query"] * query_width + per["kv"] * kv_width + per["gated_mlp" if gated else "mlp"] * ffn
    scores = hidden * attention_score_term(heads, sequence, hidden) if scores_stored and recompute == "none" else 0
    return tokens * (copied + Fraction(split, tensor) + Fraction(scores, tensor))
