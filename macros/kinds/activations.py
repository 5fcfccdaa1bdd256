"""Activation memory counted tensor by tensor (Korthikanti et al. 2022), beside ZeRO's rough estimate."""

from __future__ import annotations

from .. import model
from ..catalog import Catalog
from ..figures import Computed, shown
from ..quantities import round_significant
from .registry import figure_kind


@figure_kind("activations-by-tensor")
def activations_by_tensor(catalog: Catalog, workload: str, recompute: str = "none") -> Computed:
    """Activation bytes of a workload's layers as Korthikanti et al. count them: sbhL(34 + 5as/h), 34sbhL or 2sbhL.

    With `recompute="selective"`, no layer keeps its attention scores (Table 2,
    selective activation recomputation; also what a FlashAttention-style kernel
    keeps, give or take its softmax statistics); with `recompute="full"`, each
    layer keeps only its input (Table 2, full activation recomputation).
    """
    setting = catalog.workload(workload)
    sequence = catalog.quantity(workload, "sequence")
    batch = catalog.quantity(workload, "batch")
    hidden = catalog.quantity(setting.model.id, "hidden")
    heads = catalog.quantity(setting.model.id, "heads")
    layers = catalog.quantity(setting.model.id, "layers")
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
        linear = sum(model.LINEAR_BYTES_PER_TOKEN_HIDDEN.values())
        scores = model.ATTENTION_SCORE_BYTES
        per_token = linear + model.attention_score_term(heads.count, sequence.count, hidden.count)
        equals = "=" if per_token.denominator == 1 else "≈"
        formula = f"sequence × micro-batch × hidden × ({linear} + {scores} × heads × sequence / hidden) B × layers"
        words = (
            f"({linear} + {scores} × {shown(heads)} heads × {shown(sequence)} / {shown(hidden)}"
            f" {equals} {round_significant(per_token, 3)}) bytes × {size}"
            " (Korthikanti et al. 2022, Equation 1)"
        )
    return Computed(value, "B", formula, words, (sequence, batch, hidden, heads, layers))
