"""The arithmetic of training, with its sources: pure functions of plain numbers.

No catalog, no formatting, no MkDocs. One module per topic, each citing the
sections it follows; this package gathers their names, so that a figure kind
reads `model.model_state_bytes(...)` whichever module holds it.

- `memory`: model states by training recipe, copies, activations (ZeRO §3);
- `activations`: activations counted tensor by tensor (Korthikanti et al. 2022, §4);
- `communication`: the ring all-reduce and transfer times (Patarasuk and Yuan; nccl-tests);
- `zero`: ZeRO-DP's stages, per device, the largest model and what they send (ZeRO §5, §7, Table 2);
- `fsdp`: FSDP's sharding strategies and cross-host traffic (Zhao et al. 2023 §3.2, §4.4; NCCL's rings).
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
)
from .communication import ring_allreduce_bytes_sent, ring_allreduce_factor, transfer_seconds
from .fsdp import (
    ADAM_STATE_BYTES,
    FULL_GRADIENT_BYTES,
    FULL_PARAMETER_BYTES,
    LOW_PRECISION_BYTES,
    STRATEGIES,
    Strategy,
    cross_host_traffic,
    cross_host_traffic_per_port,
    fsdp_state_bytes,
    fsdp_strategy,
    sequences_that_fit,
    sharding_factor,
)
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
from .zero import (
    MIXED_ADAM_K,
    ZERO_STAGES,
    ZeroStage,
    zero_bytes_per_parameter,
    zero_communication_elements,
    zero_max_parameters,
    zero_memory_reduction,
    zero_stage,
    zero_state_bytes,
)

__all__ = [
    "ACTIVATION_PRECISION",
    "ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN",
    "ADAM_STATE_BYTES",
    "ATTENTION_SCORE_BYTES",
    "BYTES_PER_VALUE",
    "CHECKPOINT_BYTES_PER_TOKEN_HIDDEN",
    "DEFAULT_RECIPE",
    "FULL_GRADIENT_BYTES",
    "FULL_PARAMETER_BYTES",
    "LINEAR_BYTES_PER_TOKEN_HIDDEN",
    "LOW_PRECISION_BYTES",
    "MIXED_ADAM_K",
    "RECIPES",
    "RECOMPUTE",
    "STRATEGIES",
    "ZERO_STAGES",
    "Recipe",
    "Strategy",
    "ZeroStage",
    "activation_bytes",
    "activation_bytes_per_layer",
    "activation_bytes_total",
    "activation_values",
    "attention_score_term",
    "copy_bytes",
    "cross_host_traffic",
    "cross_host_traffic_per_port",
    "fsdp_state_bytes",
    "fsdp_strategy",
    "model_state_bytes",
    "recipe",
    "ring_allreduce_bytes_sent",
    "ring_allreduce_factor",
    "sequences_that_fit",
    "sharding_factor",
    "state_bytes_per_parameter",
    "transfer_seconds",
    "zero_bytes_per_parameter",
    "zero_communication_elements",
    "zero_max_parameters",
    "zero_memory_reduction",
    "zero_stage",
    "zero_state_bytes",
]
