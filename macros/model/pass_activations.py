"""Korthikanti et al.'s activation count at the precision a recipe's passes run in.

Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models"
(2022, https://arxiv.org/abs/2205.05198), §4.1, count the bytes a transformer layer
keeps with 16-bit values (2 bytes) and dropout masks (1 byte per element):
sbh(34 + 5as/h), `activations.activation_bytes_per_layer`. Three of its items are
masks: the attention dropout's, as²b, and the dropouts' after the attention's output
projection and after the MLP, sbh each. So 32 of the 34 bytes per s·b·h are values and
2 are masks, and of the 5 bytes per a·s²·b, 4 are values (the softmax's output and the
dropout's) and 1 is the mask. A recipe whose passes run in fp32 keeps the same values
at 4 bytes each, and the same masks: the values' bytes scale with the bytes per value,
the masks' do not. At 2 bytes per value this is the paper's count, exactly.

Which precision the passes run in is the recipe's: its first state is the parameters
the forward and backward passes use (`memory.RECIPES`, `sharding.role_bytes_per_parameter`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from .activations import (
    ATTENTION_SCORE_BYTES,
    CHECKPOINT_BYTES_PER_TOKEN_HIDDEN,
    LINEAR_BYTES_PER_TOKEN_HIDDEN,
    RECOMPUTE,
)
from .checks import check_count
from .memory import recipe

#: Bytes per s·b·h and per a·s²·b that are dropout masks, 1 byte an element (§4.1), in the count of each
#: choice of what a layer keeps: everything, all but the attention scores, or only its input.
_MASKS: Mapping[str, tuple[int, int]] = MappingProxyType({"none": (2, 1), "selective": (2, 0), "full": (0, 0)})
#: The bytes per value the paper counts in.
PAPER_BYTES_PER_VALUE = 2


@dataclass(frozen=True)
class Coefficients:
    """A layer's bytes, per s·b·h and per a·s²·b, split into 16-bit values and 1-byte masks."""

    linear_values: int
    linear_masks: int
    score_values: int
    score_masks: int


def coefficients(recompute: str) -> Coefficients:
    """The count of `recompute` ("none", "selective" or "full") split into values and masks, from the paper's
    own count: with nothing recomputed, 32 + 2 bytes per s·b·h and 4 + 1 per a·s²·b.

    Raises:
        ValueError: `recompute` is not one of `activations.RECOMPUTE`.
    """
    if recompute not in RECOMPUTE:
        raise ValueError(f"unknown recompute {recompute!r}; known: {', '.join(RECOMPUTE)}")
    linear = CHECKPOINT_BYTES_PER_TOKEN_HIDDEN if recompute == "full" else sum(LINEAR_BYTES_PER_TOKEN_HIDDEN.values())
    scores = ATTENTION_SCORE_BYTES if recompute == "none" else 0
    linear_masks, score_masks = _MASKS[recompute]
    return Coefficients(linear - linear_masks, linear_masks, scores - score_masks, score_masks)


def passes_bytes_per_value(recipe_id: str) -> int:
    """Bytes of one value in the forward and backward passes of a recipe: its first state's, the parameters the
    passes use (2 for fp16 or bf16, 4 for fp32)."""
    return next(iter(recipe(recipe_id).states.values()))


def layer_bytes(sequence: int, batch: int, hidden: int, heads: int, recompute: str, bytes_per_value: int) -> Fraction:
    """Bytes one layer keeps at `bytes_per_value`: sbh(v·L/2 + m) + as²b(v·S/2 + n), with L and S the values'
    bytes per s·b·h and per a·s²·b at 2 bytes a value, m and n the masks' (`coefficients`)."""
    for name, value in (("sequence", sequence), ("batch", batch), ("hidden", hidden), ("heads", heads)):
        check_count(name, value)
    check_count("bytes_per_value", bytes_per_value)
    c = coefficients(recompute)
    scale = Fraction(bytes_per_value, PAPER_BYTES_PER_VALUE)
    linear = sequence * batch * hidden * (c.linear_values * scale + c.linear_masks)
    scores = heads * sequence * sequence * batch * (c.score_values * scale + c.score_masks)
    return linear + scores


def model_bytes(
    sequence: int, batch: int, hidden: int, heads: int, layers: int, recompute: str, bytes_per_value: int
) -> Fraction:
    """Bytes all `layers` layers keep: L × `layer_bytes`."""
    check_count("layers", layers)
    return layers * layer_bytes(sequence, batch, hidden, heads, recompute, bytes_per_value)
