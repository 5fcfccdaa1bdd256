"""Tensor (intra-layer) parallelism: what each device sends per layer, what waits for it, and what a layer computes.

Shoeybi et al., "Megatron-LM: Training Multi-Billion Parameter Language Models
Using Model Parallelism" (2019, https://arxiv.org/abs/1909.08053), §3: the MLP
is split column- then row-parallel, attention by heads, so that a layer needs
"only two all-reduces in the forward path and two in the backward path"
(Figure 4: "4 total communication operations"). Narayanan et al. (2021,
https://arxiv.org/abs/2104.04473) §3.2 count what that sends: "8bsh((t−1)/t)
per layer per device for each microbatch", in values; the bytes per value are
the course's step. Their appendix counts a layer's forward FLOPs as
24Bsh² + 4Bs²h, and the backward pass as twice that.

Not every all-reduce keeps the GPU waiting. The forward pass's (g) stand between
a block and the next; each backward one (f) sums the input gradient of a
column-parallel matrix, which the weight gradient of that matrix does not need,
so it can run while that GEMM does: "we overlap all-reduce communication with
the linear weight's gradient computation" (Korthikanti et al. 2022,
https://arxiv.org/abs/2205.05198, §6.2). Megatron-LM has done so since
September 2021 (commits cf7efd4f5a and 3f65246911), after the runs of Narayanan
et al.'s tables; today's Megatron-Core always launches that all-reduce
asynchronously before the weight-gradient GEMM
(`LinearWithGradAccumulationAndAsyncCommunication` in
megatron/core/tensor_parallel/layers.py), relying on
CUDA_DEVICE_MAX_CONNECTIONS=1 to schedule the all-reduce first ("necessary for a
speedup but not for correctness", its docstring); Megatron-LM's training script
has checked for the variable since October 2022 (bdd9731288, then in megatron/arguments.py;
today megatron/training/arguments.py) and today refuses tensor parallelism without it on GPUs before
Blackwell, on which "CUDA_DEVICE_MAX_CONNECTIONS requirement no longer exists".
The forward pass's collectives overlap their GEMMs only with
`tp_comm_overlap`, which is off by default and needs sequence parallelism (whose
all-gathers and reduce-scatters it overlaps, forward and backward) and
Transformer Engine.

How long a layer waits for them therefore depends on the GPU's speed as well as
the link's. At a given bandwidth the forward ones are the least it waits,
whatever it computes at (`forward_allreduce_seconds`), and
`exposed_allreduce_seconds`, with the weight-gradient GEMMs at the GPU's peak,
the most: a slower GEMM hides more of the all-reduce beside it.

Sequence parallelism (Korthikanti et al. §4.2.2) turns each all-reduce into a
reduce-scatter and an all-gather, the same bytes, and keeps only a t-th of each
block's input for the backward pass, at the price of "an extra all-gather in
the backward pass" of it; Megatron-Core's column-parallel layers gather it again
before their weight-gradient GEMM, one per block.

Attention is split by heads, "such that the matrix multiply corresponding to
each attention head is done locally on one GPU" (Megatron-LM §3), so the
tensor-parallel degree must divide the heads, as Megatron-LM's code asserted
from 2019 to 2022 with its `divide` (from 2020 to 2022 as
`mpu.divide(args.num_attention_heads, world_size)`) and today's Megatron-Core
still does (`TransformerConfig`: "num_attention_heads ...
must be a multiple of tensor_model_parallel_size"); with grouped-query
attention it also splits the key-value groups, whose number must be "a
multiple or divisor of tensor_model_parallel_size". Every model the course
splits has as many key-value groups as heads.
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


#: The column-parallel matrices, by width in units of h, whose backward all-reduce (f, of their input's gradient)
#: runs while their weight gradient is computed: the query, key and value projection, h × 3h, and the MLP's first
#: matrix, h × 4h (Megatron-LM §3; Narayanan et al., Appendix: "6Bsh²" and the MLP's "16Bsh²" over two matrices).
COLUMN_PARALLEL_WIDTHS: Mapping[str, int] = MappingProxyType({"qkv": 3, "mlp": 4})


def weight_gradient_flops(microbatch: int, sequence: int, hidden: int, tensor: int, width: int) -> Fraction:
    """FLOPs one device spends on the weight gradient of a column-parallel h × (width·h) matrix, per microbatch.

    The gradient of a t-th of the matrix's columns is (input)ᵀ × (output gradient): 2 × b·s × h × width·h/t
    (a product of m × k by k × n takes 2mkn FLOPs, Narayanan et al., Appendix).
    """
    for name, value in (("microbatch", microbatch), ("sequence", sequence), ("hidden", hidden), ("width", width)):
        _check_count(name, value)
    _check_count("tensor", tensor)
    return Fraction(2 * microbatch * sequence * hidden * width * hidden, tensor)


def forward_allreduce_seconds(allreduce: Fraction, passes: str = "no-recompute") -> Fraction:
    """Seconds a layer's forward all-reduces keep a device waiting per microbatch, each taking `allreduce`.

    The forward pass's two (g), and with recomputation the recomputed forward
    pass's two, stand between one block and the next, so the device waits for
    all of them whatever it computes at: at a given bandwidth, the least a
    layer's all-reduces keep it waiting.

    Raises:
        KeyError: an unknown `passes`.
    """
    _check_count("allreduce", allreduce)
    return (allreduces_per_layer(passes) - ALLREDUCES_PER_LAYER["backward"]) * Fraction(allreduce)


def exposed_allreduce_seconds(
    allreduce: Fraction,
    microbatch: int,
    sequence: int,
    hidden: int,
    tensor: int,
    peak_flops: float | Fraction,
    passes: str = "no-recompute",
) -> Fraction:
    """Seconds a layer's tensor-parallel all-reduces keep a device waiting per microbatch at `peak_flops`.

    The forward ones in full (`forward_allreduce_seconds`), and of each of the
    backward pass's two (f), which runs while its matrix's weight gradient is
    computed (`COLUMN_PARALLEL_WIDTHS`, at `peak_flops`), what it takes beyond
    that GEMM (Korthikanti et al. §6.2; Megatron-Core's default). Not a lower
    bound: the GEMM at the peak is the shortest it can take, and a shorter GEMM
    hides less, so at the all-reduces' `allreduce` this is the most a device
    waits. A device below its peak waits less for its all-reduces, though never
    less than for the forward ones, and takes longer over the step: its GEMMs
    hide no more than the time they add, so compute at peak plus this is still
    the least a step takes.

    Raises:
        KeyError: an unknown `passes`.
    """
    _check_count("peak_flops", peak_flops)
    exposed = forward_allreduce_seconds(allreduce, passes)
    for width in COLUMN_PARALLEL_WIDTHS.values():
        gemm = weight_gradient_flops(microbatch, sequence, hidden, tensor, width) / Fraction(peak_flops)
        exposed += max(Fraction(0), allreduce - gemm)
    return exposed


#: Collectives of a b × s × h activation per layer under sequence parallelism, as Megatron-Core runs them
#: (Korthikanti et al. §4.2.2, Figure 5): going forward, g's all-gather before each block's first matrix and ḡ's
#: reduce-scatter after its last; going backward, their conjugates, and the "extra all-gather" of each block's input,
#: of which each device kept a t-th, before the block's weight-gradient GEMM.
SEQUENCE_PARALLEL_COLLECTIVES: Mapping[str, int] = MappingProxyType({"forward": 4, "backward": 6})


def sequence_parallel_bytes_per_layer(
    microbatch: int, sequence: int, hidden: int, tensor: int, bytes_per_value: int
) -> Fraction:
    """Bytes each device sends per layer per microbatch under tensor and sequence parallelism: 10bsh(t − 1)/t values.

    Each all-gather or reduce-scatter of b·s·h values among t devices sends (t − 1)/t of them: the eight of
    `SEQUENCE_PARALLEL_COLLECTIVES` that replace the four all-reduces send as much as they did, 8bsh(t − 1)/t, and
    the two extra all-gathers 2bsh(t − 1)/t more.

    Raises:
        ValueError: fewer than 2 tensor-parallel devices.
    """
    for name, value in (("microbatch", microbatch), ("sequence", sequence), ("hidden", hidden)):
        _check_count(name, value)
    _check_count("tensor", tensor)
    if tensor < 2:
        raise ValueError(f"sequence parallelism needs at least 2 devices, got {tensor!r}")
    collectives = sum(SEQUENCE_PARALLEL_COLLECTIVES.values())
    return collectives * Fraction(tensor - 1, tensor) * microbatch * sequence * hidden * bytes_per_value


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


#: The ends of the range `implied_peak_bound` gives.
BOUNDS = ("low", "high")


def implied_peak_bound(
    rate: float | Fraction,
    fraction_of_peak: float | Fraction,
    rate_rounding: float | Fraction,
    fraction_rounding: float | Fraction,
    bound: str,
) -> Fraction:
    """The lowest or highest peak that a rate and a share, each printed rounded, allow.

    A value printed to the nearest `rounding` lies within half of it either way, so the peak lies between
    (rate − r/2) ÷ (share + f/2) and (rate + r/2) ÷ (share − f/2).

    Raises:
        KeyError: `bound` is neither "low" nor "high". ValueError: a rounding as large as twice its value.
    """
    if bound not in BOUNDS:
        raise KeyError(f"unknown bound {bound!r}; known: {', '.join(BOUNDS)}")
    for name, value in (("rate_rounding", rate_rounding), ("fraction_rounding", fraction_rounding)):
        _check_count(name, value)
    sign = -1 if bound == "low" else 1
    rate_end = Fraction(rate) + sign * Fraction(rate_rounding) / 2
    return implied_peak(rate_end, Fraction(fraction_of_peak) - sign * Fraction(fraction_rounding) / 2)
