"""Expert parallelism's all-to-alls as Megatron-Core's token dispatcher runs them, inside one gloo rank.

Each of e ranks holds T tokens of h values (bf16) and E/e of the E experts; each token goes to k distinct
experts. The routing is exactly even: copy i of token j of rank d goes to expert (d·E/e + j·k + i) mod E, so
that over the T·k copies of a rank, T·k a multiple of E, every expert receives T·k/E of them and every rank
T·k/e, its own included. As Megatron-Core's `MoEAlltoAllTokenDispatcher` does, a rank sorts its copies by
the rank of their expert, tells every rank how many it will send (an all-to-all of e counts), and sends them
with `torch.distributed.all_to_all_single` and uneven split sizes ("dispatch"); the experts compute (here a
product by 2), and the reverse all-to-all brings each copy back to its token's rank ("combine"), where the k
copies of a token are summed. Both all-to-alls are one autograd Function, as Megatron-Core's `_AllToAll`
(megatron/core/tensor_parallel/mappings.py) is: forward, an all-to-all with the given splits; backward,
the all-to-all of the gradient with the splits swapped. So `backward()` sends the combine's gradient back
to the experts and the dispatch's gradient back to the tokens: two more all-to-alls, which autograd calls.

Gloo runs `all_to_all_single` on the CPU, uneven splits and bf16 included (ProcessGroupGloo's
`alltoall_base`). Every call is counted where it is made (`dist.all_to_all_single` wrapped, after
collectives.py's wrapper), by the bytes of the rows whose destination is another rank: the input's split
sizes, less the rank's own. What arrives is checked too: each row carries its source rank in its values, and
each rank counts the rows and bytes that came from other ranks, and checks the gradient of its tokens.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import torch
import torch.distributed as dist

#: The cases a world runs, by name: (tokens per rank T, top-k, hidden h, experts E); the world is the e ranks.
CASES: dict[str, tuple[int, int, int, int]] = {
    # Mixtral 8x7B at the course's T = 4,096 per device over 8 devices (Lesson 14's figure), one expert each.
    "mixtral-8x7b/4096": (4096, 2, 4096, 8),
    # DeepSeek-V3's hidden size, top-8 and 256 routed experts (32 a rank), at 32 tokens per rank, the fewest
    # an exactly even routing of 8 copies over 256 experts takes (T·k a multiple of E).
    "deepseek-v3/32": (32, 8, 7168, 256),
    # Small worlds: two experts per rank, and k of four.
    "small-k2": (12, 2, 16, 8),
    "small-k4": (8, 4, 8, 8),
}
#: Every all-to-all this rank called, while a phase was set: (phase, bytes to other ranks, bytes in all).
CALLS: list[tuple[str, int, int]] = []
PHASE = {"name": ""}


def _count_splits(original: Any) -> Any:
    """`dist.all_to_all_single`, counting the bytes of each call's input that go to other ranks."""

    @functools.wraps(original)
    def counted(
        output: torch.Tensor,
        input: torch.Tensor,
        output_split_sizes: Any = None,
        input_split_sizes: Any = None,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        if PHASE["name"]:
            world, rank = dist.get_world_size(), dist.get_rank()
            rows = input.shape[0]
            splits = list(input_split_sizes) if input_split_sizes else [rows // world] * world
            assert sum(splits) == rows, "the splits cover the input"
            row_bytes = input[0].numel() * input.element_size() if rows else 0
            others = sum(n for destination, n in enumerate(splits) if destination != rank)
            CALLS.append((PHASE["name"], others * row_bytes, rows * row_bytes))
        return original(output, input, output_split_sizes, input_split_sizes, *args, **kwargs)

    return counted


class AllToAll(torch.autograd.Function):
    """Megatron-Core's `_AllToAll`: forward, all-to-all with these splits; backward, the same with them swapped."""

    @staticmethod
    def forward(ctx: Any, tokens: torch.Tensor, output_splits: list[int], input_splits: list[int]) -> torch.Tensor:
        ctx.output_splits, ctx.input_splits = output_splits, input_splits
        output = tokens.new_empty((sum(output_splits), *tokens.shape[1:]))
        dist.all_to_all_single(output, tokens.contiguous(), output_splits, input_splits)
        return output

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        return AllToAll.apply(grad, ctx.input_splits, ctx.output_splits), None, None


def even_routing(rank: int, world: int, tokens: int, top_k: int, experts: int) -> torch.Tensor:
    """[T, k] experts of each token: copy i of token j goes to expert (rank·E/e + j·k + i) mod E."""
    assert experts % world == 0 and top_k <= experts and tokens * top_k % experts == 0
    offset = rank * (experts // world)
    j = torch.arange(tokens).unsqueeze(1)
    i = torch.arange(top_k).unsqueeze(0)
    return (offset + j * top_k + i) % experts


def measure(tokens: int, top_k: int, hidden: int, experts: int) -> dict[str, Any]:
    """One forward and backward pass of dispatch, experts and combine: what each all-to-all sent and received."""
    world, rank = dist.get_world_size(), dist.get_rank()
    per_rank = experts // world
    routing = even_routing(rank, world, tokens, top_k, experts)
    destination = (routing // per_rank).reshape(-1)  # the rank of each copy's expert, copy (j, i) at j·k + i
    order = torch.argsort(destination, stable=True)
    input_splits = torch.bincount(destination, minlength=world)
    output_splits = torch.empty_like(input_splits)
    PHASE["name"] = "counts"
    dist.all_to_all_single(output_splits, input_splits)
    sends, receives = input_splits.tolist(), output_splits.tolist()
    # Each row of a rank's tokens is its rank + 1 (exact in bf16), so that a receiver knows where a row came from.
    x = torch.full((tokens, hidden), float(rank + 1), dtype=torch.bfloat16, requires_grad=True)
    copies = x.repeat_interleave(top_k, dim=0)[order]
    PHASE["name"] = "dispatch"
    dispatched = AllToAll.apply(copies, receives, sends)
    sources = dispatched[:, 0].float() - 1
    received = {s: int((sources == s).sum()) * hidden * dispatched.element_size() for s in range(world) if s != rank}
    assert bool((dispatched == dispatched[:, :1]).all()), "every row arrived whole"
    expert_output = dispatched * 2
    PHASE["name"] = "combine"
    returned = AllToAll.apply(expert_output, sends, receives)
    combined = torch.empty_like(returned).index_copy(0, order, returned).reshape(tokens, top_k, hidden).sum(1)
    assert bool((combined == 2 * top_k * (rank + 1)).all()), "each token's k copies came back to it"
    # A weight per token, so that a gradient routed to the wrong token would show.
    weights = (torch.arange(tokens, dtype=torch.float32) % 7 + 1).unsqueeze(1)
    loss = (combined.float() * weights).sum()
    PHASE["name"] = "backward"
    loss.backward()
    PHASE["name"] = ""
    assert x.grad is not None and bool((x.grad.float() == 2 * top_k * weights).all()), "the gradients came back"
    calls = list(CALLS)
    CALLS.clear()
    return {"calls": calls, "received": received, "sends": sends}


def rank_main(rank: int, world: int, store: str, names: list[str]) -> dict[str, Any]:
    """Join the world over gloo and run each case named, on this rank."""
    os.environ.update({"RANK": str(rank), "WORLD_SIZE": str(world)})
    torch.set_num_threads(1)
    dist.all_to_all_single = _count_splits(dist.all_to_all_single)
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world)
    try:
        return {name: measure(*CASES[name]) for name in names}
    finally:
        dist.destroy_process_group()
