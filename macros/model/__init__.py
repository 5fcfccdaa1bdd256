"""The arithmetic of training, with its sources: pure functions of plain numbers.

No catalog, no formatting, no MkDocs. One module per topic, each citing the
sections it follows; this package gathers their names, so that a figure kind
reads `model.model_state_bytes(...)` whichever module holds it.

- `memory`: model states by training recipe, copies, activations (ZeRO §3);
- `communication`: the ring all-reduce and transfer times (Patarasuk and Yuan; nccl-tests);
- `shape`: the parameters a transformer's shape implies (Kaplan et al. 2020, eq. 2.1);
- `compute`: training FLOPs, time and utilization (Kaplan; Narayanan et al. 2021; PaLM);
- `checkpointing`: Chen et al. 2016's √n activation checkpointing;
- `formats`: floating-point formats from their bit layout (IEEE 754; the FP8 paper).
"""

from __future__ import annotations

from .checkpointing import checkpointed_share, layers_kept, recompute_overhead, sqrt_segments
from .communication import ring_allreduce_bytes_sent, ring_allreduce_factor, transfer_seconds
from .compute import (
    BACKWARD_FLOPS_PER_PARAMETER,
    FLOPS_PER_PARAMETER,
    FLOPS_PER_PETAFLOP_S_DAY,
    FORWARD_FLOPS_PER_PARAMETER,
    compute_optimal_parameters,
    model_flops_utilization,
    petaflop_s_days,
    recomputation,
    seconds_at_utilization,
    tokens_per_parameter,
    training_flops,
    training_seconds,
)
from .formats import FORMATS, QUANTITIES, Format, format_quantity_value, number_format
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
from .shape import (
    BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED,
    block_parameters,
    embedding_parameters,
    shape_parameters,
)

__all__ = [
    "ACTIVATION_PRECISION",
    "ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN",
    "BACKWARD_FLOPS_PER_PARAMETER",
    "BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED",
    "BYTES_PER_VALUE",
    "DEFAULT_RECIPE",
    "FLOPS_PER_PARAMETER",
    "FLOPS_PER_PETAFLOP_S_DAY",
    "FORMATS",
    "FORWARD_FLOPS_PER_PARAMETER",
    "QUANTITIES",
    "RECIPES",
    "Format",
    "Recipe",
    "activation_bytes",
    "activation_values",
    "block_parameters",
    "checkpointed_share",
    "compute_optimal_parameters",
    "copy_bytes",
    "embedding_parameters",
    "format_quantity_value",
    "layers_kept",
    "model_flops_utilization",
    "model_state_bytes",
    "number_format",
    "petaflop_s_days",
    "recipe",
    "recomputation",
    "recompute_overhead",
    "ring_allreduce_bytes_sent",
    "ring_allreduce_factor",
    "seconds_at_utilization",
    "shape_parameters",
    "sqrt_segments",
    "state_bytes_per_parameter",
    "tokens_per_parameter",
    "training_flops",
    "training_seconds",
    "transfer_seconds",
]
