"""The arithmetic of training, with its sources: pure functions of plain numbers.

No catalog, no formatting, no MkDocs. One module per topic, each citing the
sections it follows; this package gathers their names, so that a figure kind
reads `model.model_state_bytes(...)` whichever module holds it.

- `memory`: model states by training recipe, copies, activations (ZeRO §3);
- `activations`: activations counted tensor by tensor (Korthikanti et al. 2022, §4);
- `communication`: the ring all-reduce and transfer times (Patarasuk and Yuan; nccl-tests);
- `zero`: ZeRO-DP's stages, per device, the largest model and what they send (ZeRO §5, §7, Table 2);
- `fsdp`: FSDP's sharding strategies and cross-host traffic (Zhao et al. 2023 §3.2, §4.4).
- `tensor`: tensor parallelism's all-reduces, bytes and FLOPs per layer, scaling (Megatron-LM; Narayanan et al.);
- `parallel_activations`: a layer's activations under tensor and sequence parallelism (Korthikanti et al., Table 2);
- `pipeline`: the GPipe and 1F1B schedules, their bubble, stage boundaries (GPipe; Narayanan et al.);
- `layout`: one step laid out as DP, ZeRO-3, tensor, pipeline or PTD-P (Narayanan et al.).
"""

from __future__ import annotations

from . import layout, parallel_activations, pipeline, tensor
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
from .fsdp import (
    ADAM_STATE_BYTES,
    FULL_GRADIENT_BYTES,
    FULL_PARAMETER_BYTES,
    LOW_PRECISION_BYTES,
    STRATEGIES,
    Strategy,
    cross_host_traffic,
    fsdp_state_bytes,
    fsdp_strategy,
    hybrid_cross_host_traffic,
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
    "checkpointed_peak_bytes",
    "copy_bytes",
    "cross_host_traffic",
    "fsdp_state_bytes",
    "fsdp_strategy",
    "hybrid_cross_host_traffic",
    "layout",
    "model_state_bytes",
    "parallel_activations",
    "pipeline",
    "recipe",
    "ring_allreduce_bytes_sent",
    "ring_allreduce_factor",
    "sequences_that_fit",
    "sharding_factor",
    "state_bytes_per_parameter",
    "tensor",
    "transfer_seconds",
    "zero_bytes_per_parameter",
    "zero_communication_elements",
    "zero_max_parameters",
    "zero_stage",
    "zero_state_bytes",
]
