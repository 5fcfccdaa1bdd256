"""PyTorch FSDP's sharding strategies: what each device keeps, and what each GPU sends across hosts.

Zhao et al., "PyTorch FSDP: Experiences on Scaling Fully Sharded Data
Parallel" (PVLDB 16(12), 2023, https://arxiv.org/abs/2304.11277), and
PyTorch's documentation of `ShardingStrategy` and `MixedPrecision`. W is the
number of GPUs (the global world size), G the GPUs per host, F the sharding
factor ("the number of ranks over which parameters are sharded", §3.2) and M
the size of the model in bytes as it is communicated.
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


#: The strategies by id. FULL_SHARD shards over all W GPUs, HYBRID_SHARD within a host (F = G),
#: SHARD_GRAD_OP over all W but keeps the gathered parameters from forward to backward, NO_SHARD not at all.
STRATEGIES: Mapping[str, Strategy] = MappingProxyType(
    {
        "full-shard": Strategy("FULL_SHARD", "os-g-p", False),
        "shard-grad-op": Strategy("SHARD_GRAD_OP", "os-g", True),
        "hybrid-shard": Strategy("HYBRID_SHARD", "os-g-p", False),
        "no-shard": Strategy("NO_SHARD", "dp", True),
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
    """Bytes each GPU holds for Adam with bf16 or fp16 mixed precision, at the end of the forward pass.

    The sharded states, (4 + 4 + 8)Ψ/F: fp32 parameters and gradients and
    Adam's two fp32 states. Strategies that do not reshard after forward
    (SHARD_GRAD_OP, NO_SHARD) also hold the whole low-precision model, 2Ψ, until
    the backward pass ends. Left out: the one or two units FULL_SHARD gathers at
    a time (§3, §4.4: K_low·max ψ_i), activations and buffers.
    """
    _check_count("parameters", parameters)
    factor = sharding_factor(strategy_id, world, per_host)
    sharded = Fraction((FULL_PARAMETER_BYTES + FULL_GRADIENT_BYTES + ADAM_STATE_BYTES) * parameters, factor)
    gathered = LOW_PRECISION_BYTES * parameters if fsdp_strategy(strategy_id).keeps_parameters_after_forward else 0
    return sharded + gathered


def cross_host_traffic(model_bytes: int, strategy_id: str, world: int, per_host: int) -> Fraction:
    """Cross-host traffic per GPU per step as §3.2.2 prints it, for an M-sized model.

    Full replication 2M(W − 1)/W, full sharding 3M(W − 1)/W, hybrid sharding
    2M(W − 1)/(GW).

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


def hybrid_cross_host_traffic(model_bytes: int, world: int, per_host: int) -> Fraction:
    """Cross-host traffic per GPU of hybrid sharding, counted from §3.2.2's own scheme: 2M(W − G)/(GW).

    Within a host the gradients are reduce-scattered, leaving each GPU an M/G
    shard; across hosts each shard is all-reduced over the W/G GPUs of its
    replication group, and a ring all-reduce of M/G over W/G GPUs sends
    2·(M/G)·(W/G − 1)/(W/G). The all-gathers stay within the host. This is
    below the paper's printed 2M(W − 1)/(GW), by the factor (W − G)/(W − 1).

    Raises:
        ValueError: `per_host` does not divide `world`.
    """
    _check_count("model_bytes", model_bytes)
    groups = Fraction(world, sharding_factor("hybrid-shard", world, per_host))
    return 2 * Fraction(model_bytes, per_host) * (groups - 1) / groups


def sequences_that_fit(free_bytes: float | Fraction, bytes_per_sequence: float | Fraction) -> int:
    """How many whole sequences' activations fit in `free_bytes`: the largest micro-batch, 0 if none."""
    _check_count("bytes_per_sequence", bytes_per_sequence)
    return max(0, int(Fraction(free_bytes) // Fraction(bytes_per_sequence)))
