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
