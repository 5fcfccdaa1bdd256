"""Mixtures of experts: the router's capacity, expert parallelism's all-to-alls, and what each device holds.

The parameters themselves (every expert, and the ones a token is routed to) are counted by `shape`
(`LayerParameters.experts`, `ParameterCount.active`), as the model classes build them; this module
adds what expert parallelism does with them.

- Fedus et al., "Switch Transformers" (2021, https://arxiv.org/abs/2101.03961), §2.2, Eq. (3):
  "expert capacity = (tokens per batch / number of experts) × capacity factor"; a token routed to an
  expert already full is dropped: "computation is skipped and the token representation is passed
  directly to the next layer through the residual connection".
- Megatron-Core's `MoEAlltoAllTokenDispatcher` (megatron/core/transformer/moe/token_dispatcher.py):
  "token dispatch: A2A(EP)" before the experts and "token combine: A2A(EP)" after them, two
  all-to-alls over the expert-parallel group per MoE layer going forward; the backward pass runs the
  gradient of each, an all-to-all of the same size the other way.
- Megatron-Core's `initialize_model_parallel` (megatron/core/parallel_state.py): the experts' own
  data-parallel degree is world size ÷ (expert tensor × expert × pipeline parallel sizes).
"""

from __future__ import annotations

from fractions import Fraction

from .checks import check_count as _check_count
from .shape import MLP_MATRICES

#: All-to-alls per MoE layer over the expert-parallel group: dispatch and combine going forward, and the
#: gradient of each going backward.
ALLTOALLS_PER_LAYER = {"forward": 2, "backward": 2}


def expert_capacity(tokens: int, experts: int, capacity_factor: Fraction) -> Fraction:
    """Switch Transformer's Eq. (3): the tokens each expert computes, (tokens ÷ experts) × capacity factor.

    >>> expert_capacity(6, 3, Fraction(1))
    Fraction(2, 1)
    """
    _check_count("tokens", tokens)
    _check_count("experts", experts)
    if capacity_factor <= 0:
        raise ValueError(f"a capacity factor is above 0, got {capacity_factor}")
    return Fraction(tokens, experts) * Fraction(capacity_factor)


def dropped_tokens(routed: tuple[int, ...], capacity: int) -> int:
    """Tokens that find their expert full: what each expert is routed beyond its capacity, summed (Switch §2.2).

    >>> dropped_tokens((3, 2, 1), 2)
    1
    """
    if capacity < 0 or any(n < 0 for n in routed):
        raise ValueError("capacity and routed tokens are 0 or more")
    return sum(max(0, n - capacity) for n in routed)


def check_expert_degree(experts: int, degree: int) -> None:
    """Refuse an expert-parallel degree that does not split the experts into whole groups."""
    _check_count("experts", experts)
    _check_count("expert-parallel degree", degree)
    if experts % degree:
        raise ValueError(f"{experts} experts do not split evenly over {degree} devices")


def alltoall_bytes(tokens: int, top_k: int, hidden: int, bytes_per_value: int, degree: int) -> Fraction:
    """Bytes one device sends in one all-to-all of expert parallelism (a dispatch or a combine).

    Each of its `tokens` goes to `top_k` experts as a vector of `hidden` values; with the experts spread
    evenly over `degree` devices, (degree − 1)/degree of those copies belong to experts on other devices,
    the rest stay on the device. Routing as even as the load-balancing aims for: a real router sends more
    to some devices than to others.

    >>> alltoall_bytes(4, 2, 8, 2, 4)
    Fraction(96, 1)
    """
    for name, value in (("tokens", tokens), ("top_k", top_k), ("hidden", hidden), ("bytes", bytes_per_value)):
        _check_count(name, value)
    _check_count("expert-parallel degree", degree)
    return Fraction(tokens * top_k * hidden * bytes_per_value * (degree - 1), degree)


def alltoalls_per_layer(passes: str = "both") -> int:
    """All-to-alls per MoE layer: 2 forward (dispatch, combine), 2 backward, 4 both."""
    if passes == "both":
        return sum(ALLTOALLS_PER_LAYER.values())
    if passes not in ALLTOALLS_PER_LAYER:
        raise KeyError(f"unknown passes {passes!r}; known: forward, backward, both")
    return ALLTOALLS_PER_LAYER[passes]


def device_parameters(total: int, experts: int, degree: int) -> Fraction:
    """Parameters one device holds when the experts are split `degree` ways and the rest is copied.

    `experts` are the routed experts' parameters of the whole model; the attention, norms, routers and
    embeddings stay whole on every device of the expert-parallel group.

    >>> device_parameters(100, 80, 4)
    Fraction(40, 1)
    """
    _check_count("parameters", total)
    _check_count("expert-parallel degree", degree)
    if not 0 <= experts <= total:
        raise ValueError(f"expert parameters are between 0 and the total, got {experts}")
    return total - experts + Fraction(experts, degree)


def routed_expert_parameters(moe_layers: int, experts: int, hidden: int, width: int, gated: bool = True) -> int:
    """The routed experts' weight matrices over `moe_layers` layers: experts × (3 or 2) × h × f per layer.

    The MLP matrices as `shape` counts one expert (`MLP_MATRICES`), without biases.

    >>> routed_expert_parameters(1, 2, 4, 8)
    192
    """
    for name, value in (("moe_layers", moe_layers), ("experts", experts), ("hidden", hidden), ("width", width)):
        _check_count(name, value)
    return moe_layers * experts * MLP_MATRICES["gated" if gated else "plain"] * hidden * width


def expert_data_parallel(world: int, expert: int, pipeline: int, expert_tensor: int = 1) -> int:
    """The experts' data-parallel degree, as Megatron-Core builds its groups: world ÷ (ETP × EP × PP).

    >>> expert_data_parallel(2048, 64, 16)
    2
    """
    for name, value in (("world", world), ("expert", expert), ("pipeline", pipeline), ("tensor", expert_tensor)):
        _check_count(name, value)
    grid = expert_tensor * expert * pipeline
    if world % grid:
        raise ValueError(f"{world} devices do not divide into groups of {grid} (ETP × EP × PP)")
    return world // grid


def balanced_routing(devices: int) -> tuple[tuple[int, ...], ...]:
    """A routing as even as a router can make it, one expert per device and `devices` tokens per device, top-1:
    token j of device d goes to the expert on device (d + j) mod devices. Each device keeps one token and sends
    one to every other device, (e − 1)/e of its tokens, the share `alltoall_bytes` counts.

    >>> balanced_routing(3)
    ((0, 1, 2), (1, 2, 0), (2, 0, 1))
    """
    _check_count("devices", devices)
    return tuple(tuple((d + j) % devices for j in range(devices)) for d in range(devices))
