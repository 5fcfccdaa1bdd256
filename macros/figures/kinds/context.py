"""Context parallelism: each device's activations, the ring's key/value bytes, when they hide, the causal mask's
work per device and the per-device tokens of a run (`model.context`)."""

from __future__ import annotations

import math
from fractions import Fraction

from ...data.catalog import Catalog, Quantity, Workload
from ...data.quantities import format_quantity
from ...model import context
from ..figure import Computed, shown
from .registry import figure_kind


def _split(
    catalog: Catalog, entry: str, sequence: int | None, degree: int | None
) -> tuple[str, int, int, tuple[Quantity, ...]]:
    """The model, sequence and context-parallel degree a figure counts: a workload's own (its `sequence` and
    `context`), or a model's with the call's `sequence` and `degree` (a chart's axis and series)."""
    record = catalog.entry(entry)
    if isinstance(record, Workload):
        if sequence is not None or degree is not None:
            raise KeyError(f"workload {entry!r} has its own sequence and context degree; give neither")
        s, c = catalog.quantity(entry, "sequence"), catalog.quantity(entry, "context")
        return record.model.id, s.count, c.count, (s, c)
    if sequence is None or degree is None:
        raise KeyError(f"model {entry!r} needs a sequence and a degree, or name a workload that has both")
    return entry, sequence, degree, ()


@figure_kind("cp-activations")
def cp_activations(
    catalog: Catalog, entry: str, sequence: int | None = None, degree: int | None = None, scores: str = "fused"
) -> Computed:
    """Bytes of one layer's activations on each of `degree` context-parallel devices, for one sequence of `sequence`
    tokens (a workload's own, if `entry` is one): 34(s/c)bh with a fused attention kernel, (s/c)bh(34 + 5as/h)
    with stored scores (Korthikanti et al.)."""
    entry, sequence, degree, split = _split(catalog, entry, sequence, degree)
    h = catalog.quantity(entry, "hidden")
    a = catalog.quantity(entry, "heads")
    value = context.activation_bytes_per_device(sequence, 1, h.count, a.count, degree, scores=scores)
    if scores == "fused":
        formula = "34 × (s/c) × b × h B"
        words = f"34 bytes × {sequence}/{degree} tokens × 1 sequence × hidden size {shown(h)}"
    else:
        formula = "(s/c) × b × h × (34 + 5as/h) B"
        words = (
            f"{sequence}/{degree} tokens × 1 sequence × hidden size {shown(h)} × (34 + 5 × {shown(a)} heads"
            f" × {sequence} / {shown(h)}) bytes"
        )
    return Computed(value, "B", formula, words, (h, a, *split))


@figure_kind("ring-kv-bytes")
def ring_kv_bytes(
    catalog: Catalog, entry: str, ring_pass: str = "forward", sequence: int | None = None, degree: int | None = None
) -> Computed:
    """Bytes each device sends per layer for ring attention over `degree` devices, one sequence, 16-bit keys and
    values: one block (2 × (s/c) × h_kv values), c − 1 of them forward, twice that backward. A workload with
    t-way tensor parallelism splits the heads t ways, so each GPU's ring carries its kv_heads/t of them."""
    record = catalog.entry(entry)
    tensor = catalog.quantity(entry, "tensor") if isinstance(record, Workload) and record.tensor else None
    entry, sequence, degree, split = _split(catalog, entry, sequence, degree)
    h = catalog.quantity(entry, "hidden")
    a = catalog.quantity(entry, "heads")
    model = catalog.model(entry)
    kv = catalog.quantity(entry, "kv_heads") if model.kv_heads is not None else a
    t = tensor.count if tensor is not None else 1
    if kv.count % t:
        raise KeyError(f"{t}-way tensor parallelism does not divide the {kv.count} key-value heads")
    # Megatron-Core splits the query and the key-value heads alike over the tensor-parallel group.
    value = context.ring_bytes_per_layer(sequence, 1, h.count // t, a.count // t, kv.count // t, degree, ring_pass)
    times = {"block": "", "forward": f"({degree} − 1) × ", "backward": f"2 × ({degree} − 1) × "}[ring_pass]
    symbols = {"block": "", "forward": "(c − 1) × ", "backward": "2(c − 1) × "}[ring_pass]
    heads = f"{shown(kv)} key-value heads" if tensor is None else f"{shown(kv)}/{shown(tensor)} key-value heads per GPU"
    words = (
        f"{times}2 (keys and values) × {sequence}/{degree} tokens × {heads} × {shown(h)}/{shown(a)} values per head"
        " × 2 bytes"
    )
    width = "h_kv" if tensor is None else "(h_kv/t)"
    inputs = (h, a, kv, *split) if tensor is None else (h, a, kv, tensor, *split)
    return Computed(value, "B", f"{symbols}2 × (s/c) × {width} × 2 B", words, inputs)


@figure_kind("ring-hiding-tokens")
def ring_hiding_tokens(catalog: Catalog, entry: str, gpu: str, interconnect: str, mask: str = "full") -> Computed:
    """Tokens each device must hold, s/c, for a key/value block's transfer over `interconnect` to hide behind its
    attention at the GPU's bf16 peak: e·h_kv·F/(2h·W) for a full mask, twice that for a causal one."""
    h = catalog.quantity(entry, "hidden")
    a = catalog.quantity(entry, "heads")
    record = catalog.model(entry)
    kv = catalog.quantity(entry, "kv_heads") if record.kv_heads is not None else a
    peak = catalog.quantity(gpu, "peak_bf16_flops")
    link = catalog.quantity(interconnect, "bandwidth_per_direction")
    bound = context.hiding_tokens(h.count, a.count, kv.count, Fraction(peak.value), Fraction(link.value), mask)
    factor = "2 × " if mask == "causal" else ""
    words = (
        f"{factor}{shown(kv)}/{shown(a)} (key-value heads per query head) × {shown(peak)} ÷ {shown(link)},"
        f" 16-bit keys and values: the least tokens per device, rounded up, whose {mask}-mask attention outlasts"
        " the transfer of the next block"
    )
    formula = ("2 × " if mask == "causal" else "") + "(h_kv/h) × F ÷ W"
    return Computed(math.ceil(bound), "1", formula, words, (h, a, kv, peak, link))


@figure_kind("causal-work")
def causal_work(catalog: Catalog, rank: int, degree: int, split: str = "contiguous") -> Computed:
    """Share of a causal mask's work that device `rank` of `degree` does, as a share of the whole mask's: the
    contiguous split gives device r (2r + 1)/(2c²) of the s² pairs, the zig-zag split each 1/(2c)."""
    if split not in ("contiguous", "zigzag"):
        raise KeyError(f"unknown split {split!r}; known: contiguous, zigzag")
    share = context.causal_work(rank, degree, split == "zigzag")
    whole = sum((context.causal_work(r, degree, False) for r in range(degree)), share * 0)
    value = share / whole
    formula = "(2r + 1)/(2c²) ÷ 1/2" if split == "contiguous" else "(1/(2c)) ÷ 1/2"
    words = f"device {rank} of {degree}, {split} split: its query-key pairs under the causal mask, of all of them"
    return Computed(value, "1", formula, words, ())


@figure_kind("cp-tokens")
def cp_tokens(catalog: Catalog, workload: str) -> Computed:
    """Tokens of a sequence each context-parallel device of a workload holds: s/c."""
    s = catalog.quantity(workload, "sequence")
    c = catalog.quantity(workload, "context")
    value = context.tokens_per_device(s.count, c.count)
    return Computed(value, "1", "s/c", f"{shown(s)} tokens ÷ {shown(c)} context-parallel devices", (s, c))


@figure_kind("cp-hiding-margin")
def cp_hiding_margin(catalog: Catalog, workload: str, interconnect: str, mask: str = "causal") -> Computed:
    """How many times the tokens a workload's devices hold are the least that hide the ring's transfer over
    `interconnect` at the workload's GPU's peak (above 1: hidden)."""
    setting = catalog.workload(workload)
    if setting.gpu is None:
        raise KeyError(f"workload {workload!r} names no gpu")
    held = cp_tokens(catalog, workload)
    bound = ring_hiding_tokens(catalog, setting.model.id, setting.gpu.id, interconnect, mask)
    value = held.value / bound.value
    words = (
        f"{format_quantity(held.value, '1')} tokens per device ÷ {format_quantity(bound.value, '1')}, the least"
        f" that hide a block's transfer ({bound.words})"
    )
    return Computed(value, "1", "(s/c) ÷ least tokens that hide", words, (*held.inputs, *bound.inputs))
