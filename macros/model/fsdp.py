"""PyTorch FSDP's sharding strategies: what each device keeps, and what crosses between hosts.

Zhao et al., "PyTorch FSDP: Experiences on Scaling Fully Sharded Data
Parallel" (PVLDB 16(12), 2023, https://arxiv.org/abs/2304.11277), and
PyTorch's documentation of `ShardingStrategy` and `MixedPrecision`. W is the
number of GPUs (the global world size), G the GPUs per host, F the sharding
factor ("the number of ranks over which parameters are sharded", §3.2) and M
the size of the model in bytes as it is communicated.

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


@dataclass(frozen=True)
class Strategy:
    """One of FSDP's sharding strategies, as `ShardingStrategy` names it, and its ZeRO counterpart."""

    name: str
    #: The ZeRO stage (macros.model.zero) whose states it shards.
    zero_stage: str
    #: Whether the unsharded low-precision parameters stay from the forward to the end of the backward.
    keeps_parameters_after_forward: bool
    #: All-gathers of the parameters per step: before the forward, and again before the backward if resharded.
    all_gathers: int


#: The strategies by id. FULL_SHARD shards over all W GPUs, HYBRID_SHARD within a host (F = G),
#: SHARD_GRAD_OP over all W but keeps the gathered parameters from forward to backward, NO_SHARD not at all.
STRATEGIES: Mapping[str, Strategy] = MappingProxyType(
    {
        "full-shard": Strategy("FULL_SHARD", "os-g-p", False, 2),
        "shard-grad-op": Strategy("SHARD_GRAD_OP", "os-g", True, 1),
        "hybrid-shard": Strategy("HYBRID_SHARD", "os-g-p", False, 2),
        "no-shard": Strategy("NO_SHARD", "dp", True, 0),
    }
)

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
    try:
        return STRATEGIES[strategy_id]
    except (KeyError, TypeError):
        raise KeyError(f"unknown FSDP strategy {strategy_id!r}; known: {', '.join(STRATEGIES)}") from None


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


def fsdp_state_bytes(parameters: int, strategy_id: str, world: int, per_host: int) -> Fraction:
    """Model-state bytes each GPU holds for Adam with bf16 or fp16 mixed precision, at the end of the backward pass.

    The sharded states, (4 + 4 + 8)Ψ/F: fp32 parameters and gradients and
    Adam's two fp32 states, all of which exist at the end of the backward pass
    from the second step on (Adam's states from the first optimizer step, the
    gradients from the backward pass until they are zeroed). Strategies that do
    not reshard after forward (SHARD_GRAD_OP, NO_SHARD) also hold the whole
    low-precision model, 2Ψ, from the forward until the backward pass ends.
    Left out: the one or two units FULL_SHARD gathers at a time (§3, §4.4:
    K_low·max ψ_i), activations and buffers.
    """
    _check_count("parameters", parameters)
    factor = sharding_factor(strategy_id, world, per_host)
    sharded = Fraction((FULL_PARAMETER_BYTES + FULL_GRADIENT_BYTES + ADAM_STATE_BYTES) * parameters, factor)
    gathered = LOW_PRECISION_BYTES * parameters if fsdp_strategy(strategy_id).keeps_parameters_after_forward else 0
    return sharded + gathered


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
