"""PyTorch FSDP's sharding strategies: what each device keeps, and what crosses between hosts.

Zhao et al., "PyTorch FSDP: Experiences on Scaling Fully Sharded Data
Parallel" (PVLDB 16(12), 2023, https://arxiv.org/abs/2304.11277), and
PyTorch's documentation of `ShardingStrategy` and `MixedPrecision`. W is the
number of GPUs (the global world size), G the GPUs per host, F the sharding
factor ("the number of ranks over which parameters are sharded", §3.2) and M
the size of the model in bytes as it is communicated.

What each GPU keeps is counted at two moments of a micro-batch, as PyTorch
2.14's FSDP1 (torch/distributed/fsdp/_runtime_utils.py, _flat_param.py) and
FSDP2 (torch/distributed/fsdp/_fully_shard/) hold it: at the turn from forward
to backward, where every strategy that keeps its units gathered holds them all,
and at the end of the backward pass, where a backward that reduces its
gradients has freed every unit again. Which gradients are there depends on the
micro-batch's place in a step with gradient accumulation (`ACCUMULATIONS`):
none at a step's first turn, the sharded ones at a later turn when every
micro-batch reduces, the whole model's unsharded ones inside FSDP1's
`no_sync()`.

What crosses between hosts is counted two ways: as §3.2.2 prints it, and per
network port for NCCL's rings, which are laid out host by host, so that "Ring
Allreduce requires data to go through each GPU and enter/exit the node once"
(S. Jeaugey, NVIDIA, https://github.com/NVIDIA/nccl/issues/687), and which
NCCL runs several at a time, spread over a host's network ports, so that a ring
all-reduce's bandwidth grows with each port a host adds
(https://github.com/NVIDIA/nccl/issues/307).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from .checks import check_count as _check_count
from .checks import lookup


@dataclass(frozen=True)
class Strategy:
    """One of FSDP's sharding strategies, as `ShardingStrategy` names it, and its ZeRO counterpart."""

    name: str
    #: The ZeRO stage (macros.model.zero) whose states it shards.
    zero_stage: str
    #: Whether each unit's gathered low-precision parameters stay from its forward until its own backward ends.
    #: In a backward that reduces the gradients FSDP1 frees them there for every sharded strategy
    #: (`_should_free_in_backward`), so even a strategy that keeps them holds the whole low-precision model only
    #: at the turn from forward to backward; inside `no_sync()` such a strategy frees none of them.
    keeps_unit_after_forward: bool
    #: All-gathers of the parameters per step: before the forward, and again before the backward if resharded.
    all_gathers: int


#: The strategies by id. FULL_SHARD shards over all W GPUs, HYBRID_SHARD within a host (F = G),
#: SHARD_GRAD_OP over all W but keeps each gathered unit from its forward to its backward, NO_SHARD not at
#: all. NO_SHARD keeps no low-precision unit either: with `MixedPrecision`, FSDP1 frees a unit's cast copy
#: after its forward (`FlatParamHandle.post_reshard`) and casts it again before its backward.
STRATEGIES: Mapping[str, Strategy] = MappingProxyType(
    {
        "full-shard": Strategy("FULL_SHARD", "os-g-p", False, 2),
        "shard-grad-op": Strategy("SHARD_GRAD_OP", "os-g", True, 1),
        "hybrid-shard": Strategy("HYBRID_SHARD", "os-g-p", False, 2),
        "no-shard": Strategy("NO_SHARD", "dp", False, 0),
    }
)

#: The moments of a micro-batch at which `fsdp_state_bytes` counts: the turn from the forward pass to the
#: backward pass, and the end of the backward pass.
STATE_MOMENTS = ("turn", "end-of-backward")

#: Where a micro-batch sits in an optimizer step, for the gradients `fsdp_state_bytes` finds held:
#:
#: - "none": the step's only micro-batch, or its first, which meets its forward with no gradient, since
#:   `zero_grad(set_to_none=True)` (PyTorch's default) ran before it;
#: - "synced": a later micro-batch of a step whose every micro-batch reduces its gradients. The sharded fp32
#:   gradients of the earlier ones are held throughout: FSDP1 adds each reduced shard to them
#:   (`_accumulate_sharded_grad`), FSDP2 to the sharded parameter's `.grad`;
#: - "no-sync": a later micro-batch inside FSDP1's `no_sync()`, which keeps "the full model gradients (instead
#:   of gradient shards) until the eventual sync" (its docstring), in the low precision the backward computed
#:   them in whatever `reduce_dtype` says, and under SHARD_GRAD_OP frees no unit after its backward
#:   (`_should_free_in_backward`), so every unit stays gathered until the sync.
#:
#: Checked by running PyTorch 2.14.1 on CPU (gloo, 2 ranks, three micro-batches a step).
ACCUMULATIONS = ("none", "synced", "no-sync")

#: Bytes per parameter that stay sharded under FSDP's mixed precision with Adam: the fp32 parameters
#: (the optimizer steps "the sharded parameter in the original dtype"), fp32 gradients (FSDP1
#: "upcasts gradients to full precision after the backward pass") and Adam's momentum and variance.
FULL_PARAMETER_BYTES = 4
FULL_GRADIENT_BYTES = 4
ADAM_STATE_BYTES = 8
#: Bytes per value of the low precision (bf16 or fp16) that forward and backward compute with.
LOW_PRECISION_BYTES = 2

#: The per-GPU traffic formulas §3.2.2 prints, as (numerator factor, divides by G): k·M(W − 1)/W or /(GW).
_PRINTED_TRAFFIC: Mapping[str, tuple[int, bool]] = MappingProxyType(
    {"no-shard": (2, False), "full-shard": (3, False), "hybrid-shard": (2, True)}
)


def fsdp_strategy(strategy_id: str) -> Strategy:
    """The strategy `strategy_id` ("full-shard", "shard-grad-op", "hybrid-shard" or "no-shard").

    Raises:
        KeyError: no such strategy; the message lists the known ones.
    """
    return lookup(STRATEGIES, strategy_id, "FSDP strategy")


def sharding_factor(strategy_id: str, world: int, per_host: int) -> int:
    """F, the number of GPUs each parameter is sharded over (§3.2): W, 1, or G within a host.

    §3.2.2 prints "F = W/G" for hybrid sharding within hosts of G; by its own
    definition of F, and by its Figure 4 (16 GPUs, "2 sharding groups and 8
    replication groups"), sharding within a host means F = G.

    Raises:
        ValueError: `per_host` does not divide `world`.
    """
    _check_count("world", world)
    _check_count("per_host", per_host)
    if world % per_host:
        raise ValueError(f"{world} GPUs do not make whole hosts of {per_host}")
    chosen = fsdp_strategy(strategy_id)
    if chosen.zero_stage == "dp":
        return 1
    return per_host if strategy_id == "hybrid-shard" else world


@dataclass(frozen=True)
class HeldStates:
    """What one GPU holds per parameter at one moment: each part's name and bytes, sharded over F or whole."""

    #: Parts divided by the sharding factor F.
    sharded: tuple[tuple[str, int], ...]
    #: Parts every GPU holds for the whole model, whatever F is.
    whole: tuple[tuple[str, int], ...]

    def bytes(self, parameters: int, factor: int) -> Fraction:
        """The bytes of these parts for `parameters` parameters sharded over `factor` GPUs."""
        sharded = sum(size for _, size in self.sharded)
        whole = sum(size for _, size in self.whole)
        return Fraction(sharded * parameters, factor) + whole * parameters


def fsdp_held_states(strategy_id: str, moment: str = "end-of-backward", accumulation: str = "none") -> HeldStates:
    """The model states a GPU holds per parameter under Adam with bf16 or fp16 mixed precision, from the second step on.

    When each part is there:

    - the fp32 parameters, 4 bytes ÷ F, and Adam's two states, 8 ÷ F: always;
    - the fp32 gradients, 4 ÷ F: from each unit's reduction in the backward
      pass until `zero_grad(set_to_none=True)` frees them after the optimizer
      step, so at the end of a backward that reduces them, and at every turn
      but the step's first when every micro-batch reduces ("synced");
    - the whole model's unsharded low-precision gradients, 2: inside FSDP1's
      `no_sync()` ("no-sync"), from the first micro-batch's backward to the
      sync; no sharded ones yet;
    - the whole low-precision model, 2: under a strategy that keeps each unit
      gathered from its forward to its backward (SHARD_GRAD_OP, FSDP2's
      `reshard_after_forward=False`), at the turn, and inside `no_sync()`
      after the backward too.

    Left out: the units in flight (the one or two being gathered or computed,
    §3, §4.4: K_low·max ψ_i; under FULL_SHARD and HYBRID_SHARD also the root
    unit, which FSDP1 and FSDP2 keep from its forward to its backward), each
    unit's low-precision gradients until they are reduced, activations and
    buffers.

    Raises:
        KeyError: an unknown strategy.
        ValueError: `moment` is not one of `STATE_MOMENTS`, or `accumulation` not one of `ACCUMULATIONS`.
    """
    chosen = fsdp_strategy(strategy_id)
    if moment not in STATE_MOMENTS:
        raise ValueError(f"unknown moment {moment!r}; known: {', '.join(STATE_MOMENTS)}")
    if accumulation not in ACCUMULATIONS:
        raise ValueError(f"unknown accumulation {accumulation!r}; known: {', '.join(ACCUMULATIONS)}")
    sharded = [("fp32 parameters", FULL_PARAMETER_BYTES), ("Adam's two states", ADAM_STATE_BYTES)]
    whole: list[tuple[str, int]] = []
    if accumulation == "no-sync":
        whole.append(("the whole model's unsharded low-precision gradients", LOW_PRECISION_BYTES))
    elif accumulation == "synced" or moment == "end-of-backward":
        sharded.insert(1, ("fp32 gradients", FULL_GRADIENT_BYTES))
    if chosen.keeps_unit_after_forward and (moment == "turn" or accumulation == "no-sync"):
        whole.insert(0, ("low-precision parameters, every unit still gathered", LOW_PRECISION_BYTES))
    return HeldStates(tuple(sharded), tuple(whole))


def fsdp_state_bytes(
    parameters: int,
    strategy_id: str,
    world: int,
    per_host: int,
    moment: str = "end-of-backward",
    accumulation: str = "none",
) -> Fraction:
    """Model-state bytes each GPU holds for Adam with bf16 or fp16 mixed precision, at a moment of a micro-batch.

    The parts of `fsdp_held_states`, the sharded ones divided by F. With one
    micro-batch per step ("none"), the turn is (4 + 8)Ψ/F, plus 2Ψ for
    SHARD_GRAD_OP, and the end of the backward (4 + 4 + 8)Ψ/F for every
    strategy; a later micro-batch's turn is 16Ψ/F (+ 2Ψ) when every
    micro-batch reduces ("synced"), and 12Ψ/F + 2Ψ (+ 2Ψ) inside FSDP1's
    `no_sync()` ("no-sync"), which also holds that at the end of its backward.

    Raises:
        KeyError: an unknown strategy.
        ValueError: an unknown moment or accumulation, or `per_host` does not divide `world`.
    """
    _check_count("parameters", parameters)
    factor = sharding_factor(strategy_id, world, per_host)
    return fsdp_held_states(strategy_id, moment, accumulation).bytes(parameters, factor)


def fsdp_largest_micro_batch(
    memory: float | Fraction,
    parameters: int,
    strategy_id: str,
    world: int,
    per_host: int,
    bytes_per_sequence: Fraction,
    accumulation: str = "none",
) -> int:
    """The most sequences per GPU whose activations fit beside a strategy's states: 0 if none, or if the states do not.

    The activations are all held at the turn from forward to backward, beside
    that moment's states (`fsdp_state_bytes` "turn", for the micro-batch's
    place in the step, `accumulation`); by the end of the backward pass they
    are freed, so the states of that moment must fit on their own, for this
    micro-batch and for the step's last, which reduces the gradients.
    """
    ends = (
        fsdp_state_bytes(parameters, strategy_id, world, per_host, "end-of-backward", accumulation),
        fsdp_state_bytes(parameters, strategy_id, world, per_host, "end-of-backward"),
    )
    if max(ends) > memory:
        return 0
    turn = fsdp_state_bytes(parameters, strategy_id, world, per_host, "turn", accumulation)
    return sequences_that_fit(Fraction(memory) - turn, bytes_per_sequence)


def cross_host_traffic(model_bytes: int, strategy_id: str, world: int, per_host: int) -> Fraction:
    """Cross-host traffic per GPU per step as §3.2.2 prints it, for an M-sized model.

    Full replication 2M(W − 1)/W, full sharding 3M(W − 1)/W, hybrid sharding
    2M(W − 1)/(GW). The first two are each GPU's whole ring traffic: all of it
    crosses hosts only where every hop of the ring does, as with one GPU per
    host (`cross_host_traffic_per_port` counts rings laid out host by host).

    Raises:
        KeyError: a strategy the paper gives no formula for (SHARD_GRAD_OP).
    """
    _check_count("model_bytes", model_bytes)
    _check_count("world", world)
    _check_count("per_host", per_host)
    if strategy_id not in _PRINTED_TRAFFIC:
        raise KeyError(f"§3.2.2 gives no traffic for {strategy_id!r}; it gives {', '.join(_PRINTED_TRAFFIC)}")
    factor, per_host_share = _PRINTED_TRAFFIC[strategy_id]
    return Fraction(factor * model_bytes * (world - 1), world * (per_host if per_host_share else 1))


def cross_host_traffic_per_port(
    gathered_bytes: int, reduced_bytes: int, strategy_id: str, world: int, per_host: int
) -> Fraction:
    """Bytes each network port of a host sends to other hosts per step, for rings laid out host by host.

    `gathered_bytes` is the model in the precision its parameters are
    all-gathered in (FSDP's param_dtype), `reduced_bytes` the model in the
    precision its gradients are reduced in (reduce_dtype). Each ring enters and
    leaves a host once, so a collective over all W GPUs sends across a host's
    boundary what one link of the ring carries, (W − 1)/W of the data per pass,
    and the host's G ports (one per GPU) share it: (W − 1)/(GW) of the data
    per pass and port. Per step:

    - NO_SHARD all-reduces the gradients, two passes: 2R(W − 1)/(GW);
    - FULL_SHARD all-gathers the parameters twice and reduce-scatters the
      gradients: (2P + R)(W − 1)/(GW);
    - SHARD_GRAD_OP all-gathers once: (P + R)(W − 1)/(GW);
    - HYBRID_SHARD all-gathers and reduce-scatters inside the host; across
      hosts each GPU all-reduces its R/G shard on a ring of its W/G peers, one
      per host, through its own port: 2(R/G)(W/G − 1)/(W/G) = 2R(W − G)/(GW).

    On one host nothing crosses: 0. With P = R = M, NO_SHARD's count is the
    hybrid formula §3.2.2 prints, 2M(W − 1)/(GW), and the other two are its
    full-replication and full-sharding formulas divided by G.

    Raises:
        ValueError: `per_host` does not divide `world`.
    """
    _check_count("gathered_bytes", gathered_bytes)
    _check_count("reduced_bytes", reduced_bytes)
    factor = sharding_factor(strategy_id, world, per_host)
    if world == per_host:
        return Fraction(0)
    if strategy_id == "hybrid-shard":
        peers = Fraction(world, factor)
        return 2 * Fraction(reduced_bytes, per_host) * (peers - 1) / peers
    chosen = fsdp_strategy(strategy_id)
    # A reduce-scatter is one pass of the gradients; NO_SHARD's all-reduce is two.
    reductions = 2 if chosen.zero_stage == "dp" else 1
    passes = chosen.all_gathers * gathered_bytes + reductions * reduced_bytes
    return Fraction(passes * (world - 1), per_host * world)


def sequences_that_fit(free_bytes: float | Fraction, bytes_per_sequence: float | Fraction) -> int:
    """How many whole sequences' activations fit in `free_bytes`: the largest micro-batch, 0 if none."""
    _check_count("bytes_per_sequence", bytes_per_sequence)
    return max(0, int(Fraction(free_bytes) // Fraction(bytes_per_sequence)))


#: The moments of one FSDP unit's training step of one micro-batch on one GPU, in order: between steps, the forward
#: pass, after it, the backward pass, after it, and the optimizer step. (With gradient accumulation a later
#: micro-batch starts with gradients held: `ACCUMULATIONS`.)
UNIT_MOMENTS = ("start", "forward", "after-forward", "backward", "after-backward", "step")


@dataclass(frozen=True)
class UnitMoment:
    """What one GPU does with one FSDP unit at one moment of a training step, and what it holds of the unit after.

    `parameters` is "sharded" (its own 1/F of the unit) or "unsharded" (the
    whole unit); `gradients` is "none", "unsharded" (the whole unit's, as the
    backward pass writes them) or "sharded" (its own shard's gradients,
    averaged over the GPUs: FSDP1 divides them by the data-parallel world
    size, FSDP2 reduces with `ReduceOp.AVG` in fp32 or bf16).
    """

    moment: str
    #: The collectives the GPU joins at this moment, in order: "all-gather", "reduce-scatter", "all-reduce".
    collectives: tuple[str, ...]
    parameters: str
    gradients: str
    #: Whether the GPU frees the other GPUs' shards of the parameters at this moment (FSDP's "reshard").
    frees: bool = False


def fsdp_unit_schedule(strategy_id: str) -> tuple[UnitMoment, ...]:
    """One FSDP unit through a training step on one GPU under a strategy, moment by moment (`UNIT_MOMENTS`).

    From PyTorch's `ShardingStrategy` documentation: `FULL_SHARD` "unshards (via
    all-gather) before the forward, reshards after the forward, unshards before
    the backward computation, and reshards after the backward computation. For
    gradients, it synchronizes and shards them (via reduce-scatter) after the
    backward computation. The sharded optimizer states are updated locally per
    rank."; `SHARD_GRAD_OP` "unshards before the forward, does not reshard them
    after the forward, and only reshards them after the backward computation";
    `NO_SHARD` replicates everything and "synchronizes them (via all-reduce)
    after the backward computation"; `HYBRID_SHARD` applies `FULL_SHARD` within
    a host and replicates across hosts, so FSDP1's `_reduce_grad`
    (torch/distributed/fsdp/_runtime_utils.py) reduce-scatters the gradients
    within the host, then all-reduces each shard across hosts. The paper's §3
    gives the same order: gather the unit's shards before its forward, free
    them after, gather them again for its backward, then free them and
    reduce-scatter the gradients. The all-gathers in the schedule are
    `Strategy.all_gathers`.

    Raises:
        KeyError: an unknown strategy.
    """
    chosen = fsdp_strategy(strategy_id)
    sharded = chosen.zero_stage != "dp"  # F > 1: the parameters rest sharded between steps
    rest = "sharded" if sharded else "unsharded"
    after_forward = "unsharded" if not sharded or chosen.keeps_unit_after_forward else "sharded"
    gather = ("all-gather",)
    if not sharded:
        reduction: tuple[str, ...] = ("all-reduce",)
    elif strategy_id == "hybrid-shard":
        reduction = ("reduce-scatter", "all-reduce")
    else:
        reduction = ("reduce-scatter",)
    return (
        UnitMoment("start", (), rest, "none"),
        UnitMoment("forward", gather if sharded else (), "unsharded", "none"),
        UnitMoment("after-forward", (), after_forward, "none", frees=after_forward == "sharded"),
        UnitMoment("backward", gather if after_forward == "sharded" else (), "unsharded", "unsharded"),
        UnitMoment("after-backward", reduction, rest, rest, frees=sharded),
        UnitMoment("step", (), rest, rest),
    )
