"""FLOPs counted by PyTorch's own counter, `torch.utils.flop_counter.FlopCounterMode`.

A stack of bias-free linear layers is nothing but matmuls, as Kaplan et al.'s
6N counts a transformer: its forward pass costs 2 FLOPs per parameter per
token, its backward pass (the input's gradient and the weights') twice that,
and recomputing each layer in the backward pass (`torch.utils.checkpoint`) one
forward more, 8 in all (Narayanan et al.'s Eq. 4). The input requires a
gradient, as a layer's input does inside a model. Attention's matmuls, which
6N leaves out, are not in this model.
"""

from __future__ import annotations

from fractions import Fraction

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
from torch.utils.flop_counter import FlopCounterMode

from macros import model

from .conftest import Recorder

WIDTH, LAYERS, TOKENS = 64, 4, 8
SOFTWARE = ("torch",)


def _layers() -> nn.ModuleList:
    torch.manual_seed(0)
    return nn.ModuleList(nn.Linear(WIDTH, WIDTH, bias=False) for _ in range(LAYERS))


def _forward(layers: nn.ModuleList, x: torch.Tensor, recompute: bool) -> torch.Tensor:
    for layer in layers:
        # The reentrant form: the non-reentrant one recomputes where the counter does not see it (the tier
        # measured 6 per parameter per token with it, the same as without recomputation).
        x = checkpoint(layer, x, use_reentrant=True) if recompute else layer(x)
    return x


def _flops(recompute: bool) -> tuple[int, int]:
    """FLOPs of the forward pass and of the backward pass (recomputation included)."""
    layers = _layers()
    x = torch.randn(TOKENS, WIDTH, requires_grad=True)
    with FlopCounterMode(display=False) as forward:
        out = _forward(layers, x, recompute)
    with FlopCounterMode(display=False) as backward:
        out.sum().backward()
    return forward.get_total_flops(), backward.get_total_flops()


def _per_parameter_token(flops: int) -> Fraction:
    parameters = sum(p.numel() for p in _layers().parameters())
    return Fraction(flops, parameters * TOKENS)


def test_forward_is_two_flops_per_parameter_per_token(record: Recorder) -> None:
    forward, _ = _flops(recompute=False)
    measured = _per_parameter_token(forward)
    record(
        "flops-per-parameter/forward",
        ["flops-per-parameter", "model.FORWARD_FLOPS_PER_PARAMETER"],
        SOFTWARE,
        measured,
        model.FORWARD_FLOPS_PER_PARAMETER,
        "FLOP/param",
    )
    assert measured == model.FORWARD_FLOPS_PER_PARAMETER


def test_backward_is_twice_the_forward(record: Recorder) -> None:
    forward, backward = _flops(recompute=False)
    measured = _per_parameter_token(backward)
    record(
        "flops-per-parameter/backward",
        ["flops-per-parameter", "model.BACKWARD_FLOPS_PER_PARAMETER"],
        SOFTWARE,
        measured,
        model.BACKWARD_FLOPS_PER_PARAMETER,
        "FLOP/param",
    )
    assert Fraction(backward, forward) == 2
    assert measured == model.BACKWARD_FLOPS_PER_PARAMETER


def test_recomputation_costs_eight_over_six(record: Recorder) -> None:
    plain = sum(_flops(recompute=False))
    recomputed = sum(_flops(recompute=True))
    measured = Fraction(recomputed, plain)
    course = Fraction(model.recomputation("full"), model.recomputation("none"))
    record(
        "training-flops/recompute-ratio",
        ["training-flops", "training-time", "model.FLOPS_PER_PARAMETER"],
        SOFTWARE,
        measured,
        course,
        "1",
    )
    assert measured == course
