"""The planner's figures: a layout of a workload, its memory by role, whether it fits, its step, throughput and run.

A planner workload (workloads.yml) names a model with its whole shape, a GPU with its peak, memory and links, its
GPUs and GPUs per node, the sequence, the global batch in sequences and the training tokens. A layout is written as
the command line fixes one (`python -m tools.plan`): dash-separated fields, each held fixed, every other searched,
and the fastest layout that fits taken (`planner.plan`'s first):

- `tp8`, `pp4`, `dp16`, `cp2`, `ep8`: the tensor, pipeline, data, context and expert-parallel degrees;
- `z3`: the ZeRO stage (FSDP's FULL_SHARD), `mb2`: the micro-batch in sequences;
- `none`, `selective`, `full`: the recomputation; `sp`, `nosp`: sequence parallelism on or off;
- `hsdp`, `nohsdp`: FSDP's hybrid sharding (ZeRO-3 within each node) or not;
- `v2`: an interleaved schedule of that many chunks;
- `best`: nothing fixed.

So `tp1-pp1-dp16-z3-mb1-none` is one layout exactly, and `z3` the fastest ZeRO-3 layout that fits. The figures
are the planner's own numbers (`planner.evaluate`): no formula of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from ...data.catalog import Catalog, PerCatalog, Quantity, transformer_shape
from ...data.quantities import format_quantity
from ...model import planner
from ...model.shape import TransformerShape, parameter_count
from ..figure import Computed, shown
from .registry import figure_kind

#: The planner's own share of peak, in percent: the figures' default, so that a call without one is the command
#: line's plan.
DEFAULT_SHARE = int(planner.Run(sequence=1, global_batch=1).share * 100)
#: The memory roles a figure may show: the planner's, and their total.
MEMORY_PARTS = (*planner.MEMORY_ROLES, "total")
#: The parts of a step a figure may show: the planner's, and their total.
TIME_PARTS = (*planner.TIME_PARTS, "total")
#: What a plan's throughput figure may show, with its unit.
MEASURES = {
    "tokens_per_second": "1",
    "mfu": "1",
    "gpu_seconds": "s",
    "run_seconds": "s",
}
#: The layout fields a degree figure may show.
DEGREES = ("tp", "pp", "dp", "cp", "ep", "zero", "micro_batch", "microbatches", "chunks")
#: Each field of `plan_degree` as a reader knows it.
_DEGREE_WORDS = {
    "tp": "tensor-parallel degree",
    "pp": "pipeline-parallel degree",
    "dp": "data-parallel degree",
    "cp": "context-parallel degree",
    "ep": "expert-parallel degree",
    "zero": "ZeRO stage",
    "micro_batch": "micro-batch, in sequences",
    "microbatches": "micro-batches a replica runs each step",
    "chunks": "model chunks per GPU",
}
_RECOMPUTE_WORDS = {"none": "no recomputation", "selective": "selective recomputation", "full": "full recomputation"}
_PART_WORDS = {
    "compute": "compute",
    "bubble": "pipeline bubble",
    "tensor": "exposed tensor-parallel all-reduces",
    "data": "exposed data-parallel traffic",
    "pipeline": "pipeline sends",
    "context": "exposed context-parallel ring traffic",
    "expert": "expert-parallel all-to-alls",
    "total": "step",
}


@dataclass(frozen=True)
class Setting:
    """A planner workload as the planner takes it, with the catalog values it came from."""

    shape: TransformerShape
    hardware: planner.Hardware
    run: planner.Run
    inputs: tuple[Quantity, ...]
    devices: Quantity


def setting(catalog: Catalog, workload: str, share: int) -> Setting:
    """The planner's model, cluster and run for `workload` at `share` percent of peak.

    Raises:
        ValueError: the workload lacks a field the planner needs, or its GPU a peak, memory or link.
    """
    entry = catalog.workload(workload)
    needed = {"gpu": entry.gpu, "devices": entry.devices, "per_host": entry.per_host, "sequence": entry.sequence}
    needed |= {"batch": entry.batch}
    missing = [name for name, value in needed.items() if value is None]
    if missing:
        raise ValueError(f"workload {workload!r} needs {', '.join(missing)} in workloads.yml for the planner")
    assert entry.gpu is not None
    gpu = entry.gpu
    # A workload's own links (a paper's cluster) come before the ones its GPU is sold with.
    nvlink, network = entry.interconnect or gpu.nvlink, entry.network or gpu.network
    if nvlink is None or network is None:
        raise ValueError(
            f"workload {workload!r} needs `interconnect:` and `network:`, or its GPU `nvlink:` and `network:`"
        )
    # The dense 16-bit peak: bf16 where the catalog gives it, else the 16-bit peak a paper states.
    peak = "peak_bf16_flops" if gpu.peak_bf16_flops is not None else "peak_fp16_flops"
    if not 0 < share <= 100:
        raise ValueError(f"a share of peak is a percentage above 0 and at most 100, got {share!r}")
    shape = transformer_shape(entry.model)
    model_fields = ("layers", "hidden", "heads", "vocabulary", *(("kv_heads", "ffn") if entry.model.kv_heads else ()))
    quantities = {
        "peak": catalog.quantity(gpu.id, peak),
        "memory": catalog.quantity(gpu.id, "memory"),
        "nvlink": catalog.quantity(nvlink.id, "bandwidth_per_direction"),
        "network": catalog.quantity(network.id, "bandwidth_per_direction"),
        "devices": catalog.quantity(workload, "devices"),
        "per_host": catalog.quantity(workload, "per_host"),
        "sequence": catalog.quantity(workload, "sequence"),
        "batch": catalog.quantity(workload, "batch"),
    }
    tokens = catalog.quantity(workload, "tokens") if entry.tokens is not None else None
    hardware = planner.Hardware(
        peak_flops=quantities["peak"].value,  # type: ignore[arg-type]
        memory=int(quantities["memory"].value),
        nvlink_bandwidth=quantities["nvlink"].value,  # type: ignore[arg-type]
        network_bandwidth=quantities["network"].value,  # type: ignore[arg-type]
        per_node=quantities["per_host"].count,
        nodes=quantities["devices"].count // quantities["per_host"].count,
    )
    run = planner.Run(
        sequence=quantities["sequence"].count,
        global_batch=quantities["batch"].count * quantities["sequence"].count,
        share=Fraction(share, 100),
        training_tokens=tokens.count if tokens is not None else None,
    )
    inputs = (
        *(catalog.quantity(entry.model.id, name) for name in model_fields),
        *quantities.values(),
        *((tokens,) if tokens is not None else ()),
    )
    return Setting(shape, hardware, run, inputs, quantities["devices"])


def fixed_fields(layout: str) -> dict[str, planner.Fixed]:
    """The fields a layout's name holds fixed (see the module's docstring).

    >>> fixed_fields("tp2-pp1-dp8-z3-mb1-none-sp")
    {'tp': 2, 'pp': 1, 'dp': 8, 'zero': 3, 'micro_batch': 1, 'recompute': 'none', 'sequence_parallel': True}
    >>> fixed_fields("best")
    {}

    Raises:
        ValueError: a field it does not know, or one given twice.
    """
    if not isinstance(layout, str) or not layout:
        raise ValueError(f"a layout is a name such as 'tp2-pp1-dp8-z3-mb1-none' or 'best', got {layout!r}")
    if layout == "best":
        return {}
    prefixes = (
        ("tp", "tp"),
        ("pp", "pp"),
        ("dp", "dp"),
        ("cp", "cp"),
        ("ep", "ep"),
        ("mb", "micro_batch"),
        ("z", "zero"),
        ("v", "chunks"),
    )
    fixed: dict[str, planner.Fixed] = {}
    for token in layout.split("-"):
        name: str
        value: planner.Fixed
        if token in planner.RECOMPUTATIONS:
            name, value = "recompute", token
        elif token in ("sp", "nosp"):
            name, value = "sequence_parallel", token == "sp"
        elif token in ("hsdp", "nohsdp"):
            name, value = "hybrid", token == "hsdp"
        else:
            # ASCII digits only: str.isdigit() takes '²' (which int() refuses) and '٢' (which it reads as 2).
            match = next(
                ((p, f) for p, f in prefixes if token.startswith(p) and _DIGITS.fullmatch(token[len(p) :])), None
            )
            if match is None:
                raise ValueError(
                    f"unknown layout field {token!r} in {layout!r}: use tpN, ppN, dpN, cpN, epN, zN, mbN, vN, sp or"
                    f" nosp, hsdp or nohsdp, {', '.join(planner.RECOMPUTATIONS)}, or 'best' alone"
                )
            name, value = match[1], int(token[len(match[0]) :])
            if value < 1 and name != "zero":
                raise ValueError(f"layout field {token!r} in {layout!r}: a degree or size is at least 1")
        if name in fixed:
            raise ValueError(f"layout {layout!r} gives {name} twice")
        fixed[name] = value
    return fixed


#: A layout field's number: ASCII digits.
_DIGITS = re.compile(r"[0-9]+")
#: Every plan computed so far from the catalog, by workload, layout and share.
_PLANS: PerCatalog[tuple[str, str, int], planner.Plan] = PerCatalog()


def plan_of(catalog: Catalog, workload: str, layout: str, share: int) -> tuple[planner.Plan, Setting]:
    """The plan the planner makes of `layout` on `workload`: the fastest that fits of those `layout` allows.

    Raises:
        ValueError: the layout breaks a rule (the first named) or none of those it allows fits.
    """
    found = setting(catalog, workload, share)
    plans = _PLANS.of(catalog)
    key = (workload, layout, share)
    if key not in plans:
        fixed = fixed_fields(layout)
        planned = planner.plan(found.shape, found.hardware, found.run, fixed)
        fitting = [p for p in planned.plans if p.fits]
        if not planned.plans:
            broken = planned.invalid[0].rule.message if planned.invalid else "no layout to consider"
            raise ValueError(f"layout {layout!r} of {workload!r} breaks a rule: {broken}")
        # A layout fixed in every field is shown whether it fits or not; a search takes the fastest that fits.
        if not fitting and len(planned.plans) > 1:
            raise ValueError(f"no layout {layout!r} of {workload!r} fits in the GPU's memory")
        plans[key] = fitting[0] if fitting else planned.plans[0]
    return plans[key], found


def layout_words(plan: planner.Plan) -> str:
    """A plan's layout in words: its degrees, ZeRO stage, micro-batch, recomputation and schedule."""
    lay = plan.layout
    sp = ", sequence parallel" if lay.sequence_parallel else ""
    schedule = f", interleaved in {lay.chunks} chunks" if lay.chunks > 1 else ""
    sharding = "hybrid sharding (ZeRO-3 within each node)" if lay.hybrid else f"ZeRO-{lay.zero}"
    # c and e, as the lessons on context and expert parallelism name their degrees.
    split = "".join(f", {name} = {degree}" for name, degree in (("c", lay.cp), ("e", lay.ep)) if degree > 1)
    return (
        f"t = {lay.tp}, p = {lay.pp}, d = {lay.dp}{split}, {sharding}{sp}, micro-batches of {lay.micro_batch}"
        f" sequence{'s' if lay.micro_batch > 1 else ''}, {_RECOMPUTE_WORDS[lay.recompute]}{schedule}"
    )


def _assumed(found: Setting) -> str:
    run = found.run
    return (
        f"{format_quantity(run.share, '1', percent=True)} of peak in the GEMMs, recipe {run.recipe},"
        f" {format_quantity(run.reserve, '1', percent=True)} of memory held back, {run.attention} attention"
    )


def _checked(value: str, known: tuple[str, ...] | dict[str, str], what: str) -> None:
    if value not in known:
        raise KeyError(f"unknown {what} {value!r}; known: {', '.join(known)}")


@figure_kind("plan-memory")
def plan_memory(
    catalog: Catalog, workload: str, layout: str, role: str = "total", share: int = DEFAULT_SHARE
) -> Computed:
    """Bytes of one role (parameters, gradients, optimizer, activations, reserve, or the total) on a layout's most
    loaded GPU, as the planner counts them."""
    _checked(role, MEMORY_PARTS, "memory role")
    plan, found = plan_of(catalog, workload, layout, share)
    value = plan.memory.by_role()[role]
    stage = "first" if plan.stage == 0 else "last"
    where = f"a GPU of the {stage} pipeline stage" if plan.layout.pp > 1 else "each GPU"
    devices = shown(found.devices)
    words = f"{role} bytes on {where}, {layout_words(plan)}, on {devices} GPUs (the planner: {_assumed(found)})"
    formula = "the planner's bytes by role on the most loaded GPU"
    return Computed(value, "B", formula, words, found.inputs)


@figure_kind("plan-fill")
def plan_fill(catalog: Catalog, workload: str, layout: str, share: int = DEFAULT_SHARE) -> Computed:
    """A layout's bytes on its most loaded GPU over what CUDA gives programs: it fits at 100% or less."""
    plan, found = plan_of(catalog, workload, layout, share)
    value = plan.memory.total / plan.capacity
    words = (
        f"{format_quantity(plan.memory.total, 'B')} (reserve included) of {format_quantity(plan.capacity, 'B')},"
        f" {layout_words(plan)} ({'fits' if plan.fits else 'does not fit'})"
    )
    return Computed(value, "1", "bytes on the most loaded GPU ÷ memory CUDA gives programs", words, found.inputs)


@figure_kind("plan-time")
def plan_time(
    catalog: Catalog, workload: str, layout: str, part: str = "total", share: int = DEFAULT_SHARE
) -> Computed:
    """Seconds of one part of a layout's step (compute, bubble, tensor, data, pipeline, context, expert) or the
    whole step, as the planner bounds them at the stated share of peak and the links' line rates."""
    _checked(part, TIME_PARTS, "part of a step")
    plan, found = plan_of(catalog, workload, layout, share)
    value = plan.step_seconds if part == "total" else plan.time.by_part()[part]
    words = f"{_PART_WORDS[part]} seconds, {layout_words(plan)}, on {shown(found.devices)} GPUs ({_assumed(found)})"
    return Computed(value, "s", f"the planner's {part} time of a step", words, found.inputs)


def _measure(plan: planner.Plan, measure: str) -> Fraction:
    """One of a plan's `MEASURES`; a run's time needs the workload's training tokens."""
    if measure == "tokens_per_second":
        return plan.tokens_per_second
    if measure == "mfu":
        return plan.share_of_peak
    if plan.gpu_hours is None:
        raise ValueError("the workload has no `tokens:` in workloads.yml: a run's time needs its training tokens")
    gpu_seconds = plan.gpu_hours * 3600
    gpus = plan.layout.tp * plan.layout.pp * plan.layout.dp
    return gpu_seconds if measure == "gpu_seconds" else gpu_seconds / gpus


_MEASURE_WORDS = {
    "tokens_per_second": ("tokens per step ÷ step", "tokens per second, the global batch over the step"),
    "mfu": ("model FLOPs per second ÷ (GPUs × peak)", "model FLOPs (6N + attention) per second over the GPUs' peak"),
    "gpu_seconds": ("training tokens ÷ tokens per second × GPUs", "GPU time of the run"),
    "run_seconds": ("training tokens ÷ tokens per second", "wall-clock time of the run"),
}


@figure_kind("plan-rate")
def plan_rate(
    catalog: Catalog, workload: str, layout: str, measure: str = "tokens_per_second", share: int = DEFAULT_SHARE
) -> Computed:
    """A layout's tokens per second, its MFU, or the run's GPU time or wall-clock time over the training tokens."""
    _checked(measure, MEASURES, "measure")
    plan, found = plan_of(catalog, workload, layout, share)
    value = _measure(plan, measure)
    formula, what = _MEASURE_WORDS[measure]
    step = format_quantity(plan.step_seconds, "s")
    words = f"{what}: a step of {step}, {layout_words(plan)}, on {shown(found.devices)} GPUs ({_assumed(found)})"
    display = {"scale": "hours"} if measure == "gpu_seconds" else {}
    return Computed(value, MEASURES[measure], formula, words, found.inputs, display)


@figure_kind("plan-degree")
def plan_degree(catalog: Catalog, workload: str, layout: str, field: str, share: int = DEFAULT_SHARE) -> Computed:
    """One field of the layout the planner takes: a degree, the ZeRO stage, the micro-batch, the micro-batches per
    step of a replica (`microbatches`), or the chunks of an interleaved schedule."""
    _checked(field, DEGREES, "layout field")
    plan, found = plan_of(catalog, workload, layout, share)
    lay = plan.layout
    sequences = found.run.global_batch // found.run.sequence
    value = sequences // (lay.dp * lay.micro_batch) if field == "microbatches" else getattr(lay, field)
    words = f"{_DEGREE_WORDS[field]} of the fastest layout that fits among those asked for: {layout_words(plan)}"
    return Computed(value, "1", f"the planner's {_DEGREE_WORDS[field]}", words, found.inputs)


@figure_kind("plan-implied-share")
def plan_implied_share(catalog: Catalog, workload: str, claim: str) -> Computed:
    """The share of peak a reported GPU time stands for: the run's model FLOPs (6N + attention per token, the
    planner's count) over the GPU-seconds reported × the GPU's peak."""
    found = setting(catalog, workload, DEFAULT_SHARE)
    if found.run.training_tokens is None:
        raise ValueError(f"workload {workload!r} has no `tokens:` in workloads.yml: the run's FLOPs need them")
    reported = catalog.quantity(claim, "gpu_time")
    count = parameter_count(found.shape)
    per_token = planner.flops_per_token(found.shape, count, found.run.sequence, "none")
    flops = per_token * found.run.training_tokens
    value = flops / (Fraction(reported.value) * Fraction(found.hardware.peak_flops))
    hours = format_quantity(reported.value, "s", scale="hours")
    words = (
        f"{format_quantity(flops, 'FLOP', scientific=True)} ({format_quantity(per_token, 'FLOP')} per token, 6N +"
        f" attention at {found.run.sequence}-token sequences, × the training tokens) ÷ ({hours} of GPU time"
        f" × {format_quantity(found.hardware.peak_flops, 'FLOP/s')})"
    )
    formula = "(6N + attention) × tokens ÷ (reported GPU-seconds × peak)"
    return Computed(value, "1", formula, words, (*found.inputs, reported))
