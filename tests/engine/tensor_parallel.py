"""Megatron-LM's tensor parallelism as PyTorch's DTensor runs it: the collectives of one layer, over gloo.

The layer is Megatron-LM's (Shoeybi et al. 2019, §3), sequence-first, [s, b, h],
in bf16: a layer norm, one column-parallel matrix for Q, K and V (Megatron's
fused QKV, laid out head by head, so that each rank's rows are whole heads' q,
k and v), attention over the rank's heads, the output projection row-parallel,
dropout and the residual; a layer norm, the MLP's first matrix (4h wide)
column-parallel and its second row-parallel, dropout and the residual. It is
split with `torch.distributed.tensor.parallel`: `ColwiseParallel` and
`RowwiseParallel` on the matrices ("tensor"), and with sequence parallelism
("tensor-sequence") `SequenceParallel` on the layer norms too, the column-parallel
matrices taking their input sharded on the sequence and the row-parallel ones
giving it back so (Korthikanti et al. 2022, §4.2.2).

DTensor sends its collectives through the functional collectives
(`torch.ops._c10d_functional`), not through the `torch.distributed` functions
that collectives.py wraps, so a rank counts them with PyTorch's `CommDebugMode`,
the forward pass and the backward pass apart, and records each one's size in
collectives.py's convention: an all-reduce by its tensor, an all-gather by its
output, a reduce-scatter by its input. The shapes are small (the counts and the
bytes per s·b·h do not depend on them); s divides by 8 ranks.
"""

from __future__ import annotations

import os
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.tensor import DTensor, Shard
from torch.distributed.tensor.debug import CommDebugMode
from torch.nn import functional as F

#: (sequence, micro-batch, hidden, heads) of the layer each rank runs: the heads divide by 8 ranks.
SHAPE = (16, 2, 64, 8)
DROPOUT = 0.1
#: What a functional collective is counted as, and whether its size is its output's (an all-gather's).
OPS = {
    "all_reduce": ("all-reduce", False),
    "all_gather_into_tensor": ("all-gather", True),
    "reduce_scatter_tensor": ("reduce-scatter", False),
}


class MegatronLayer(nn.Module):
    def __init__(self, hidden: int, heads: int) -> None:
        super().__init__()
        self.head_width = hidden // heads
        self.norm1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.projection = nn.Linear(hidden, hidden)
        self.norm2 = nn.LayerNorm(hidden)
        self.up = nn.Linear(hidden, 4 * hidden)
        self.down = nn.Linear(4 * hidden, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s, b, _ = x.shape  # the whole sequence's shape, also when x is a DTensor sharded on it
        d = self.head_width
        qkv = self.qkv(self.norm1(x))  # this rank's heads: [s, b, heads/t × 3 × d]
        q, k, v = qkv.reshape(s, b, -1, 3, d).permute(3, 1, 2, 0, 4).reshape(3, -1, s, d)
        weights = F.dropout(F.softmax(q @ k.transpose(1, 2) / d**0.5, dim=-1), DROPOUT, self.training)
        context = (weights @ v).reshape(b, -1, s, d).permute(2, 0, 1, 3).reshape(s, b, -1)
        x = x + F.dropout(self.projection(context), DROPOUT, self.training)
        return x + F.dropout(self.down(F.gelu(self.up(self.norm2(x)))), DROPOUT, self.training)


class SizedCommMode(CommDebugMode):
    """CommDebugMode that also keeps each collective it counts, as (op, elements, bytes)."""

    def __init__(self) -> None:
        super().__init__()
        self.sized: list[tuple[str, int, int]] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = super().__torch_dispatch__(func, types, args, kwargs)
        name = getattr(getattr(func, "_overloadpacket", None), "__name__", "")
        if out is not NotImplemented and name in OPS:
            op, by_output = OPS[name]
            tensor = out if by_output else args[0]
            self.sized.append((op, tensor.numel(), tensor.numel() * tensor.element_size()))
        return out


def _plan(sequence: bool) -> dict[str, Any]:
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, SequenceParallel

    if not sequence:
        return {
            "qkv": ColwiseParallel(),
            "projection": RowwiseParallel(),
            "up": ColwiseParallel(),
            "down": RowwiseParallel(),
        }
    on_sequence = Shard(0)
    # The row-parallel outputs stay DTensors sharded on the sequence, for the residual and the next norm.
    return {
        "norm1": SequenceParallel(sequence_dim=0),
        "qkv": ColwiseParallel(input_layouts=on_sequence),
        "projection": RowwiseParallel(output_layouts=on_sequence, use_local_output=False),
        "norm2": SequenceParallel(sequence_dim=0),
        "up": ColwiseParallel(input_layouts=on_sequence),
        "down": RowwiseParallel(output_layouts=on_sequence, use_local_output=False),
    }


def measure(sequence: bool) -> dict[str, list[tuple[str, int, int]]]:
    """One forward and backward pass of the split layer: the collectives of each pass on this rank."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    s, b, h, a = SHAPE
    world = dist.get_world_size()
    mesh = init_device_mesh("cpu", (world,))
    torch.manual_seed(0)
    layer = parallelize_module(MegatronLayer(h, a).to(torch.bfloat16), mesh, _plan(sequence))
    torch.manual_seed(dist.get_rank() + 1)
    x = torch.randn(s // world if sequence else s, b, h, dtype=torch.bfloat16, requires_grad=True)
    # Under sequence parallelism each rank holds a t-th of the sequence of the layer's input.
    layer_input = DTensor.from_local(x, mesh, [Shard(0)], run_check=False) if sequence else x
    with SizedCommMode() as forward:
        output = layer(layer_input)
    local = output.to_local() if isinstance(output, DTensor) else output
    loss = local.float().square().mean()
    with SizedCommMode() as backward:
        loss.backward()
    return {"forward": forward.sized, "backward": backward.sized}


#: The layouts each world runs, by name: with sequence parallelism or without.
LAYOUTS = {"tensor": False, "tensor-sequence": True}


def rank_main(rank: int, world: int, store: str, names: list[str]) -> dict[str, Any]:
    """Join the world over gloo and measure each layout named on this rank."""
    os.environ.update({"RANK": str(rank), "WORLD_SIZE": str(world)})
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world)
    try:
        return {name: measure(LAYOUTS[name]) for name in names}
    finally:
        dist.destroy_process_group()
