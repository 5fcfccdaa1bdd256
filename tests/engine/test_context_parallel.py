"""Ring attention's key/value bytes over gloo, against `model.context.ring_bytes_per_layer`: (c − 1) × 2(s/c)b·h_kv × 2.

A world of c ranks runs each case of `context_parallel.CASES`: the ring's forward pass of one layer, blocks
of keys and values passed with isend/irecv. Llama 3 405B's long-context run (Lesson 13's figures: 131,072
tokens over 16 ranks, 8 key-value heads of 128 values, one sequence, bf16) at the figure's own shape, and
small shapes at 2, 4 and 16 ranks, with and without grouped-query attention, whose blockwise attention is
checked against attention over the whole sequence. Each rank's sends, counted where `isend` is called, are
compared with the course's block and its forward count, and the blocks each step held with its
`ring_schedule`. With tensor parallelism beside the ring (t = 2 over 4 and 8 ranks, t = 4 over 8: c of 2 and
4), each rank rings its t-th of the key-value heads over its context group, c ranks t apart in Megatron-Core's
order, and sends what `planner.step_time` counts for it: `ring_bytes_per_layer` with a t-th of the heads.

PyTorch's own ring (torch_ring.py: `_templated_ring_attention` and its backward, at 2 and 4 ranks) is
measured too, forward and backward: forward it sends the course's c − 1 blocks; backward it sends the blocks
c − 1 times and their gradients c times in fp32, (c − 1) + 2c blocks' bytes where the course counts 2(c − 1).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from macros.model import context
from tests.conftest import catalog

from .conftest import FIGURES, Recorder, course_figure
from .context_parallel import CASES
from .torch_ring import CASES as TORCH_CASES
from .torch_ring import TOLERANCE as TORCH_TOLERANCE
from .worlds import run_world

TORCH = ("torch",)
WORKLOAD = "llama3-405b-long-context"
FIGURE = f"ring-kv-bytes/{WORKLOAD}"
#: Which cases each world runs.
WORLDS: dict[int, list[str]] = {
    2: ["small-gqa", "small-mha"],
    4: ["small-gqa", "small-mha", "small-gqa-tp2"],
    8: ["small-gqa-tp2", "small-gqa-tp4"],
    16: [WORKLOAD, "small-gqa"],
}
RUNS = [(size, name) for size, names in WORLDS.items() for name in names]
#: fp32 attention of the same bf16 values, blockwise against whole: they differ by rounding only.
TOLERANCE = 1e-4


@cache
def world(size: int) -> list[dict[str, Any]]:
    return run_world(size, WORLDS[size], main="context_parallel:rank_main")


def course_bytes(name: str, size: int, ring_pass: str) -> int:
    """The course's bytes per layer of the case (`ring_pass` forward, or one block) on each rank, a t-th of the
    heads over c = size/t, as `planner.step_time` counts a GPU of a tensor-parallel group; the figure's for
    Llama 3's, after checking that the case is the figure's (the workload's sequence and degree, a GPU's share
    of the model's heads under its tensor parallelism)."""
    s, b, heads, kv_heads, d, t, _ = CASES[name]
    value = context.ring_bytes_per_layer(s, b, heads * d // t, heads // t, kv_heads // t, size // t, ring_pass)
    if name == WORKLOAD:
        shape = catalog().workload(WORKLOAD).model
        assert shape.hidden and shape.heads
        assert (s, size) == (
            catalog().quantity(WORKLOAD, "sequence").count,
            catalog().quantity(WORKLOAD, "context").count,
        )
        # One GPU of the run's tensor-parallel group: Megatron-Core splits the query and key-value heads t ways.
        tensor = catalog().quantity(WORKLOAD, "tensor").count
        assert shape.kv_heads is not None and t == 1
        assert (b, heads, kv_heads, d) == (
            1,
            shape.heads // tensor,
            shape.kv_heads // tensor,
            shape.hidden // shape.heads,
        )
        figure = course_figure(FIGURE if ring_pass == "forward" else f"{FIGURE}/{ring_pass}")
        assert figure.value == value
    return value


@pytest.mark.parametrize(("size", "name"), RUNS)
def test_ring_blocks(size: int, name: str) -> None:
    """Each step holds the block `ring_schedule` says, every rank meets every block of its context group, and
    blockwise attention, its tensor group's heads gathered, is attention over the whole sequence and every head:
    the ring's c − 1 transfers of a t-th of the heads are all its queries need."""
    t = CASES[name][5]
    c = size // t
    schedule = context.ring_schedule(c)
    for rank, measured in enumerate(world(size)):
        held = measured[name]["held"]
        assert held == [schedule[step][rank // t] for step in range(c)]
        assert sorted(held) == list(range(c))
        assert measured[name]["error"] < TOLERANCE


@pytest.mark.parametrize(("size", "name"), RUNS)
def test_ring_kv_bytes(record: Recorder, size: int, name: str) -> None:
    """Each rank sends c − 1 blocks of 2(s/c)·b·(h_kv/t) values of 2 bytes per layer forward, all to the next
    rank of its context group: t ranks on, in Megatron-Core's order."""
    t = CASES[name][5]
    block = course_bytes(name, size, "block")
    forward = course_bytes(name, size, "forward")
    for rank, measured in enumerate(world(size)):
        sent = measured[name]["sent"]
        assert {peer for peer, _ in sent} == {(rank + t) % size}
        assert [nbytes for _, nbytes in sent] == [block] * (forward // block)
        assert sum(nbytes for _, nbytes in sent) == forward
    if name != WORKLOAD:
        return
    sent = world(size)[0][name]["sent"]
    for ring_pass, measured, course in (("block", sent[0][1], block), ("forward", sum(n for _, n in sent), forward)):
        key = f"ring-kv-bytes/{WORKLOAD}/{ring_pass}"
        record(key, ["ring-kv-bytes", "model.context.ring_bytes_per_layer"], TORCH, measured, course, "B")
        assert FIGURES.get(key) == (FIGURE if ring_pass == "forward" else f"{FIGURE}/{ring_pass}")
        assert measured == course


#: PyTorch's own ring (torch_ring.py), at 2 and 4 ranks.
TORCH_WORLDS = (2, 4)


@cache
def torch_world(size: int) -> list[dict[str, Any]]:
    return run_world(size, list(TORCH_CASES), main="torch_ring:rank_main")


def others(size: int, rank: int, calls: list[tuple[int, str, list[int]]]) -> list[tuple[int, str]]:
    """Each all-to-all's bytes to other ranks (its input, less the split it keeps) and its dtype."""
    return [(nbytes * (sum(splits) - splits[rank]) // sum(splits), dtype) for nbytes, dtype, splits in calls]


@pytest.mark.parametrize("size", TORCH_WORLDS)
def test_torch_ring_attention(record: Recorder, size: int) -> None:
    """PyTorch's ring sends c − 1 blocks forward, the course's count; backward, c − 1 blocks and c fp32 gradients."""
    s, b, heads, d = TORCH_CASES["small"]
    block = context.ring_bytes_per_layer(s, b, heads * d, heads, heads, size, "block")
    forward_course = context.ring_bytes_per_layer(s, b, heads * d, heads, heads, size, "forward")
    backward_course = context.ring_bytes_per_layer(s, b, heads * d, heads, heads, size, "backward")
    for rank, measured in enumerate(torch_world(size)):
        case = measured["small"]
        assert case["error"] < TORCH_TOLERANCE and case["dq_error"] < TORCH_TOLERANCE
        assert others(size, rank, case["forward"]) == [(block, "torch.bfloat16")] * (size - 1)
        # The blocks again, in bf16, and the gradients of keys and values, accumulated in fp32, one hop more.
        sent_backward = others(size, rank, case["backward"])
        assert sorted(sent_backward) == sorted(
            [(block, "torch.bfloat16")] * (size - 1) + [(2 * block, "torch.float32")] * size
        )
    case = torch_world(size)[0]["small"]
    forward = sum(n for n, _ in others(size, 0, case["forward"]))
    record(
        f"ring-kv-bytes/torch-ring/forward/world-{size}",
        ["ring-kv-bytes", "model.context.ring_bytes_per_layer"],
        TORCH,
        forward,
        forward_course,
        "B",
    )
    assert forward == forward_course
    backward = sum(n for n, _ in others(size, 0, case["backward"]))
    record(
        f"ring-kv-bytes/torch-ring/backward/world-{size}",
        ["ring-kv-bytes", "model.context.ring_bytes_per_layer"],
        TORCH,
        backward,
        backward_course,
        "B",
        differs="PyTorch's ring backward (_templated_ring_attention_backward) sends the keys and values c − 1 times"
        " and their gradients c times, the last hop bringing each block's gradients to its owner, in fp32"
        " (convert_to_f32): (c − 1) + 2c blocks, where the course counts 2(c − 1)",
    )
    assert backward == (size - 1) * block + size * 2 * block
