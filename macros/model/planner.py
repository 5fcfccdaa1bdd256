"""A layout planner: every way to lay a model out on a cluster, what each costs in memory and time, ranked.

Given a model's shape (`shape.TransformerShape`), a cluster (`Hardware`) and a run (`Run`: sequence length,
global batch, a stated share of peak, a recipe, a memory reserve), the planner enumerates every layout
(`Layout`): data × tensor × context × pipeline degrees that multiply to the GPUs, an expert-parallel degree ep
that divides cp × dp for a mixture of experts (1 for a dense model), a ZeRO stage 0 to 3, tensor parallelism
with or without sequence parallelism, the 1F1B schedule (interleaved when `Run.chunks` > 1), a micro-batch
size and a recomputation (none, selective, full). Each layout either breaks a rule (`RULES`, the first one
named) or gets its memory on the most loaded GPU by role and its step time by part, and the valid ones are
ranked: those that fit first, fastest first, each with the reason for its place (`Reason`).

Nothing here is a second formula: each piece calls the module of its topic.

- Parameters: `shape.parameter_count`, exact for GPT-2, Llama, Mistral, Qwen2 and Mixtral as their model
  classes build them; a GPU holds its stage's layers (`Stage`), split by t where Megatron-LM splits them
  (`shape.LayerParameters`), with the first stage's embeddings and the last stage's output layer (and, with
  tied embeddings and a pipeline, the last stage's copy of the embeddings, as Megatron-LM keeps it).
- Model states by role: `sharding.device_bytes_by_role` of the GPU's parameters at the layout's ZeRO stage and
  the recipe's bytes (`memory.RECIPES`; "bf16-adam" is Megatron-LM's 18 bytes: 2 + 4 + 12). FSDP's strategies
  are these stages (`fsdp.STRATEGIES`: NO_SHARD 0, SHARD_GRAD_OP 2, FULL_SHARD 3). Under ZeRO-3 the GPU also
  holds its largest unit gathered, parameters and gradients, as DeepSpeed's estimator counts it
  (`largest_layer_memory = 4 * largest_layer_params`, the 2 + 2 bytes of fp16 parameters and gradients; here
  the recipe's own parameter and gradient bytes).
- Activations: `parallel_activations.shape_layer_activation_bytes` per layer and micro-batch, Korthikanti et
  al.'s tensor-by-tensor count for any shape, times the stage's layers and the micro-batches it holds at its
  peak (`pipeline.one_f_one_b_in_flight`, the closed form of what the simulated 1F1B schedule stashes, at any
  size; `pipeline.interleaved_in_flight` for the interleaved one); the first stage adds the embedding's input
  and dropout mask, the last the output layer's input and fp32 logits (Megatron-LM's theoretical memory
  report's terms); full recomputation adds the one layer the backward pass rebuilds (Chen et al.'s peak,
  `activations.checkpointed_peak_bytes`). The attention kernel is fused by default (FlashAttention keeps no
  scores, so selective recomputation changes nothing and is not enumerated); `Run.attention = "stored"` counts
  the 5as²b of scores a kernel that stores them keeps.
- A stated reserve (`Run.reserve`, a share of the memory CUDA gives programs) for the CUDA context, NCCL's
  buffers and the allocator's fragmentation, which no count above holds.
- Compute: 6N per token for the N parameters a token multiplies by (`shape.ParameterCount.matmul`:
  the layers' active parameters and the output layer; `compute.training_flops`, 8N with full recomputation),
  plus attention's 12·L·w·s (`compute.attention_flops_per_token`, PaLM's "6N + 12LHQT", with the recomputed
  forward's share when there is one), over all GPUs at the stated share of peak
  (`compute.seconds_at_utilization`).
- Tensor parallelism: per layer and micro-batch, the forward all-reduces in full and the backward ones beyond
  their weight-gradient GEMMs at the stated share of peak (`tensor.exposed_allreduce_seconds`, with the
  recomputed forward's two under full recomputation), over NVLink. Sequence parallelism sends the same bytes
  as reduce-scatters and all-gathers (`tensor.sequence_parallel_bytes_per_layer`'s eight), and its extra
  backward all-gather runs beside the weight-gradient GEMM, so it costs no exposed time here.
- Data parallelism: the gradients in the recipe's gradient bytes, reduced once a step (a ring all-reduce for
  ZeRO-0; a reduce-scatter, and an all-gather of the updated parameters, for ZeRO-1 and -2), or under ZeRO-3
  all-gathered twice and reduce-scattered for every micro-batch (ZeRO §7.2.2, FSDP §3). Over NVLink when a
  data-parallel group stays on a node, else through each GPU's network port, shared as NCCL's rings share them
  (`communication.cross_host_bytes_per_port`, `layout.rank_placement`: Megatron-LM's rank order). What the
  compute hides is taken off: the reduction hides behind the last micro-batch's backward pass (4N of 6N), the
  parameters' all-gather behind the next step's first forward pass (2N of 6N), and ZeRO-3's per micro-batch
  traffic behind that micro-batch's compute, pass by pass: the forward's all-gather behind its forward pass, the
  backward's all-gather and the reduce-scatter behind its backward pass (and the forward it recomputes).
- Hybrid sharding (`Layout.hybrid`, FSDP's HYBRID_SHARD; Zhao et al. §3.2): ZeRO-3 within each node's F
  data-parallel ranks (`hybrid_groups`), so the states split F ways, and its gathers and reduce-scatter for every
  micro-batch run over NVLink, each behind its pass; each GPU's 1/F shard of the gradients is all-reduced with its R
  copies, one in each node, through its own port, once a step behind the last micro-batch's backward pass. That
  is FSDP2 with `set_requires_all_reduce(False)` until the last micro-batch: by default it all-reduces after every
  micro-batch's backward (pytorch/pytorch#126166), which this planner does not count, and FSDP1's HYBRID_SHARD
  cannot defer it alone (its `no_sync()` skips the reduce-scatter too and keeps unsharded gradients).
- Pipeline: the bubble, (p − 1)/m of the compute and exposed tensor, context and expert time
  (`pipeline.bubble_formula`), ÷ v interleaved (`pipeline.interleaved_bubble`); and each micro-batch's b·s·h
  values across each boundary, both ways, ÷ t with the scatter/gather optimisation (`pipeline.boundary_bytes`),
  all on the critical path.
- Context parallelism (`Layout.cp`, Megatron-Core's order tp-cp-dp-pp, so a context group is cp blocks of tp
  adjacent ranks): each sequence splits over cp GPUs, so every activation a GPU keeps divides by cp (the stored
  scores by their rows, `context.activation_bytes_per_device`'s split), as do the tokens its tensor-parallel
  all-reduces and pipeline sends carry; the compute in total is unchanged. Each layer's ring sends cp − 1 blocks
  of keys and values forward and twice that backward (`context.ring_bytes_per_layer`, per GPU of a
  tensor-parallel group its own t-th of the heads), and what its attention does not hide is exposed
  (`context.exposed_ring_seconds`, the seconds form of `context.hiding_tokens`' bound; a causal mask,
  zig-zag balanced, half the scores; the recomputed forward rings again), over NVLink when the group stays in
  a node, else the ports it shares. The dense parameters' gradients are reduced, and ZeRO shards, over dp × cp.
- Expert parallelism (`Layout.ep`, Megatron-Core's "MoE Parallel Folding" with the experts' tensor-parallel
  degree equal to tp: an expert group is ep blocks of tp adjacent ranks): each GPU holds E/ep of each layer's
  experts (`experts.device_parameters`), whose states are copied, or under ZeRO sharded, over the experts'
  data-parallel degree cp·dp ÷ ep (`experts.expert_data_parallel`); the rest over dp × cp as before. Each MoE
  layer's two all-to-alls forward and two backward (`experts.alltoalls_per_layer`, two more with full
  recomputation) send `experts.alltoall_bytes` of the GPU's tokens (a t-th of them with sequence parallelism),
  routing as even as load balancing aims for, over NVLink when the group stays in a node, else through the
  ports it shares; assumed all exposed (Megatron-Core can overlap them with another micro-batch's compute,
  which this planner does not count). The experts' gradient traffic over their smaller data-parallel group is
  counted on the dense gradients' link. The hiding bound (`hiding`) counts the whole model's bytes over
  dp × cp.

Conventions that differ from the two references the tests compare with, and why:

- DeepSpeed's `estimate_zero2_model_states_mem_needs` (deepspeed/runtime/zero/stage_1_and_2.py) gives
  2Ψ + 18Ψ/N without offload: fp16 parameters whole, and fp16 gradients, fp32 gradients, fp32 parameters and
  Adam's two states sharded. That is this planner's ZeRO-2 for the recipe "fp16-adam-fp32-grads" exactly.
  `estimate_zero3_model_states_mem_needs` (stage3.py) gives 4·largest_layer + 18Ψ/N: its 18 leaves out the
  sharded fp16 gradients (freed once reduced into the fp32 partition); this planner counts the recipe's every
  state sharded, 20Ψ/N for that recipe, 2Ψ/N more. Neither counts activations or a reserve.
- Megatron-LM's `report_theoretical_memory` (megatron/training/theoretical_memory_usage.py) counts 18 bytes
  per parameter (6 + 12/d with the distributed optimizer: the recipe "bf16-adam" at ZeRO-1 here) on the most
  loaded shard: the same parameters as here for a model without biases, except that Megatron-LM pads the
  vocabulary to a multiple of 128·t and this planner takes the config's, and that it counts a p-th of the
  final norm on every stage where the planner puts the norm on the last one. Its activations per layer with
  sequence parallelism and selective recomputation are sbh(18 + 4f/h)/t, this planner's count for an MLP that
  is not gated; a gated (SwiGLU) MLP keeps a third intermediate, 2f more per s·b, which Megatron-LM's formula
  leaves out; and it divides the embedding's int64 token ids by t with the rest, which are not split. Without
  sequence parallelism it counts sbh(10 + 24/t), the GPT shape's, and adds 5% "for optimizer and
  miscellaneous temporaries"; this planner's reserve stands for that.
- Korthikanti et al.'s counts, and so this planner's, include the dropout masks (1 byte per value): a model
  trained without dropout, as Llama is, keeps 2sbh per layer less than counted.

Ranking: by step time and then memory, each to `TIE_DIGITS` significant digits, and layouts that tie in both by
`layout_order`, so that the page's floats rank as these fractions do. Context parallelism whose ring hides ties
with the data-parallel layout it replaces and holds a cp-th of its activations, so it often ranks first: the
bounds count no cost for attention in shorter blocks, nor the ring's latency.

Left out, and said so in each result's place: context parallelism's all-to-all form (DeepSpeed-Ulysses), overlapping
the all-to-alls, uneven routing and dropped tokens, activation and optimizer offloading, fp8 compute, the imbalance
of the first and last stages' compute, network latency, and anything measured: every time here is a bound at the
stated share of peak and the links' bandwidths, which a measured step checks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import TypeVar

from .checks import check_count as _check_count
from .communication import cross_host_bytes_per_port, ring_allreduce_bytes_sent, ring_allreduce_factor, transfer_seconds
from .compute import (
    BACKWARD_FLOPS_PER_PARAMETER,
    FLOPS_PER_PARAMETER,
    FORWARD_FLOPS_PER_PARAMETER,
    attention_flops_per_token,
    seconds_at_utilization,
    training_flops,
)
from .conditions import hiding_tokens, zero3_hiding_tokens
from .context import exposed_ring_seconds
from .experts import alltoall_bytes, alltoalls_per_layer, device_parameters, expert_data_parallel
from .layout import rank_placement
from .memory import BYTES_PER_VALUE, recipe
from .parallel_activations import shape_layer_activation_bytes
from .pipeline import boundary_bytes, bubble_formula, interleaved_bubble, interleaved_in_flight, one_f_one_b_in_flight
from .shape import ParameterCount, TransformerShape, parameter_count
from .sharding import STAGES, device_bytes_by_role, role_bytes_per_parameter
from .tensor import exposed_allreduce_seconds

# A search weighs thousands of layouts that share far fewer stages, placements and layers: each of these pure
# functions is computed once per arguments, as `_plan` is once per plan.
_rank_placement = lru_cache(maxsize=4096)(rank_placement)
_role_bytes_per_parameter = lru_cache(maxsize=64)(role_bytes_per_parameter)
_shape_layer_activation_bytes = lru_cache(maxsize=4096)(shape_layer_activation_bytes)
_device_bytes_by_role = lru_cache(maxsize=4096)(device_bytes_by_role)

#: The recipe the planner assumes unless told: Megatron-LM's bf16 recipe, 18 bytes per parameter.
PLANNER_RECIPE = "bf16-adam"
#: Recomputations a layout may use (`activations.RECOMPUTE`).
RECOMPUTATIONS = ("none", "selective", "full")
#: Attention kernels: one that never stores the scores (FlashAttention), or one that stores them.
ATTENTION_KERNELS = ("fused", "stored")
#: The 16-bit format activations travel and are stored in.
ACTIVATION_BYTES = BYTES_PER_VALUE["bf16"]
#: Megatron-LM's theoretical memory report: bytes per token of the embedding's input (int64 token ids) ...
TOKEN_ID_BYTES = 8
#: ... and of the embedding's dropout mask, per hidden unit; the output layer's input and fp32 logits, 4 bytes
#: per value each ("4 * (1 + (args.padded_vocab_size / args.hidden_size))" per s·b·h).
EMBEDDING_MASK_BYTES = 1
LOGIT_BYTES = 4
#: The parts of a step's time, in the order they are shown.
TIME_PARTS = ("compute", "bubble", "tensor", "data", "pipeline", "context", "expert")
#: What each part of a step's time is called where a plan's reason names it (the command line's and the page's).
TIME_PART_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "compute": "compute",
        "bubble": "pipeline bubble",
        "tensor": "exposed tensor-parallel traffic",
        "data": "exposed data-parallel traffic",
        "pipeline": "pipeline sends",
        "context": "exposed context-parallel ring traffic",
        "expert": "expert-parallel all-to-alls",
    }
)
#: The roles of a GPU's memory, in the order they are shown (the JSON's keys).
MEMORY_ROLES = ("parameters", "gradients", "optimizer", "activations", "reserve")


@dataclass(frozen=True)
class Hardware:
    """A cluster of identical GPUs: each one's dense peak, memory and links, and how they are grouped in nodes.

    `peak_flops` is the GPU's dense 16-bit peak (FLOP/s); `memory` what CUDA gives programs (bytes);
    `nvlink_bandwidth` and `network_bandwidth` each GPU's bandwidth in one direction (bytes/s) within a node
    and through its own network port.
    """

    peak_flops: int | Fraction
    memory: int
    nvlink_bandwidth: int | Fraction
    network_bandwidth: int | Fraction
    per_node: int
    nodes: int

    def __post_init__(self) -> None:
        for name in ("peak_flops", "memory", "nvlink_bandwidth", "network_bandwidth", "per_node", "nodes"):
            _check_count(name, getattr(self, name))

    @property
    def gpus(self) -> int:
        """Every GPU of the cluster."""
        return self.per_node * self.nodes


@dataclass(frozen=True)
class Run:
    """What is asked of the cluster: sequences, the global batch, the stated share of peak, recipe and reserve.

    `global_batch` is in tokens; `share` the share of peak FLOP/s the GEMMs reach (stated, not measured);
    `reserve` the share of the GPU's memory held back for buffers and fragmentation; `training_tokens` and
    `price` (per GPU-hour) give the run's GPU-hours and cost when set; `chunks` > 1 adds interleaved
    schedules of that many model chunks per GPU.
    """

    sequence: int
    global_batch: int
    share: Fraction = Fraction(1, 2)
    recipe: str = PLANNER_RECIPE
    reserve: Fraction = Fraction(1, 10)
    training_tokens: int | None = None
    price: Fraction | None = None
    attention: str = "fused"
    chunks: int = 1

    def __post_init__(self) -> None:
        _check_count("sequence", self.sequence)
        _check_count("global_batch", self.global_batch)
        _check_count("share", self.share)
        _check_count("chunks", self.chunks)
        if self.share > 1:
            raise ValueError(f"a share of peak is at most 1 (100%), got {self.share}")
        if not 0 <= self.reserve < 1:
            raise ValueError(f"a reserve is a share of the memory, at least 0 and below 1, got {self.reserve}")
        recipe(self.recipe)  # an unknown recipe is refused here, with the known ones
        if self.attention not in ATTENTION_KERNELS:
            raise ValueError(f"unknown attention kernel {self.attention!r}; known: {', '.join(ATTENTION_KERNELS)}")
        for name in ("training_tokens", "price"):
            value = getattr(self, name)
            if value is not None:
                _check_count(name, value)


@dataclass(frozen=True)
class Layout:
    """One way to lay the model out: its degrees, ZeRO stage, micro-batch, recomputation and schedule.

    The world is tp × cp × dp × pp, Megatron-Core's order ("tp-cp-ep-dp-pp"): `cp` devices split each sequence
    (context parallelism), and the attention's gradients are reduced over the dp × cp of them. `ep` regroups the
    tp × cp × dp devices of a stage for the MoE layers (Megatron-Core's "MoE Parallel Folding", the experts'
    tensor-parallel degree taken equal to tp): each holds E/ep of the experts, and their states are copied over
    the experts' data-parallel degree, cp × dp ÷ ep (`expert_data_parallel`).
    """

    tp: int
    pp: int
    dp: int
    zero: int = 0
    micro_batch: int = 1
    recompute: str = "none"
    sequence_parallel: bool = False
    chunks: int = 1
    cp: int = 1
    ep: int = 1
    #: FSDP's HYBRID_SHARD: ZeRO-3 within each node's data-parallel ranks, replicated across nodes.
    hybrid: bool = False

    @property
    def expert_dp(self) -> int:
        """The experts' data-parallel degree: world ÷ (ETP × EP × PP) with ETP = tp, that is cp × dp ÷ ep."""
        return expert_data_parallel(self.tp * self.cp * self.dp * self.pp, self.ep, self.pp, self.tp)


@dataclass(frozen=True)
class Rule:
    """A rule a layout must keep: an id the tests and pages name it by, and what breaking it means."""

    id: str
    message: str


@dataclass(frozen=True)
class Memory:
    """Bytes on one GPU by role (`MEMORY_ROLES`)."""

    parameters: Fraction
    gradients: Fraction
    optimizer: Fraction
    activations: Fraction
    reserve: Fraction

    @cached_property
    def total(self) -> Fraction:
        """Every role together (summed once: ranking and reasons read it many times)."""
        return self.parameters + self.gradients + self.optimizer + self.activations + self.reserve

    def by_role(self) -> dict[str, Fraction]:
        """Each role's bytes, and the total, by name."""
        return {**{role: getattr(self, role) for role in MEMORY_ROLES}, "total": self.total}


@dataclass(frozen=True)
class StepTime:
    """A step's seconds by part (`TIME_PARTS`): compute, the bubble, and what each kind of traffic leaves exposed."""

    compute: Fraction
    bubble: Fraction
    tensor: Fraction
    data: Fraction
    pipeline: Fraction
    context: Fraction = Fraction(0)
    expert: Fraction = Fraction(0)

    @cached_property
    def total(self) -> Fraction:
        """The step's seconds: every part in line (summed once)."""
        return self.compute + self.bubble + self.tensor + self.data + self.pipeline + self.context + self.expert

    def by_part(self) -> dict[str, Fraction]:
        """Each part's seconds by name."""
        return {part: getattr(self, part) for part in TIME_PARTS}


@dataclass(frozen=True)
class Reason:
    """Why a plan sits where it does: the fastest that fits, slower than it by a share and a part, or not fitting.

    `kind` is "fastest"; "as-fast" (a step as short as the fastest's, ranked after it for holding `extra`
    more bytes, `part` = "memory"); "slower" (`slower_by` the share of the fastest's step, `part` the part
    whose extra time is the largest, `extra` those seconds); or "does-not-fit" (`part` the largest role,
    `extra` the bytes beyond the memory).
    """

    kind: str
    slower_by: Fraction = Fraction(0)
    part: str = ""
    extra: Fraction = Fraction(0)


@dataclass(frozen=True)
class Plan:
    """One valid layout, evaluated: memory on its most loaded GPU, step time, throughput, and the run's cost."""

    layout: Layout
    memory: Memory
    #: Which stage the most loaded GPU is on: 0, the first, or pp − 1, the last.
    stage: int
    capacity: int
    time: StepTime
    tokens_per_second: Fraction
    #: Model FLOPs (6N + attention, without recomputation) per second over the GPUs' peak: PaLM's MFU.
    share_of_peak: Fraction
    gpu_hours: Fraction | None
    cost: Fraction | None
    reason: Reason = field(default_factory=lambda: Reason("fastest"))
    #: Wall-clock days of the run's steps (`training_steps`) at this layout's step time, when the tokens are given.
    days: Fraction | None = None
    #: The binding data-parallel traffic's hiding bound and margin (`hiding`), None without data parallelism.
    hiding: Hiding | None = None

    @property
    def fits(self) -> bool:
        """Whether the most loaded GPU's bytes, reserve included, are within what CUDA gives programs."""
        return self.memory.total <= self.capacity

    @property
    def step_seconds(self) -> Fraction:
        """The step's seconds."""
        return self.time.total


@dataclass(frozen=True)
class Invalid:
    """A layout that breaks a rule: the layout (the first found that breaks it so) and the rule."""

    layout: Layout
    rule: Rule
    #: How many enumerated layouts break the rule in these same words.
    count: int = 1


@dataclass(frozen=True)
class BatchHint:
    """When the global batch rules out data-parallel degrees (rule "batch-dp"): which, how many layouts, and the
    nearest batches, in sequences, that every degree tried divides (`lower` is 0 when none is below)."""

    sequences: int
    ruled_out: tuple[int, ...]
    layouts: int
    lower: int
    upper: int


@dataclass(frozen=True)
class Planned:
    """Everything the planner found: the model's parameters, valid plans best first, and what broke a rule."""

    parameters: ParameterCount
    plans: tuple[Plan, ...]
    invalid: tuple[Invalid, ...]
    #: Set when the global batch does not divide among some data-parallel degree tried (`batch_hint`).
    batch: BatchHint | None = None


#: What breaking each rule means (`RULES`), a `str.format` template of plain fields filled with the layout's
#: numbers: the page's script fills the same templates (`pictures.planner`), so a rule is worded once.
RULE_MESSAGES: Mapping[str, str] = MappingProxyType(
    {
        "gpus": "tp × cp × pp × dp = {tp} × {cp} × {pp} × {dp} = {product}, not the cluster's {gpus} GPUs",
        "tp-node": "tp = {tp} {where} a node of {per_node} GPUs: a tensor-parallel group needs NVLink",
        "tp-heads": "tp = {tp} does not divide the {heads} attention heads",
        "tp-kv-heads": "tp = {tp} does not divide the {kv_heads} key-value heads",
        "tp-ffn": "tp = {tp} does not divide the MLP's width of {width}",
        "cp-sequence": "cp = {cp} does not split the {sequence}-token sequence into 2 × cp = {chunks} equal chunks"
        " (the zig-zag split that balances a causal mask)",
        "ep-dense": "ep = {ep} needs a mixture of experts, and this model is dense",
        "ep-experts": "ep = {ep} does not divide the {experts} experts",
        "ep-devices": "ep = {ep} does not divide the cp × dp = {group} devices of a stage's tensor-parallel rank"
        " (tp·cp·dp ÷ etp, the experts' tensor-parallel degree etp = tp)",
        "sequence-parallel": "sequence parallelism needs tp of 2 or more",
        "pp-layers": "pp = {pp} does not divide the {layers} layers",
        "chunks": "{per_stage} layers per stage do not make {chunks} chunks of a pipeline",
        "batch-sequence": "a global batch of {global_batch} tokens is not whole sequences of {sequence} tokens",
        "batch-dp": "a global batch of {sequences} does not divide among dp = {dp} replicas",
        "batch-micro": "{per_replica} per replica, not whole micro-batches of {micro_batch}",
        "micro-stages": "{microbatches} per replica, fewer than the pp = {pp} stages",
        "micro-interleaved": "the interleaved schedule needs micro-batches ({microbatches}) in multiples of the"
        " stages ({pp})",
        "zero-dp": "ZeRO-{zero} shards over data-parallel replicas, and dp = 1",
        "zero-pipeline": "ZeRO-{zero} with a pipeline (pp = {pp}) is refused by DeepSpeed's PipelineEngine, the"
        " rule planned here (torchtitan runs FSDP2 with pipelines, which this planner does not plan)",
        "hybrid": "hybrid sharding (FSDP's HYBRID_SHARD) shards within a node and replicates across nodes, and {why}",
        "recompute": "unknown recomputation {recompute}; known: {known}",
    }
)
#: The rules a layout must keep, by id, in the order they are checked: the first broken one is named.
RULES = tuple(RULE_MESSAGES)
#: A count and its noun, one or many, as a rule's counted fields are filled ("1 micro-batch", "2 micro-batches"):
#: the page fills them from the same words.
PLURALS: Mapping[str, str] = MappingProxyType({"sequence": "sequences", "micro-batch": "micro-batches"})


def counted(n: int, noun: str) -> str:
    """`n` and its noun, singular for one (`PLURALS`)."""
    return f"{n:,} {noun if n == 1 else PLURALS[noun]}"


#: Why a layout cannot shard hybrid, in rule "hybrid"'s words (`str.format` templates of the layout's numbers).
HYBRID_WHY: Mapping[str, str] = MappingProxyType(
    {
        "zero": "it is ZeRO-3's; this layout is ZeRO-{zero}",
        "nodes": "the dp × cp = {group} data-parallel ranks stay in one node, where it is full sharding",
        "shard": "with one data-parallel rank in each node there is nothing to shard within one",
        "experts": "it is not planned with expert parallelism (ep = {ep})",
    }
)
#: How a tensor-parallel group misses a node in rule "tp-node"'s words: larger than it, or not dividing it.
TP_NODE_WHERE: Mapping[str, str] = MappingProxyType({"beyond": "is beyond", "divide": "does not divide"})


def _rule(rule_id: str, **values: int | str) -> Rule:
    return Rule(rule_id, RULE_MESSAGES[rule_id].format(**values))


def hybrid_groups(hardware: Hardware, layout: Layout) -> tuple[int, int]:
    """Hybrid sharding's groups: the data-parallel ranks of a node that shard the states (F, FSDP's sharding
    factor) and the nodes' replicas of each shard that all-reduce its gradients (R), F × R = dp × cp."""
    placed = _rank_placement(layout.tp, layout.pp, layout.dp * layout.cp, hardware.per_node)
    shard = placed.data_per_node
    return shard, layout.dp * layout.cp // shard


def _hybrid_refusal(hardware: Hardware, layout: Layout) -> str | None:
    """Why the layout cannot shard hybrid (`HYBRID_WHY`, filled), or None."""
    if layout.zero != 3:
        return HYBRID_WHY["zero"].format(zero=layout.zero)
    if layout.ep > 1:
        return HYBRID_WHY["experts"].format(ep=layout.ep)
    placed = _rank_placement(layout.tp, layout.pp, layout.dp * layout.cp, hardware.per_node)
    if not placed.data_spans_nodes:
        return HYBRID_WHY["nodes"].format(group=layout.dp * layout.cp)
    if placed.data_per_node < 2:
        return HYBRID_WHY["shard"]
    return None


def broken_rule(shape: TransformerShape, hardware: Hardware, run: Run, layout: Layout) -> Rule | None:
    """The first rule of `RULES` that `layout` breaks, or None.

    - the degrees tp × cp × pp × dp multiply to the GPUs;
    - a tensor-parallel group stays within a node and divides it (its all-reduces need NVLink; Megatron-LM's
      rank order puts adjacent ranks on one node);
    - t divides the attention heads, the key-value heads and the MLP's (or each expert's) width: each GPU
      computes whole heads and whole columns (`tensor.check_heads`; Megatron-Core's `TransformerConfig`);
    - cp splits the sequence into 2·cp equal chunks (Megatron-Core's zig-zag load balance: the sequence splits
      into 2 × cp chunks, device r holding chunks r and 2cp − 1 − r, `context.causal_work`);
    - ep > 1 only for a mixture of experts, ep divides the experts (`experts.check_expert_degree`'s rule) and
      the tp·cp·dp ÷ etp devices it regroups (Megatron-Core's `initialize_model_parallel`: ETP × EP × EDP × PP
      is the world; etp = tp here);
    - sequence parallelism needs a tensor-parallel group;
    - p divides the layers, and with v chunks each stage's layers divide by v;
    - the global batch is whole sequences, which divide among the replicas into whole micro-batches;
    - there are at least as many micro-batches as stages (1F1B), a multiple of them when interleaved
      (`pipeline.interleaved_bubble`);
    - a ZeRO stage above 0 has replicas to shard over, and ZeRO-2 or -3 has no pipeline. That is DeepSpeed's
      rule, not a law: its `PipelineEngine.__init__` asserts `self.zero_optimization_stage() <
      ZeroStageEnum.gradients, "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"`
      (deepspeed/runtime/pipe/engine.py), as each micro-batch's gradients would be reduced while the schedule
      still runs. torchtitan composes FSDP2 with pipeline parallelism (its docs/converging.md tests "FSDP 8,
      TP 2, PP 2"), and by default keeps the parameters gathered between a pipeline's micro-batches ("For PP, by
      default do not reshard after forward to avoid per-microbatch all-gathers", torchtitan/distributed/fsdp.py):
      a layout this planner does not count, so it keeps DeepSpeed's rule;
    - hybrid sharding is ZeRO-3 over a data-parallel group that spans nodes with two or more of its ranks in each
      (`hybrid_groups`), without expert parallelism (`HYBRID_WHY`);
    - the recomputation is one of `RECOMPUTATIONS`.
    """
    s, h, lay = shape, hardware, layout
    t, p, d, c, e = lay.tp, lay.pp, lay.dp, lay.cp, lay.ep
    for name in ("tp", "pp", "dp", "micro_batch", "chunks", "cp", "ep"):
        _check_count(name, getattr(lay, name))
    if lay.zero not in STAGES:
        raise ValueError(f"unknown ZeRO stage {lay.zero!r}; the stages are 0 to 3")
    if t * c * p * d != h.gpus:
        return _rule("gpus", tp=t, cp=c, pp=p, dp=d, product=t * c * p * d, gpus=h.gpus)
    if t > h.per_node or h.per_node % t:
        where = TP_NODE_WHERE["beyond" if t > h.per_node else "divide"]
        return _rule("tp-node", tp=t, where=where, per_node=h.per_node)
    if s.heads % t:
        return _rule("tp-heads", tp=t, heads=s.heads)
    if s.kv_heads % t:
        return _rule("tp-kv-heads", tp=t, kv_heads=s.kv_heads)
    width = s.expert_ffn if s.experts else s.ffn
    if width % t:
        return _rule("tp-ffn", tp=t, width=width)
    if run.sequence % (2 * c) and c > 1:
        return _rule("cp-sequence", cp=c, sequence=f"{run.sequence:,}", chunks=2 * c)
    if e > 1 and not s.experts:
        return _rule("ep-dense", ep=e)
    if s.experts and s.experts % e:
        return _rule("ep-experts", ep=e, experts=s.experts)
    if (c * d) % e:
        return _rule("ep-devices", ep=e, group=c * d)
    if lay.sequence_parallel and t < 2:
        return _rule("sequence-parallel")
    if s.layers % p:
        return _rule("pp-layers", pp=p, layers=s.layers)
    if lay.chunks > 1 and (p < 2 or (s.layers // p) % lay.chunks):
        return _rule("chunks", per_stage=s.layers // p, chunks=lay.chunks)
    if run.global_batch % run.sequence:
        return _rule("batch-sequence", global_batch=run.global_batch, sequence=run.sequence)
    sequences = run.global_batch // run.sequence
    if sequences % d:
        return _rule("batch-dp", sequences=counted(sequences, "sequence"), dp=d)
    if (sequences // d) % lay.micro_batch:
        return _rule("batch-micro", per_replica=counted(sequences // d, "sequence"), micro_batch=lay.micro_batch)
    microbatches = sequences // (d * lay.micro_batch)
    if microbatches < p:
        return _rule("micro-stages", microbatches=counted(microbatches, "micro-batch"), pp=p)
    if lay.chunks > 1 and microbatches % p:
        return _rule("micro-interleaved", microbatches=microbatches, pp=p)
    if lay.zero and d * c < 2:
        return _rule("zero-dp", zero=lay.zero)
    if lay.zero >= 2 and p > 1:
        return _rule("zero-pipeline", zero=lay.zero, pp=p)
    if lay.hybrid:
        why = _hybrid_refusal(h, lay)
        if why is not None:
            return _rule("hybrid", why=why)
    if lay.recompute not in RECOMPUTATIONS:
        return _rule("recompute", recompute=repr(lay.recompute), known=", ".join(RECOMPUTATIONS))
    return None


@dataclass(frozen=True)
class Stage:
    """The parameters one GPU of a pipeline stage holds: split by t, and whole on every GPU of its group."""

    split: Fraction
    copied: Fraction
    #: The largest unit ZeRO-3 gathers, in parameters on this GPU: a layer, or the embeddings.
    largest_unit: Fraction
    #: The routed experts' parameters this GPU holds (part of `split`): its E/ep experts of its layers, split by t.
    experts: Fraction = Fraction(0)

    @cached_property
    def dense(self) -> Fraction:
        """The parameters whose states are copied over dp × cp: all but the experts'."""
        return self.parameters - self.experts

    @property
    def parameters(self) -> Fraction:
        """Every parameter this GPU holds (before ZeRO shards its states)."""
        return self.split + self.copied


@lru_cache(maxsize=4096)
def stage_parameters(count: ParameterCount, tp: int, pp: int, stage: int, tied: bool, ep: int = 1) -> Stage:
    """The parameters a GPU of `stage` (0 to pp − 1) holds: its L/p layers, and the embeddings where they are.

    The first stage holds the token embeddings (split by t, vocabulary-parallel) and the learned positions
    (whole); the last the final norm and the output layer, or, with tied embeddings and a pipeline, its own copy
    of the token embeddings (Megatron-LM keeps one on each end and all-reduces their gradients); one stage holds
    both ends. With `ep`-way expert parallelism a GPU holds E/ep of each layer's experts
    (`experts.device_parameters`), the rest of the layer as before.
    """
    first, last = stage == 0, stage == pp - 1
    layers = Fraction(count.layers, pp)
    layer_split = device_parameters(count.layer.split, count.layer.experts, ep)
    split = layers * layer_split
    copied = layers * count.layer.copied
    ends: list[int] = []
    if first:
        ends.append(count.embedding)
        copied += count.positions
    if last:
        copied += count.final_norm
        ends.append(count.output if not tied else (count.embedding if not first else 0))
    split += sum(ends)
    # FSDP wraps the embeddings and the output layer each as a unit of its own, as it wraps each layer.
    unit = max([layer_split / tp + count.layer.copied, *(Fraction(end, tp) for end in ends)])
    return Stage(split / tp, copied, unit, layers * Fraction(count.layer.experts, ep * tp))


def _in_flight(pp: int, microbatches: int, chunks: int, stage: int) -> Fraction:
    """Micro-batches whose activations the stage holds at its peak: 1F1B's closed form, or interleaved."""
    if chunks > 1:
        return interleaved_in_flight(pp, chunks)
    return Fraction(one_f_one_b_in_flight(pp, microbatches, stage))


def _attention_recompute(run: Run, recompute: str) -> str:
    """The recomputation as the attention kernel sees it: selective is what a fused kernel does anyway."""
    return "none" if recompute == "selective" and run.attention == "fused" else recompute


@lru_cache(maxsize=8192)
def _activation_bytes(shape: TransformerShape, run: Run, layout: Layout, stage: int) -> Fraction:
    """A GPU's activations at its stage's peak: what the ZeRO stage, hybrid sharding and the expert degree leave as
    they are, so `layout` is taken with those at their defaults and each is computed once for all of them."""
    s, lay = shape, layout
    microbatches = run.global_batch // run.sequence // (lay.dp * lay.micro_batch)
    width = s.expert_ffn if s.experts else s.ffn
    # A mixture of experts keeps each token's activations for the experts it is routed to.
    routed = s.experts_per_token if s.experts else 1
    scores = run.attention == "stored"

    def layer(recompute: str) -> Fraction:
        return _shape_layer_activation_bytes(
            run.sequence,
            lay.micro_batch,
            s.hidden,
            s.heads,
            s.kv_width,
            s.query_width,
            width * routed,
            s.gated,
            lay.tp,
            lay.sequence_parallel,
            recompute,
            scores,
        )

    in_flight = _in_flight(lay.pp, microbatches, lay.chunks, stage)
    # Context parallelism splits every tensor of a layer along the sequence, the stored scores by their rows:
    # each of the cp devices keeps a cp-th (`context.activation_bytes_per_device`'s split).
    activations = Fraction(s.layers, lay.pp) * layer(lay.recompute) * in_flight / lay.cp
    if lay.recompute == "full":
        activations += layer("none") / lay.cp  # the layer the backward pass rebuilds
    tokens = Fraction(run.sequence * lay.micro_batch, lay.cp)
    sharded = lay.tp if lay.sequence_parallel else 1
    if stage == 0:
        activations += in_flight * tokens * (TOKEN_ID_BYTES + Fraction(EMBEDDING_MASK_BYTES * s.hidden, sharded))
    if stage == lay.pp - 1:
        activations += tokens * (
            Fraction(LOGIT_BYTES * s.hidden, sharded) + Fraction(LOGIT_BYTES * s.vocabulary, lay.tp)
        )
    return activations


def stage_memory(
    shape: TransformerShape, count: ParameterCount, hardware: Hardware, run: Run, layout: Layout, stage: int
) -> Memory:
    """Bytes by role on a GPU of `stage`: its model states at the ZeRO stage, its activations, and the reserve.

    See the module's docstring for each term.
    """
    s, lay = shape, layout
    held = stage_parameters(count, lay.tp, lay.pp, stage, s.tied, lay.ep)
    # Hybrid sharding shards the states over a node's data-parallel ranks only (FSDP's sharding factor F).
    shards = hybrid_groups(hardware, lay)[0] if lay.hybrid else lay.dp * lay.cp
    states = dict(_device_bytes_by_role(held.dense, shards, lay.zero, run.recipe))
    if held.experts:
        # The experts' states are copied, or sharded, over the experts' data-parallel group only.
        experts_over = shards if lay.hybrid else lay.expert_dp
        for role, value in _device_bytes_by_role(held.experts, experts_over, lay.zero, run.recipe).items():
            states[role] += value
    parameters, gradients = states["parameters"], states["gradients"]
    if lay.zero == 3:
        bytes_per = _role_bytes_per_parameter(run.recipe)
        parameters += held.largest_unit * bytes_per["parameters"]
        gradients += held.largest_unit * bytes_per["gradients"]
    activations = _activation_bytes(s, run, replace(lay, zero=0, hybrid=False, ep=1), stage)
    return Memory(
        parameters=parameters,
        gradients=gradients,
        optimizer=states["optimizer_states"],
        activations=activations,
        reserve=run.reserve * hardware.memory,
    )


def most_loaded(
    shape: TransformerShape, count: ParameterCount, hardware: Hardware, run: Run, layout: Layout
) -> tuple[int, Memory]:
    """The stage whose GPUs hold the most, first or last (a middle stage holds less than the first), and its bytes."""
    stages = sorted({0, layout.pp - 1})
    memories = [(stage, stage_memory(shape, count, hardware, run, layout, stage)) for stage in stages]
    return max(memories, key=lambda pair: pair[1].total)


@lru_cache(maxsize=4096)
def flops_per_token(shape: TransformerShape, count: ParameterCount, sequence: int, recompute: str) -> int:
    """Training FLOPs per token: 6N (8N with full recomputation) plus attention's (`attention_flops_per_token`)."""
    matmul = training_flops(count.matmul, 1, "full" if recompute == "full" else "none")
    return matmul + attention_flops_per_token(shape.layers, shape.query_width, sequence, recompute)


@dataclass(frozen=True)
class ModelFlops:
    """The FLOPs per token a plan counts, without recomputation: the compute's and MFU's convention.

    `matmul` is 6N over the N parameters a token multiplies by (`ParameterCount.matmul`: the layers' active
    parameters and the output layer, not the embedding's lookup); `attention` PaLM's 12·L·w·s. Lesson 3 counts
    6N alone, so a share of peak or an MFU measured against 6N is `matmul / total` of one counted here.
    """

    matmul: int
    attention: int

    @property
    def total(self) -> int:
        """Both: what `Run.share` and `Plan.share_of_peak` count (the recomputed forward's on top in the compute)."""
        return self.matmul + self.attention


def model_flops(shape: TransformerShape, count: ParameterCount, sequence: int) -> ModelFlops:
    """The model FLOPs per token of a training step (`flops_per_token` without recomputation), by part."""
    matmul = training_flops(count.matmul, 1, "none")
    return ModelFlops(matmul, flops_per_token(shape, count, sequence, "none") - matmul)


def training_steps(run: Run) -> int | None:
    """The run's steps: its training tokens over a step's global batch, the last partial step counted whole."""
    if run.training_tokens is None:
        return None
    return -(-run.training_tokens // run.global_batch)


#: The data-parallel traffic a hiding bound weighs (`hiding_bound`): ZeRO-0's all-reduce of the gradients behind the
#: backward pass; ZeRO-1 and -2's reduce-scatter of them behind it and all-gather of the parameters behind the
#: forward pass; ZeRO-3's all-gathers and reduce-scatter, each behind the pass it is issued in.
HIDING_TRAFFIC = ("allreduce", "reduce-scatter", "all-gather", "zero3")
#: Hybrid sharding's traffic: ZeRO-3's within a node, and the gradient shards' all-reduce across nodes.
HYBRID_TRAFFIC = ("zero3", "allreduce")
#: The traffic each ZeRO stage sends, whose largest bound `hiding` reports.
STAGE_TRAFFIC: Mapping[int, tuple[str, ...]] = MappingProxyType(
    {0: ("allreduce",), 1: ("reduce-scatter", "all-gather"), 2: ("reduce-scatter", "all-gather"), 3: ("zero3",)}
)


def hiding_bound(
    shape: TransformerShape, count: ParameterCount, hardware: Hardware, run: Run, layout: Layout, traffic: str
) -> Fraction:
    """Tokens per micro-batch above which `traffic` (`HIDING_TRAFFIC`) hides behind its pass, on the layout's links.

    It depends on the degrees, the recomputation and hybrid sharding alone: computed once for the layouts that
    share them (`_hiding_bound`, which says the rest).
    """
    if traffic not in HIDING_TRAFFIC:
        raise KeyError(f"unknown traffic {traffic!r}; known: {', '.join(HIDING_TRAFFIC)}")
    key = replace(layout, zero=0, micro_batch=1, sequence_parallel=False, chunks=1, ep=1)
    return _hiding_bound(shape, count, hardware, run, key, traffic)


@lru_cache(maxsize=8192)
def _hiding_bound(
    shape: TransformerShape, count: ParameterCount, hardware: Hardware, run: Run, layout: Layout, traffic: str
) -> Fraction:
    """`hiding_bound` of a layout reduced to what it reads: its degrees, recomputation and hybrid sharding.

    `conditions.hiding_tokens` with the planner's quantities: k the recipe's bytes per parameter of the whole
    model, f the planner's FLOPs per parameter per token (`flops_per_token` ÷ the parameters, 8N with full
    recomputation) in the pass it hides behind, W NVLink within a node or the network ports a node's rings share
    (`communication.cross_host_bytes_per_port`).
    """
    lay = layout
    group = lay.dp * lay.cp  # the dense gradients' group: dp × cp
    placed = _rank_placement(lay.tp, lay.pp, group, hardware.per_node)
    if placed.data_spans_nodes:
        bandwidth = Fraction(hardware.network_bandwidth) * placed.data_per_node
    else:
        bandwidth = Fraction(hardware.nvlink_bandwidth)
    share_sent = Fraction(1)
    if lay.hybrid:
        # ZeRO-3's traffic within a node's F ranks over NVLink; the all-reduce of each GPU's 1/F shard of the
        # gradients among the R replicas, one in each node, through its own port.
        shard, replicas = hybrid_groups(hardware, lay)
        if traffic == "zero3":
            group, bandwidth = shard, Fraction(hardware.nvlink_bandwidth)
        else:
            group, bandwidth, share_sent = replicas, Fraction(hardware.network_bandwidth), Fraction(1, shard)
    roles = _role_bytes_per_parameter(run.recipe)
    kind = "full" if lay.recompute == "full" else "none"
    per_parameter = Fraction(flops_per_token(shape, count, run.sequence, kind), count.total)
    total = FLOPS_PER_PARAMETER["none"]
    if traffic == "zero3":
        # Pass by pass, as `step_time` hides it: the forward's gather behind the forward's 2 of the 6 (or 8) FLOPs
        # per parameter, the backward's gather and the reduce-scatter behind the rest.
        forward = per_parameter * Fraction(FORWARD_FLOPS_PER_PARAMETER, FLOPS_PER_PARAMETER[kind])
        k_p, k_g = roles["parameters"], roles["gradients"]
        return zero3_hiding_tokens(
            k_p, k_g, group, forward, per_parameter - forward, hardware.peak_flops, run.share, bandwidth
        )
    if traffic == "all-gather":
        sent, allreduce = roles["parameters"], False
        flops = per_parameter * Fraction(FORWARD_FLOPS_PER_PARAMETER, total)
    else:
        sent, allreduce = roles["gradients"], traffic == "allreduce"
        flops = per_parameter * Fraction(BACKWARD_FLOPS_PER_PARAMETER, total)
    return hiding_tokens(sent * share_sent, group, flops, hardware.peak_flops, run.share, bandwidth, allreduce)


@dataclass(frozen=True)
class Hiding:
    """A layout's data-parallel traffic against the compute it hides behind: the binding traffic's bound in
    tokens per micro-batch, and how many times it the micro-batch holds (`margin`, 1 at the bound)."""

    traffic: str
    tokens: Fraction
    margin: Fraction


def hiding(
    shape: TransformerShape, count: ParameterCount, hardware: Hardware, run: Run, layout: Layout
) -> Hiding | None:
    """The bound of the layout's ZeRO stage's traffic (`STAGE_TRAFFIC`, the largest), or None without replicas.

    With context parallelism the group is dp × cp and a micro-batch's tokens on a GPU are a cp-th of it."""
    if layout.dp * layout.cp < 2:
        return None
    sent = HYBRID_TRAFFIC if layout.hybrid else STAGE_TRAFFIC[layout.zero]
    bounds = {t: hiding_bound(shape, count, hardware, run, layout, t) for t in sent}
    traffic = max(bounds, key=lambda name: bounds[name])
    return Hiding(traffic, bounds[traffic], micro_batch_tokens(run, layout) / bounds[traffic])


def micro_batch_tokens(run: Run, layout: Layout) -> int:
    """The tokens of a micro-batch on one GPU, which a hiding bound is met by: its sequences, split over cp GPUs
    (whole, since a valid cp makes 2·cp whole chunks of a sequence)."""
    return layout.micro_batch * run.sequence // layout.cp


def _placement_of(hardware: Hardware, tp: int, members: int) -> tuple[bool, int]:
    """Whether the groups of `members` blocks of tp adjacent ranks (a context- or an expert-parallel group, in
    Megatron-Core's order) span nodes, and the fewest members of one on a node (`layout.rank_placement` with each
    group as a stage's data-parallel group)."""
    placed = _rank_placement(tp, hardware.gpus // (tp * members), members, hardware.per_node)
    return placed.data_spans_nodes, placed.data_per_node


def _group_seconds(hardware: Hardware, sent: Fraction, spans: bool, per_node: int) -> Fraction:
    """Seconds to send `sent` bytes per GPU over NVLink, or through the ports a node's groups share."""
    if not spans:
        return transfer_seconds(sent, hardware.nvlink_bandwidth)
    return transfer_seconds(cross_host_bytes_per_port(sent, per_node), hardware.network_bandwidth)


@lru_cache(maxsize=4096)
def _stage_free_time(
    shape: TransformerShape, count: ParameterCount, hardware: Hardware, run: Run, layout: Layout
) -> StepTime:
    """Every part of a step's time but the data-parallel traffic, which alone depends on the ZeRO stage: the same
    for the four stages of a layout and for hybrid sharding, and so computed once for them (`layout` is taken with
    ZeRO-0, unsharded)."""
    s, h, lay = shape, hardware, layout
    t, p, d, c, e = lay.tp, lay.pp, lay.dp, lay.cp, lay.ep
    sequences = run.global_batch // run.sequence
    m = sequences // (d * lay.micro_batch)
    tokens = sequences * run.sequence
    local = run.sequence // c  # the tokens of a sequence on each of its cp devices
    per_token = flops_per_token(s, count, run.sequence, _attention_recompute(run, lay.recompute))
    compute = seconds_at_utilization(per_token * tokens, h.gpus, h.peak_flops, run.share)
    sustained = Fraction(h.peak_flops) * run.share
    layers = Fraction(s.layers, p)

    tensor = Fraction(0)
    if t > 1:
        activation = lay.micro_batch * local * s.hidden * ACTIVATION_BYTES
        one = transfer_seconds(ring_allreduce_bytes_sent(activation, t), h.nvlink_bandwidth)
        passes = "recompute" if lay.recompute == "full" else "no-recompute"
        per_layer = exposed_allreduce_seconds(one, lay.micro_batch, local, s.hidden, t, sustained, passes)
        tensor = m * layers * per_layer

    context = Fraction(0)
    if c > 1:
        spans, per_node = _placement_of(h, t, c)
        link = h.nvlink_bandwidth if not spans else Fraction(h.network_bandwidth) * per_node
        # Each GPU of a tensor-parallel group rings its own heads' keys and values, behind its own heads' attention.
        ring = exposed_ring_seconds(
            run.sequence,
            lay.micro_batch,
            s.query_width // t,
            s.heads // t,
            s.kv_heads // t,
            c,
            sustained,
            link,
            "causal",
            2 if lay.recompute == "full" else 1,
            ACTIVATION_BYTES,
        )
        context = m * layers * ring

    expert = Fraction(0)
    if e > 1:
        spans, per_node = _placement_of(h, t, e)
        # With sequence parallelism each GPU of a tensor-parallel group dispatches its t-th of the tokens.
        routed = Fraction(lay.micro_batch * local, t if lay.sequence_parallel else 1)
        one_alltoall = alltoall_bytes(1, s.experts_per_token, s.hidden, ACTIVATION_BYTES, e) * routed
        alltoalls = alltoalls_per_layer("both") + (alltoalls_per_layer("forward") if lay.recompute == "full" else 0)
        expert = m * layers * _group_seconds(h, alltoalls * one_alltoall, spans, per_node)

    pipeline = bubble = Fraction(0)
    if p > 1:
        placed = _rank_placement(t, p, c * d, h.per_node)
        crossing = boundary_bytes(lay.micro_batch, local, s.hidden, ACTIVATION_BYTES, t)
        link = h.network_bandwidth if placed.boundary_crosses_nodes else h.nvlink_bandwidth
        pipeline = transfer_seconds(2 * m * lay.chunks * crossing, link)
        share = interleaved_bubble(p, m, lay.chunks) if lay.chunks > 1 else bubble_formula(p, m)
        bubble = share * (compute + tensor + context + expert)
    return StepTime(
        compute=compute,
        bubble=bubble,
        tensor=tensor,
        data=Fraction(0),
        pipeline=pipeline,
        context=context,
        expert=expert,
    )


def _hybrid_seconds(
    hardware: Hardware,
    layout: Layout,
    held: Stage,
    bytes_per: Mapping[str, int],
    microbatches: int,
    forward: Fraction,
    backward: Fraction,
) -> Fraction:
    """Hybrid sharding's exposed seconds a step: ZeRO-3's gathers and reduce-scatter within the node over NVLink for
    every micro-batch, each behind its pass, and the gradient shard's all-reduce across the nodes' replicas once a
    step, behind the last micro-batch's backward pass (FSDP2 with `set_requires_all_reduce(False)` until the last
    micro-batch; by default it all-reduces after every one), each GPU's ring through its own network port."""
    shard, replicas = hybrid_groups(hardware, layout)
    parameters = held.parameters

    def within(role: str) -> Fraction:
        return transfer_seconds(
            ring_allreduce_factor(shard) / 2 * parameters * bytes_per[role], hardware.nvlink_bandwidth
        )

    gathers = microbatches * (
        max(Fraction(0), within("parameters") - forward)
        + max(Fraction(0), within("parameters") + within("gradients") - backward)
    )
    reduced = ring_allreduce_factor(replicas) * parameters / shard * bytes_per["gradients"]
    return gathers + max(Fraction(0), _group_seconds(hardware, reduced, True, 1) - backward)


def step_time(shape: TransformerShape, count: ParameterCount, hardware: Hardware, run: Run, layout: Layout) -> StepTime:
    """A step's seconds by part on the layout (see the module's docstring for each part)."""
    s, h, lay = shape, hardware, layout
    t, p, d, c, e = lay.tp, lay.pp, lay.dp, lay.cp, lay.ep
    parts = _stage_free_time(shape, count, hardware, run, replace(layout, zero=0, hybrid=False))
    compute = parts.compute
    m = run.global_batch // run.sequence // (d * lay.micro_batch)
    placed = _rank_placement(t, p, c * d, h.per_node)
    data = Fraction(0)
    groups = c * d
    if groups > 1:
        held = stage_parameters(count, t, p, 0, s.tied, e)
        bytes_per = _role_bytes_per_parameter(run.recipe)
        expert_dp = lay.expert_dp

        def one_pass(role: str) -> Fraction:
            """A reduce-scatter's or an all-gather's bytes: (n − 1)/n of the data of each group."""
            dense = ring_allreduce_factor(groups) / 2 * held.dense
            experts = ring_allreduce_factor(expert_dp) / 2 * held.experts if expert_dp > 1 else Fraction(0)
            return (dense + experts) * bytes_per[role]

        def seconds(sent: Fraction) -> Fraction:
            return _group_seconds(h, sent, placed.data_spans_nodes, placed.data_per_node)

        per_microbatch = compute / m
        total_flops = FLOPS_PER_PARAMETER["none"]
        if lay.zero == 3:
            # Each pass hides only its own traffic: the forward's gather behind the forward's compute, the
            # backward's gather and the gradients' reduce-scatter, issued as the backward runs, behind the
            # backward's (with the recomputed forward under full recomputation).
            kind = "full" if lay.recompute == "full" else "none"
            forward = per_microbatch * Fraction(FORWARD_FLOPS_PER_PARAMETER, FLOPS_PER_PARAMETER[kind])
            backward = per_microbatch - forward
            if lay.hybrid:
                data = _hybrid_seconds(h, lay, held, bytes_per, m, forward, backward)
            else:
                data = m * (
                    max(Fraction(0), seconds(one_pass("parameters")) - forward)
                    + max(Fraction(0), seconds(one_pass("parameters") + one_pass("gradients")) - backward)
                )
        else:
            backward = per_microbatch * Fraction(BACKWARD_FLOPS_PER_PARAMETER, total_flops)
            forward = per_microbatch * Fraction(FORWARD_FLOPS_PER_PARAMETER, total_flops)
            if lay.zero == 0:
                data = max(Fraction(0), seconds(2 * one_pass("gradients")) - backward)
            else:
                data = max(Fraction(0), seconds(one_pass("gradients")) - backward)
                data += max(Fraction(0), seconds(one_pass("parameters")) - forward)

    return replace(parts, data=data)


def evaluate(
    shape: TransformerShape, hardware: Hardware, run: Run, layout: Layout, count: ParameterCount | None = None
) -> Plan | Rule:
    """The plan of one layout, or the first rule it breaks."""
    broken = broken_rule(shape, hardware, run, layout)
    if broken is not None:
        return broken
    count = count or parameter_count(shape)
    stage, memory = most_loaded(shape, count, hardware, run, layout)
    time = step_time(shape, count, hardware, run, layout)
    tokens = run.global_batch // run.sequence * run.sequence
    tokens_per_second = tokens / time.total
    model_flops = flops_per_token(shape, count, run.sequence, "none") * tokens
    share = model_flops / (time.total * hardware.gpus * Fraction(hardware.peak_flops))
    gpu_hours = cost = days = None
    steps = training_steps(run)
    if run.training_tokens is not None and steps is not None:
        gpu_hours = run.training_tokens / tokens_per_second * hardware.gpus / 3600
        cost = gpu_hours * run.price if run.price is not None else None
        days = steps * time.total / 86400
    found = hiding(shape, count, hardware, run, layout)
    return Plan(
        layout, memory, stage, hardware.memory, time, tokens_per_second, share, gpu_hours, cost, days=days, hiding=found
    )


def divisors(n: int) -> list[int]:
    """Every divisor of n, smallest first: trial division up to √n, so that a global batch of a trillion
    sequences is not a trillion steps."""
    small = [k for k in range(1, math.isqrt(n) + 1) if n % k == 0]
    return small + [n // k for k in reversed(small) if k * k != n]


#: The most layouts a plan weighs for a reader (the page and the command line): beyond, a degree is to be fixed,
#: since a search of 720,720 GPUs would take minutes and gigabytes.
MAX_LAYOUTS = 100_000


def too_many_layouts(shape: TransformerShape, hardware: Hardware, run: Run, fixed: Mapping[str, Fixed]) -> bool:
    """Whether `layouts` yields more than `MAX_LAYOUTS` (counted up to one past it, not all)."""
    return sum(1 for _ in itertools.islice(layouts(shape, hardware, run, fixed), MAX_LAYOUTS + 1)) > MAX_LAYOUTS


#: A value a caller fixes a layout field to.
Fixed = int | str | bool
_Choice = TypeVar("_Choice", int, str, bool)
#: The fields a caller may fix, by `Layout` field name.
FIXABLE = ("tp", "pp", "dp", "zero", "micro_batch", "recompute", "sequence_parallel", "chunks", "cp", "ep", "hybrid")


def layouts(shape: TransformerShape, hardware: Hardware, run: Run, fixed: Mapping[str, Fixed]) -> Iterator[Layout]:
    """Every layout to consider, with the fields in `fixed` (`FIXABLE`) held: all degrees t × cp × p × d = GPUs,
    every expert-parallel degree that divides cp × d for a mixture of experts (1 for a dense model), ZeRO 0 to
    3, sequence parallelism on and off where t > 1, every micro-batch that divides a replica's sequences, the
    recomputations (selective only when the kernel stores the scores), plain 1F1B and, with `Run.chunks` > 1
    and a pipeline, the interleaved schedule.

    A fixed value is taken as it is, so that a layout the caller asks for is checked, not skipped. A degree that
    breaks a rule is yielded too (a context degree that does not split the sequence, an expert degree that does
    not divide the experts), so that the plan names the rule.
    """
    unknown = set(fixed) - set(FIXABLE)
    if unknown:
        raise KeyError(f"unknown layout fields {sorted(unknown)}; known: {', '.join(FIXABLE)}")
    n = hardware.gpus
    sequences = run.global_batch // run.sequence if run.global_batch % run.sequence == 0 else 1
    recomputes = [r for r in RECOMPUTATIONS if r != "selective" or run.attention == "stored"]

    def searched(name: str, choices: Iterable[_Choice], read: Callable[[Fixed], _Choice]) -> list[_Choice]:
        """The values of field `name` to try: the fixed one, read as the field's type, or every choice."""
        return [read(fixed[name])] if name in fixed else list(choices)

    # Hybrid sharding fixed on is ZeRO-3's: the other stages would only break its rule.
    zeros = searched("zero", [3] if fixed.get("hybrid") else STAGES, int)
    rcs = searched("recompute", recomputes, str)
    for t in searched("tp", divisors(n), int):
        sps = searched("sequence_parallel", [False, True] if t > 1 else [False], bool)
        for c in searched("cp", divisors(n // t) if n % t == 0 else [1], int):
            rest = n // (t * c) if n % (t * c) == 0 else 1
            for p in searched("pp", divisors(rest), int):
                d = int(fixed["dp"]) if "dp" in fixed else (n // (t * c * p) if n % (t * c * p) == 0 else 1)
                per_replica = sequences // d if d and sequences % d == 0 else 1
                micro = searched("micro_batch", divisors(per_replica), int)
                chunks = searched("chunks", sorted({1, run.chunks} if p > 1 else {1}), int)
                for e in searched("ep", divisors(c * d) if shape.experts else [1], int):
                    for zero in zeros:
                        for hy in searched("hybrid", [False, True] if zero == 3 else [False], bool):
                            for sp, b, rc, v in itertools.product(sps, micro, rcs, chunks):
                                yield Layout(t, p, d, zero, b, rc, sp, v, c, e, hy)


#: Significant digits to which step times and bytes are compared when plans are ranked: equal to these, two
#: plans tie, and the simpler layout goes first (`layout_order`). The page ranks in floats, which the exact
#: fractions here round to; at twelve digits both see the same ties.
TIE_DIGITS = 12


def tied(value: Fraction | float) -> float:
    """`value` rounded to `TIE_DIGITS` significant digits: what ranking compares."""
    return float(f"{float(value):.{TIE_DIGITS}g}")


def layout_order(layout: Layout) -> tuple[int | bool, ...]:
    """The order of layouts that tie in time and memory: smaller tensor, context, pipeline and expert degrees
    first, then a lower ZeRO stage, full sharding before hybrid, sequence parallelism off, a smaller micro-batch,
    less recomputation and fewer chunks (the order `layouts` yields them in when cp = ep = 1)."""
    lay = layout
    recompute = RECOMPUTATIONS.index(lay.recompute) if lay.recompute in RECOMPUTATIONS else len(RECOMPUTATIONS)
    return (
        lay.tp,
        lay.cp,
        lay.pp,
        lay.ep,
        lay.zero,
        lay.hybrid,
        lay.sequence_parallel,
        lay.micro_batch,
        recompute,
        lay.chunks,
    )


def _reason(plan: Plan, best: Plan | None) -> Reason:
    if not plan.fits:
        roles = {role: value for role, value in plan.memory.by_role().items() if role != "total"}
        return Reason(
            "does-not-fit", part=max(roles, key=lambda role: roles[role]), extra=plan.memory.total - plan.capacity
        )
    if best is None or plan is best:
        return Reason("fastest")
    if tied(plan.step_seconds) == tied(best.step_seconds):
        return Reason("as-fast", part="memory", extra=plan.memory.total - best.memory.total)
    extra = {part: plan.time.by_part()[part] - best.time.by_part()[part] for part in TIME_PARTS}
    part = max(extra, key=lambda name: extra[name])
    return Reason("slower", plan.step_seconds / best.step_seconds - 1, part, extra[part])


def plan(shape: TransformerShape, hardware: Hardware, run: Run, fixed: Mapping[str, Fixed] | None = None) -> Planned:
    """Every layout evaluated and ranked: those that fit by step time, then those that do not by memory.

    Layouts that break a rule are gathered by rule and words (`Invalid.count`), the first found kept.
    Each plan is made once for its inputs (all immutable): a lesson's figures ask for the same plans, at
    about a second each for a search of a thousand layouts, and `mkdocs serve` keeps this module, with what it
    has planned, across a Python edit elsewhere and a catalog edit that leaves a plan's inputs as they were.
    """
    return _plan(shape, hardware, run, tuple(sorted((fixed or {}).items())))


@lru_cache(maxsize=512)
def _plan(shape: TransformerShape, hardware: Hardware, run: Run, fixed: tuple[tuple[str, Fixed], ...]) -> Planned:
    count = parameter_count(shape)
    plans: list[Plan] = []
    invalid: dict[tuple[str, str], Invalid] = {}
    considered = list(layouts(shape, hardware, run, dict(fixed)))
    for layout in considered:
        result = evaluate(shape, hardware, run, layout, count)
        if isinstance(result, Rule):
            key = (result.id, result.message)
            seen = invalid.get(key)
            invalid[key] = Invalid(layout, result) if seen is None else replace(seen, count=seen.count + 1)
        else:
            plans.append(result)
    fitting = sorted(
        (p for p in plans if p.fits), key=lambda p: (tied(p.step_seconds), tied(p.memory.total), layout_order(p.layout))
    )
    others = sorted(
        (p for p in plans if not p.fits),
        key=lambda p: (tied(p.memory.total), tied(p.step_seconds), layout_order(p.layout)),
    )
    best = fitting[0] if fitting else None
    ranked = tuple(replace(p, reason=_reason(p, best)) for p in (*fitting, *others))
    found = tuple(invalid.values())
    return Planned(count, ranked, found, batch_hint(run, found, {lay.dp for lay in considered}))


#: A `BatchHint` in words (`batch_hint_words`), `str.format` templates the page fills too: the nearest batches
#: below and above, or above only.
BATCH_HINT_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "hint": "{layouts} break a rule because a global batch of {sequences} does not divide among dp = {degrees};"
        " {nearest} would divide among every degree tried",
        "both": "{lower} or {upper} sequences ({lower_tokens} or {upper_tokens} tokens)",
        "above": "{upper} sequences ({upper_tokens} tokens)",
    }
)


def batch_hint_words(hint: BatchHint, sequence: int) -> str:
    """A `BatchHint` in words, the batches nearest in sequences and in tokens of `sequence` each."""
    values = {
        "lower": f"{hint.lower:,}",
        "upper": f"{hint.upper:,}",
        "lower_tokens": f"{hint.lower * sequence:,}",
        "upper_tokens": f"{hint.upper * sequence:,}",
    }
    nearest = BATCH_HINT_WORDS["both" if hint.lower else "above"].format(**values)
    return BATCH_HINT_WORDS["hint"].format(
        layouts=f"{hint.layouts:,} layout{'' if hint.layouts == 1 else 's'}",
        sequences=counted(hint.sequences, "sequence"),
        degrees=", ".join(str(d) for d in hint.ruled_out),
        nearest=nearest,
    )


def batch_hint(run: Run, invalid: tuple[Invalid, ...], degrees: set[int]) -> BatchHint | None:
    """What the global batch rules out (rule "batch-dp"), and the nearest batches that every data-parallel degree
    of `degrees` (those tried) divides: multiples of their least common multiple, below and above."""
    ruled = [item for item in invalid if item.rule.id == "batch-dp"]
    if not ruled:
        return None
    sequences = run.global_batch // run.sequence
    step = math.lcm(*degrees)
    return BatchHint(
        sequences,
        tuple(sorted(item.layout.dp for item in ruled)),
        sum(item.count for item in ruled),
        sequences // step * step,
        -(-sequences // step) * step,
    )
