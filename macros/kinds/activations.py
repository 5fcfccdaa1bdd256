"""Activation memory counted tensor by tensor (Korthikanti et al. 2022), beside ZeRO's rough estimate."""

from __future__ import annotations

from .. import model
from ..catalog import Catalog, Quantity
from ..figures import Computed, shown
from ..quantities import round_significant
from .registry import figure_kind


def _shape(catalog: Catalog, workload: str) -> tuple[Quantity, Quantity, Quantity, Quantity, Quantity]:
    """A workload's sequence, micro-batch, and its model's hidden size, attention heads and layers."""
    setting = catalog.workload(workload)
    sequence = catalog.quantity(workload, "sequence")
    batch = catalog.quantity(workload, "batch")
    hidden = catalog.quantity(setting.model.id, "hidden")
    heads = catalog.quantity(setting.model.id, "heads")
    layers = catalog.quantity(setting.model.id, "layers")
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
