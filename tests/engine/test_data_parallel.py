"""Per-rank bytes and per-step traffic of DDP, ZeroRedundancyOptimizer, FSDP2 and DeepSpeed, at 1, 2, 4, 8 ranks.

Each world is spawned once (`worlds.run_world`) and runs every scenario of
`scenarios.SCENARIOS`; the tests read its census and its collectives. Bytes
are per parameter of the model, Ψ being its parameter count, so that they
compare with the course's per-device figures at any Ψ: `device_state_bytes`
(ZeRO §5 by role, for the recipe the engine runs), `fsdp_state_bytes`, and
`zero_communication_elements` (ZeRO §7, elements sent per step per Ψ, an
all-reduce counting twice). Where an engine keeps or sends something the course
does not count, the test checks it against a formula of its own (one more fp32
copy of the gradients, one more broadcast of the parameters) and the record
says why.

Gloo on one host only: NCCL's own algorithms (trees, NVLS), CUDA streams and
two hosts are not measured here; the bytes are what each engine asks its
collectives to move, not what a ring puts on a wire.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import pytest

from macros import model

from .conftest import Recorder
from .scenarios import SCENARIOS, parameter_count
from .worlds import run_world

WORLDS = (1, 2, 4, 8)
#: `model.zero.ZERO_STAGES`' ids in DeepSpeed's stage order, as `model.sharding.STAGES` numbers them.
ZERO_IDS = ("dp", "os", "os-g", "os-g-p")
PSI = parameter_count()
TORCH = ("torch",)
DEEPSPEED = ("torch", "deepspeed")
#: The roles that are model states (the census's others: activations, Adam's step counters, "other").
STATES = ("parameters", "gradients", "buckets", "gathered", "master_parameters", "optimizer_states")


@cache
def world(size: int) -> list[dict[str, Any]]:
    """What every rank of a world of `size` measured, by scenario."""
    return run_world(size, list(SCENARIOS))


def states(moment: dict[str, int], roles: tuple[str, ...] = STATES) -> Fraction:
    return Fraction(sum(moment.get(role, 0) for role in roles), PSI)


def per_rank(size: int, scenario: str, moment: str, roles: tuple[str, ...] = STATES) -> list[Fraction]:
    return [states(rank[scenario]["moments"][moment], roles) for rank in world(size)]


def traffic(size: int, scenario: str) -> tuple[Fraction, dict[str, Fraction]]:
    """Rank 0's elements sent per step per Ψ in ZeRO §7's units, and its bytes per Ψ by op."""
    from .collectives import PASSES

    counts = world(size)[0][scenario]["collectives"]
    passes = sum(PASSES[op] * n for op, n in counts["elements"].items() if op in PASSES)
    return Fraction(passes, PSI), {op: Fraction(n, PSI) for op, n in counts["bytes"].items() if op in PASSES}


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("scenario", ["ddp-default", "ddp-bucket-view"])
def test_ddp_bytes_per_parameter(record: Recorder, size: int, scenario: str) -> None:
    """After the step, DDP holds ZeRO's 16 bytes for fp32 Adam, and its buckets' fp32 copy unless they are the grads."""
    measured = per_rank(size, scenario, "after-step")
    course = model.device_state_bytes(PSI, size, 0, "fp32-adam") / PSI
    bucket = Fraction(model.copy_bytes(PSI, "fp32"), PSI) if scenario == "ddp-default" else 0
    record(
        f"model-states/ddp/fp32-adam/world-{size}/{scenario.removeprefix('ddp-')}",
        ["model-states", "zero-states", "model.device_state_bytes"],
        TORCH,
        measured[0],
        course,
        "B/param",
        differs="DDP's reducer keeps its gradient buckets as a second fp32 copy of the gradients"
        " (gradient_as_bucket_view=False, the default)"
        if bucket
        else "",
    )
    assert set(measured) == {course + bucket}


@pytest.mark.parametrize("size", WORLDS)
def test_zero1_torch_bytes_per_parameter(record: Recorder, size: int) -> None:
    """ZeroRedundancyOptimizer shards Adam's states: 4 + 4 + 8/N on average over the ranks, by whole tensors."""
    measured = per_rank(size, "zero1-torch", "after-step")
    mean = sum(measured, Fraction(0)) / size
    course = model.device_state_bytes(PSI, size, 1, "fp32-adam") / PSI
    record(
        f"model-states/zero1-torch/fp32-adam/world-{size}/mean",
        ["zero-states", "model.device_state_bytes"],
        TORCH,
        mean,
        course,
        "B/param",
    )
    most = max(measured)
    record(
        f"model-states/zero1-torch/fp32-adam/world-{size}/most-loaded",
        ["zero-states", "model.device_state_bytes"],
        TORCH,
        most,
        course,
        "B/param",
        differs="ZeroRedundancyOptimizer gives each rank whole parameters (greedily, by size), so the shards are"
        " even only when the tensors divide evenly"
        if most != course
        else "",
    )
    assert mean == course


#: Per scenario, the ZeRO stage the course takes for it and the engine's own count of what it sends per
#: step (ZeRO §7's units, per Ψ) on more than one rank, with why it differs where it does.
TRAFFIC: dict[str, tuple[str, int, str]] = {
    "ddp-default": ("dp", 2, ""),
    "ddp-bucket-view": ("dp", 2, ""),
    "zero1-torch": (
        "os",
        2 + 1,
        "PyTorch's ZeroRedundancyOptimizer runs under DDP: it all-reduces every gradient (2Ψ), then the ranks"
        " broadcast the parameters each updated (Ψ in all); ZeRO's P_os reduce-scatters and all-gathers, 2Ψ",
    ),
    "fsdp2-reshard": ("os-g-p", 1 + 1 + 1, ""),
    "fsdp2-reshard-bf16": ("os-g-p", 1 + 1 + 1, ""),
    "fsdp2-keep": ("os-g", 1 + 1, ""),
    "fsdp2-keep-bf16": ("os-g", 1 + 1, ""),
    "deepspeed-1": (
        "os",
        2 + 1,
        "DeepSpeed's stages 1 and 2 all-reduce each gradient bucket (2Ψ) and keep their partition of it, then"
        " all-gather the updated parameters (Ψ)",
    ),
    "deepspeed-2": (
        "os-g",
        2 + 1,
        "DeepSpeed's stages 1 and 2 all-reduce each gradient bucket (2Ψ) and keep their partition of it, then"
        " all-gather the updated parameters (Ψ)",
    ),
    "deepspeed-3": (
        "os-g-p",
        1 + 1,
        "at this model's size DeepSpeed keeps every gathered parameter from the forward to the backward pass"
        " (stage3_max_live_parameters and stage3_max_reuse_distance default to 1e9), so it all-gathers once",
    ),
    # With those thresholds at 0 it gathers each parameter for the forward pass and again for the backward.
    "deepspeed-3-no-reuse": ("os-g-p", 1 + 1 + 1, ""),
}
#: What one rank sends, and why where that is not the course's count: FSDP2 and DeepSpeed call no all-gather or
#: reduce-scatter on one rank, but DeepSpeed's stages 1 and 2 still all-reduce and stage 3 reduce-scatters.
ONE_RANK = {
    "fsdp2": (0, "one rank: the engine skips the collectives it would call with more"),
    "deepspeed-1": (2, TRAFFIC["deepspeed-1"][2]),
    "deepspeed-2": (2, TRAFFIC["deepspeed-2"][2]),
    "deepspeed-3": (1, "one rank: DeepSpeed's stage 3 gathers no parameter, and still reduce-scatters the gradients"),
}


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("scenario", list(TRAFFIC))
def test_traffic_per_step(record: Recorder, size: int, scenario: str) -> None:
    """Elements each rank sends per step per Ψ, against ZeRO §7's 2Ψ or 3Ψ."""
    stage, engine, why = TRAFFIC[scenario]
    if size == 1:
        engine, why = next((alone for prefix, alone in ONE_RANK.items() if scenario.startswith(prefix)), (engine, why))
    measured, _ = traffic(size, scenario)
    course = Fraction(model.zero_communication_elements(PSI, stage), PSI)
    record(
        f"zero-communication/{scenario}/world-{size}",
        ["zero-communication", "model.zero_communication_elements"],
        DEEPSPEED if scenario.startswith("deepspeed") else TORCH,
        measured,
        course,
        "element/param",
        differs=why if measured != course else "",
    )
    assert measured == engine


@pytest.mark.parametrize("size", WORLDS[1:])
@pytest.mark.parametrize("scenario", ["fsdp2-reshard-bf16", "fsdp2-keep-bf16"])
def test_fsdp2_bf16_sends_bf16(size: int, scenario: str) -> None:
    """Under a bf16 policy FSDP2 all-gathers and reduce-scatters 2 bytes a value: (gathers × P + R) per Ψ."""
    strategy = model.fsdp_strategy("full-shard" if "reshard" in scenario else "shard-grad-op")
    _, by_op = traffic(size, scenario)
    low = model.LOW_PRECISION_BYTES
    assert by_op == {"all-gather": strategy.all_gathers * low, "reduce-scatter": low}


def _strategy(scenario: str) -> str:
    return "full-shard" if "reshard" in scenario else "shard-grad-op"


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("scenario", ["fsdp2-reshard", "fsdp2-keep", "fsdp2-reshard-bf16", "fsdp2-keep-bf16"])
def test_fsdp2_at_the_end_of_the_backward(record: Recorder, size: int, scenario: str) -> None:
    """When backward() returns FSDP2 holds only shards, 16/N, whichever reshard setting: it reshards in the backward."""
    measured = per_rank(size, scenario, "after-backward")
    course = model.fsdp_state_bytes(PSI, _strategy(scenario), size, size) / PSI
    record(
        f"fsdp-states/{_strategy(scenario)}/world-{size}/{scenario}",
        ["fsdp-states", "model.fsdp_state_bytes"],
        TORCH,
        measured[0],
        course,
        "B/param",
        differs="FSDP2 frees the gathered parameters unit by unit in the backward pass, also with"
        " reshard_after_forward=False: none is left when backward() returns"
        if measured[0] != course
        else "",
    )
    sharded = model.FULL_PARAMETER_BYTES + model.FULL_GRADIENT_BYTES + model.ADAM_STATE_BYTES
    assert set(measured) == {Fraction(sharded, size)}


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("scenario", ["fsdp2-reshard", "fsdp2-keep", "fsdp2-reshard-bf16", "fsdp2-keep-bf16"])
def test_fsdp2_between_steps(record: Recorder, size: int, scenario: str) -> None:
    """After the step, FSDP2 holds ZeRO-3's 16Ψ/N whichever setting: reshard_after_forward=False is not ZeRO-2 then."""
    measured = per_rank(size, scenario, "after-step")
    zero_stage = model.fsdp_strategy(_strategy(scenario)).zero_stage
    number = ZERO_IDS.index(zero_stage)
    course = model.device_state_bytes(PSI, size, number, "fp32-adam") / PSI
    record(
        f"zero-states/fsdp2/{scenario}/world-{size}/after-step",
        ["zero-states", "model.device_state_bytes", "model.fsdp_strategy"],
        TORCH,
        measured[0],
        course,
        "B/param",
        differs="between steps FSDP2 keeps only its shards whichever reshard setting; the course takes"
        " reshard_after_forward=False (SHARD_GRAD_OP) as ZeRO-2, whose parameters stay whole"
        if measured[0] != course
        else "",
    )
    assert set(measured) == {model.device_state_bytes(PSI, size, 3, "fp32-adam") / PSI}


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("scenario", ["fsdp2-keep", "fsdp2-keep-bf16", "fsdp2-reshard-bf16"])
def test_fsdp2_gathered_copy_at_the_turn(record: Recorder, size: int, scenario: str) -> None:
    """At the turn from forward to backward, reshard_after_forward=False holds the whole model in its compute dtype."""
    gathered = [Fraction(rank[scenario]["moments"]["turn"]["gathered"], PSI) for rank in world(size)]
    keeps = model.fsdp_strategy(_strategy(scenario)).keeps_unit_after_forward
    course = model.LOW_PRECISION_BYTES if keeps else 0
    dtype_bytes = model.LOW_PRECISION_BYTES if scenario.endswith("bf16") else model.FULL_PARAMETER_BYTES
    record(
        f"fsdp-states/{_strategy(scenario)}/world-{size}/{scenario}/gathered-at-the-turn",
        ["fsdp-states", "model.fsdp_state_bytes", "model.LOW_PRECISION_BYTES"],
        TORCH,
        gathered[0],
        course,
        "B/param",
        differs="with no MixedPrecisionPolicy FSDP2 gathers the parameters in fp32, 4 bytes each"
        if gathered[0] != course
        else "",
    )
    assert set(gathered) == {dtype_bytes if keeps else 0}


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("stage", [1, 2, 3])
def test_deepspeed_after_the_step(record: Recorder, size: int, stage: int) -> None:
    """After the step DeepSpeed (bf16, Adam) holds its parameters and its sharded fp32 master and Adam states."""
    held = per_rank(size, f"deepspeed-{stage}", "after-step", ("parameters", "master_parameters", "optimizer_states"))
    roles = model.device_bytes_by_role(PSI, size, stage, "bf16-adam")
    course = (roles["parameters"] + roles["optimizer_states"]) / PSI
    record(
        f"zero-states/deepspeed-{stage}/bf16-adam/world-{size}/parameters-and-optimizer",
        ["zero-states", "model.device_bytes_by_role"],
        DEEPSPEED,
        held[0],
        course,
        "B/param",
    )
    assert set(held) == {course}


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("scenario", ["deepspeed-3", "deepspeed-3-no-reuse"])
def test_deepspeed_3_parameters_after_the_forward(record: Recorder, size: int, scenario: str) -> None:
    """After the forward pass stage 3 holds its bf16 partition, 2/N, and by default the whole bf16 model besides."""
    held = per_rank(size, scenario, "after-forward", ("parameters",))
    course = model.device_bytes_by_role(PSI, size, 3, "bf16-adam")["parameters"] / PSI
    kept = model.LOW_PRECISION_BYTES if scenario == "deepspeed-3" and size > 1 else 0
    record(
        f"zero-states/{scenario}/bf16-adam/world-{size}/parameters-after-forward",
        ["zero-states", "model.device_bytes_by_role"],
        DEEPSPEED,
        held[0],
        course,
        "B/param",
        differs="DeepSpeed keeps every parameter it gathered in the forward pass for the backward pass, which uses it"
        " again within stage3_max_reuse_distance (1e9 parameters): the whole bf16 model beside its partition"
        if kept
        else "",
    )
    assert set(held) == {course + kept}


@pytest.mark.parametrize("size", WORLDS)
@pytest.mark.parametrize("scenario", ["ddp-default", "ddp-bucket-view"])
@pytest.mark.parametrize("moment", ["turn", "between-steps"])
def test_ddp_keeps_its_buckets_between_steps(record: Recorder, size: int, scenario: str, moment: str) -> None:
    """With the gradients set to None, DDP's reducer still holds its buckets, an fp32 copy of the gradients, under
    either setting: between steps and at the next turn it holds 4 + 8 + 4 bytes a parameter, no gradient among them."""
    measured = per_rank(size, scenario, moment)
    buckets = per_rank(size, scenario, moment, ("buckets",))
    gradients = per_rank(size, scenario, moment, ("gradients",))
    course = model.device_state_bytes(PSI, size, 0, "fp32-adam") / PSI
    record(
        f"model-states/ddp/fp32-adam/world-{size}/{scenario.removeprefix('ddp-')}/{moment}",
        ["model-states", "zero-states", "model.device_state_bytes"],
        TORCH,
        measured[0],
        course,
        "B/param",
    )
    assert set(buckets) == {Fraction(model.copy_bytes(PSI, "fp32"), PSI)}
    assert set(gradients) == {0}
    assert set(measured) == {course}
