"""When each kind of parallelism becomes communication-bound: closed-form conditions, in the planner's own terms.

Austin et al.'s scaling book ("How to Parallelize a Transformer for Training", Part 5 of "How to Scale Your
Model", 2025, https://jax-ml.github.io/scaling-book/training/) derives, for TPUs, that data parallelism and FSDP
stay compute-bound while the per-device batch in tokens exceeds the chip's FLOP/s over its bandwidth, B/X > C/W,
and that tensor parallelism becomes communication-bound beyond a degree set by the MLP's width, Y > F·W/C. Each
condition compares the time a pass's compute takes with the time its traffic takes, both linear in what they move.
Here the same comparison is made for GPUs with the quantities the planner (`planner.step_time`) charges:

- Data parallelism and ZeRO: for every parameter of the model (not only those it holds: under ZeRO-3 a GPU keeps
  a d-th of them but gathers and reduces them all), a GPU sends k bytes through rings, k summed over the passes,
  (d − 1)/d of them per pass, at W bytes/s, while it computes f FLOPs per parameter per token, in the pass the
  traffic hides behind, at a share s of its peak C. The traffic hides behind that compute once its tokens exceed
  `hiding_tokens` = k·(d − 1)/d · C·s / (f·W). An all-reduce of k_g-byte gradients is two passes behind the
  backward pass (f its 4, with attention's share): 2k_g·(d − 1)/d · C·s / (f·W); with the book's 16-bit
  gradients and d large this is C·s/W, the book's C/W. ZeRO-3 sends, for each micro-batch, an all-gather of
  k_p-byte parameters behind its forward pass (f_F its 2, with attention's share) and, issued as the backward pass
  runs, a second all-gather and a reduce-scatter of k_g-byte gradients behind that pass (f_B its 4, 6 with the
  forward that full recomputation repeats): each pass must hide its own, so the bound is the larger,
  max(k_p/f_F, (k_p + k_g)/f_B)·(d − 1)/d · C·s / W (`zero3_hiding_tokens`), the tokens one micro-batch's. Pooled
  over both passes, (2k_p + k_g)/(f_F + f_B), it would be 9/8 too lenient without recomputation.
- Tensor parallelism: each layer's forward pass waits for two all-reduces of the b·s·h activation (Megatron-LM's
  g operator, `tensor.tensor_allreduces("forward")`), 2(t − 1)/t of 2bsh bytes each in a ring over NVLink, while
  it computes 2/t FLOPs per token per layer parameter. Compute outlasts them while
  t − 1 < P_layer·W/(4h·C·s) (`tensor_degree_limit` is that bound plus one): the per-GPU compute falls as 1/t, the
  bytes each GPU sends do not, so beyond it no overlap can hide them. Each of a layer's two blocks waits for one
  all-reduce, the bytes of the book's all-gather and reduce-scatter around its MLP; for blocks the size of the book's
  MLP (2hF parameters each) the bound is its F·W/C, W a GPU's bandwidth in each direction.

These are bounds at the links' line rates and a stated share of peak, as every time of the planner is.
"""

from __future__ import annotations

from fractions import Fraction

from .checks import check_count as _check_count
from .communication import ring_allreduce_factor
from .memory import BYTES_PER_VALUE
from .tensor import tensor_allreduces

#: The 16-bit format activations travel in.
ACTIVATION_BYTES = BYTES_PER_VALUE["bf16"]


def hiding_tokens(
    bytes_per_parameter: int | Fraction,
    devices: int,
    flops_per_parameter: int | Fraction,
    peak_flops: int | Fraction,
    share: Fraction,
    bandwidth: int | Fraction,
    allreduce: bool = False,
) -> Fraction:
    """Tokens per GPU a pass must compute for a ring collective of its parameters' bytes to hide behind it.

    `bytes_per_parameter` are sent through one pass of a ring ((d − 1)/d of them: a reduce-scatter or an
    all-gather), or through an all-reduce, twice that, when `allreduce`; the compute is `flops_per_parameter` per
    parameter per token at `share` of `peak_flops`; `bandwidth` is each GPU's in one direction (bytes/s).

    >>> hiding_tokens(2, 10**9, 4, 400, Fraction(1), 100, allreduce=True)  # the book's C/W, d large
    Fraction(999999999, 250000000)
    """
    for name, value in (
        ("bytes_per_parameter", bytes_per_parameter),
        ("devices", devices),
        ("flops_per_parameter", flops_per_parameter),
        ("peak_flops", peak_flops),
        ("share", share),
        ("bandwidth", bandwidth),
    ):
        _check_count(name, value)
    passes = ring_allreduce_factor(devices) if allreduce else ring_allreduce_factor(devices) / 2
    return Fraction(bytes_per_parameter) * passes * Fraction(peak_flops) * share / (flops_per_parameter * bandwidth)


def zero3_hiding_tokens(
    parameter_bytes: int | Fraction,
    gradient_bytes: int | Fraction,
    devices: int,
    forward_flops: int | Fraction,
    backward_flops: int | Fraction,
    peak_flops: int | Fraction,
    share: Fraction,
    bandwidth: int | Fraction,
) -> Fraction:
    """Tokens per GPU a micro-batch must compute for ZeRO-3's traffic to hide, pass by pass: the forward's
    all-gather behind the forward's `forward_flops` per parameter per token, the backward's all-gather and
    reduce-scatter behind the backward's `backward_flops`; the larger bound holds.

    >>> zero3_hiding_tokens(2, 4, 2, 2, 4, 100, Fraction(1), 1)  # the backward's 6 bytes over 4 FLOPs
    Fraction(75, 1)
    """
    forward = hiding_tokens(parameter_bytes, devices, forward_flops, peak_flops, share, bandwidth)
    backward = hiding_tokens(
        Fraction(parameter_bytes) + Fraction(gradient_bytes), devices, backward_flops, peak_flops, share, bandwidth
    )
    return max(forward, backward)


def tensor_degree_limit(
    layer_parameters: int, hidden: int, peak_flops: int | Fraction, share: Fraction, nvlink_bandwidth: int | Fraction
) -> Fraction:
    """The tensor degree beyond which a layer's forward all-reduces outlast its forward compute: 1 + P·W/(4h·C·s).

    A forward pass computes 2·P_layer/t FLOPs per token on each GPU and waits for `tensor_allreduces("forward")`
    all-reduces of h 16-bit values per token, 2(t − 1)/t of 2h bytes each, at `nvlink_bandwidth`.

    >>> tensor_degree_limit(8 * 4096**2, 4096, 4 * 10**14, Fraction(1), 4 * 10**11)  # 1 + 2h·W/C
    Fraction(1149, 125)
    """
    for name, value in (
        ("layer_parameters", layer_parameters),
        ("hidden", hidden),
        ("peak_flops", peak_flops),
        ("share", share),
        ("nvlink_bandwidth", nvlink_bandwidth),
    ):
        _check_count(name, value)
    forward = tensor_allreduces("forward")
    # Per token: compute 2P/(t·C·s) against forward × 2(t − 1)/t × 2h bytes ÷ W; t cancels but in (t − 1).
    ratio = (
        Fraction(2 * layer_parameters)
        * Fraction(nvlink_bandwidth)
        / (forward * 2 * ACTIVATION_BYTES * hidden * Fraction(peak_flops) * share)
    )
    return 1 + ratio
