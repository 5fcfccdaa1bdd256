"""Pipeline parallelism: the bubble read off the GPipe and 1F1B schedules, stage boundaries, stage memory."""

from __future__ import annotations

from fractions import Fraction

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind
from .tensor import microbatch

#: How each denominator's bubble reads in its source.
_FORMS = {
    "ideal": ("(p − 1)/m", "of the ideal time (Narayanan et al. §2.2.1)"),
    "total": ("(K − 1)/(M + K − 1)", "of the whole schedule's time (GPipe §2.3)"),
}
_NAMES = {"gpipe": "GPipe", "1f1b": "1F1B"}


def _bubble(schedule: str, stages: int, microbatches: int, denominator: str, backward: int = 1) -> Computed:
    runs = model.pipeline.schedule(schedule, stages, microbatches, backward=backward)
    value = model.pipeline.bubble_share(runs, denominator)
    symbols, where = _FORMS[denominator]
    passes = f", each backward pass {backward} times as long as a forward" if backward > 1 else ""
    words = (
        f"idle time slots of a stage in the {_NAMES[schedule]} schedule of {stages} stages and"
        f" {microbatches} microbatches{passes}, as a share {where}: {symbols}"
    )
    return Computed(value, "1", f"bubble = {symbols}, read off the {_NAMES[schedule]} schedule", words)


@figure_kind("pipeline-bubble")
def pipeline_bubble(
    catalog: Catalog,
    stages: int,
    microbatches: int,
    schedule: str = "1f1b",
    denominator: str = "ideal",
    backward: int = 1,
) -> Computed:
    """The bubble of a schedule of `stages` stages and `microbatches` microbatches, read off the schedule.

    `backward` is how many time slots a backward pass takes against a forward pass's one.
    """
    return _bubble(schedule, stages, microbatches, denominator, backward)


def _pipeline(catalog: Catalog, workload: str) -> tuple[Quantity, int, int]:
    """A workload's pipeline degree, and its microbatches per pipeline, m = B / (d·b) with d = n / (t·p)."""
    p = catalog.quantity(workload, "pipeline")
    degrees = model.layout.degrees(
        "ptd",
        catalog.quantity(workload, "tensor").count,
        p.count,
        catalog.quantity(workload, "devices").count,
    )
    b = microbatch(catalog, workload).count
    batch = catalog.quantity(workload, "batch").count
    return p, degrees[2], batch // (degrees[2] * b)


@figure_kind("microbatches")
def microbatches(catalog: Catalog, workload: str) -> Computed:
    """Microbatches per pipeline in one step: m = B / (d·b), with d = n / (t·p) data-parallel replicas."""
    p, d, m = _pipeline(catalog, workload)
    batch = catalog.quantity(workload, "batch")
    b = microbatch(catalog, workload)
    words = f"batch {shown(batch)} ÷ ({d} replicas × microbatch {shown(b)})"
    return Computed(m, "1", "B / (d·b)", words, (batch, b, p))


@figure_kind("bubble")
def bubble(catalog: Catalog, workload: str, schedule: str = "1f1b", denominator: str = "ideal") -> Computed:
    """A workload's bubble, read off its schedule with its pipeline degree and microbatches."""
    p, _, m = _pipeline(catalog, workload)
    computed = _bubble(schedule, p.count, m, denominator)
    return Computed(computed.value, "1", computed.formula, computed.words, (p,))


@figure_kind("interleaved-bubble")
def interleaved_bubble(catalog: Catalog, workload: str, chunks: int) -> Computed:
    """The interleaved schedule's bubble with `chunks` model chunks per device: (1/v)·(p − 1)/m (§2.2.2)."""
    p, _, m = _pipeline(catalog, workload)
    value = model.pipeline.interleaved_bubble(p.count, m, chunks)
    words = f"(1/{chunks}) × ({shown(p)} − 1)/{m} (Narayanan et al. §2.2.2)"
    return Computed(value, "1", "(1/v)·(p − 1)/m", words, (p,))


@figure_kind("stashed-microbatches")
def stashed_microbatches(
    catalog: Catalog, stages: int, microbatches: int, schedule: str = "1f1b", stage: int = 0
) -> Computed:
    """The most microbatches whose activations one stage holds at once, read off the schedule."""
    runs = model.pipeline.schedule(schedule, stages, microbatches)
    value = model.pipeline.stashed_microbatches(runs, stage)
    words = (
        f"microbatches stage {stage + 1} has run forward but not yet backward, at most, in the"
        f" {_NAMES[schedule]} schedule of {stages} stages and {microbatches} microbatches"
    )
    return Computed(value, "1", "max in-flight microbatches", words)


@figure_kind("boundary-bytes")
def boundary_bytes(catalog: Catalog, workload: str, scatter: str = "none") -> Computed:
    """Bytes that cross one stage boundary per microbatch in each direction: b·s·h values, ÷ t with scatter/gather."""
    if scatter not in ("none", "gather"):
        raise KeyError(f"unknown scatter {scatter!r}; known: none, gather")
    setting = catalog.workload(workload)
    b = microbatch(catalog, workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.id, "hidden")
    per_value = model.BYTES_PER_VALUE["fp16"]
    inputs: tuple[Quantity, ...] = (b, s, h)
    tensor = 1
    words = f"microbatch {shown(b)} × sequence {shown(s)} × hidden {shown(h)} values × {per_value} bytes (16-bit)"
    formula = f"bsh × {per_value} B"
    if scatter == "gather":
        t = catalog.quantity(workload, "tensor")
        tensor = t.count
        inputs += (t,)
        words += f" ÷ {shown(t)} tensor-parallel ranks (scatter/gather, Narayanan et al. §4.1)"
        formula += " ÷ t"
    value = model.pipeline.boundary_bytes(b.count, s.count, h.count, per_value, tensor)
    return Computed(value, "B", formula, words, inputs)


@figure_kind("stage-activations")
def stage_activations(
    catalog: Catalog, workload: str, schedule: str = "1f1b", technique: str = "tensor-sequence"
) -> Computed:
    """Activation bytes the first stage holds: stashed microbatches × layers per stage × bytes per layer."""
    setting = catalog.workload(workload)
    p, _, m = _pipeline(catalog, workload)
    layers = catalog.quantity(setting.id, "layers")
    b = microbatch(catalog, workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.id, "hidden")
    a = catalog.quantity(setting.id, "heads")
    t = catalog.quantity(workload, "tensor")
    if layers.count % p.count:
        raise ValueError(f"{shown(layers)} layers do not split into {shown(p)} stages")
    runs = model.pipeline.schedule(schedule, p.count, m)
    held = model.pipeline.stashed_microbatches(runs)
    activations = model.parallel_activations
    per_layer = activations.layer_activation_bytes(s.count, b.count, h.count, a.count, t.count, technique)
    value = held * Fraction(layers.count, p.count) * per_layer
    words = (
        f"{held} microbatches held ({_NAMES[schedule]}, {shown(p)} stages, {m} microbatches) ×"
        f" {layers.count // p.count} layers per stage × {format_quantity(per_layer, 'B')} per layer"
        f" ({model.parallel_activations.TECHNIQUE_FORMULAS[technique]}, Korthikanti et al.)"
    )
    return Computed(value, "B", "stashed × L/p × bytes per layer", words, (p, layers, b, s, h, a, t))
