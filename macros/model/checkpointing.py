"""Activation checkpointing: what Chen et al.'s √n scheme keeps, and what it costs in compute.

Chen et al., "Training Deep Nets with Sublinear Memory Cost" (2016,
https://arxiv.org/abs/1604.06174), §4.3, eq. (1): cut an n-layer network into k
segments; keep only the k segment boundaries through the forward pass, and
during the backward pass recompute one segment at a time, so memory is
O(n/k) + O(k); "Setting k = √n, we get the cost of O(2√n)", for "an additional
forward pass during training". The counts here are in layers' worth of
activations, with every layer alike and a boundary counted as a whole layer's
activations, which overstates what a boundary costs; the course's own
arithmetic on the paper's equation. A segment holds whole layers, so with k
segments the largest holds ⌈n/k⌉ of them: for GPT-2's 48 layers and k = 7 that is
7 + 7 = 14 layers' worth, where the continuous n/k + k would give 13.86.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .checks import check_count as _check_count
from .compute import BACKWARD_FLOPS_PER_PARAMETER, FORWARD_FLOPS_PER_PARAMETER


def sqrt_segments(layers: int) -> int:
    """Chen's k = √n segments for n layers, rounded to the nearest whole number of segments (at least one)."""
    _check_count("layers", layers)
    root = math.isqrt(layers)
    # Nearest integer to √n: n lies below (root + 1/2)² = root² + root + 1/4 exactly when n ≤ root² + root.
    return max(1, root if layers <= root * root + root else root + 1)


def largest_segment(layers: int, segments: int) -> int:
    """Layers in the largest of `segments` segments of whole layers: ⌈n/k⌉."""
    _check_count("layers", layers)
    _check_count("segments", segments)
    if segments > layers:
        raise ValueError(f"at most one segment per layer: {segments} segments for {layers} layers")
    return -(-layers // segments)


def layers_kept(layers: int, segments: int) -> int:
    """Layers' worth of activations held at the peak with `segments` segments of whole layers: ⌈n/k⌉ + k.

    Eq. (1)'s O(n/k) + O(k), with the largest segment's ⌈n/k⌉ layers rebuilt
    during the backward pass beside the k stored boundaries.
    """
    return largest_segment(layers, segments) + segments


def checkpointed_share(layers: int) -> Fraction:
    """What the √n scheme keeps, as a share of keeping every layer's activations: (⌈n/k⌉ + k)/n at k ≈ √n.

    The nearest whole √n is always among the best splits into whole layers
    (tests/unit/test_checkpointing.py checks every n up to 2,000).
    """
    return Fraction(layers_kept(layers, sqrt_segments(layers)), layers)


def recompute_overhead() -> Fraction:
    """The extra compute of one more forward pass, as a share of a training step: 2N on 2N + 4N."""
    return Fraction(FORWARD_FLOPS_PER_PARAMETER, FORWARD_FLOPS_PER_PARAMETER + BACKWARD_FLOPS_PER_PARAMETER)
