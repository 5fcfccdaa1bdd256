"""Ring attention's forward pass over gloo, inside one rank: key/value blocks passed round a ring of c ranks.

The sequence of s tokens is split c ways, contiguously: rank i holds queries, keys and values of tokens
i·s/c to (i + 1)·s/c, in bf16, [b, heads, s/c, d] for the queries and [b, kv_heads, s/c, d] for the keys and
the values (grouped-query attention). As Liu et al.'s ring attention (and zhuzilin's ring-flash-attention,
the loop Megatron-Core's and PyTorch's rings follow) does, each rank keeps its queries and, at each step,
sends the block of keys and values it holds to the next rank with `torch.distributed.isend` and receives
the next block from the previous one with `irecv`, while it computes attention against the block it holds;
after the last step it sends nothing, since every block has been seen. The block is one tensor, the keys
and the values stacked, as the ring sends them together.

Each `isend` is counted where it is called (wrapped in the rank, with its peer and bytes), and each step
records which rank's block the rank holds, read from the block itself (its values carry its owner). Where a
case computes attention (the small ones), the blockwise result, combined by the running maximum and sum of
the softmax, is compared with attention over the whole sequence: the ring's c − 1 transfers are all a query
needs. The figure's case (Llama 3 405B's long-context run, 131,072 tokens over 16 ranks, 8 of 128 heads'
keys and values) sends blocks of its own size and skips the attention, whose s × s work is beyond this CPU.

With tensor parallelism of degree t, a world of t × c ranks is laid out in Megatron-Core's order, the tensor
rank fastest (`initialize_model_parallel`'s default, order="tp-cp-ep-dp-pp"): rank r is tensor rank r mod t
at position r // t of its ring, its context group the c ranks r mod t, r mod t + t, …, and its tensor group
the t ranks beside it, each a `dist.new_group`, as Megatron-Core makes them. Each rank holds its tensor
rank's t-th of the query heads and of the key-value heads, the contiguous share Megatron-Core's `Attention`
gives a partition of its QKV ColumnParallelLinear (`num_query_groups_per_partition =
divide(num_query_groups, world_size)`), and rings its own key-value heads over its context group alone.
The outputs of a tensor group, gathered by head, are compared with attention over the whole sequence and
every head: the split is the real one, a t-th of the heads' keys and values all a rank's queries need.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

#: The cases a world runs, by name: (sequence s, batch b, heads, kv_heads, head_dim d, tensor t, compute attention);
#: the heads are the layer's, split t ways, and the world is t × c ranks.
Case = tuple[int, int, int, int, int, int, bool]
CASES: dict[str, Case] = {
    # Llama 3 405B's long-context stage (Lesson 13): one sequence of 131,072 tokens on one GPU of its 8-way
    # tensor-parallel group, which holds 128/8 of the heads of 128 and 8/8 of the key-value heads.
    "llama3-405b-long-context": (131072, 1, 16, 1, 128, 1, False),
    "small-gqa": (48, 2, 8, 2, 8, 1, True),
    "small-mha": (32, 1, 4, 4, 16, 1, True),
    # Tensor parallelism beside the ring: 8 query heads and 4 key-value heads split 2 and 4 ways.
    "small-gqa-tp2": (32, 2, 8, 4, 8, 2, True),
    "small-gqa-tp4": (32, 2, 8, 4, 8, 4, True),
}
#: Every isend this rank called: (peer, bytes).
SENT: list[tuple[int, int]] = []


def _count_sends(original: Any) -> Any:
    @functools.wraps(original)
    def counted(tensor: torch.Tensor, dst: int, *args: Any, **kwargs: Any) -> Any:
        SENT.append((dst, tensor.numel() * tensor.element_size()))
        return original(tensor, dst, *args, **kwargs)

    return counted


def whole_sequence(case: Case) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The same queries, keys and values of the whole sequence on every rank (seeded), in bf16."""
    s, b, heads, kv_heads, d, _, _ = case
    generator = torch.Generator().manual_seed(13)
    q, k, v = (torch.randn(b, n, s, d, generator=generator).bfloat16() for n in (heads, kv_heads, kv_heads))
    return q, k, v


def _attend(q: torch.Tensor, kv: tuple[torch.Tensor, torch.Tensor], state: dict[str, torch.Tensor]) -> None:
    """Fold one block of keys and values into the running output, maximum and sum of the softmax (fp32)."""
    k, v = (t.float().repeat_interleave(q.shape[1] // t.shape[1], dim=1) for t in kv)
    scores = q.float() @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    block_max = scores.amax(-1, keepdim=True)
    new_max = torch.maximum(state["max"], block_max)
    scale = torch.exp(state["max"] - new_max)
    weights = torch.exp(scores - new_max)
    state["out"] = state["out"] * scale + weights @ v
    state["sum"] = state["sum"] * scale + weights.sum(-1, keepdim=True)
    state["max"] = new_max


def ring_forward(
    q: torch.Tensor,
    kv: torch.Tensor,
    owner: Callable[[torch.Tensor], int],
    attend: bool,
    ring: list[int],
    group: dist.ProcessGroup,
) -> tuple[torch.Tensor | None, list[int]]:
    """One layer's ring over `ring`, the ranks of `group` in order: c steps, a block sent at each but the last.
    The output, and whose block each step held."""
    c = len(ring)
    position = ring.index(dist.get_rank())
    following, preceding = ring[(position + 1) % c], ring[(position - 1) % c]
    held: list[int] = []
    state = {
        "out": torch.zeros(q.shape, dtype=torch.float32),
        "sum": torch.zeros((*q.shape[:-1], 1)),
        "max": torch.full((*q.shape[:-1], 1), float("-inf")),
    }
    for step in range(c):
        requests = []
        if step + 1 < c:
            incoming = torch.empty_like(kv)
            requests = [dist.isend(kv, following, group), dist.irecv(incoming, preceding, group)]
        held.append(owner(kv))
        if attend:
            _attend(q, (kv[0], kv[1]), state)
        for request in requests:
            request.wait()
        if requests:
            kv = incoming
    return (state["out"] / state["sum"] if attend else None), held


def layout(tensor: int) -> tuple[list[int], dist.ProcessGroup, dist.ProcessGroup]:
    """This rank's context group (its ring, in order, and the group) and its tensor group, in Megatron-Core's
    order: the tensor rank fastest. Every rank makes every group, in the same order, as `new_group` requires."""
    rank, world = dist.get_rank(), dist.get_world_size()
    c = world // tensor
    rings = [[j + tensor * i for i in range(c)] for j in range(tensor)]
    contexts = [dist.new_group(ring) for ring in rings]
    tensors = [dist.new_group(list(range(i * tensor, (i + 1) * tensor))) for i in range(c)]
    return rings[rank % tensor], contexts[rank % tensor], tensors[rank // tensor]


def measure(case: Case) -> dict[str, Any]:
    """One layer's ring forward pass on this rank: what it sent, to whom, whose blocks it held, and its error."""
    rank = dist.get_rank()
    s, b, heads, kv_heads, d, t, attend = case
    ring, context_group, tensor_group = layout(t)
    c, position, tensor_rank = len(ring), rank // t, rank % t
    local = s // c
    error = 0.0
    SENT.clear()
    if attend:
        q, k, v = whole_sequence(case)
        # This rank's heads: its tensor rank's t-th of the query heads and of the key-value heads, each query
        # head beside the key-value head it shares (grouped-query attention's groups stay whole).
        mine_q = slice(tensor_rank * heads // t, (tensor_rank + 1) * heads // t)
        mine_kv = slice(tensor_rank * kv_heads // t, (tensor_rank + 1) * kv_heads // t)
        blocks = [
            torch.stack([k[:, mine_kv, i * local : (i + 1) * local], v[:, mine_kv, i * local : (i + 1) * local]])
            for i in range(c)
        ]

        def owner(kv: torch.Tensor) -> int:
            # Whose block it is: the one of its heads' c blocks it equals (random values: exactly one; none, were
            # it another tensor rank's heads).
            (found,) = [i for i, block in enumerate(blocks) if torch.equal(block, kv)]
            return found

        mine = slice(position * local, (position + 1) * local)
        out, held = ring_forward(q[:, mine_q, mine], blocks[position].clone(), owner, True, ring, context_group)
        assert out is not None
        # The tensor group's heads, gathered: the whole layer's attention for this rank's tokens.
        gathered = [torch.empty_like(out) for _ in range(t)]
        dist.all_gather(gathered, out, group=tensor_group)
        expected = torch.nn.functional.scaled_dot_product_attention(
            q[:, :, mine].float(), k.float(), v.float(), enable_gqa=True
        )
        error = float((torch.cat(gathered, dim=1) - expected).abs().max())
    else:
        # Each value of a block is its owner's position in the ring (exact in bf16): a step reads whose it holds.
        kv = torch.full((2, b, kv_heads // t, local, d), float(position), dtype=torch.bfloat16)
        _, held = ring_forward(torch.empty(0), kv, lambda block: int(block[0, 0, 0, 0, 0]), False, ring, context_group)
    return {"sent": list(SENT), "held": held, "error": error}


def rank_main(rank: int, world: int, store: str, names: list[str]) -> dict[str, Any]:
    """Join the world over gloo and run each case named, on this rank."""
    os.environ.update({"RANK": str(rank), "WORLD_SIZE": str(world)})
    torch.set_num_threads(1)
    dist.isend = _count_sends(dist.isend)
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world)
    try:
        return {name: measure(CASES[name]) for name in names}
    finally:
        dist.destroy_process_group()
