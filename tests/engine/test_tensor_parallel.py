"""Megatron-LM's tensor parallelism under PyTorch's DTensor: collectives per layer and bytes per s·b·h, 2, 4, 8 ranks.

Each world of t ranks runs one forward and one backward pass of
`tensor_parallel.MegatronLayer`, split t ways (`tensor_parallel`), once without
and once with sequence parallelism, and counts the collectives of each pass with
`CommDebugMode`. The counts compare with `macros.model.tensor`'s (Megatron-LM's
two all-reduces in the forward pass and two in the backward; Korthikanti et
al.'s all-gathers and reduce-scatters, as Megatron-Core runs them), and the
bytes, each collective of b·s·h values sending what a ring sends of it, with
`tensor_bytes_per_layer` and `sequence_parallel_bytes_per_layer` per b·s·h, the
ratio that scales them to any shape. Gloo on one host: what NCCL puts on NVLink,
and whether a collective overlaps a GEMM, are not measured here.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import pytest

from macros import model

from .conftest import FIGURES, Recorder, course_figure
from .tensor_parallel import LAYOUTS, SHAPE
from .worlds import run_world

WORLDS = (2, 4, 8)
TORCH = ("torch",)
DIRECTIONS = ("forward", "backward")
SEQUENCE, BATCH, HIDDEN, HEADS = SHAPE
SBH = SEQUENCE * BATCH * HIDDEN
BYTES = model.BYTES_PER_VALUE["bf16"]


@cache
def world(size: int) -> list[dict[str, Any]]:
    """What every rank of a world of `size` measured, by layout and pass."""
    return run_world(size, list(LAYOUTS), main="tensor_parallel:rank_main")


def collectives(size: int, layout: str, direction: str) -> list[tuple[str, int, int]]:
    """Rank 0's collectives in one pass, after checking that every rank called the same ones."""
    ranks = [[tuple(c) for c in rank[layout][direction]] for rank in world(size)]
    assert all(r == ranks[0] for r in ranks), f"the ranks of {size} called different collectives"
    return ranks[0]


def ring_bytes(op: str, nbytes: int, size: int) -> Fraction:
    """What each of `size` ranks sends in a ring collective over `nbytes`: 2(t − 1)/t of them for an all-reduce, and
    (t − 1)/t for an all-gather or a reduce-scatter, half of one (ZeRO §7's passes, collectives.PASSES)."""
    from .collectives import PASSES

    return Fraction(PASSES[op], 2) * model.ring_allreduce_bytes_sent(nbytes, size)


def check_figure_case(key: str, course: Fraction, size: int) -> None:
    """A record that names a tensor-parallel byte figure is of its case: the same degree, and per b·s·h the figure is
    the course's value."""
    if key not in FIGURES:
        return
    figure = course_figure(FIGURES[key])
    inputs = {quantity.field: quantity.count for quantity in figure.computed.inputs}
    assert inputs["tensor"] == size, f"{key} ran {size} ranks for a figure of {inputs['tensor']}"
    b = inputs.get("microbatch", inputs.get("batch", 0))
    assert Fraction(figure.value) / (b * inputs["sequence"] * inputs["hidden"]) == course


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_allreduces_per_layer(record: Recorder, size: int, direction: str) -> None:
    """Megatron-LM's two all-reduces in each pass, each of the b·s·h activation, and no other collective."""
    called = collectives(size, "tensor", direction)
    course = model.tensor.tensor_allreduces(direction)
    record(
        f"tensor-allreduces/{direction}/world-{size}",
        ["tensor-allreduces", "model.tensor.tensor_allreduces"],
        TORCH,
        len(called),
        course,
        "1",
    )
    assert called == [("all-reduce", SBH, SBH * BYTES)] * course


@pytest.mark.parametrize("size", WORLDS)
def test_bytes_per_layer(record: Recorder, size: int) -> None:
    """Each rank sends 8bsh(t − 1)/t values per layer, forward and backward: Narayanan et al.'s count."""
    called = [c for direction in DIRECTIONS for c in collectives(size, "tensor", direction)]
    measured = sum((ring_bytes(op, nbytes, size) for op, _, nbytes in called), Fraction(0)) / SBH
    course = model.tensor.tensor_bytes_per_layer(BATCH, SEQUENCE, HIDDEN, size, BYTES) / SBH
    key = f"tensor-bytes/world-{size}"
    record(key, ["tensor-bytes", "model.tensor.tensor_bytes_per_layer"], TORCH, measured, course, "B/sbh")
    check_figure_case(key, course, size)
    assert measured == course


#: What DTensor's sequence parallelism leaves out of Megatron-Core's backward pass.
NO_EXTRA_GATHER = (
    "DTensor keeps each column-parallel matrix's gathered input from the forward pass for its weight gradient,"
    " so its backward pass sends no extra all-gather of the block's input, which Megatron-Core sends instead of"
    " keeping it (Korthikanti et al. §4.2.2)"
)


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_sequence_parallel_collectives(record: Recorder, size: int, direction: str) -> None:
    """With sequence parallelism, each all-reduce is an all-gather and a reduce-scatter of b·s·h; no extra gather."""
    called = collectives(size, "tensor-sequence", direction)
    course = model.tensor.SEQUENCE_PARALLEL_COLLECTIVES[direction]
    # One pair per all-reduce of the layout without sequence parallelism, in the order the layer runs them.
    pairs = model.tensor.tensor_allreduces(direction)
    record(
        f"sequence-parallel-collectives/{direction}/world-{size}",
        ["sequence-parallel-bytes", "model.tensor.SEQUENCE_PARALLEL_COLLECTIVES"],
        TORCH,
        len(called),
        course,
        "1",
        differs=NO_EXTRA_GATHER if len(called) != course else "",
    )
    assert sorted(called) == sorted([("all-gather", SBH, SBH * BYTES), ("reduce-scatter", SBH, SBH * BYTES)] * pairs)
    # Megatron-Core's extra all-gathers are its backward pass's: going forward the two agree.
    assert direction == "backward" or len(called) == course


@pytest.mark.parametrize("size", WORLDS)
def test_sequence_parallel_bytes_per_layer(record: Recorder, size: int) -> None:
    """DTensor's sequence parallelism sends what the all-reduces did, 8bsh(t − 1)/t: Megatron-Core's 10 less its
    backward pass's two extra all-gathers."""
    called = [c for direction in DIRECTIONS for c in collectives(size, "tensor-sequence", direction)]
    measured = sum((ring_bytes(op, nbytes, size) for op, _, nbytes in called), Fraction(0)) / SBH
    course = model.tensor.sequence_parallel_bytes_per_layer(BATCH, SEQUENCE, HIDDEN, size, BYTES) / SBH
    record(
        f"sequence-parallel-bytes/world-{size}",
        ["sequence-parallel-bytes", "model.tensor.sequence_parallel_bytes_per_layer"],
        TORCH,
        measured,
        course,
        "B/sbh",
        differs=NO_EXTRA_GATHER,
    )
    assert measured == model.tensor.tensor_bytes_per_layer(BATCH, SEQUENCE, HIDDEN, size, BYTES) / SBH
