"""Activations under model parallelism: what one device keeps per layer by technique, and what selective
recomputation drops (Korthikanti et al. 2022, Table 2 and §5; `model.parallel_activations`)."""

from __future__ import annotations

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind
from .tensor import check_per, for_all_layers, microbatch


@figure_kind("layer-activations")
def layer_activations(catalog: Catalog, workload: str, technique: str = "none", per: str = "layer") -> Computed:
    """Activation bytes one device keeps per layer (or for all layers) by technique (Korthikanti et al., Table 2)."""
    check_per(per)
    setting = catalog.workload(workload)
    b = microbatch(catalog, workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.id, "hidden")
    a = catalog.quantity(setting.id, "heads")
    inputs: tuple[Quantity, ...] = (b, s, h, a)
    tensor = 1
    if setting.tensor is not None:
        t = catalog.quantity(workload, "tensor")
        tensor = t.count
        inputs += (t,)
    value = model.parallel_activations.layer_activation_bytes(s.count, b.count, h.count, a.count, tensor, technique)
    formula = model.parallel_activations.TECHNIQUE_FORMULAS[technique] + " B"
    words = (
        f"{formula} with sequence {shown(s)}, microbatch {shown(b)}, hidden {shown(h)}, {shown(a)} heads"
        f"{f', t = {tensor}' if tensor > 1 else ''} (Korthikanti et al., Table 2), per layer"
    )
    if per == "model":
        value, formula, words, inputs = for_all_layers(catalog, workload, value, formula, words, inputs)
    return Computed(value, "B", formula, words, inputs)


@figure_kind("attention-ratio")
def attention_ratio(catalog: Catalog, workload: str) -> Computed:
    """5as/h: the attention scores' activations against the rest's, in units of sbh (Korthikanti et al. §5)."""
    setting = catalog.workload(workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.id, "hidden")
    a = catalog.quantity(setting.id, "heads")
    value = model.attention_score_term(a.count, s.count, h.count)
    return Computed(value, "1", "5as/h", f"5 × {shown(a)} heads × sequence {shown(s)} ÷ hidden {shown(h)}", (a, s, h))


@figure_kind("selective-saving")
def selective_saving(catalog: Catalog, workload: str, technique: str = "none") -> Computed:
    """The share of a layer's activations that selective recomputation drops, against `technique`'s row of Table 2.

    `none` (no parallelism) and `tensor-sequence` give (5as/h)/(34 + 5as/h), as Korthikanti et al. §5 count it;
    `tensor`, tensor parallelism alone with its 10sbh undivided, gives less, with the workload's t.
    """
    setting = catalog.workload(workload)
    s = catalog.quantity(workload, "sequence")
    h = catalog.quantity(setting.id, "hidden")
    a = catalog.quantity(setting.id, "heads")
    inputs: tuple[Quantity, ...] = (a, s, h)
    formulas = model.parallel_activations.TECHNIQUE_FORMULAS
    if technique == "none":
        tensor, base = 1, "tensor"
        # Table 2 has no row for selective recomputation without parallelism: its tensor row's at t = 1.
        formula, kept, against = "(5as/h) / (34 + 5as/h)", "sbh(34)", formulas["none"]
    else:
        if technique not in model.parallel_activations.SELECTIVE:
            raise KeyError(f"unknown technique {technique!r}; known: none, tensor, tensor-sequence")
        t = catalog.quantity(workload, "tensor")
        tensor, base, inputs = t.count, technique, (*inputs, t)
        kept, against = formulas[model.parallel_activations.SELECTIVE[technique]], formulas[technique]
        formula = f"1 − {kept} / {against}"
    value = model.parallel_activations.selective_saving(s.count, h.count, a.count, tensor, base)
    ratio = model.attention_score_term(a.count, s.count, h.count)
    words = (
        f"1 − {kept} ÷ {against} with 5as/h = {format_quantity(ratio, '1')}"
        f"{f', t = {tensor}' if tensor > 1 else ''} (Korthikanti et al., Table 2 and §5)"
    )
    return Computed(value, "1", formula, words, inputs)
