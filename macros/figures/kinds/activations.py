"""Activation memory counted tensor by tensor (Korthikanti et al. 2022), beside ZeRO's rough estimate."""

from __future__ import annotations

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import round_significant
from ..figure import Computed, shown
from .registry import figure_kind


def _shape(catalog: Catalog, workload: str) -> tuple[Quantity, Quantity, Quantity, Quantity, Quantity]:
    """A workload's sequence, micro-batch, and its model's hidden size, attention heads and layers."""
    setting = catalog.workload(workload)
    sequence = catalog.quantity(workload, "sequence")
    batch = catalog.quantity(workload, "batch")
    hidden = catalog.quantity(setting.id, "hidden")
    heads = catalog.quantity(setting.id, "heads")
    layers = catalog.quantity(setting.id, "layers")
    return sequence, batch, hidden, heads, layers


def _layer_bytes_words(sequence: Quantity, heads: Quantity, hidden: Quantity) -> tuple[str, str]:
    """One layer's bytes per token and hidden unit, 34 + 5as/h, in symbols and with the inputs shown."""
    linear = sum(model.LINEAR_BYTES_PER_TOKEN_HIDDEN.values())
    scores = model.ATTENTION_SCORE_BYTES
    per_token = linear + model.attention_score_term(heads.count, sequence.count, hidden.count)
    equals = "=" if per_token.denominator == 1 else "≈"
    formula = f"({linear} + {scores} × heads × sequence / hidden) B"
    words = (
        f"({linear} + {scores} × {shown(heads)} heads × {shown(sequence)} / {shown(hidden)}"
        f" {equals} {round_significant(per_token, 3)}) bytes"
    )
    return formula, words


@figure_kind("activations-by-tensor")
def activations_by_tensor(catalog: Catalog, workload: str, recompute: str = "none") -> Computed:
    """Activation bytes of a workload's layers as Korthikanti et al. count them: sbhL(34 + 5as/h), 34sbhL or 2sbhL.

    With `recompute="selective"`, no layer keeps its attention scores (Table 2,
    selective activation recomputation; also what a FlashAttention-style kernel
    keeps, give or take its softmax statistics); with `recompute="full"`, each
    layer keeps only its input (Table 2, full activation recomputation).
    """
    sequence, batch, hidden, heads, layers = _shape(catalog, workload)
    value = model.activation_bytes_total(
        sequence.count, batch.count, hidden.count, heads.count, layers.count, recompute
    )
    size = (
        f"sequence {shown(sequence)} × micro-batch {shown(batch)} × hidden size {shown(hidden)}"
        f" × {shown(layers)} layers"
    )
    if recompute == "full":
        per = model.CHECKPOINT_BYTES_PER_TOKEN_HIDDEN
        formula = f"{per} B × sequence × micro-batch × hidden × layers"
        words = f"{per} bytes (each layer's 16-bit input) × {size} (Korthikanti et al. 2022, Table 2)"
    elif recompute == "selective":
        linear = sum(model.LINEAR_BYTES_PER_TOKEN_HIDDEN.values())
        formula = f"{linear} B × sequence × micro-batch × hidden × layers"
        words = (
            f"{linear} bytes (everything a layer keeps but its attention scores, in 16-bit) × {size}"
            " (Korthikanti et al. 2022, Table 2, selective recomputation)"
        )
    else:
        layer_formula, layer_words = _layer_bytes_words(sequence, heads, hidden)
        formula = f"sequence × micro-batch × hidden × {layer_formula} × layers"
        words = f"{layer_words} × {size} (Korthikanti et al. 2022, Equation 1)"
    return Computed(value, "B", formula, words, (sequence, batch, hidden, heads, layers))


@figure_kind("checkpointed-peak")
def checkpointed_peak(catalog: Catalog, workload: str) -> Computed:
    """Activation bytes at the peak of full recomputation: every layer's stored input, plus one layer rebuilt.

    2sbhL + sbh(34 + 5as/h): Korthikanti et al. 2022's stored inputs (§5) and
    one layer's activations (Equation 1), added as Chen et al. 2016 add them (§4.3).
    """
    sequence, batch, hidden, heads, layers = _shape(catalog, workload)
    value = model.checkpointed_peak_bytes(sequence.count, batch.count, hidden.count, heads.count, layers.count)
    per = model.CHECKPOINT_BYTES_PER_TOKEN_HIDDEN
    layer_formula, layer_words = _layer_bytes_words(sequence, heads, hidden)
    tokens = f"sequence {shown(sequence)} × micro-batch {shown(batch)} × hidden size {shown(hidden)}"
    formula = f"{per} B × sequence × micro-batch × hidden × layers + sequence × micro-batch × hidden × {layer_formula}"
    words = (
        f"{per} bytes (each layer's 16-bit input) × {tokens} × {shown(layers)} layers, plus {layer_words}"
        f" × {tokens} for the one layer being recomputed (Korthikanti et al. 2022, §5 and Equation 1;"
        " Chen et al. 2016, §4.3)"
    )
    return Computed(value, "B", formula, words, (sequence, batch, hidden, heads, layers))


#: How each count reads in a figure's words, with the attention kernel it assumes.
_COUNT_WORDS = {
    "zero": "ZeRO's estimate, 12 values of 2 bytes (ZeRO §3.2, footnote 3)",
    "stored-scores": (
        "Korthikanti et al.'s count with an attention kernel that stores the scores, 34 + 5as/h bytes"
        " (Korthikanti et al. 2022, Equation 1)"
    ),
    "fused-attention": (
        "Korthikanti et al.'s count with a fused attention kernel that never stores the scores, 34 bytes"
        " (Korthikanti et al. 2022, §4.1 without the 5as²b term)"
    ),
}


@figure_kind("activations-counted")
def activations_counted(catalog: Catalog, workload: str, count: str) -> Computed:
    """16-bit activation bytes as `count` counts them: ZeRO's 24sbhL, Korthikanti's sbhL(34 + 5as/h) or 34sbhL."""
    sequence, batch, hidden, heads, layers = _shape(catalog, workload)
    value = model.activation_bytes_counted(sequence.count, batch.count, hidden.count, heads.count, layers.count, count)
    per = model.bytes_per_token_hidden(sequence.count, hidden.count, heads.count, count)
    size = f"sequence {shown(sequence)} × batch {shown(batch)} × hidden size {shown(hidden)} × {shown(layers)} layers"
    return Computed(
        value,
        "B",
        "bytes per token and hidden unit × sequence × batch × hidden × layers",
        f"{round_significant(per, 3)} bytes per token and hidden unit, {_COUNT_WORDS[count]}, × {size}",
        (sequence, batch, hidden, heads, layers),
    )


@figure_kind("activations-over-zero")
def activations_over_zero(catalog: Catalog, workload: str, count: str) -> Computed:
    """How many times ZeRO's 24sbh Korthikanti et al.'s count of a layer's activations is: (34 + 5as/h)/24 or 34/24."""
    sequence, _, hidden, heads, _ = _shape(catalog, workload)
    per = model.bytes_per_token_hidden(sequence.count, hidden.count, heads.count, count)
    zero = model.ZERO_BYTES_PER_TOKEN_HIDDEN
    return Computed(
        per / zero,
        "1",
        "Korthikanti's bytes per token and hidden unit ÷ ZeRO's",
        f"{round_significant(per, 3)} bytes, {_COUNT_WORDS[count]}, ÷ {zero} bytes, {_COUNT_WORDS['zero']},"
        f" at sequence {shown(sequence)}, {shown(heads)} heads, hidden size {shown(hidden)}",
        (sequence, hidden, heads),
    )
