"""The compute of a training run: FLOPs from parameters and tokens, and the time they take.

- Kaplan et al. 2020 (https://arxiv.org/abs/2001.08361), §2.1: a forward pass
  costs about 2N FLOPs per token ("the factor of two comes from the
  multiply-accumulate operation"), the backward pass about twice that, so
  training costs C ≈ 6N per token; Brown et al. 2020, Table D.1, and PaLM,
  Appendix B, count the same way.
- Narayanan et al. 2021 (https://arxiv.org/abs/2104.04473), §5.1, eq. (4):
  end-to-end training time ≈ 8TP/(nX), whose 8 counts the extra forward pass of
  activation recomputation. The course's no-recomputation counterpart, 6TP/(nX),
  is derived here from the same 2 + 4 split, not printed by the paper.
- Chowdhery et al. 2022 (PaLM, https://arxiv.org/abs/2204.02311), Appendix B:
  model FLOPs utilization, the observed tokens per second over the peak
  throughput P / 6N (the attention term left out).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

from .checks import check_count as _check_count

#: Kaplan §2.1 and PaLM App. B: 2N matmul FLOPs per token forward, 4N backward.
FORWARD_FLOPS_PER_PARAMETER = 2
BACKWARD_FLOPS_PER_PARAMETER = 4
#: FLOPs per parameter per token a training step costs: without recomputing
#: activations, 2 + 4 = 6 (Kaplan's 6N); recomputing them costs one more
#: forward pass, 2 + 4 + 2 = 8 (Narayanan's eq. (4)).
FLOPS_PER_PARAMETER: Mapping[str, int] = MappingProxyType(
    {
        "none": FORWARD_FLOPS_PER_PARAMETER + BACKWARD_FLOPS_PER_PARAMETER,
        "full": 2 * FORWARD_FLOPS_PER_PARAMETER + BACKWARD_FLOPS_PER_PARAMETER,
    }
)
#: Brown et al. 2020, Table D.1's caption: "petaflop/s-day (each of which are 8.64e+19 flops)".
FLOPS_PER_PETAFLOP_S_DAY = 10**15 * 86_400


def recomputation(name: str) -> int:
    """FLOPs per parameter per token with recomputation `name` ("none" or "full").

    Raises:
        KeyError: another name; the message lists the known ones.
    """
    try:
        return FLOPS_PER_PARAMETER[name]
    except (KeyError, TypeError):
        raise KeyError(f"unknown recomputation {name!r}; known: {', '.join(FLOPS_PER_PARAMETER)}") from None


def training_flops(parameters: int, tokens: int, recompute: str = "none") -> int:
    """FLOPs of training `parameters` on `tokens`: 6ND, or 8ND with full recomputation."""
    _check_count("parameters", parameters)
    _check_count("tokens", tokens)
    return recomputation(recompute) * parameters * tokens


def petaflop_s_days(flops: float | Fraction) -> Fraction:
    """`flops` in petaflop/s-days, the unit of GPT-3's Table D.1."""
    _check_count("flops", flops)
    return Fraction(flops) / FLOPS_PER_PETAFLOP_S_DAY


def tokens_per_parameter(tokens: int, parameters: int) -> Fraction:
    """Training tokens per parameter, D/N."""
    _check_count("tokens", tokens)
    _check_count("parameters", parameters)
    return Fraction(tokens, parameters)


def compute_optimal_parameters(flops: float | Fraction, ratio: float | Fraction) -> int:
    """The parameter count N that spends `flops` = 6ND at D = `ratio` × N: √(C / 6r), rounded down.

    The course's own algebra on C ≈ 6ND, with a tokens-per-parameter ratio read
    off a compute-optimal run; not a formula a source prints.
    """
    _check_count("flops", flops)
    _check_count("ratio", ratio)
    square = Fraction(flops) / (FLOPS_PER_PARAMETER["none"] * Fraction(ratio))
    return math.isqrt(math.floor(square))


def training_seconds(
    tokens: int, parameters: int, devices: int, flops_per_device: float | Fraction, recompute: str = "full"
) -> Fraction:
    """Narayanan's end-to-end training time, 8TP/(nX) seconds, or 6TP/(nX) without recomputation.

    `flops_per_device` is X, the FLOP/s each device achieves end to end.
    """
    for name, value in (("tokens", tokens), ("parameters", parameters), ("devices", devices)):
        _check_count(name, value)
    _check_count("flops_per_device", flops_per_device)
    return Fraction(training_flops(parameters, tokens, recompute)) / (devices * Fraction(flops_per_device))


def model_flops_utilization(
    tokens_per_second: float | Fraction, parameters: int, devices: int, peak_per_device: float | Fraction
) -> Fraction:
    """PaLM App. B's MFU without attention: tokens/s × 6N ÷ (devices × peak FLOP/s)."""
    _check_count("tokens_per_second", tokens_per_second)
    _check_count("parameters", parameters)
    _check_count("devices", devices)
    _check_count("peak_per_device", peak_per_device)
    model_flops = Fraction(tokens_per_second) * FLOPS_PER_PARAMETER["none"] * parameters
    return model_flops / (devices * Fraction(peak_per_device))


def seconds_at_utilization(
    flops: float | Fraction, devices: int, peak_per_device: float | Fraction, share: Fraction
) -> Fraction:
    """Seconds `devices` devices take for `flops` when they run at `share` of their peak."""
    _check_count("flops", flops)
    _check_count("devices", devices)
    _check_count("peak_per_device", peak_per_device)
    _check_count("share", share)
    if share > 1:
        raise ValueError(f"a utilization is at most 1 (100%), got {share!r}")
    return Fraction(flops) / (devices * Fraction(peak_per_device) * share)


#: Attention's own FLOPs per token per layer per unit of width and sequence, by pass: the forward pass's QKᵀ and
#: scores × V, 2·s·w each (Narayanan et al., Appendix: the 4Bs²h of a layer's forward pass, here per token), and
#: the backward pass twice that.
ATTENTION_FORWARD_FLOPS = 4


def attention_flops_per_token(layers: int, width: int, sequence: int, recompute: str = "none") -> int:
    """FLOPs per token of attention's scores, which 6N leaves out: 12·L·w·s for a training step (PaLM App. B).

    PaLM's model FLOPs per token are "6N + 12LHQT", H heads of Q values each (w = H·Q, the queries' width) over
    a sequence of T tokens, counting every query against every key as the non-causal products do. Recomputing
    the forward pass ("full") or the attention alone ("selective", Korthikanti et al. §5) adds the forward
    pass's 4·L·w·s once more.

    Raises:
        KeyError: an unknown `recompute`.
    """
    for name, value in (("layers", layers), ("width", width), ("sequence", sequence)):
        _check_count(name, value)
    passes = {"none": 0, "selective": 1, "full": 1}
    if recompute not in passes:
        raise KeyError(f"unknown recomputation {recompute!r}; known: {', '.join(passes)}")
    forward = ATTENTION_FORWARD_FLOPS * layers * width * sequence
    return (1 + BACKWARD_FLOPS_PER_PARAMETER // FORWARD_FLOPS_PER_PARAMETER + passes[recompute]) * forward
