"""The arithmetic of training, with its sources: pure functions of plain numbers.

No catalog, no formatting, no MkDocs. One module per topic, each citing the
sections it follows; this package gathers their names, so that a figure kind
reads `model.model_state_bytes(...)` whichever module holds it.

- `memory`: model states by training recipe, copies, activations (ZeRO §3);
- `activations`: activations counted tensor by tensor (Korthikanti et al. 2022, §4);
- `communication`: the ring all-reduce and transfer times (Patarasuk and Yuan; nccl-tests).
"""

from __future__ import annotations

from .activations import (
    ATTENTION_SCORE_BYTES,
    CHECKPOINT_BYTES_PER_TOKEN_HIDDEN,
    LINEAR_BYTES_PER_TOKEN_HIDDEN,
    RECOMPUTE,
    activation_bytes_per_layer,
    activation_bytes_total,
    attention_score_term,
    checkpointed_peak_bytes,
)
from .communication import ring_allreduce_bytes_sent, ring_allreduce_factor, transfer_seconds
from .memory import (
    ACTIVATION_PRECISION,
    ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN,
    BYTES_PER_VALUE,
    DEFAULT_RECIPE,
    RECIPES,
    Recipe,
    activation_bytes,
    activation_values,
    copy_bytes,
    model_state_bytes,
    recipe,
    state_bytes_per_parameter,
)

__all__ = [
    "ACTIVATION_PRECISION",
    "ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN",
    "ATTENTION_SCORE_BYTES",
    "BYTES_PER_VALUE",
    "CHECKPOINT_BYTES_PER_TOKEN_HIDDEN",
    "DEFAULT_RECIPE",
    "LINEAR_BYTES_PER_TOKEN_HIDDEN",
    "RECIPES",
    "RECOMPUTE",
    "Recipe",
    "activation_bytes",
    "activation_bytes_per_layer",
    "activation_bytes_total",
    "activation_values",
    "attention_score_term",
    "checkpointed_peak_bytes",
    "copy_bytes",
    "model_state_bytes",
    "recipe",
    "ring_allreduce_bytes_sent",
    "ring_allreduce_factor",
    "state_bytes_per_parameter",
    "transfer_seconds",
]
