"""Tensor (intra-layer) parallelism: what each device sends per layer, and what a layer computes.

Shoeybi et al., "Megatron-LM: Training Multi-Billion Parameter Language Models
Using Model Parallelism" (2019, https://arxiv.org/abs/1909.08053), §3: the MLP
is split column- then row-parallel, attention by heads, so that a layer needs
"only two all-reduces in the forward path and two in the backward path"
(Figure 4: "4 total communication operations"). Narayanan et al. (2021,
https://arxiv.org/abs/2104.04473) §3.2 count what that sends: "8bsh((t−1)/t)
per layer per device for each microbatch", in values; the bytes per value are
the course's step. Their appendix counts a layer's forward FLOPs as
24Bsh² + 4Bs²h. Attention is split by heads, "such that the matrix multiply
corresponding to each attention head is done locally on one GPU" (Megatron-LM
§3), so the tensor-parallel degree must divide the heads, as Megatron-LM's code
asserts (`mpu.divide(args.num_attention_heads, world_size)`).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

from .checks import check_count as _check_count
from .communication import ring_allreduce_bytes_sent

#: All-reduces of a b × s × h activation per transformer layer, by pass (Megatron-LM §3, Figure 4):
#: g after attention and after the MLP in the forward pass, f before each in the backward pass.
ALLREDUCES_PER_LAYER: Mapping[str, int] = MappingProxyType({"forward": 2, "backward": 2})

#: Passes over a layer's weights in one training step, by whether the forward pass is recomputed:
#: forward + backward (twice the forward), and one more forward with recomputation (Narayanan et al., Appendix).
PASSES: Mapping[str, int] = MappingProxyType({"no-recompute": 3, "recompute": 4})


def tensor_allreduces(direction: str = "both") -> int:
    """All-reduces per transformer layer in `direction` ("forward", "backward" or "both"): 2, 2 or 4.

    Raises:
        KeyError: an unknown direction.
    """
    if direction == "both":
        return sum(ALLREDUCES_PER_LAYER.values())
    try:
        return ALLREDUCES_PER_LAYER[direction]
    except (KeyError, TypeError):
        raise KeyError(f"unknown direction {direction!r}; known: forward, backward, both") from None


def check_heads(heads: int, tensor: int) -> None:
    """Refuse a tensor-parallel degree that does not divide the attention heads, which are split whole.

    Raises:
        ValueError: `heads` is not a multiple of `tensor`.
    """
    _check_count("heads", heads)
    _check_count("tensor", tensor)
    if heads % tensor:
        raise ValueError(
            f"{heads} attention heads do not split {tensor} ways: each GPU computes whole heads, so the"
            " tensor-parallel degree must divide the heads"
        )


def allreduces_per_layer(passes: str = "no-recompute") -> int:
    """All-reduces per layer per microbatch in a training step: 4, or 6 when the forward pass is recomputed.

    Recomputing a layer's forward pass before its backward pass runs its two
    forward all-reduces (g) again.

    Raises:
        KeyError: an unknown `passes`.
    """
    if passes not in PASSES:
        raise KeyError(f"unknown passes {passes!r}; known: {', '.join(PASSES)}")
    repeated = ALLREDUCES_PER_LAYER["forward"] if passes == "recompute" else 0
    return tensor_allreduces() + repeated


def tensor_bytes_per_layer(
    microbatch: int, sequence: int, hidden: int, tensor: int, bytes_per_value: int, passes: str = "no-recompute"
) -> Fraction:
    """Bytes each device sends per layer per microbatch under `tensor`-way tensor parallelism.

    Four ring all-reduces of b·s·h values, each sending 2(t − 1)/t of them:
    8bsh(t − 1)/t values (Narayanan et al. §3.2), times `bytes_per_value`; with
    the forward pass recomputed (`passes="recompute"`), six: 12bsh(t − 1)/t.

    Raises:
        ValueError: fewer than 2 tensor-parallel devices, which send nothing. KeyError: an unknown `passes`.
    """
    for name, value in (("microbatch", microbatch), ("sequence", sequence), ("hidden", hidden)):
        _check_count(name, value)
    activation = microbatch * sequence * hidden * bytes_per_value
    return allreduces_per_layer(passes) * ring_allreduce_bytes_sent(activation, tensor)


def layer_flops(microbatch: int, sequence: int, hidden: int, passes: str = "no-recompute") -> int:
    """FLOPs of one transformer layer for one microbatch in a training step, on all devices together.

    The forward pass is 24bsh² + 4bs²h (Narayanan et al., Appendix); training
    multiplies it by 3 (forward and backward), or 4 with recomputation.

    Raises:
        KeyError: an unknown `passes`.
    """
    for name, value in (("microbatch", microbatch), ("sequence", sequence), ("hidden", hidden)):
        _check_count(name, value)
    try:
        factor = PASSES[passes]
    except (KeyError, TypeError):
        raise KeyError(f"unknown passes {passes!r}; known: {', '.join(PASSES)}") from None
    forward = 24 * microbatch * sequence * hidden**2 + 4 * microbatch * sequence**2 * hidden
    return factor * forward


def scaling_efficiency(aggregate: float | Fraction, devices: int, per_device: float | Fraction) -> Fraction:
    """Aggregate throughput as a share of `devices` × one device's: Megatron-LM's "scaling efficiency"."""
    _check_count("devices", devices)
    _check_count("per_device", per_device)
    _check_count("aggregate", aggregate)
    return Fraction(aggregate) / (devices * Fraction(per_device))


def sustained_flops(efficiency: float | Fraction, devices: int, per_device: float | Fraction) -> Fraction:
    """The aggregate throughput a scaling efficiency stands for: efficiency × devices × one device's rate."""
    _check_count("efficiency", efficiency)
    _check_count("devices", devices)
    _check_count("per_device", per_device)
    return Fraction(efficiency) * devices * Fraction(per_device)


def per_device_rate(aggregate: float | Fraction, devices: int) -> Fraction:
    """One device's share of an aggregate throughput: aggregate ÷ devices."""
    _check_count("aggregate", aggregate)
    _check_count("devices", devices)
    return Fraction(aggregate) / devices


def implied_peak(rate: float | Fraction, fraction_of_peak: float | Fraction) -> Fraction:
    """The peak that `rate` is `fraction_of_peak` of: rate ÷ fraction."""
    _check_count("rate", rate)
    _check_count("fraction_of_peak", fraction_of_peak)
    return Fraction(rate) / Fraction(fraction_of_peak)
