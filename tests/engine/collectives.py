"""Collectives counted where they are called: `torch.distributed`'s functions wrapped, bytes by op.

Every engine the tier runs calls its collectives through the functions of
`torch.distributed` (DDP's comm hooks, ZeroRedundancyOptimizer, FSDP2's
`_fsdp_collectives`, DeepSpeed's `TorchBackend`, which looks them up once when
it starts, after `install` has run). Each call is counted once, by the size of
the whole tensor the collective is over: an all-reduce by its tensor, an
all-gather by its output, a reduce-scatter by its input, a broadcast by its
tensor. Calls made inside a counted call (the deprecated names forward to the
new ones) are not counted again.

A ring moves (N − 1)/N of that size per pass on every rank; gloo does not say
what it put on the wire, so the tier counts what the engines ask for, in the
units of ZeRO §7 (an all-reduce is two passes, a reduce-scatter and an
all-gather, Ψ each), and leaves the (N − 1)/N to the course's ring model.
"""

from __future__ import annotations

import functools
import inspect
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
import torch.distributed as dist


def _numel(tensors: Any) -> tuple[int, int]:
    """Elements and bytes of a tensor or a (nested) list of tensors."""
    if isinstance(tensors, torch.Tensor):
        return tensors.numel(), tensors.numel() * tensors.element_size()
    elements = nbytes = 0
    for tensor in tensors:
        more, more_bytes = _numel(tensor)
        elements, nbytes = elements + more, nbytes + more_bytes
    return elements, nbytes


#: For each wrapped function: the op it counts as, and the argument whose size is the collective's.
SIZED_BY: dict[str, tuple[str, str]] = {
    "all_reduce": ("all-reduce", "tensor"),
    "all_reduce_coalesced": ("all-reduce", "tensors"),
    "broadcast": ("broadcast", "tensor"),
    "reduce": ("reduce", "tensor"),
    "all_gather": ("all-gather", "tensor_list"),
    "all_gather_single": ("all-gather", "output_tensor"),
    "all_gather_into_tensor": ("all-gather", "output_tensor"),
    "_all_gather_base": ("all-gather", "output_tensor"),
    "all_gather_coalesced": ("all-gather", "output_tensor_lists"),
    "reduce_scatter": ("reduce-scatter", "input_list"),
    "reduce_scatter_single": ("reduce-scatter", "input"),
    "reduce_scatter_tensor": ("reduce-scatter", "input"),
    "_reduce_scatter_base": ("reduce-scatter", "input"),
    "all_to_all_single": ("all-to-all", "input"),
    "all_to_all": ("all-to-all", "input_tensor_list"),
}

#: Below this many elements a call is bookkeeping, counted apart as "<op> (scalars)".
SCALARS = 64

#: ZeRO §7's passes per op: an all-reduce is a reduce-scatter and an all-gather.
PASSES = {"all-reduce": 2, "all-gather": 1, "reduce-scatter": 1, "broadcast": 1, "reduce": 1, "all-to-all": 1}


class Counts:
    """What was called while counting was on: calls, elements and bytes by op."""

    def __init__(self) -> None:
        self.on = False
        self.depth = 0
        self.calls: Counter[str] = Counter()
        self.elements: Counter[str] = Counter()
        self.bytes: Counter[str] = Counter()

    def clear(self) -> None:
        self.calls.clear()
        self.elements.clear()
        self.bytes.clear()

    def passes(self) -> int:
        """Elements sent per rank in ZeRO §7's units: each op's elements times its passes."""
        return sum(PASSES[op] * elements for op, elements in self.elements.items() if op in PASSES)

    def snapshot(self) -> dict[str, dict[str, int]]:
        return {"calls": dict(self.calls), "elements": dict(self.elements), "bytes": dict(self.bytes)}


COUNTS = Counts()


def _wrap(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    op, argument = SIZED_BY[name]
    signature = inspect.signature(original)

    @functools.wraps(original)
    def counted(*args: Any, **kwargs: Any) -> Any:
        if COUNTS.on and COUNTS.depth == 0:
            bound = signature.bind(*args, **kwargs)
            elements, nbytes = _numel(bound.arguments[argument])
            # A few values (a loss scale's overflow flag, a gradient norm) are not the model's traffic.
            name = op if elements >= SCALARS else f"{op} (scalars)"
            COUNTS.calls[name] += 1
            COUNTS.elements[name] += elements
            COUNTS.bytes[name] += nbytes
        COUNTS.depth += 1
        try:
            return original(*args, **kwargs)
        finally:
            COUNTS.depth -= 1

    counted.engine_counted = True  # type: ignore[attr-defined]
    return counted


def install() -> None:
    """Wrap every collective of `torch.distributed` in SIZED_BY; call it before any engine starts."""
    for name in SIZED_BY:
        original = getattr(dist, name, None)
        # torch's own decorators set __wrapped__ too: the mark is ours.
        if original is not None and not getattr(original, "engine_counted", False):
            setattr(dist, name, _wrap(name, original))


@contextmanager
def counting() -> Iterator[Counts]:
    """Count the collectives called inside the block (from zero)."""
    COUNTS.clear()
    COUNTS.on = True
    try:
        yield COUNTS
    finally:
        COUNTS.on = False
