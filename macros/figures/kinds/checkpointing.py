"""Activation checkpointing (Chen et al. 2016): what the √n scheme keeps of a model's layers, and its compute."""

from __future__ import annotations

from ... import model
from ...data.catalog import Catalog
from ..figure import Computed, shown
from .registry import figure_kind


@figure_kind("sqrt-segments")
def sqrt_segments(catalog: Catalog, entry: str) -> Computed:
    """Chen's k = √n segments for the entry's n layers, to the nearest whole segment."""
    layers = catalog.quantity(entry, "layers")
    value = model.sqrt_segments(layers.count)
    return Computed(value, "1", "k = √n, rounded", f"√{shown(layers)} layers, rounded to whole segments", (layers,))


@figure_kind("largest-segment")
def largest_segment(catalog: Catalog, entry: str) -> Computed:
    """Layers in the largest of the √n scheme's segments of whole layers: ⌈n/k⌉."""
    layers = catalog.quantity(entry, "layers")
    segments = model.sqrt_segments(layers.count)
    return Computed(
        model.largest_segment(layers.count, segments),
        "1",
        "⌈n/k⌉, k ≈ √n",
        f"{shown(layers)} layers in {segments} segments of whole layers, rounded up",
        (layers,),
    )


@figure_kind("checkpointed-share")
def checkpointed_share(catalog: Catalog, entry: str) -> Computed:
    """The share of every layer's activations that the √n scheme holds at its peak: (⌈n/k⌉ + k) ÷ n."""
    layers = catalog.quantity(entry, "layers")
    segments = model.sqrt_segments(layers.count)
    largest = model.largest_segment(layers.count, segments)
    return Computed(
        model.checkpointed_share(layers.count),
        "1",
        "(⌈n/k⌉ + k) ÷ n, k ≈ √n, segments of whole layers",
        f"({largest} layers of the largest of {segments} segments + {segments} stored boundaries) layers' worth"
        f" ÷ {shown(layers)} layers (Chen et al. eq. 1)",
        (layers,),
        {"percent": True},
    )


@figure_kind("recompute-overhead")
def recompute_overhead(catalog: Catalog) -> Computed:
    """The compute one more forward pass adds to a training step: 2N FLOPs on 2N + 4N."""
    forward, backward = model.FORWARD_FLOPS_PER_PARAMETER, model.BACKWARD_FLOPS_PER_PARAMETER
    return Computed(
        model.recompute_overhead(),
        "1",
        "forward ÷ (forward + backward)",
        f"{forward}N FLOPs of one more forward pass ÷ ({forward}N + {backward}N) per token (Kaplan et al. §2.1)",
        (),
        {"percent": True},
    )
