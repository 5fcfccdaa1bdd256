"""Expert parallelism's all-to-alls over gloo, against `model.experts.alltoall_bytes`: T × k × h × bytes × (e − 1)/e.

A world of e ranks runs each case of `expert_parallel.CASES` (Megatron-Core's dispatcher and its `_AllToAll`,
with a routing exactly as even as the course's formula assumes): Mixtral 8x7B at Lesson 14's T = 4,096
tokens per device over 8 devices, bf16, at the figure's own shape, and small shapes at 2, 4 and 8 ranks.
Each rank's bytes to other ranks in each all-to-all, as counted where `all_to_all_single` is called, are
compared with the course's count, and so are the bytes the other ranks found they received from it.

DeepSeek-V3's figure (T = 4,096 over its 64-way expert parallelism) is not run at its case: a rank's k = 8
copies of 4,096 tokens of 7,168 bf16 values are 448 MiB a tensor (the copies, what arrives, the experts'
output, what returns, and their gradients), and a rank's pass peaks at 3.3 GiB (measured on one rank, 0.5 GiB
of it the interpreter with PyTorch): 64 ranks are some 210 GiB against this machine's 23 GiB, and even 8 would
not fit. Its case runs DeepSeek-V3's own hidden size, top-8 and 256 routed experts (checked against the
catalog's entry, whose h and k the figure reads) at 32 tokens a rank over 8 ranks, 3.5 MiB a tensor: it
vouches that what Megatron-Core's dispatcher sends is T·k·h·bytes·(e − 1)/e at DeepSeek-V3's h and k, which
the figure multiplies out at T = 4,096 and e = 64. The (e − 1)/e share is measured up to e = 8, not at 63/64,
and node-limited routing, which sends less over the network, is not run.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from macros import model
from macros.model import experts
from tests.conftest import catalog

from .conftest import FIGURES, Recorder, course_figure
from .expert_parallel import CASES
from .worlds import run_world

TORCH = ("torch",)
BYTES = model.BYTES_PER_VALUE["bf16"]
ENTRY = "mixtral-8x7b"
#: The figures of Lesson 14 the Mixtral case vouches for: one all-to-all, and a layer's four.
FIGURE = "alltoall-bytes/mixtral-8x7b/4096/8"
#: DeepSeek-V3's entry, and Lesson 14's figure of its all-to-all, at a case the tier does not run (64 ranks).
DEEPSEEK = "deepseek-v3"
DEEPSEEK_FIGURE = "alltoall-bytes/deepseek-v3/4096/64"
#: Which cases each world runs.
WORLDS: dict[int, list[str]] = {
    2: ["small-k2"],
    4: ["small-k2", "small-k4"],
    8: ["mixtral-8x7b/4096", "small-k4", "deepseek-v3/32"],
}
RUNS = [(size, name) for size, names in WORLDS.items() for name in names]


@cache
def world(size: int) -> list[dict[str, Any]]:
    return run_world(size, WORLDS[size], main="expert_parallel:rank_main")


def course_bytes(name: str, size: int) -> int:
    """The course's bytes per all-to-all for the case: the figure's, for Mixtral's, after checking it is its case;
    for DeepSeek-V3's, after checking that it has the model's shape, whose hidden size and k its figure reads."""
    tokens, top_k, hidden, count = CASES[name]
    value = experts.alltoall_bytes(tokens, top_k, hidden, BYTES, size)
    entry = name.split("/")[0]
    if entry in (ENTRY, DEEPSEEK):
        shape = catalog().model(entry)
        assert (top_k, hidden, count) == (shape.experts_per_token, shape.hidden, shape.experts)
    if entry == ENTRY:
        assert f"alltoall-bytes/{name}/{size}" == FIGURE
        assert course_figure(FIGURE).value == value
    if entry == DEEPSEEK:
        inputs = course_figure(DEEPSEEK_FIGURE).computed.inputs
        assert [(quantity.field, quantity.value) for quantity in inputs] == [
            ("hidden", hidden),
            ("experts_per_token", top_k),
        ]
    assert value.denominator == 1
    return int(value)


def phases(size: int, name: str, rank: int) -> dict[str, list[int]]:
    """Bytes to other ranks of each all-to-all rank `rank` called, by phase."""
    by_phase: dict[str, list[int]] = {}
    for phase, others, _ in world(size)[rank][name]["calls"]:
        by_phase.setdefault(phase, []).append(others)
    return by_phase


@pytest.mark.parametrize(("size", "name"), RUNS)
def test_alltoalls_per_layer(record: Recorder, size: int, name: str) -> None:
    """A layer calls Megatron-Core's dispatch and combine going forward and their gradients' two going backward."""
    by_phase = phases(size, name, 0)
    forward = len(by_phase["dispatch"]) + len(by_phase["combine"])
    backward = len(by_phase["backward"])
    for direction, measured in (("forward", forward), ("backward", backward)):
        course = experts.alltoalls_per_layer(direction)
        if name.startswith(ENTRY):
            record(
                f"alltoalls-per-layer/{direction}/world-{size}",
                ["alltoall-bytes", "model.experts.alltoalls_per_layer"],
                TORCH,
                measured,
                course,
                "1",
            )
        assert measured == course
    # Before the dispatch, each rank tells every other how many rows it sends: e counts, not the model's traffic.
    assert len(by_phase["counts"]) == 1


@pytest.mark.parametrize(("size", "name"), RUNS)
def test_alltoall_bytes(record: Recorder, size: int, name: str) -> None:
    """Each rank sends tokens × k × h × 2 × (e − 1)/e bytes to other ranks in each of a layer's four all-to-alls."""
    course = course_bytes(name, size)
    for rank in range(size):
        by_phase = phases(size, name, rank)
        assert by_phase["dispatch"] == by_phase["combine"] == [course]
        assert by_phase["backward"] == [course, course]
        # What the other ranks found they received from this one, by the source each row carries.
        arrived = sum(world(size)[other][name]["received"][rank] for other in range(size) if other != rank)
        assert arrived == course
    if not name.startswith(ENTRY):
        return
    by_phase = phases(size, name, 0)
    for phase in ("dispatch", "combine"):
        key = f"alltoall-bytes/{name}/{size}/{phase}"
        record(key, ["alltoall-bytes", "model.experts.alltoall_bytes"], TORCH, by_phase[phase][0], course, "B")
        assert FIGURES.get(key) == FIGURE
    layer = sum(by_phase["dispatch"] + by_phase["combine"] + by_phase["backward"])
    per_layer = course * experts.alltoalls_per_layer("both")
    assert course_figure(f"{FIGURE}/layer").value == per_layer
    key = f"alltoall-bytes/{name}/{size}/layer"
    record(
        key,
        ["alltoall-bytes", "model.experts.alltoall_bytes", "model.experts.alltoalls_per_layer"],
        TORCH,
        layer,
        per_layer,
        "B",
    )
    assert FIGURES.get(key) == f"{FIGURE}/layer"
    assert layer == per_layer
