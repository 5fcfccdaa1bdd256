"""PyTorch's own ring attention, forward and backward, over gloo on the CPU, inside one rank.

PyTorch 2.14's context parallelism (`torch.distributed.tensor.experimental._context_parallel._attention`)
runs its ring in `_templated_ring_attention` and `_templated_ring_attention_backward`, around whatever
attention op it is given; `context_parallel()` hands them CUDA's fused SDPA ops, which the CPU lacks, so
the rank calls the two templates with the CPU's fused op, `aten._scaled_dot_product_flash_attention_for_cpu`
(and its backward), the sequence split contiguously (`enable_load_balance` off, no causal mask) and the
blocks passed by its all-to-all rotater (`_RotateMethod.ALL_TO_ALL`, one `permute_tensor` per step, each
rank's whole block to the next rank; the default, ALL_GATHER, gathers every block at once and is no ring).
It counts the functional collectives each pass calls with `CommDebugMode`, as tensor_parallel.py does,
keeping each all-to-all's bytes and dtype, and checks the output and the gradients against attention over
the whole sequence.

What it finds, in `_templated_ring_attention_backward`'s own code: the keys and values go round again,
c − 1 times, and the gradients of the keys and values, accumulated in fp32 (`_cp_options.convert_to_f32`,
True by default), travel c times, the last bringing each block's gradient home to its owner.
"""

from __future__ import annotations

import os
from typing import Any

import torch
import torch.distributed as dist
from torch.distributed.tensor.debug import CommDebugMode

#: The cases a world runs, by name: (sequence s, batch b, heads, head_dim d); keys and values have every head.
CASES: dict[str, tuple[int, int, int, int]] = {"small": (32, 2, 4, 8)}
#: bf16 attention against fp32 attention of the same values: they differ by bf16's rounding.
TOLERANCE = 2e-2


class SizedCommMode(CommDebugMode):
    """CommDebugMode that also keeps each all-to-all it counts: (bytes of its input, dtype, split sizes)."""

    def __init__(self) -> None:
        super().__init__()
        self.sized: list[tuple[int, str, list[int]]] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = super().__torch_dispatch__(func, types, args, kwargs)
        name = getattr(getattr(func, "_overloadpacket", None), "__name__", "")
        if out is not NotImplemented and name == "all_to_all_single":
            tensor, _, input_splits = args[0], args[1], args[2]
            self.sized.append((tensor.numel() * tensor.element_size(), str(tensor.dtype), list(input_splits)))
        return out


def measure(case: tuple[int, int, int, int]) -> dict[str, Any]:
    """One layer's ring attention forward and backward on this rank: its all-to-alls, and its errors."""
    from torch.distributed.tensor.experimental._context_parallel import _attention as cp

    cp._cp_options.enable_load_balance = False
    cp._cp_options.rotate_method = cp._RotateMethod.ALL_TO_ALL
    aten = torch.ops.aten
    rank, c = dist.get_rank(), dist.get_world_size()
    s, b, heads, d = case
    generator = torch.Generator().manual_seed(13)
    q, k, v = (torch.randn(b, heads, s, d, generator=generator).bfloat16() for _ in range(3))
    mine = slice(rank * s // c, (rank + 1) * s // c)
    local = [t[:, :, mine].contiguous() for t in (q, k, v)]
    group = dist.group.WORLD
    with SizedCommMode() as forward:
        out, lse, *_ = cp._templated_ring_attention(
            group, 2, aten._scaled_dot_product_flash_attention_for_cpu.default, *local, is_causal=False, dropout_p=0.0
        )
    grad_out = torch.randn(out.shape, generator=generator).bfloat16()
    with SizedCommMode() as backward:
        grads = cp._templated_ring_attention_backward(
            group,
            2,
            aten._scaled_dot_product_flash_attention_for_cpu_backward.default,
            grad_out=grad_out,
            grad_out_name="grad_out",
            query=local[0],
            key=local[1],
            value=local[2],
            out=out,
            logsumexp=lse,
            is_causal=False,
            dropout_p=0.0,
        )
    # The same attention over the whole sequence, in fp32, and its queries' gradients for this rank's tokens.
    whole = [t.float().requires_grad_() for t in (q, k, v)]
    expected = torch.nn.functional.scaled_dot_product_attention(*whole)
    full_grad = torch.zeros_like(expected)
    full_grad[:, :, mine] = grad_out.float()
    expected.backward(full_grad)
    assert whole[0].grad is not None
    return {
        "forward": forward.sized,
        "backward": backward.sized,
        "error": float((out.float() - expected[:, :, mine]).abs().max()),
        "dq_error": float((grads[0].float() - whole[0].grad[:, :, mine]).abs().max()),
    }


def rank_main(rank: int, world: int, store: str, names: list[str]) -> dict[str, Any]:
    """Join the world over gloo and run each case named, on this rank."""
    os.environ.update({"RANK": str(rank), "WORLD_SIZE": str(world)})
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world)
    try:
        return {name: measure(CASES[name]) for name in names}
    finally:
        dist.destroy_process_group()
