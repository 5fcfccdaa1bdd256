"""Two training steps of one small model under each data-parallel engine, run inside one rank.

Each scenario builds a fresh model, runs two steps (Adam's states exist from
the first optimizer step on, so the second is the one the course counts), and
takes a census of what the rank holds at each moment of the second step:

- "after-forward": the loss is computed, before `backward()`;
- "turn": the backward pass has just begun (a hook on the loss's gradient);
- "after-backward": `backward()` has returned;
- "after-step": the optimizer has stepped, the gradients not yet zeroed;
- "between-steps": the gradients zeroed (set to None), as the next step starts.

It also counts the collectives of the second step (`collectives`). The model
is four square linear layers of width 64 with biases: every parameter's first
dimension and every flat buffer divides by 8 ranks, so that a shard is exactly
1/N of the model and a per-parameter ratio is exact. The batch is one row per
rank, and the census leaves it, the output and the loss out.
"""

from __future__ import annotations

import gc
import os
import sys
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from .census import SavedTensors, census, local, reachable_tensors
from .collectives import counting
from .saved import is_weight_cast

WIDTH = 64
LAYERS = 4
MOMENTS = ("after-forward", "turn", "after-backward", "after-step", "between-steps")


def make_model() -> nn.Sequential:
    """The model every scenario trains, the same on every rank (seeded)."""
    torch.manual_seed(0)
    return nn.Sequential(*(nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)))


def parameter_count() -> int:
    return sum(p.numel() for p in make_model().parameters())


@dataclass
class Step:
    """How a scenario runs one training step, and which tensors have which role at a moment."""

    forward: Callable[[torch.Tensor], torch.Tensor]
    backward: Callable[[torch.Tensor], None]
    step: Callable[[], None]
    zero_grad: Callable[[], None]
    roles: Callable[[], Mapping[str, Iterable[torch.Tensor]]]
    saved: SavedTensors = field(default_factory=SavedTensors)


def optimizer_roles(optimizer: torch.optim.Optimizer) -> dict[str, list[torch.Tensor]]:
    """Adam's moments (as large as their parameter) apart from its per-tensor step counters."""
    states: list[torch.Tensor] = []
    scalars: list[torch.Tensor] = []
    for state in optimizer.state.values():
        for value in state.values():
            if isinstance(value, torch.Tensor):
                (scalars if value.numel() == 1 else states).append(local(value))
    return {"optimizer_states": states, "optimizer_scalars": scalars}


def grads(parameters: Iterable[torch.Tensor]) -> list[torch.Tensor]:
    return [local(p.grad) for p in parameters if p.grad is not None]


def run(make: Callable[[], Step]) -> dict[str, Any]:
    """Build the scenario's step and run two; the census at each moment of the second and its collectives."""
    rank = dist.get_rank() if dist.is_initialized() else 0
    torch.manual_seed(rank + 1)
    # What this process held before the scenario (a test run's earlier tensors) is not the scenario's.
    gc.collect()
    before = list(reachable_tensors())
    step = make()
    batch = torch.randn(1, WIDTH)
    moments: dict[str, dict[str, int]] = {}

    def take(moment: str, *held: torch.Tensor) -> None:
        gc.collect()
        roles = dict(step.roles())
        saved = step.saved.alive()
        ids = {id(p) for p in roles.get("parameters", ())}
        # Autocast's cached low-precision copies of the weights, which autograd keeps for the backward pass.
        roles["weight_casts"] = [t for t in saved if is_weight_cast(t, ids)]
        roles["activations"] = saved
        moments[moment] = census(roles, exclude=(batch, *held, *before))

    for index in range(2):
        measuring = index == 1
        step.saved = SavedTensors()
        with counting() as counts:
            with step.saved.hooks():
                output = step.forward(batch)
            loss = output.float().square().mean()
            if measuring:
                take("after-forward", output, loss)
                loss.register_hook(lambda grad, held=(output, loss): take("turn", *held, grad))
            step.backward(loss)
            if measuring:
                take("after-backward", output, loss)
            step.step()
            if measuring:
                take("after-step", output, loss)
            traffic = counts.snapshot()
        del output, loss
        step.zero_grad()
        if measuring:
            take("between-steps")
    return {"moments": moments, "collectives": traffic}


def _ddp(bucket_view: bool, zero: bool) -> Step:
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.distributed.optim import ZeroRedundancyOptimizer
    from torch.nn.parallel import DistributedDataParallel

    model = make_model()
    ddp = DistributedDataParallel(model, gradient_as_bucket_view=bucket_view)
    # By weak reference, so that a bucket is counted while the reducer holds it, and only then.
    buckets: dict[int, weakref.ref[torch.Tensor]] = {}

    # No annotations: DDP checks them at run time, and this module's are strings (`from __future__`).
    def hook(state, bucket):  # type: ignore[no-untyped-def]
        # The bucket DDP all-reduces, by its index (DDP rebuilds its buckets once, after the first step).
        buckets[bucket.index()] = weakref.ref(bucket.buffer())
        return default_hooks.allreduce_hook(state, bucket)

    ddp.register_comm_hook(None, hook)
    optimizer: torch.optim.Optimizer
    if zero:
        optimizer = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.Adam)
        inner = optimizer.optim
    else:
        optimizer = inner = torch.optim.Adam(model.parameters())
    # DDP rebuilds its buckets once, in its second step's forward pass (`_rebuild_buckets`, in the order the gradients
    # became ready in the first), freeing the first ones: one step before the runner's two, so that from the end of
    # the runner's first backward pass on the hook has seen the buckets the reducer keeps.
    ddp(torch.randn(1, WIDTH)).square().mean().backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)

    def roles() -> dict[str, list[torch.Tensor]]:
        parameters = list(model.parameters())
        return {
            "parameters": parameters,
            "gradients": grads(parameters),
            "buckets": [buffer for ref in buckets.values() if (buffer := ref()) is not None],
            **optimizer_roles(inner),
        }

    return Step(ddp, lambda loss: loss.backward(), optimizer.step, lambda: optimizer.zero_grad(set_to_none=True), roles)


def _fsdp(reshard: bool, bf16: bool) -> Step:
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    model = make_model()
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16) if bf16 else MixedPrecisionPolicy()
    for layer in model:
        fully_shard(layer, mesh=mesh, reshard_after_forward=reshard, mp_policy=policy)
    fully_shard(model, mesh=mesh, reshard_after_forward=reshard, mp_policy=policy)
    # The sharded parameters, as fully_shard registered them; FSDP2 swaps the unsharded ones in and out.
    shards = list(model.parameters())
    optimizer = torch.optim.Adam(shards)

    def roles() -> dict[str, list[torch.Tensor]]:
        current = list(model.parameters())
        return {
            "parameters": [local(p) for p in shards],
            "gradients": grads(shards) + grads(current),
            "gathered": [local(p) for p in current],
            **optimizer_roles(optimizer),
        }

    return Step(
        model, lambda loss: loss.backward(), optimizer.step, lambda: optimizer.zero_grad(set_to_none=True), roles
    )


def _deepspeed(stage: int, reuse: bool = True) -> Step:
    """DeepSpeed's ZeRO `stage`; with `reuse=False`, stage 3 releases every parameter once its module has run.

    By default stage 3 does not release a parameter that it will use again "within this threshold of parameters"
    (`stage3_max_reuse_distance`, 1e9; `__params_to_release` in partitioned_param_coordinator.py): at the tier's
    size, it keeps every one from the forward pass to the backward. At 0, with no prefetching either
    (`stage3_prefetch_bucket_size` 0, since a prefetched parameter is kept until it is used, and
    `stage3_max_live_parameters` 0, which bounds only what is prefetched), it gathers each parameter again for the
    backward pass, as it does for a model larger than those thresholds.
    """
    import importlib

    import deepspeed

    # On its CPU accelerator DeepSpeed compiles a shared-memory all-reduce (g++, minutes) when its
    # communication backend starts; only `inference_all_reduce` uses it, and training's collectives go
    # through torch.distributed either way, so the tier builds no op.
    # (`deepspeed.comm.torch`, the attribute, is the torch package: the module is looked up by name.)
    comm: Any = importlib.import_module("deepspeed.comm.torch")
    comm.build_shm_op = lambda: None

    model = make_model()
    config = {
        "train_micro_batch_size_per_gpu": 1,
        "gradient_accumulation_steps": 1,
        "bf16": {"enabled": True},
        # Buckets of one model's size at most (DeepSpeed's default, 5e8 elements, is a GB of buffers), and every
        # parameter partitioned at stage 3 (by default one under 1e5 elements stays whole on every rank).
        "zero_optimization": {
            "stage": stage,
            "reduce_bucket_size": parameter_count(),
            "allgather_bucket_size": parameter_count(),
            "stage3_prefetch_bucket_size": parameter_count(),
            "stage3_param_persistence_threshold": 0,
            **(
                {}
                if reuse
                else {"stage3_max_reuse_distance": 0, "stage3_max_live_parameters": 0, "stage3_prefetch_bucket_size": 0}
            ),
        },
        "zero_allow_untested_optimizer": True,
        "steps_per_print": 10**9,
    }
    engine, optimizer, _, _ = deepspeed.initialize(
        model=model, optimizer=torch.optim.Adam(model.parameters()), config=config
    )
    inner = optimizer.optimizer

    def roles() -> dict[str, list[torch.Tensor]]:
        parameters = list(engine.module.parameters())
        partitions = [p.ds_tensor for p in parameters if hasattr(p, "ds_tensor")]
        # Stages 1 and 2 step the fp32 partitions as the inner optimizer's parameters; stage 3 keeps them flat.
        masters = [p for group in inner.param_groups for p in group["params"]]
        masters += list(getattr(optimizer, "fp32_partitioned_groups_flat", []))
        return {
            "parameters": parameters + partitions,
            "master_parameters": masters,
            **optimizer_roles(inner),
        }

    def forward(batch: torch.Tensor) -> torch.Tensor:
        return engine(batch.to(torch.bfloat16))

    return Step(forward, engine.backward, engine.step, lambda: None, roles)


#: The scenarios every world runs, by name.
SCENARIOS: dict[str, Callable[[], Step]] = {
    "ddp-default": lambda: _ddp(bucket_view=False, zero=False),
    "ddp-bucket-view": lambda: _ddp(bucket_view=True, zero=False),
    "zero1-torch": lambda: _ddp(bucket_view=True, zero=True),
    "fsdp2-reshard": lambda: _fsdp(reshard=True, bf16=False),
    "fsdp2-keep": lambda: _fsdp(reshard=False, bf16=False),
    "fsdp2-reshard-bf16": lambda: _fsdp(reshard=True, bf16=True),
    "fsdp2-keep-bf16": lambda: _fsdp(reshard=False, bf16=True),
    # DeepSpeed last: its engines keep buffers alive past their scenario.
    "deepspeed-1": lambda: _deepspeed(1),
    "deepspeed-2": lambda: _deepspeed(2),
    "deepspeed-3": lambda: _deepspeed(3),
    "deepspeed-3-no-reuse": lambda: _deepspeed(3, reuse=False),
}


def rank_main(rank: int, world: int, store: str, names: list[str]) -> dict[str, Any]:
    """Join the world over gloo, run every scenario named, and return what each measured on this rank."""
    os.environ.update(
        {"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_WORLD_SIZE": str(world)}
    )
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world)
    try:
        results = {}
        for name in names:
            started = time.monotonic()
            results[name] = run(SCENARIOS[name])
            gc.collect()  # the engine's cycles, before the next scenario's census
            if rank == 0:
                print(f"world {world}: {name} in {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
            dist.barrier()
        return results
    finally:
        dist.destroy_process_group()
