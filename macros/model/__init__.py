"""The arithmetic of training, with its sources: pure functions of plain numbers.

No catalog, no formatting, no MkDocs. One module per topic, each citing the
sections it follows; this package gathers their names, so that a figure kind
reads `model.model_state_bytes(...)` whichever module holds it.

- `shape`: the parameters a transformer's shape implies (Kaplan et al. 2020, eq. 2.1), GPT-2's vectors too;
- `compute`: training FLOPs, time and utilization (Kaplan; Narayanan et al. 2021; PaLM);
- `formats`: floating-point formats from their bit layout (IEEE 754; the FP8 paper);
- `mixed_precision`: one mixed-precision iteration, what it keeps in which precision (Micikevicius et al. 2018);
- `memory`: model states by training recipe, copies, activations (ZeRO §3);
- `checkpointing`: Chen et al. 2016's √n activation checkpointing;
- `activations`: activations counted tensor by tensor (Korthikanti et al. 2022, §4);
- `communication`: the ring all-reduce, its schedule, and transfer times (Patarasuk and Yuan; nccl-tests);
- `zero`: ZeRO-DP's stages, per device, the largest model and what they send (ZeRO §5, §7, Table 2);
- `fsdp`: FSDP's sharding strategies and cross-host traffic (Zhao et al. 2023 §3.2, §4.4; NCCL's rings);
- `tensor`: tensor parallelism's all-reduces, bytes and FLOPs per layer, scaling (Megatron-LM; Narayanan et al.);
- `parallel_activations`: a layer's activations under tensor and sequence parallelism (Korthikanti et al., Table 2);
- `pipeline`: the GPipe and 1F1B schedules, their bubble, stage boundaries (GPipe; Narayanan et al.);
- `layout`: one step laid out as DP, ZeRO-3, tensor, pipeline or PTD-P (Narayanan et al.);
- `sharding`: ZeRO-DP's stages for any recipe, by the role of each model state (ZeRO §5);
- `conditions`: when data, ZeRO-3 and tensor parallelism become communication-bound (Austin et al.'s scaling book);
- `planner`: every layout of a model on a cluster, its memory by role and step time by part, ranked.
"""

from __future__ import annotations

from . import conditions, context, layout, parallel_activations, pipeline, planner, tensor
from .activations import (
    ACTIVATION_COUNTS,
    ATTENTION_SCORE_BYTES,
    CHECKPOINT_BYTES_PER_TOKEN_HIDDEN,
    LINEAR_BYTES_PER_TOKEN_HIDDEN,
    RECOMPUTE,
    ZERO_BYTES_PER_TOKEN_HIDDEN,
    activation_bytes_counted,
    activation_bytes_per_layer,
    activation_bytes_total,
    attention_score_term,
    bytes_per_token_hidden,
    checkpointed_peak_bytes,
)
from .checkpointing import checkpointed_share, largest_segment, layers_kept, recompute_overhead, sqrt_segments
from .communication import (
    RING_PHASES,
    RingSend,
    RingStep,
    ring_allreduce_bytes_sent,
    ring_allreduce_factor,
    ring_allreduce_schedule,
    transfer_seconds,
)
from .compute import (
    ATTENTION_FORWARD_FLOPS,
    BACKWARD_FLOPS_PER_PARAMETER,
    FLOPS_PER_PARAMETER,
    FLOPS_PER_PETAFLOP_S_DAY,
    FORWARD_FLOPS_PER_PARAMETER,
    attention_flops_per_token,
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
from .fsdp import (
    ACCUMULATIONS,
    ADAM_STATE_BYTES,
    FULL_GRADIENT_BYTES,
    FULL_PARAMETER_BYTES,
    LOW_PRECISION_BYTES,
    STATE_MOMENTS,
    STRATEGIES,
    UNIT_MOMENTS,
    HeldStates,
    Strategy,
    UnitMoment,
    cross_host_traffic,
    cross_host_traffic_per_port,
    fsdp_held_states,
    fsdp_largest_micro_batch,
    fsdp_state_bytes,
    fsdp_strategy,
    fsdp_unit_schedule,
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
from .shape import (
    BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED,
    GPT2_FINAL_VECTORS_PER_HIDDEN,
    GPT2_VECTORS_PER_LAYER_PER_HIDDEN,
    LayerParameters,
    ParameterCount,
    TransformerShape,
    block_parameters,
    embedding_parameters,
    layer_parameters,
    parameter_count,
    shape_parameters,
    vector_parameters,
)
from .sharding import ROLES, STAGES, Stage, device_bytes_by_role, device_state_bytes, role_bytes_per_parameter, stage
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
    "ACCUMULATIONS",
    "ACTIVATION_COUNTS",
    "ACTIVATION_PRECISION",
    "ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN",
    "ADAM_STATE_BYTES",
    "ATTENTION_FORWARD_FLOPS",
    "ATTENTION_SCORE_BYTES",
    "BACKWARD_FLOPS_PER_PARAMETER",
    "BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED",
    "BYTES_PER_VALUE",
    "CHECKPOINT_BYTES_PER_TOKEN_HIDDEN",
    "DEFAULT_RECIPE",
    "FLOPS_PER_PARAMETER",
    "FLOPS_PER_PETAFLOP_S_DAY",
    "FORMATS",
    "FORWARD_FLOPS_PER_PARAMETER",
    "FULL_GRADIENT_BYTES",
    "FULL_PARAMETER_BYTES",
    "GPT2_FINAL_VECTORS_PER_HIDDEN",
    "GPT2_VECTORS_PER_LAYER_PER_HIDDEN",
    "LINEAR_BYTES_PER_TOKEN_HIDDEN",
    "LOW_PRECISION_BYTES",
    "MIXED_ADAM_K",
    "QUANTITIES",
    "RECIPES",
    "RECOMPUTE",
    "RING_PHASES",
    "ROLES",
    "STAGES",
    "STATE_MOMENTS",
    "STRATEGIES",
    "UNIT_MOMENTS",
    "ZERO_BYTES_PER_TOKEN_HIDDEN",
    "ZERO_STAGES",
    "Format",
    "HeldStates",
    "LayerParameters",
    "ParameterCount",
    "Recipe",
    "RingSend",
    "RingStep",
    "Stage",
    "Strategy",
    "TransformerShape",
    "UnitMoment",
    "ZeroStage",
    "activation_bytes",
    "activation_bytes_counted",
    "activation_bytes_per_layer",
    "activation_bytes_total",
    "activation_values",
    "attention_flops_per_token",
    "attention_score_term",
    "block_parameters",
    "bytes_per_token_hidden",
    "checkpointed_peak_bytes",
    "checkpointed_share",
    "compute_optimal_parameters",
    "conditions",
    "context",
    "copy_bytes",
    "cross_host_traffic",
    "cross_host_traffic_per_port",
    "device_bytes_by_role",
    "device_state_bytes",
    "embedding_parameters",
    "format_quantity_value",
    "fsdp_held_states",
    "fsdp_largest_micro_batch",
    "fsdp_state_bytes",
    "fsdp_strategy",
    "fsdp_unit_schedule",
    "largest_segment",
    "layer_parameters",
    "layers_kept",
    "layout",
    "model_flops_utilization",
    "model_state_bytes",
    "number_format",
    "parallel_activations",
    "parameter_count",
    "petaflop_s_days",
    "pipeline",
    "planner",
    "recipe",
    "recomputation",
    "recompute_overhead",
    "ring_allreduce_bytes_sent",
    "ring_allreduce_factor",
    "ring_allreduce_schedule",
    "role_bytes_per_parameter",
    "seconds_at_utilization",
    "sequences_that_fit",
    "shape_parameters",
    "sharding_factor",
    "sqrt_segments",
    "stage",
    "state_bytes_per_parameter",
    "tensor",
    "tokens_per_parameter",
    "training_flops",
    "training_seconds",
    "transfer_seconds",
    "vector_parameters",
    "zero_bytes_per_parameter",
    "zero_communication_elements",
    "zero_max_parameters",
    "zero_memory_reduction",
    "zero_stage",
    "zero_state_bytes",
]
